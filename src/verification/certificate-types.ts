import type { GateOp, Operation } from '../circuits/ir.js';

/**
 * The certificate format shared by the optimizer (which writes it) and the replayer
 * (which checks it). Only data lives here: no logic is shared between the two sides.
 *
 * Step semantics, applied to the current op list:
 *   1. the ops at `positions` (strictly increasing indices) must equal `replaced`;
 *   2. for a local rule, every matched op must commute (per the proven commutation
 *      rule) with every unmatched op lying between it and the anchor (the first matched
 *      position, or with `anchor: 'last'` the last), so the matched ops can be gathered,
 *      in order, at the anchor;
 *   3. the gathered ops are replaced by `inserted`, placed where the anchor op was
 *      (unmatched ops in between keep their order on the far side of the new ops).
 * Global steps (rule ids starting `global:`) follow the same splice semantics but carry
 * no local justification: the whole-circuit equivalence check justifies them.
 */
export interface CertificateStep {
  readonly rule: string;
  readonly positions: readonly number[];
  readonly replaced: readonly Operation[];
  readonly inserted: readonly GateOp[];
  /** Where the matched ops gather and the new ops go: `first` (default) or `last` position. */
  readonly anchor?: 'first' | 'last';
  /** Global steps only: insert the new ops before this index of the current list (may equal its length). */
  readonly insertAt?: number;
  /**
   * The `reorder` rule only (positions, replaced and inserted empty): the new op list is
   * `order.map((i) => ops[i])`. An instance when `order` is a permutation that keeps, on every qubit
   * and every clbit, the ops touching it in their order — the same circuit DAG, so the same operation.
   */
  readonly order?: readonly number[];
}

/** The rule id of a reordering step (see CertificateStep.order). */
export const REORDER_RULE = 'reorder';

export interface Certificate {
  readonly steps: readonly CertificateStep[];
}

export const GLOBAL_RULE_PREFIX = 'global:';

export function isGlobalRule(rule: string): boolean {
  return rule.startsWith(GLOBAL_RULE_PREFIX);
}
