import type { EquivalenceChecker } from './equivalence-port.js';

/** Placeholder until src/verification's checker lands: establishes nothing. */
export const defaultEquivalence: EquivalenceChecker = () => ({
  equivalent: 'unknown',
  method: 'none',
  checked: 'nothing',
  reason: 'no equivalence checker is available',
  elapsedMs: 0,
});
