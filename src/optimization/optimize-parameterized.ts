/**
 * POST /v1/circuits/optimize for a circuit with symbolic parameters: symbolic rotation merging
 * (symbolic-merge.ts) under every profile, proven by replaying its certificate with the
 * independent checker (src/verification/symbolic-check.ts), which covers every binding. A few
 * random bindings compared by whole unitaries are reported beside it as evidence. A certificate
 * that does not replay fails closed (422 OPTIMIZATION_UNVERIFIED), as for numeric circuits.
 */
import type { Circuit, GateOp } from '../circuits/ir.js';
import { formatParamExpr } from '../circuits/param-expr.js';
import { fail } from '../errors/app-error.js';
import { sha256Hex } from '../verification/certificate-digest.js';
import { checkSymbolicCertificate, randomBindingsCheck } from '../verification/symbolic-check.js';
import { OPTIMIZATION_ERRORS } from './error-codes.js';
import { circuitMetrics, type CircuitMetrics } from './metrics.js';
import { mergeRotations, type SymbolicStep } from './symbolic-merge.js';

/** Random bindings compared (circuits of at most RANDOM_CHECK_QUBITS qubits and RANDOM_CHECK_GATES gates). */
export const RANDOM_BINDINGS = 5;
const RANDOM_CHECK_QUBITS = 10;
const RANDOM_CHECK_GATES = 2000;

export interface ParameterizedOptimization {
  readonly circuit: Circuit;
  readonly metricsBefore: CircuitMetrics;
  readonly metricsAfter: CircuitMetrics;
  readonly passes: readonly string[];
  readonly methods: readonly { method: string; checked: string; [k: string]: unknown }[];
  readonly certificate: { readonly digest: string; readonly stepCount: number; readonly globalSteps: number; readonly steps: readonly SymbolicStep[] };
  readonly notes: readonly string[];
  readonly elapsedMs: number;
}

const paramText = (op: GateOp): string | number => {
  const e = op.exprs?.[0];
  return e === undefined || e === null ? op.params[0]! : formatParamExpr(e);
};

export function optimizeParameterized(c: Circuit): ParameterizedOptimization {
  const t0 = performance.now();
  const { circuit: out, steps } = mergeRotations(c, paramText);
  const replay = checkSymbolicCertificate(c, out, steps);
  if (replay !== true) {
    throw fail(OPTIMIZATION_ERRORS.OPTIMIZATION_UNVERIFIED, `The symbolic certificate did not replay: ${replay}. Nothing is returned.`, { reason: replay });
  }
  const methods: { method: string; checked: string; [k: string]: unknown }[] = [
    {
      method: 'symbolic-replay',
      checked: `${steps.length} merge step(s) replayed by the independent checker; each is G(a)·G(b) = G(a+b), an identity for every value of the parameters, so the proof covers all bindings`,
      local_steps: steps.length,
    },
  ];
  const gates = c.ops.length;
  if (c.numQubits <= RANDOM_CHECK_QUBITS && gates <= RANDOM_CHECK_GATES && steps.length > 0) {
    const r = randomBindingsCheck(c, out, RANDOM_BINDINGS, RANDOM_CHECK_QUBITS);
    if (r.equivalent === false) {
      throw fail(OPTIMIZATION_ERRORS.OPTIMIZATION_UNVERIFIED, 'The optimized circuit differs from the input at a random binding. Nothing is returned.', { reason: 'random binding differs' });
    }
    methods.push({
      method: 'random-bindings',
      checked: `whole unitaries equal up to global phase at ${r.bindings} random binding(s) (evidence beside the proof, not the proof)`,
      equivalent: r.equivalent === true,
      bindings: r.bindings,
    });
  }
  const digest = sha256Hex(JSON.stringify(steps.map((s) => [s.rule, s.positions, s.gate, s.qubits, s.output])));
  return {
    circuit: out,
    metricsBefore: circuitMetrics(c),
    metricsAfter: circuitMetrics(out),
    passes: ['symbolic-rotation-merge'],
    methods,
    certificate: { digest, stepCount: steps.length, globalSteps: 0, steps },
    notes: ['the circuit has symbolic parameters: only symbolic rotation merging applies (any profile); bind the parameters for the full optimizer'],
    elapsedMs: performance.now() - t0,
  };
}
