import type { Circuit } from '../../circuits/ir.js';
import { requireCircuit, type CircuitLimits } from '../../circuits/wire-format.js';
import { fail } from '../../errors/app-error.js';
import { getDevice, type ProviderId } from '../../devices/device-catalogue.js';
import type { Capability } from '../capability.js';
import { JOB_FAILURE } from '../error-codes.js';
import { BELL, CIRCUIT_FIELD_SCHEMA, CIRCUIT_FIELD_SHALLOW } from './circuit-schema.js';
import { checkWorkload, methodOptionsOf, type WorkloadFields } from '../../execution/workload-request.js';
import { simulatorMethodLimits } from '../../execution/simulator-methods.js';
import { STABILIZER_MAX_QUBITS, type Method, type MethodOptions } from '../../simulation/index.js';
import { METHOD_FACTORS, METHOD_PROPS, methodFactor } from './method-pricing.js';

/** The workload fields a run takes (as POST /v1/execute/{provider}); the execution service checks them against the circuit. */
const WORKLOAD_PROPS = {
  parameter_values: {
    type: 'array',
    minItems: 1,
    maxItems: 1000,
    items: { type: 'object', maxProperties: 64, propertyNames: { pattern: '^[A-Za-z_][A-Za-z0-9_]{0,63}$' }, additionalProperties: { type: 'number' } },
    description: "A sweep: one binding of the circuit's declared parameters per point; every point runs in this one job and is priced as one run",
  },
  result_types: {
    type: 'array',
    minItems: 1,
    maxItems: 5,
    items: { enum: ['counts', 'memory', 'probabilities', 'statevector', 'expectation'] },
    description: 'What to return (default ["counts"]); see docs/workloads.md',
  },
  observables: {
    type: 'array',
    minItems: 1,
    maxItems: 256,
    items: { type: 'object', additionalProperties: false, required: ['pauli', 'coeff'], properties: { pauli: { type: 'string', pattern: '^[IXYZ]+$', maxLength: 16384 }, coeff: { type: 'number' } } },
    description: 'Pauli-sum observable for the expectation result type (rightmost character = qubit 0)',
  },
} as const;

/**
 * The part of the execution service (src/execution) these capabilities call: the same
 * `run` as `POST /v1/execute/{provider}`, so a job's run is an execution job like any other.
 */
export interface SimulatorExecution {
  /** `adoptRunning`: a run still in progress under this token is waited for (or resumed once its lease expired), never refused. */
  run(
    provider: ProviderId,
    accountId: string,
    body: { circuit: unknown; shots?: number; seed?: number; device?: string; client_token: string } & WorkloadFields,
    opts?: { adoptRunning?: boolean; signal?: AbortSignal },
  ): Promise<Record<string, unknown>>;
  /** Whether the device can take a run now; the reasons when not (an operator override, a switched-off provider). */
  deviceReadiness(device: string): Promise<{ readonly available: boolean; readonly reasons: readonly string[] }>;
}

export interface ProviderSimulateOptions {
  readonly circuitLimits: CircuitLimits;
  /** EXECUTION_MAX_SHOTS of the execution settings. */
  readonly maxShots: number;
  /** EXECUTION_SIM_MAX_QUBITS of the execution settings (the simulator devices list no more). */
  readonly simMaxQubits: number;
}

/** Each provider's simulator device (src/devices/device-catalogue.ts). */
const SIMULATOR: Readonly<Record<ProviderId, string>> = { 'provider-one': 'p1-simulator', 'provider-two': 'p2-local-simulator' };
const DEFAULT_SHOTS = 1024;
const BASE = 200n;
/** Per-shot memory (result type `memory`): per started 1 000 bitstrings returned (shots × points). */
const MEMORY_PER_1000 = 1n;

interface Prepared {
  readonly circuit: Circuit;
  readonly shots: number;
  readonly seed: number | undefined;
  readonly request: Readonly<Record<string, unknown>>;
  readonly method: Method;
  readonly methodOptions: MethodOptions;
}

/**
 * `provider-one.simulate` / `provider-two.simulate`: a circuit on the provider's simulator
 * device through the execution service, paid as a prepaid job (the execution run itself is
 * not charged again). The job id is the execution run's client token, so a re-run after a
 * worker crash returns the same execution job instead of running twice.
 */
export function providerSimulate(provider: ProviderId, execution: SimulatorExecution, o: ProviderSimulateOptions): Capability<Prepared> {
  const deviceId = SIMULATOR[provider];
  const device = getDevice(deviceId);
  if (device === undefined) throw new Error(`no simulator device ${deviceId} in the catalogue`);
  const maxQubits = Math.min(o.circuitLimits.maxQubits, device.numQubits, o.simMaxQubits);
  const props = (circuit: unknown) => ({
    circuit,
    shots: { type: 'integer', minimum: 1, maximum: o.maxShots, default: DEFAULT_SHOTS, description: `Number of samples of the measured bits (default ${DEFAULT_SHOTS})` },
    seed: { type: 'integer', minimum: 0, maximum: Number.MAX_SAFE_INTEGER, description: 'Sampling seed (optional; fixed seeds give reproducible counts)' },
    ...WORKLOAD_PROPS,
    ...METHOD_PROPS,
  });
  return {
    id: `${provider}.simulate`,
    product: 'product-one',
    title: `${device.name}`,
    description: `Runs a circuit (wire format 0.2) on ${device.name} (${deviceId}, up to ${maxQubits} qubits) through the ${provider} execution service, as POST /v1/execute/${provider} does; the result has the counts (clbit 0 rightmost) and the execution job id.`,
    pricing: {
      formula:
        '(0.000200 + 0.000001 × ceil(shots / 100) × factor) × points (1 without parameter_values), + 0.000001 × ceil(shots × points / 1000) when result_types has memory; factor by the method that runs (auto resolved): statevector 2^max(0, num_qubits − 10), density_matrix 4^max(0, num_qubits − 10), stabilizer ceil(num_qubits / 100), matrix_product_state ceil(num_qubits / 10) × ceil(χ / 16)²',
      parameters: { base: '0.000200', per_100_shots: '0.000001', free_qubits: 10, default_shots: DEFAULT_SHOTS, memory_per_1000_bitstrings: '0.000001', ...METHOD_FACTORS },
    },
    requestSchema: { type: 'object', additionalProperties: false, required: ['circuit'], properties: props(CIRCUIT_FIELD_SCHEMA) },
    validationSchema: { type: 'object', additionalProperties: false, required: ['circuit'], properties: props(CIRCUIT_FIELD_SHALLOW) },
    example: { circuit: BELL, shots: 1000 },
    // The execution run is keyed by the job id: running again returns the first run.
    onInterrupted: 'rerun',
    prepare(request) {
      // Per-method limits: a Clifford circuit may be as wide as the stabilizer method takes.
      const { circuit } = requireCircuit(request['circuit'], { ...o.circuitLimits, maxQubits: Math.max(maxQubits, STABILIZER_MAX_QUBITS) }, '/circuit', { allowParameters: true });
      const shots = (request['shots'] as number | undefined) ?? DEFAULT_SHOTS;
      // Bindings, result types and the method are checked before any money is held (the same 4xx as the platform run).
      const checked = checkWorkload(circuit, shots, pickWorkload(request), simulatorMethodLimits(Math.min(device.numQubits, o.simMaxQubits)));
      const methodOptions = methodOptionsOf(checked?.method_options);
      return { circuit, shots, seed: request['seed'] as number | undefined, request, method: checked?.method ?? 'statevector', methodOptions };
    },
    quote(p) {
      const blocks = BigInt(Math.ceil(p.shots / 100));
      const factor = methodFactor(p.circuit, p.method, p.methodOptions);
      // A sweep is priced as one run per point; per-shot memory by the bitstrings it returns
      // (statevector and expectation add nothing: docs/decisions/execution-result-types-pricing.md).
      const points = Array.isArray(p.request['parameter_values']) ? p.request['parameter_values'].length : 1;
      const types = p.request['result_types'];
      const memoryBlocks = Array.isArray(types) && types.includes('memory') ? BigInt(Math.ceil((p.shots * points) / 1000)) : 0n;
      return {
        priceMicros: (BASE + blocks * factor) * BigInt(points) + MEMORY_PER_1000 * memoryBlocks,
        breakdown: {
          base: '0.000200',
          shots: p.shots,
          shot_blocks: Number(blocks),
          num_qubits: p.circuit.numQubits,
          qubit_factor: Number(factor),
          method: p.method,
          points,
          ...(memoryBlocks > 0n ? { memory_bitstring_blocks: Number(memoryBlocks) } : {}),
        },
      };
    },
    async availability() {
      const r = await execution.deviceReadiness(deviceId);
      return r.available ? { available: true } : { available: false, reason: r.reasons.join(' ') || `${deviceId} is not available.` };
    },
    async run(p, ctx) {
      // The job's cancel stops the execution run too (it ends canceled, and so does the job).
      const v = await execution.run(
        provider,
        ctx.accountId,
        {
          circuit: p.request['circuit'],
          shots: p.shots,
          device: deviceId,
          client_token: `job-${ctx.jobId}`,
          ...(p.seed === undefined ? {} : { seed: p.seed }),
          ...pickWorkload(p.request),
        },
        { adoptRunning: true, signal: ctx.signal },
      );
      const failure = v['failure'] as { code: string; message: string } | null;
      // A re-run that finds the first run failed fails the same way (uncharged).
      if (v['status'] !== 'completed' || failure !== null) {
        throw fail({ code: failure?.code ?? JOB_FAILURE.CAPABILITY_FAILED, status: 422, description: '' }, failure?.message ?? `The execution run ended ${String(v['status'])}.`, {
          execution_job_id: v['job_id'],
        });
      }
      return {
        execution_job_id: v['job_id'],
        provider,
        device: deviceId,
        status: v['status'],
        seed: v['seed'],
        shots: p.shots,
        results: v['results'],
      };
    },
  };
}

function pickWorkload(r: Readonly<Record<string, unknown>>): WorkloadFields {
  return {
    ...(r['parameter_values'] === undefined ? {} : { parameter_values: r['parameter_values'] as WorkloadFields['parameter_values'] }),
    ...(r['result_types'] === undefined ? {} : { result_types: r['result_types'] as WorkloadFields['result_types'] }),
    ...(r['observables'] === undefined ? {} : { observables: r['observables'] as WorkloadFields['observables'] }),
    ...(r['method'] === undefined ? {} : { method: r['method'] as string }),
    ...(r['method_options'] === undefined ? {} : { method_options: r['method_options'] as WorkloadFields['method_options'] }),
  };
}
