import type { Circuit } from '../circuits/ir.js';

/** The whole-circuit equivalence checker's contract (implemented in src/verification, separately). */
export interface EquivalenceResult {
  readonly equivalent: true | false | 'unknown';
  readonly method: 'unitary' | 'path-sum' | 'none';
  readonly checked: string;
  readonly reason?: string;
  readonly elapsedMs: number;
}

export type EquivalenceChecker = (a: Circuit, b: Circuit, opts: { timeBudgetMs: number; maxUnitaryQubits?: number }) => EquivalenceResult;
