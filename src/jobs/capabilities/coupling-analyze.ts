import type { Circuit } from '../../circuits/ir.js';
import { requireCircuit, type CircuitLimits } from '../../circuits/wire-format.js';
import { analyzeCoupling, type CouplingDeps, type CouplingMode } from '../../coupling/analyze-coupling.js';
import type { CouplingSettings } from '../../coupling/analyze-coupling.js';
import { finalState } from '../../simulation/index.js';
import { resolvePairs } from '../../coupling/pairs.js';
import { pow2, type Capability } from '../capability.js';
import type { JobsComputePort } from '../ports.js';
import { BELL, CIRCUIT_FIELD_SCHEMA, CIRCUIT_FIELD_SHALLOW } from './circuit-schema.js';

interface Prepared {
  readonly circuit: Circuit;
  readonly mode: CouplingMode;
  readonly pairs: readonly (readonly number[])[] | undefined;
  readonly warnings: string[];
}

/** `coupling.analyze`: qualitative / measured coupling (same code as POST /v1/analysis/coupling). */
export function couplingAnalyze(limits: CircuitLimits, settings: CouplingSettings, compute: JobsComputePort): Capability<Prepared> {
  const deps: CouplingDeps = { finalState: (c, opts) => finalState(c, { timeBudgetMs: opts.timeBudgetMs }) };
  const props = (circuit: unknown) => ({
    circuit,
    mode: { type: 'string', enum: ['qualitative', 'measured', 'auto'], default: 'auto' },
    pairs: { type: 'array', items: { type: 'array', items: { type: 'integer', minimum: 0 }, minItems: 2, maxItems: 2 }, maxItems: 100_000, description: 'Qubit pairs to report (default: all)' },
  });
  return {
    id: 'coupling.analyze',
    product: 'product-one',
    title: 'Coupling analysis',
    description: `Which qubit pairs are coupled: qualitative (interaction graph, light cones) or measured from the state (entropies, concurrence, mutual information) up to ${settings.measuredMaxQubits} qubits; above that the answer falls back to qualitative and says why.`,
    pricing: {
      formula: 'qualitative: 0.000300; measured or auto: 0.000300 + 0.000010 × 2^max(0, num_qubits − 10)',
      parameters: { base: '0.000300', measured_unit: '0.000010', free_qubits: 10 },
    },
    requestSchema: { type: 'object', additionalProperties: false, required: ['circuit'], properties: props(CIRCUIT_FIELD_SCHEMA) },
    validationSchema: { type: 'object', additionalProperties: false, required: ['circuit'], properties: props(CIRCUIT_FIELD_SHALLOW) },
    example: { circuit: BELL, mode: 'measured' },
    onInterrupted: 'rerun',
    prepare(request) {
      const { circuit, warnings } = requireCircuit(request['circuit'], limits, '/circuit');
      const pairs = request['pairs'] as number[][] | undefined;
      // Pairs outside the circuit are the submitter's mistake: a 400 now, not a paid job that fails.
      resolvePairs(pairs, circuit.numQubits, '/pairs');
      return { circuit, mode: (request['mode'] as CouplingMode | undefined) ?? 'auto', pairs, warnings };
    },
    quote(p) {
      // Measured work is capped by the measured limit; beyond it the job falls back to qualitative.
      const measuredQubits = Math.min(p.circuit.numQubits, settings.measuredMaxQubits);
      const extra = p.mode === 'qualitative' ? 0n : 10n * pow2(measuredQubits - 10);
      return { priceMicros: 300n + extra, breakdown: { base: '0.000300', mode: p.mode, num_qubits: p.circuit.numQubits } };
    },
    async run(p, ctx) {
      const request = { mode: p.mode, pairs: p.pairs, pairsPath: '/request/pairs' };
      // Structure only is cheap and stays here; measured/auto simulate, through the compute port.
      const report = p.mode === 'qualitative' ? await analyzeCoupling(p.circuit, request, settings, deps) : await compute.analyzeCoupling(p.circuit, request, settings, ctx.signal);
      return { ...report, warnings: p.warnings };
    },
  };
}
