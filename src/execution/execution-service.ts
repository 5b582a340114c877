/**
 * Execution (spec §4.2, DESIGN §8): simulator runs on both providers, and provider-two
 * hardware through quote → hold → held job → continue → queued → running → completed or
 * failed. Simulator runs answer at once; hardware jobs are durable rows the worker runs.
 * A client token makes every submission idempotent per account: the same token never
 * runs or charges twice, and another request under it is refused. Tokens are keys of the one
 * idempotency mechanism (scope 'execution'): looked up here, claimed and recorded by the store
 * in the transaction that inserts the job.
 */
import type { Circuit } from '../circuits/ir.js';
import { requireCircuit, toWire, type CircuitLimits } from '../circuits/wire-format.js';
import { refuseDynamicBeforeHold } from './dynamic-circuits.js';
import { fail } from '../errors/app-error.js';
import { formatMicros } from '../billing/money.js';
import { idempotencyHash, type Idempotency } from '../idempotency/idempotency.js';
import { canonicalJson } from '../kernel/canonical-json.js';
import type { CancelRequests } from '../queue/cancel-requests.js';
import { buildCapabilities, type AccountState } from './capabilities.js';
import type { DeviceDirectory, Reason, ResolvedDevice } from './device-directory.js';
import type { DeviceStatus, ProviderId } from '../devices/device-catalogue.js';
import { EXECUTION_ERRORS } from './error-codes.js';
import type { ExecutionJob } from './execution-job.js';
import { cancelJob, listJobs, type ExecutionListRequest } from './job-requests.js';
import type { ExecutionStore } from './ports.js';
import type { ExecutionSettings } from './settings.js';
import { finishSimulatorRun, settleRunningSimulator, simulatorLeaseMs, type Adoption, type SimulatorRunDeps } from './simulator-run.js';
import { continueHeldTasks, type ContinuationDeps } from './held-continuation.js';
import { runSimulatorBatch, type RunBatchRequest } from './simulator-batch.js';
import { deviceView, heldOnlyView, heldTasksView, jobView } from './views.js';
import { bindSweep, checkWorkload, type WorkloadFields } from './workload-request.js';
import { simulatorMethodLimits } from './simulator-methods.js';
import { hardwareResultSupport, planHardwareRun } from './hardware-workload.js';
import type { MitigationRequest } from './mitigation/mitigation-request.js';
import { mitigationSupport } from './mitigation/device-mitigation.js';

export { resultJson } from './simulator-run.js';
export type { ExecutionListRequest } from './job-requests.js';
export type { RunBatchRequest } from './simulator-batch.js';

export interface RunRequest extends WorkloadFields {
  readonly circuit: unknown;
  readonly shots?: number;
  readonly device?: string;
  readonly seed?: number;
  readonly client_token: string;
  /**
   * Queue the run for the execution worker instead of running it inside the request (202, poll the
   * job). Not part of the request hash: the same work under the same token is the same job either way.
   */
  readonly async?: boolean;
}

export interface RunOptions {
  /**
   * A durable caller (an Account Job's re-run) adopts a simulator run still in progress under the
   * same token: it waits for it rather than answering 409 EXECUTION_CLIENT_TOKEN_IN_PROGRESS, and
   * runs it again itself once its lease has expired (the process running it died).
   */
  readonly adoptRunning?: boolean;
  /** The caller's cancel (an Account Job's): the simulator run stops with it and ends canceled. */
  readonly signal?: AbortSignal | undefined;
  /** Who submits the run (`user:<id>`, `credential:<id>`, …), recorded on the execution job. */
  readonly submittedBy?: string | null | undefined;
  /** The request hash the client token is recorded with, when the run is one item of a batch (the batch's hash). */
  readonly requestHash?: string;
}

/** Result types of a hardware run (counts, memory, expectation: docs/execution.md#results-on-hardware). */
type HardwareResultFields = Pick<WorkloadFields, 'result_types' | 'observables'> & { readonly mitigation?: MitigationRequest | undefined };

export interface ContinueRequest extends HardwareResultFields {
  readonly circuit: unknown;
  readonly client_token: string;
  readonly seed?: number;
}

export interface ContinueBatchRequest extends HardwareResultFields {
  /** One circuit per task; or `circuit` + `parameter_values`, one point per task (a hardware sweep). */
  readonly circuits?: readonly unknown[];
  readonly circuit?: unknown;
  readonly parameter_values?: readonly Readonly<Record<string, unknown>>[];
  readonly client_token: string;
  /** Circuit i runs with seed + i. */
  readonly seed?: number;
}

export interface ExecutionDeps {
  readonly store: ExecutionStore;
  /** Where client tokens are looked up (scope 'execution'). */
  readonly idempotency: Pick<Idempotency, 'lookup'>;
  readonly settings: ExecutionSettings;
  readonly directory: DeviceDirectory;
  readonly circuitLimits: CircuitLimits;
  /** Spend controls' `hardware_allowed` of the account. */
  readonly hardwareAllowed: (accountId: string) => Promise<boolean>;
  /** Called after a transaction that took funds (auto-recharge). */
  readonly afterDebit: (accountId: string) => void;
  readonly mediaReadiness?: () => Promise<unknown>;
  readonly hash: (s: string) => string;
  readonly newId: () => string;
  readonly randomSeed: () => number;
  /** Cancel requests delivered at once to the runs of this process (its requests and its worker). */
  readonly cancels?: CancelRequests;
}

/** The result fields of a continuation, for its request hash (absent when not given). */
function resultFields(b: HardwareResultFields) {
  return {
    ...(b.result_types === undefined ? {} : { result_types: b.result_types }),
    ...(b.observables === undefined ? {} : { observables: b.observables }),
    ...(b.mitigation === undefined ? {} : { mitigation: b.mitigation }),
  };
}

/** Simulator jobs (async runs waiting, any run in progress) an account may have at once before an async run is refused. */
export const MAX_OPEN_ASYNC_SIMULATOR = 16;

const DEFAULT_DEVICE: Readonly<Record<ProviderId, string>> = { 'provider-one': 'p1-simulator', 'provider-two': 'p2-local-simulator' };

export class ExecutionService {
  constructor(readonly deps: ExecutionDeps) {}

  private get store(): ExecutionStore {
    return this.deps.store;
  }

  async devices(provider: ProviderId) {
    return { provider, devices: (await this.deps.directory.list(provider)).map(deviceView) };
  }

  /** Operator: set or clear (null) a device's status override. */
  async setDeviceStatus(device: string, status: DeviceStatus | null, note: string | null = null): Promise<void> {
    await this.store.setDeviceStatusOverride(device, status, note);
  }

  async capabilities(accountId: string | undefined) {
    const devices = await this.deps.directory.list();
    let account: AccountState | undefined;
    if (accountId !== undefined) {
      const [wallet, hardwareAllowed, held] = await Promise.all([this.store.wallet(accountId), this.deps.hardwareAllowed(accountId), this.store.openHeldJobs(accountId)]);
      account = { accountId, availableMicros: wallet.availableMicros, heldMicros: wallet.heldMicros, hardwareAllowed, openHeldJobs: held };
    }
    const media = this.deps.mediaReadiness === undefined ? null : await this.deps.mediaReadiness().catch(() => null);
    return buildCapabilities(devices, account, media);
  }

  private async viewOf(j: ExecutionJob, replayed?: boolean) {
    const [pos, events, held] = await Promise.all([this.store.queuePosition(j), this.store.jobEvents(j.id), j.kind === 'hardware' ? this.store.heldJob(j.id) : Promise.resolve(null)]);
    return jobView(j, { queuePosition: pos, events, heldJob: held, ...(replayed === undefined ? {} : { replayed }) });
  }

  /**
   * The job the token already names: the original (same request) or 409. A simulator run still
   * `running` is taken over when its owner died, waited for or refused while it lives (simulator-run.ts).
   */
  private async replay(accountId: string, token: string, hash: string, adopt?: Adoption) {
    const found = await this.deps.idempotency.lookup({ scope: 'execution', owner: accountId, keyHash: idempotencyHash(token), requestHash: hash });
    if (found.kind === 'new') return null;
    if (found.kind === 'reused') {
      throw fail(EXECUTION_ERRORS.EXECUTION_CLIENT_TOKEN_REUSED, 'This client_token was already used for a different request.', { job_id: found.ref });
    }
    if (found.kind === 'in_flight') throw fail(EXECUTION_ERRORS.EXECUTION_CLIENT_TOKEN_IN_PROGRESS, 'A request with this client_token is being processed; retry it.');
    // Tokens are recorded with their job, so a recorded one always names it.
    const prior = found.ref === null ? null : await this.store.getJob(found.ref);
    if (prior === null) throw new Error(`a client token of account ${accountId} names no job`);
    const settled = prior.kind === 'simulator' && prior.status === 'running' ? await settleRunningSimulator(this.runDeps, prior, adopt) : prior;
    return this.viewOf(settled, true);
  }

  private get runDeps(): SimulatorRunDeps {
    return { store: this.store, settings: this.deps.settings, directory: this.deps.directory, newId: this.deps.newId, cancels: this.deps.cancels };
  }

  private async resolveDevice(provider: ProviderId, id: string): Promise<ResolvedDevice> {
    const d = await this.deps.directory.get(id);
    if (d === undefined || d.profile.spec.provider !== provider) {
      const known = (await this.deps.directory.list(provider)).map((x) => x.profile.spec.id);
      throw fail(EXECUTION_ERRORS.EXECUTION_DEVICE_UNKNOWN, `No device ${id} on ${provider}.`, { devices: known });
    }
    return d;
  }

  private static refuseUnavailable(d: ResolvedDevice, note = ''): never {
    const offline = d.reasons.every((r) => r.code === 'device_offline');
    if (offline) throw fail(EXECUTION_ERRORS.EXECUTION_DEVICE_UNAVAILABLE, `${d.profile.spec.id} is ${d.status}.${note}`, { device: d.profile.spec.id, status: d.status, reasons: d.reasons });
    throw fail(EXECUTION_ERRORS.EXECUTION_PROVIDER_NOT_CONFIGURED, `${d.reasons.find((r) => r.code !== 'device_offline')?.message ?? 'Not configured.'}${note}`, {
      device: d.profile.spec.id,
      status: d.status,
      reasons: d.reasons,
    });
  }

  /** Billing's device gate: the device state a hardware quote shows (null: not an execution hardware device). */
  async hardwareDeviceState(provider: string, device: string): Promise<{ status: DeviceStatus; available: boolean; reasons: readonly Reason[] } | null> {
    const d = await this.deps.directory.get(device);
    if (d === undefined || d.profile.spec.provider !== provider || d.profile.spec.kind !== 'hardware') return null;
    return { status: d.status, available: d.available, reasons: d.reasons };
  }

  /**
   * Billing's device gate: a hold is placed only for a device a continuation could run on
   * now — the same check and the same 409 as `continueHeld` — so funds are never reserved
   * for an offline, in-maintenance or unconfigured device (docs/decisions/execution-offline-device-holds.md).
   */
  async assertHoldable(provider: string, device: string): Promise<void> {
    const d = await this.deps.directory.get(device);
    if (d === undefined || d.profile.spec.provider !== provider) return;
    if (!d.available) ExecutionService.refuseUnavailable(d, ' No hold was placed; nothing was reserved.');
  }

  /** POST /v1/execute/{provider}: simulator runs answer with results; hardware needs a hold. */
  async run(provider: ProviderId, accountId: string, body: RunRequest, opts: RunOptions = {}) {
    const deviceId = body.device ?? DEFAULT_DEVICE[provider];
    const d = await this.resolveDevice(provider, deviceId);
    const spec = d.profile.spec;
    if (spec.kind === 'hardware') {
      if (body.method !== undefined || body.method_options !== undefined) {
        const message = `${spec.id} is hardware: a simulation method is chosen on simulator devices only`;
        throw fail(EXECUTION_ERRORS.EXECUTION_RESULT_TYPES_INVALID, message, [{ path: body.method !== undefined ? '/method' : '/method_options', code: 'METHOD_NOT_SIMULATOR', message }]);
      }
      if (body.parameter_values !== undefined || body.observables !== undefined || (body.result_types ?? ['counts']).some((t) => t !== 'counts')) {
        throw fail(
          EXECUTION_ERRORS.EXECUTION_SWEEP_NOT_SUPPORTED,
          `${spec.id} is hardware: a sweep runs as one task per point of a held job (POST /v1/execute/provider-two/held/{job_id}/batch with circuit and parameter_values); result types (memory, expectation) are asked for when continuing the held job.`,
          {
            device: spec.id,
            decision: 'docs/decisions/execution-hardware-results.md',
          },
        );
      }
      refuseDynamicBeforeHold(body.circuit, spec, this.deps.circuitLimits);
      const shots = body.shots ?? 1024;
      const price = d.profile.pricing;
      const estimate = price === null ? null : price.perTaskMicros + BigInt(shots) * price.perShotMicros;
      throw fail(EXECUTION_ERRORS.EXECUTION_HOLD_REQUIRED, `${spec.id} is hardware: get a quote, place a hold, then continue the held job.`, {
        device: spec.id,
        shots,
        device_available: d.available,
        reasons: d.reasons,
        estimated_cost: estimate === null ? null : formatMicros(estimate),
        steps: [
          { method: 'POST', path: '/v1/billing/hardware/quote', body: { provider, device: spec.id, shots } },
          { method: 'POST', path: '/v1/billing/hardware/hold', body: { quote_id: '<quote_id>' } },
          { method: 'POST', path: `/v1/execute/${provider}/held/<job_id>`, body: { circuit: '<circuit>', client_token: '<token>' } },
        ],
      });
    }
    if (!d.available) ExecutionService.refuseUnavailable(d);
    // A simulator run's circuit may be as large as its largest method takes (the stabilizer's), not only CIRCUIT_MAX_QUBITS.
    const limits = simulatorMethodLimits(spec.numQubits);
    const parseLimits = { ...this.deps.circuitLimits, maxQubits: Math.max(this.deps.circuitLimits.maxQubits, limits.stabilizer) };
    const { circuit } = requireCircuit(body.circuit, parseLimits, '/circuit', { allowParameters: true });
    const shots = body.shots ?? 1024;
    if (shots > this.deps.settings.maxShots) throw fail(EXECUTION_ERRORS.EXECUTION_TRANSLATION_FAILED, `At most ${this.deps.settings.maxShots} shots per run.`, { shots });
    if (circuit.numQubits > spec.numQubits && body.method === 'statevector') {
      // spec.numQubits is already capped by EXECUTION_SIM_MAX_QUBITS (the device listing shows the same figure).
      const bySetting = spec.numQubits === this.deps.settings.simMaxQubits ? ` on this deployment (EXECUTION_SIM_MAX_QUBITS=${spec.numQubits})` : '';
      throw fail(
        EXECUTION_ERRORS.EXECUTION_TRANSLATION_FAILED,
        `The circuit has ${circuit.numQubits} qubits; ${spec.id} simulates at most ${spec.numQubits} qubits${bySetting} with the statevector method.`,
        {
          device: spec.id,
          num_qubits: circuit.numQubits,
          max_qubits: spec.numQubits,
        },
      );
    }
    const runOptions = checkWorkload(circuit, shots, body, limits);
    // A plain run hashes as it did before run options existed, so the tokens of earlier runs still replay.
    const hash =
      opts.requestHash ??
      this.deps.hash(canonicalJson({ provider, device: spec.id, shots, seed: body.seed ?? null, circuit: toWire(circuit), ...(runOptions === null ? {} : { run_options: runOptions }) }));
    const adopt = { circuit, device: d, wait: opts.adoptRunning === true, signal: opts.signal };
    const prior = await this.replay(accountId, body.client_token, hash, adopt);
    if (prior !== null) return prior;

    // An async run is queued like a continued hardware job and claimed by the one queue's workers
    // (execution-worker.ts resumes simulator jobs): no lease owner until a worker claims it.
    const queued = body.async === true;
    const worker = queued ? undefined : `api-${this.deps.newId().slice(0, 8)}`;
    const seed = body.seed ?? this.deps.randomSeed();
    const row = await this.store.insertJob({
      id: this.deps.newId(),
      accountId,
      clientToken: body.client_token,
      requestHash: hash,
      provider,
      device: spec.id,
      kind: 'simulator',
      driver: 'simulator',
      status: queued ? 'queued' : 'running',
      shots,
      seed,
      circuit: toWire(circuit),
      translation: null,
      holdId: null,
      estimatedMicros: 0n,
      runOptions,
      submittedBy: opts.submittedBy ?? null,
      ...(worker === undefined ? { maxOpenSimulator: MAX_OPEN_ASYNC_SIMULATOR } : { leaseOwner: worker, leaseMs: simulatorLeaseMs(this.deps.settings) }),
    });
    if (row === null) {
      const again = await this.replay(accountId, body.client_token, hash, adopt);
      if (again !== null) return again;
      throw fail(EXECUTION_ERRORS.EXECUTION_CLIENT_TOKEN_IN_PROGRESS, 'The run with this client_token is in progress; retry shortly.');
    }
    if (worker === undefined) return this.viewOf(row, false);
    await this.finishSimulatorRun(row, circuit, worker, d, opts.signal);
    return this.viewOf((await this.store.getJob(row.id)) as ExecutionJob, false);
  }

  /**
   * POST /v1/execute/{provider}/batch: up to 100 circuits on a simulator device in one request,
   * each an execution job of its own, each result or error reported per item (simulator-batch.ts).
   */
  async runBatch(provider: ProviderId, accountId: string, body: RunBatchRequest, submittedBy: string | null = null) {
    const hash = this.deps.hash(
      canonicalJson({
        provider,
        device: body.device ?? null,
        shots: body.shots ?? null,
        seed: body.seed ?? null,
        circuits: body.circuits,
        ...(body.method === undefined ? {} : { method: body.method }),
        ...(body.method_options === undefined ? {} : { method_options: body.method_options }),
      }),
    );
    return runSimulatorBatch((b, o) => this.run(provider, accountId, b, { ...o, submittedBy }), { provider, device: body.device ?? DEFAULT_DEVICE[provider], body, hash });
  }

  /** Runs a simulator job to its end (the API request, or the worker after a crash). */
  async finishSimulatorRun(row: ExecutionJob, circuit: Circuit, worker: string, d: ResolvedDevice, parent?: AbortSignal): Promise<void> {
    return finishSimulatorRun(this.runDeps, row, circuit, worker, d, parent);
  }

  /** Whether a device can take a run now, and the reasons when not (the Account Jobs catalog asks for its simulators). */
  async deviceReadiness(device: string): Promise<{ available: boolean; reasons: string[] }> {
    const d = await this.deps.directory.get(device);
    if (d === undefined) return { available: false, reasons: [`No device ${device} on this deployment.`] };
    return { available: d.available, reasons: d.reasons.map((r) => r.message) };
  }

  /** GET /v1/execute/jobs: the account's execution jobs, newest first, every filter given matching, keyset pages of at most 100. */
  list(accountId: string, q: ExecutionListRequest) {
    return listJobs(this.store, accountId, q);
  }

  /**
   * POST /v1/execute/{provider}/{job_id}/cancel (docs/execution.md#canceling): a queued job ends
   * failed / CANCELED now, its hold released; a running one is asked to stop (the compute is
   * aborted, a remote run canceled at the provider) and ends so with what it consumed captured.
   * The job as it is now; 409 JOB_NOT_CANCELABLE once it ended another way.
   */
  async cancel(accountId: string, jobId: string, provider: ProviderId) {
    return this.viewOf(await cancelJob(this.store, this.deps.cancels, accountId, jobId, provider));
  }

  /** Remembers the trace of the request that queued these jobs, so the worker's spans continue it (tracing on). */
  continueTrace(jobIds: readonly string[], traceparent: string): Promise<void> {
    return this.store.saveTraceparent(jobIds, traceparent);
  }

  private mitigationSupportOf(d: ResolvedDevice) {
    return mitigationSupport(d.profile, d.remoteBackend, d.snapshot);
  }

  /** POST /v1/execute/{provider}/held/{job_id}: one task of the held job becomes a queued execution job. */
  async continueHeld(accountId: string, jobId: string, body: ContinueRequest, provider: ProviderId = 'provider-two') {
    const { circuit } = requireCircuit(body.circuit, this.deps.circuitLimits, '/circuit');
    // Counts-only continuations hash as before result types existed, so their tokens still replay.
    const hash = this.deps.hash(canonicalJson({ held_job: jobId, seed: body.seed ?? null, circuit: toWire(circuit), ...resultFields(body) }));
    const prior = await this.replay(accountId, body.client_token, hash);
    if (prior !== null) return prior;
    const runs = (d: ResolvedDevice, shots: number) => [planHardwareRun(circuit, shots, body, hardwareResultSupport(d.profile.driver, provider), '', this.mitigationSupportOf(d))];
    const [row] = await continueHeldTasks(this.continuationDeps, { accountId, jobId, provider, runs, token: body.client_token, hash, seed: body.seed });
    return this.viewOf(row as ExecutionJob, false);
  }

  /**
   * POST /v1/execute/provider-two/held/{job_id}/batch: up to 100 circuits, one task of the held
   * job each, queued as one execution job each in one transaction (docs/execution.md#holds-for-n-tasks).
   * The client_token names the batch as a whole: its first job carries it, job i the token
   * `<client_token>#i` ('#' is outside the tokens a client may send, so they never collide).
   */
  async continueHeldBatch(accountId: string, jobId: string, body: ContinueBatchRequest, provider: ProviderId = 'provider-two') {
    const circuits = this.batchCircuits(body);
    const hash = this.deps.hash(
      canonicalJson({
        held_job: jobId,
        seed: body.seed ?? null,
        circuits: circuits.map(toWire),
        ...(body.parameter_values === undefined ? {} : { parameter_values: body.parameter_values }),
        ...resultFields(body),
      }),
    );
    const first = await this.replay(accountId, body.client_token, hash);
    if (first !== null) {
      const rest = await Promise.all(circuits.slice(1).map((_, i) => this.replay(accountId, `${body.client_token}#${i + 1}`, hash)));
      return this.batchView(jobId, [first, ...rest], true);
    }
    // Every circuit (point) gets the same result types; an item's problems name its path.
    const runs = (d: ResolvedDevice, shots: number) => {
      const support = hardwareResultSupport(d.profile.driver, provider);
      const mitigation = this.mitigationSupportOf(d);
      return circuits.map((c, i) => planHardwareRun(c, shots, body, support, body.parameter_values === undefined && circuits.length > 1 ? `/circuits/${i}` : '', mitigation));
    };
    const rows = await continueHeldTasks(this.continuationDeps, { accountId, jobId, provider, runs, token: body.client_token, hash, seed: body.seed });
    return this.batchView(jobId, await Promise.all(rows.map((r) => this.viewOf(r, false))), false);
  }

  /** The batch's circuits: as given, or a parameterized circuit bound at each point of a sweep (one task per point). */
  private batchCircuits(body: ContinueBatchRequest): Circuit[] {
    const form = (message: string, path: string) => fail(EXECUTION_ERRORS.EXECUTION_PARAMETERS_INVALID, message, [{ path, code: 'SWEEP_FORM_INVALID', message }]);
    if (body.parameter_values === undefined) {
      if (body.circuit !== undefined) throw form('`circuit` runs once per point of `parameter_values`; without a sweep give `circuits`.', '/circuit');
      if (body.circuits === undefined) throw form('Give `circuits` (one per task), or `circuit` with `parameter_values` (one point per task).', '/circuits');
      return body.circuits.map((c, i) => requireCircuit(c, this.deps.circuitLimits, `/circuits/${i}`).circuit);
    }
    if (body.circuits !== undefined) throw form('A sweep binds one `circuit`; `circuits` cannot be given with `parameter_values`.', '/circuits');
    if (body.circuit === undefined) throw form('`parameter_values` binds `circuit`: give the parameterized circuit.', '/circuit');
    const { circuit } = requireCircuit(body.circuit, this.deps.circuitLimits, '/circuit', { allowParameters: true });
    return bindSweep(circuit, body.parameter_values);
  }

  private get continuationDeps(): ContinuationDeps {
    const d = this.deps;
    return {
      store: d.store,
      settings: d.settings,
      hardwareAllowed: d.hardwareAllowed,
      afterDebit: d.afterDebit,
      newId: d.newId,
      randomSeed: d.randomSeed,
      hardwareDevice: async (provider, id) => {
        const device = await this.resolveDevice(provider, id);
        if (device.profile.spec.kind !== 'hardware') throw fail(EXECUTION_ERRORS.EXECUTION_DEVICE_UNKNOWN, `${id} is not a hardware device.`, { devices: [] });
        if (!device.available) ExecutionService.refuseUnavailable(device);
        return device;
      },
    };
  }

  private async batchView(jobId: string, jobs: ReadonlyArray<Awaited<ReturnType<ExecutionService['viewOf']>> | null>, replayed: boolean) {
    const held = await this.store.heldJob(jobId);
    if (held === null) throw new Error(`held job ${jobId} vanished`);
    return { held_job: heldTasksView(held), jobs: jobs.filter((j) => j !== null), replayed };
  }

  /** GET /v1/execute/{provider}/{job_id}: an execution job, or a held job not continued yet. */
  async job(accountId: string, jobId: string, provider: ProviderId = 'provider-two') {
    const j = await this.store.getJob(jobId);
    if (j !== null && j.account_id === accountId && j.provider === provider) return this.viewOf(j);
    if (j === null) {
      const held = await this.store.heldJob(jobId);
      if (held !== null && held.accountId === accountId && held.provider === provider) return heldOnlyView(held);
    }
    throw fail(EXECUTION_ERRORS.EXECUTION_HELD_JOB_NOT_FOUND, `No execution job ${jobId} for this account.`);
  }
}
