import type { Circuit } from '../circuits/ir.js';

/** The whole-circuit equivalence checker's contract (implemented in src/verification, separately). */
export interface EquivalenceResult {
  readonly equivalent: true | false | 'unknown';
  readonly method: 'unitary' | 'path-sum' | 'none';
  readonly checked: string;
  readonly reason?: string;
  readonly elapsedMs: number;
}

/** `epsilon`: the unitary method's tolerance per basis column when tighter than the default (numeric-policy.ts PROOF_EPS). */
export type EquivalenceChecker = (a: Circuit, b: Circuit, opts: { timeBudgetMs: number; maxUnitaryQubits?: number; epsilon?: number }) => EquivalenceResult;
