import type { EquivalenceChecker } from './equivalence-port.js';
import { verifyEquivalence } from '../verification/verify-equivalence.js';

/**
 * The whole-circuit check used by default: src/verification's `verifyEquivalence`
 * (whole unitary up to 12 qubits, path sums of the miter above). Independent code:
 * it shares nothing with the passes.
 */
export const defaultEquivalence: EquivalenceChecker = (a, b, opts) =>
  verifyEquivalence(a, b, {
    timeBudgetMs: opts.timeBudgetMs,
    ...(opts.maxUnitaryQubits === undefined ? {} : { maxUnitaryQubits: opts.maxUnitaryQubits }),
    ...(opts.epsilon === undefined ? {} : { epsilon: opts.epsilon }),
  });
