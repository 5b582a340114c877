/**
 * What an equivalence check answers. `true` is only ever returned after a complete proof
 * (every basis column compared within epsilon, or a path sum reduced to the identity);
 * anything the checker cannot decide is `'unknown'` with a reason — callers must treat
 * `'unknown'` exactly like `false` (fail closed).
 */
export type EquivalenceMethod = 'unitary' | 'path-sum' | 'none';

export interface EquivalenceStats {
  /** Qubits actually compared (after factoring out identical leading/trailing gates). */
  readonly qubits?: number;
  readonly trimmedPrefix?: number;
  readonly trimmedSuffix?: number;
  readonly gatesA?: number;
  readonly gatesB?: number;
  /** unitary: basis columns compared before the answer. */
  readonly columnsChecked?: number;
  /** unitary: passes over the state per column after fusing monomial gate runs. */
  readonly passesPerColumn?: number;
  /** path-sum: path variables introduced by Hadamards, and left after reduction. */
  readonly pathVariables?: number;
  readonly pathVariablesLeft?: number;
  /** path-sum: rewrite rule applications by rule. */
  readonly rules?: Readonly<Record<string, number>>;
  /** path-sum: largest phase polynomial seen (terms). */
  readonly maxTerms?: number;
  /** The methods tried, in order, by verifyEquivalence. */
  readonly tried?: readonly string[];
}

export interface EquivalenceResult {
  readonly equivalent: true | false | 'unknown';
  readonly method: EquivalenceMethod;
  /** What was checked, human-readable. */
  readonly checked: string;
  readonly reason?: string;
  readonly stats?: EquivalenceStats;
  readonly elapsedMs: number;
}
