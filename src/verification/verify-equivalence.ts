/**
 * The entry point: decides A ≡ B up to global phase with the strongest method that applies.
 *  - ≤ maxUnitaryQubits qubits: whole-unitary comparison (every basis column);
 *  - otherwise, or if the unitary check ran out of time: path-sum reduction of the miter;
 *  - anything neither method can decide: 'unknown' with the reason.
 * Callers treat 'unknown' as "not proven" (fail closed).
 */
import type { Circuit } from '../circuits/ir.js';
import type { EquivalenceResult } from './equivalence-result.js';
import { pathSumEquivalent } from './path-sum-equivalence.js';
import { prepareCircuits } from './prepare-circuits.js';
import { DEFAULT_EPSILON, DEFAULT_MAX_UNITARY_QUBITS, unitaryEquivalent } from './unitary-equivalence.js';

export interface VerifyOptions {
  /** Total time for all methods tried. */
  readonly timeBudgetMs: number;
  /** Whole-unitary comparison up to this many qubits. Default 12. */
  readonly maxUnitaryQubits?: number;
  /** Tolerance per basis column (‖·‖₂), for the unitary method and the path sum's residual phases. Default 1e-9. */
  readonly epsilon?: number;
}

/** Fail closed on internal errors too: an exception becomes 'unknown' with the message. */
export function verifyEquivalence(a: Circuit, b: Circuit, opts: VerifyOptions): EquivalenceResult {
  const start = Date.now();
  try {
    return verifyUnguarded(a, b, opts);
  } catch (e) {
    return {
      equivalent: 'unknown',
      method: 'none',
      checked: 'nothing (internal error)',
      reason: `internal checker error: ${e instanceof Error ? e.message : String(e)}`,
      elapsedMs: Date.now() - start,
    };
  }
}

function verifyUnguarded(a: Circuit, b: Circuit, opts: VerifyOptions): EquivalenceResult {
  const start = Date.now();
  const maxQ = opts.maxUnitaryQubits ?? DEFAULT_MAX_UNITARY_QUBITS;
  const left = (): number => Math.max(0, opts.timeBudgetMs - (Date.now() - start));
  const tried: string[] = [];
  const finish = (r: EquivalenceResult, reasons: readonly string[] = []): EquivalenceResult => {
    const reason = [...reasons, ...(r.reason === undefined ? [] : [r.reason])].join('; ');
    return {
      ...r,
      ...(reason === '' ? {} : { reason }),
      stats: { ...r.stats, tried },
      elapsedMs: Date.now() - start,
    };
  };

  const prep = prepareCircuits(a, b);
  if (prep.kind === 'decided') {
    return finish({ equivalent: prep.equivalent, method: 'none', checked: 'circuit structure (qubits, clbits, measurements)', reason: prep.reason, elapsedMs: 0 });
  }
  const earlier: string[] = [];
  if (prep.numQubits <= maxQ) {
    tried.push('unitary');
    const u = unitaryEquivalent(a, b, { epsilon: opts.epsilon ?? DEFAULT_EPSILON, maxQubits: maxQ, timeBudgetMs: left() });
    if (u.equivalent !== 'unknown') return finish(u);
    earlier.push(`unitary: ${u.reason ?? 'undecided'}`);
  }
  tried.push('path-sum');
  const p = pathSumEquivalent(a, b, {
    timeBudgetMs: left(),
    ...(opts.epsilon === undefined ? {} : { epsilon: opts.epsilon }),
  });
  if (p.equivalent !== 'unknown') return finish(p, earlier);
  const reasons = [...earlier, `path-sum: ${p.reason ?? 'undecided'}`];
  if (prep.numQubits > maxQ) reasons.unshift(`${prep.numQubits} qubits to compare is above the whole-unitary limit of ${maxQ}`);
  return finish({
    equivalent: 'unknown',
    method: 'none',
    checked: `no method could decide: ${tried.join(', ')} tried`,
    reason: reasons.join('; '),
    ...(p.stats === undefined ? {} : { stats: p.stats }),
    elapsedMs: 0,
  });
}
