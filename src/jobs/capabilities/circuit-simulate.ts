import type { Circuit } from '../../circuits/ir.js';
import { requireCircuit, type CircuitLimits } from '../../circuits/wire-format.js';
import { pow2, type Capability, type PriceQuote } from '../capability.js';
import type { JobsComputePort } from '../ports.js';
import { BELL, CIRCUIT_FIELD_SCHEMA, CIRCUIT_FIELD_SHALLOW } from './circuit-schema.js';
import { chooseMethod, DENSITY_MATRIX_MAX_QUBITS, MPS_MAX_QUBITS, STABILIZER_MAX_QUBITS, type Method, type MethodLimits, type MethodOptions, type MethodRequest } from '../../simulation/index.js';
import { METHOD_FACTORS, METHOD_PROPS, methodFactor } from './method-pricing.js';

/** Jobs simulate at most this many qubits: above it the price passes the 1.000000 ceiling anyway. */
export const JOB_SIM_MAX_QUBITS = 26;
export const JOB_SIM_MAX_SHOTS = 1_000_000;
const BASE = 100n;

interface Prepared {
  readonly circuit: Circuit;
  readonly shots: number;
  readonly seed: number | undefined;
  readonly warnings: string[];
  readonly method: Method;
  readonly methodReason: string | undefined;
  readonly methodOptions: MethodOptions;
}

/** The qubit limit of each method for Account Jobs (the state vector's is JOB_SIM_MAX_QUBITS). */
export const JOB_METHOD_LIMITS: MethodLimits = {
  statevector: JOB_SIM_MAX_QUBITS,
  stabilizer: STABILIZER_MAX_QUBITS,
  matrix_product_state: MPS_MAX_QUBITS,
  density_matrix: DENSITY_MATRIX_MAX_QUBITS,
};

/**
 * The price of one simulation (the formula in the catalog below): the one owner of it, used by
 * `circuit.simulate` and by every item of `circuit.simulate.batch`.
 */
export function simulationQuote(numQubits: number, shots: number, method?: { readonly name: Method; readonly factor: bigint }): PriceQuote {
  const blocks = BigInt(Math.ceil(shots / 100));
  const factor = method?.factor ?? pow2(numQubits - 10);
  return {
    priceMicros: BASE + blocks * factor,
    breakdown: { base: '0.000100', shots, shot_blocks: Number(blocks), num_qubits: numQubits, qubit_factor: Number(factor), ...(method === undefined ? {} : { method: method.name }) },
  };
}

/** `circuit.simulate`: the state-vector simulator (src/simulation), sampled `shots` times. */
export function circuitSimulate(limits: CircuitLimits, compute: JobsComputePort): Capability<Prepared> {
  const props = (circuit: unknown) => ({
    circuit,
    shots: { type: 'integer', minimum: 1, maximum: JOB_SIM_MAX_SHOTS, description: 'Number of samples of the measured bits' },
    seed: { type: 'integer', minimum: 0, maximum: Number.MAX_SAFE_INTEGER, description: 'Sampling seed (optional; fixed seeds give reproducible counts)' },
    ...METHOD_PROPS,
  });
  return {
    id: 'circuit.simulate',
    product: 'product-one',
    title: 'Circuit simulation',
    description: `Runs a circuit (wire format 0.2) on the simulator and returns the measured counts (bitstrings with clbit 0 rightmost). Methods (\`method\`, default auto): statevector up to ${JOB_SIM_MAX_QUBITS} qubits, stabilizer (Clifford circuits) up to ${STABILIZER_MAX_QUBITS}, matrix_product_state up to ${MPS_MAX_QUBITS}, density_matrix up to ${DENSITY_MATRIX_MAX_QUBITS}.`,
    pricing: {
      formula:
        '0.000100 + 0.000001 × ceil(shots / 100) × factor; factor by the method that runs (auto resolved): statevector 2^max(0, num_qubits − 10), density_matrix 4^max(0, num_qubits − 10), stabilizer ceil(num_qubits / 100), matrix_product_state ceil(num_qubits / 10) × ceil(χ / 16)²',
      parameters: { base: '0.000100', per_100_shots: '0.000001', free_qubits: 10, ...METHOD_FACTORS },
    },
    requestSchema: { type: 'object', additionalProperties: false, required: ['circuit', 'shots'], properties: props(CIRCUIT_FIELD_SCHEMA) },
    validationSchema: { type: 'object', additionalProperties: false, required: ['circuit', 'shots'], properties: props(CIRCUIT_FIELD_SHALLOW) },
    example: { circuit: BELL, shots: 1000 },
    // Deterministic apart from sampling; nothing leaves the process, so a re-run is safe.
    onInterrupted: 'rerun',
    prepare(request) {
      // Per-method limits: parsed up to the widest method, then the method (asked for or auto) checked.
      const { circuit, warnings } = requireCircuit(request['circuit'], { ...limits, maxQubits: Math.max(limits.maxQubits, STABILIZER_MAX_QUBITS) }, '/circuit');
      const mo = request['method_options'] as { max_bond_dimension?: number; truncation_threshold?: number } | undefined;
      const methodOptions = {
        ...(mo?.max_bond_dimension === undefined ? {} : { maxBondDimension: mo.max_bond_dimension }),
        ...(mo?.truncation_threshold === undefined ? {} : { truncationThreshold: mo.truncation_threshold }),
      };
      const choice = chooseMethod(circuit, (request['method'] as MethodRequest | undefined) ?? 'auto', JOB_METHOD_LIMITS, ['counts', 'probabilities'], methodOptions);
      return { circuit, shots: request['shots'] as number, seed: request['seed'] as number | undefined, warnings, method: choice.method, methodReason: choice.reason, methodOptions };
    },
    quote(p) {
      return simulationQuote(p.circuit.numQubits, p.shots, { name: p.method, factor: methodFactor(p.circuit, p.method, p.methodOptions) });
    },
    async run(p, ctx) {
      const r = await compute.simulate(
        p.circuit,
        { shots: p.shots, ...(p.seed === undefined ? {} : { seed: p.seed }), maxQubits: JOB_SIM_MAX_QUBITS, maxProbabilityEntries: 4096, method: p.method, methodOptions: p.methodOptions },
        ctx.signal,
      );
      return {
        counts: r.counts,
        shots: r.shots,
        seed: r.seed,
        num_qubits: r.numQubits,
        num_clbits: r.numClbits,
        ...(r.probabilities === undefined ? {} : { probabilities: r.probabilities }),
        probabilities_kind: r.probabilitiesKind,
        bit_order: 'clbit 0 rightmost',
        notes: [...r.notes],
        warnings: p.warnings,
        elapsed_ms: Math.round(r.timing.totalMs),
        method: p.method,
        ...(p.methodReason === undefined ? {} : { method_reason: p.methodReason }),
        ...(r.truncation === undefined
          ? {}
          : {
              truncation: { fidelity_lower_bound: r.truncation.fidelityLowerBound, fidelity_estimate: r.truncation.fidelityEstimate, max_bond_dimension_reached: r.truncation.maxBondDimensionReached },
            }),
      };
    },
  };
}
