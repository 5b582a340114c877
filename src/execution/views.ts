/** Wire views of devices and execution jobs (platform envelope `data`). */
import { formatMicros } from '../billing/money.js';
import type { ResolvedDevice } from './device-directory.js';
import { EXECUTION_FAILURE } from './error-codes.js';
import type { ExecutionJob } from './execution-job.js';
import type { HeldJob } from './ports.js';
import { simulatorMethodsView } from './simulator-methods.js';
import { submittedByView } from '../orgs/submitter.js';
import { hardwareResultSupport } from './hardware-workload.js';
import { mitigationView } from './mitigation/device-mitigation.js';

export const BIT_ORDER =
  'Each key is a string of num_clbits bits with clbit 0 rightmost (Qiskit / OpenQASM order); with several classical registers (see registers) the registers are separated by a space, the last declared leftmost.';

export function deviceView(d: ResolvedDevice) {
  const s = d.profile.spec;
  const pricing = d.profile.pricing;
  return {
    id: s.id,
    provider: s.provider,
    name: s.name,
    kind: s.kind,
    driver: d.profile.driver,
    num_qubits: s.numQubits,
    topology: s.topology,
    native_gates: [...s.nativeGates],
    coupling_map: s.couplingMap === null ? null : s.couplingMap.map((e) => [e[0], e[1]]),
    // What the provider reports unusable today: never routed over, absent from coupling_map.
    faulty: { qubits: [...(s.faultyQubits ?? [])], pairs: (s.faultyEdges ?? []).map((e) => [e[0], e[1]]) },
    supports_mid_circuit_measurement: s.supportsMidCircuitMeasurement,
    supports_reset: s.supportsReset,
    // Gates conditioned on measured bits (QASM 3 `if`, a wire `condition`): a continuation with one is refused on devices without.
    supports_dynamic_circuits: s.supportsDynamicCircuits,
    status: d.status,
    status_detail: d.statusDetail,
    available: d.available,
    reasons: d.reasons,
    queue_depth: d.queue.queued + d.queue.running,
    queue: d.queue,
    requires_hold: s.kind === 'hardware',
    pricing:
      pricing === null
        ? null
        : { currency: 'USD' as const, per_task: formatMicros(pricing.perTaskMicros), per_shot: formatMicros(pricing.perShotMicros), formula: 'tasks × (per_task + shots × per_shot)' },
    // Where the device figures come from: the provider's latest report, or this deployment (catalogue, emulation).
    source: d.snapshot === null ? ('deployment' as const) : ('provider' as const),
    provider_queue_length: d.snapshot?.queueLength ?? null,
    snapshot_fetched_at: d.snapshot?.fetchedAt ?? null,
    calibration: calibrationView(d),
    // The provider's system a remote device runs on, and the error mitigation the device offers now.
    backend: d.remoteBackend,
    provider_systems: d.providerSystems.map((x) => ({ backend: x.backend, status: x.status, status_detail: x.statusDetail, num_qubits: x.numQubits })),
    mitigation: mitigationView(d.profile, d.remoteBackend, hardwareResultSupport(d.profile.driver, s.provider).expectation, d.snapshot),
    // Simulator devices: the simulation methods they run, each with its qubit limit (num_qubits is the state vector's).
    methods: s.kind === 'simulator' ? simulatorMethodsView(s.numQubits) : null,
  };
}

const meanOf = (xs: readonly number[]): number | null => (xs.length === 0 ? null : xs.reduce((a, b) => a + b, 0) / xs.length);

/**
 * Remote devices: the provider's figures (means) or null without a report — never made-up
 * ones. Emulated devices: the deployment's own calibration (the emulation's noise model),
 * per qubit, labelled `source: "deployment"`. Simulators have none.
 */
function calibrationView(d: ResolvedDevice) {
  const snap = d.snapshot?.calibration ?? null;
  if (d.profile.driver === 'remote') {
    if (snap === null) return null;
    return {
      source: 'provider' as const,
      calibrated_at: snap.calibratedAt,
      mean: { t1_us: snap.t1Us, t2_us: snap.t2Us, error_1q: snap.error1q, error_2q: snap.error2q, readout_error: snap.readoutError },
    };
  }
  const cal = d.profile.calibration;
  if (d.profile.driver !== 'emulated' || cal === null) return null;
  const e2 = typeof cal.error_2q === 'number' ? [cal.error_2q] : Object.values(cal.error_2q);
  return {
    source: 'deployment' as const,
    calibrated_at: cal.calibrated_at,
    mean: { t1_us: meanOf(cal.t1_us), t2_us: meanOf(cal.t2_us), error_1q: meanOf(cal.error_1q), error_2q: meanOf(e2), readout_error: meanOf(cal.readout_error) },
    t1_us: cal.t1_us,
    t2_us: cal.t2_us,
    gate_time_1q_ns: cal.gate_time_1q_ns,
    gate_time_2q_ns: cal.gate_time_2q_ns,
    error_1q: cal.error_1q,
    error_2q: cal.error_2q,
    readout_error: cal.readout_error,
  };
}

/** The URL provider segment of a held job. */
const held = (h: HeldJob): string => (h.provider === 'provider-one' ? 'provider-one' : 'provider-two');

const iso = (d: Date | null): string | null => (d === null ? null : new Date(d).toISOString());

export interface JobViewExtras {
  readonly queuePosition: number | null;
  readonly events: ReadonlyArray<{ from_status: string | null; to_status: string; at: Date; note: string | null }>;
  readonly heldJob: HeldJob | null;
  readonly replayed?: boolean;
}

function pick(o: Record<string, unknown>, keys: readonly string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const k of keys) if (o[k] !== undefined) out[k] = o[k];
  return out;
}

export function jobView(j: ExecutionJob, x: JobViewExtras) {
  const result = j.result;
  const tr = j.translation;
  const urlProvider = j.provider === 'provider-one' ? 'provider-one' : 'provider-two';
  return {
    job_id: j.id,
    submitted_by: submittedByView(j.submitted_by),
    provider: j.provider,
    device: j.device,
    kind: j.kind,
    driver: j.driver,
    status: j.status,
    client_token: j.client_token,
    shots: j.shots,
    seed: Number(j.seed),
    queue_position: x.queuePosition,
    progress: j.status === 'running' && j.progress !== null && j.progress !== undefined ? { fraction: j.progress.fraction, phase: j.progress.phase, at: new Date(j.progress.at).toISOString() } : null,
    // A canceled job keeps the results its run delivered only when they were paid for (a remote run finished anyway).
    results:
      result === null || (j.status !== 'completed' && j.error_code !== EXECUTION_FAILURE.CANCELED)
        ? null
        : {
            counts: result.counts ?? {},
            bit_order: BIT_ORDER,
            shots: j.shots,
            ...(result.probabilities === undefined ? {} : { probabilities: result.probabilities }),
            probabilities_kind: result.probabilities_kind ?? 'omitted',
            notes: result.notes ?? [],
            ...(result.meta === undefined ? {} : { meta: result.meta }),
            // Workload fields (src/execution/drivers/workload-result.ts), only when the run asked for them.
            ...pick(result, ['result_types', 'registers', 'memory', 'statevector', 'expectation', 'mitigation', 'truncation', 'parameters', 'points']),
          },
    translation: tr === null ? null : { ...tr, circuit: undefined },
    cost: {
      currency: 'USD' as const,
      estimated: formatMicros(BigInt(j.estimated_micros)),
      actual: j.actual_micros === null ? null : formatMicros(BigInt(j.actual_micros)),
      hold_id: j.hold_id,
      held: x.heldJob === null ? null : formatMicros(x.heldJob.amountMicros),
    },
    failure: j.error_code === null ? null : { code: j.error_code, message: j.error_message ?? '' },
    cancel_requested_at: iso(j.cancel_requested_at),
    remote: j.driver === 'remote' ? { provider: j.provider === 'provider-one' ? ('ibm' as const) : ('ionq' as const), job_id: j.remote_job_id } : null,
    created_at: iso(j.created_at),
    started_at: iso(j.started_at),
    finished_at: iso(j.finished_at),
    events: x.events.map((e) => ({ from: e.from_status, to: e.to_status, at: new Date(e.at).toISOString(), note: e.note })),
    links: { self: `/v1/execute/${urlProvider}/${j.id}` },
    ...(x.replayed === undefined ? {} : { replayed: x.replayed }),
  };
}

/** A held job not (yet) continued: its billing state, in the job view's shape. */
export function heldOnlyView(h: HeldJob) {
  return {
    job_id: h.jobId,
    provider: h.provider,
    device: h.device,
    kind: 'hardware' as const,
    driver: null,
    status: h.status,
    client_token: null,
    shots: h.shots,
    seed: null,
    queue_position: null,
    results: null,
    translation: null,
    cost: {
      currency: 'USD' as const,
      estimated: formatMicros(h.amountMicros / BigInt(Math.max(1, h.tasks))),
      actual: h.status === 'held' ? null : '0.000000',
      hold_id: h.holdId,
      held: formatMicros(h.amountMicros),
    },
    failure: null,
    cancel_requested_at: null,
    remote: null,
    created_at: h.createdAt.toISOString(),
    started_at: null,
    finished_at: null,
    expires_at: h.expiresAt.toISOString(),
    events: [],
    links: { self: `/v1/execute/${held(h)}/${h.jobId}`, continue: `/v1/execute/${held(h)}/held/${h.jobId}`, release: `/v1/billing/hardware/hold/${h.jobId}/release` },
  };
}

/** A held job's tasks: how many its hold was placed for, taken by continuations, and left. */
export function heldTasksView(h: HeldJob) {
  return {
    job_id: h.jobId,
    status: h.status,
    device: h.device,
    shots: h.shots,
    tasks: h.tasks,
    tasks_used: h.tasksUsed,
    tasks_remaining: h.tasks - h.tasksUsed,
    price_per_task: formatMicros(h.amountMicros / BigInt(Math.max(1, h.tasks))),
    hold_id: h.holdId,
    expires_at: h.expiresAt.toISOString(),
  };
}
