import type { Circuit } from '../../circuits/ir.js';
import { requireCircuit, type CircuitLimits } from '../../circuits/wire-format.js';
import { pow2, type Capability, type PriceQuote } from '../capability.js';
import type { JobsComputePort } from '../ports.js';
import { BELL, CIRCUIT_FIELD_SCHEMA, CIRCUIT_FIELD_SHALLOW } from './circuit-schema.js';

/** Jobs simulate at most this many qubits: above it the price passes the 1.000000 ceiling anyway. */
export const JOB_SIM_MAX_QUBITS = 26;
export const JOB_SIM_MAX_SHOTS = 1_000_000;
const BASE = 100n;

interface Prepared {
  readonly circuit: Circuit;
  readonly shots: number;
  readonly seed: number | undefined;
  readonly warnings: string[];
}

/**
 * The price of one simulation (the formula in the catalog below): the one owner of it, used by
 * `circuit.simulate` and by every item of `circuit.simulate.batch`.
 */
export function simulationQuote(numQubits: number, shots: number): PriceQuote {
  const blocks = BigInt(Math.ceil(shots / 100));
  const factor = pow2(numQubits - 10);
  return { priceMicros: BASE + blocks * factor, breakdown: { base: '0.000100', shots, shot_blocks: Number(blocks), num_qubits: numQubits, qubit_factor: Number(factor) } };
}

/** `circuit.simulate`: the state-vector simulator (src/simulation), sampled `shots` times. */
export function circuitSimulate(limits: CircuitLimits, compute: JobsComputePort): Capability<Prepared> {
  const props = (circuit: unknown) => ({
    circuit,
    shots: { type: 'integer', minimum: 1, maximum: JOB_SIM_MAX_SHOTS, description: 'Number of samples of the measured bits' },
    seed: { type: 'integer', minimum: 0, maximum: Number.MAX_SAFE_INTEGER, description: 'Sampling seed (optional; fixed seeds give reproducible counts)' },
  });
  return {
    id: 'circuit.simulate',
    product: 'product-one',
    title: 'Circuit simulation',
    description: `Runs a circuit (wire format 0.2) on the state-vector simulator and returns the measured counts (bitstrings with clbit 0 rightmost). Up to ${JOB_SIM_MAX_QUBITS} qubits.`,
    pricing: {
      formula: '0.000100 + 0.000001 × ceil(shots / 100) × 2^max(0, num_qubits − 10)',
      parameters: { base: '0.000100', per_100_shots: '0.000001', free_qubits: 10 },
    },
    requestSchema: { type: 'object', additionalProperties: false, required: ['circuit', 'shots'], properties: props(CIRCUIT_FIELD_SCHEMA) },
    validationSchema: { type: 'object', additionalProperties: false, required: ['circuit', 'shots'], properties: props(CIRCUIT_FIELD_SHALLOW) },
    example: { circuit: BELL, shots: 1000 },
    // Deterministic apart from sampling; nothing leaves the process, so a re-run is safe.
    onInterrupted: 'rerun',
    prepare(request) {
      const { circuit, warnings } = requireCircuit(request['circuit'], { ...limits, maxQubits: Math.min(limits.maxQubits, JOB_SIM_MAX_QUBITS) }, '/circuit');
      return { circuit, shots: request['shots'] as number, seed: request['seed'] as number | undefined, warnings };
    },
    quote(p) {
      return simulationQuote(p.circuit.numQubits, p.shots);
    },
    async run(p, ctx) {
      const r = await compute.simulate(p.circuit, { shots: p.shots, ...(p.seed === undefined ? {} : { seed: p.seed }), maxQubits: JOB_SIM_MAX_QUBITS, maxProbabilityEntries: 4096 }, ctx.signal);
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
      };
    },
  };
}
