import type { EquivalenceChecker } from './equivalence-port.js';
import { unitaryEquivalent } from '../verification/unitary-equivalence.js';
import { pathSumEquivalent } from '../verification/path-sum-equivalence.js';

/**
 * The whole-circuit check used by default: src/verification's unitary check up to 12
 * qubits, path sums above (or when the unitary check cannot decide).
 */
export const defaultEquivalence: EquivalenceChecker = (a, b, opts) => {
  const t0 = performance.now();
  const max = opts.maxUnitaryQubits ?? 12;
  if (Math.max(a.numQubits, b.numQubits) <= max) {
    const u = unitaryEquivalent(a, b, { maxQubits: max, timeBudgetMs: opts.timeBudgetMs });
    if (u.equivalent !== 'unknown') return u;
  }
  const left = Math.max(1, opts.timeBudgetMs - (performance.now() - t0));
  return pathSumEquivalent(a, b, { timeBudgetMs: left });
};
