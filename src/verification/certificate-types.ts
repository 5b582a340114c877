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
  /**
   * In-place steps (rule `phase-teleport`): the op at positions[i] becomes inPlace[i], or is
   * removed when it is null; `inserted` is then empty and nothing moves.
   */
  readonly inPlace?: readonly (GateOp | null)[];
  /** Evidence the rule's checker replays: for `phase-teleport`, the reduction trace (below). */
  readonly witness?: { readonly trace: readonly (readonly number[])[] };
  /**
   * `phase-teleport` only: the range [from, to) of the op list whose path sum the trace reduces (a
   * unitary segment of a circuit with mid-circuit measurement, or the whole list); positions lie in it.
   */
  readonly span?: readonly [number, number];
  /**
   * The `widen` rule only (positions, replaced and inserted empty): from this step on the circuit has
   * `numQubits` qubits (at least as many as before); the new wires carry no gate yet. Routing onto a
   * device borrows them: a run of gates that uses them leaves each borrowed wire as it found it.
   */
  readonly numQubits?: number;
}

/** The rule id of a widening step (see CertificateStep.numQubits). */
export const WIDEN_RULE = 'widen';

/** The rule id of a reordering step (see CertificateStep.order). */
export const REORDER_RULE = 'reorder';

/**
 * Rule `phase-teleport` (phase teleportation, Kissinger & van de Wetering 2020): a batch of
 * in-place changes to one-qubit phase gates, justified by a path sum of the circuit before
 * the step in which every non-Clifford phase gate is a gadget, reduced by the recorded
 * trace. The checker (src/verification/phase-teleport-check.ts) builds the path sum of the ops in
 * `span` itself (n = their highest qubit + 1), numbering its variables as follows, and replays the
 * trace entries:
 *  - 0 … n−1 the inputs; then, op by op: `h` adds one summed variable; a one-qubit phase gate
 *    whose angle is not a multiple of π/2 (numeric-policy.ts `quarterTurns`) adds its gadget's hub,
 *    then its leaf; x, y, other phase gates, cx, cz, swap and id add none; any other gate closes
 *    each of its qubits in order (below) and gives it a fresh free variable; a measure, reset
 *    or barrier with a gate before it since the start or the last such op closes every qubit
 *    0 … n−1 and gives each a fresh free variable;
 *  - closing a qubit adds a summed variable then a free one (the wire ends through H·H);
 *    after the last op every qubit 0 … n−1 is closed;
 *  - a `rebuild` entry adds a new hub, then a new leaf.
 * Entries: [omega, y], [pivot, y, y'], [elim, y], [rebuild, hub], [fuse, hubA, hubB],
 * [settle, hub]. The changes must keep, for every group of gates whose gadgets were fused,
 * Σ sign·angle (mod 2π, within the certificate budget, which counts the difference); other tracked
 * gates and everything else stay unchanged.
 */
export const TELEPORT_TRACE = { omega: 0, pivot: 1, elim: 2, rebuild: 3, fuse: 4, settle: 5 } as const;
export const PHASE_TELEPORT_RULE = 'phase-teleport';

export interface Certificate {
  readonly steps: readonly CertificateStep[];
}

export const GLOBAL_RULE_PREFIX = 'global:';

export function isGlobalRule(rule: string): boolean {
  return rule.startsWith(GLOBAL_RULE_PREFIX);
}

/**
 * Rule `pauli-rotations` (Pauli-rotation merging and gadget resynthesis): a contiguous run of
 * Clifford gates (h, x, y, z, s, sdg, cx, cz, swap, phase gates by k·π/2) and phase gates is replaced
 * by another such run. Each run is read as C·R_m⋯R_1 — R_k = exp(−iθ_k/2·P_k), P_k the Pauli Z on the
 * phase gate's qubit pulled back through the Clifford gates before it, C the product of all its
 * Clifford gates — by the checker (src/verification/pauli-rotation-check.ts) with its own tableau.
 * `witness.trace` entries [j, k1 < k2 < …] say which of the replaced run's rotations (numbered in order)
 * make up the new run's rotation j (j in increasing order; −1: a group that cancels, angle 0): each must carry ±P_j and commute with every replaced
 * rotation before it not yet taken, and their signed angles must add up to θ_j. Rotations taken by no
 * entry must be by 0; both runs' Cliffords must be equal. The step needs `positions` contiguous and
 * no `span` or `inPlace`.
 */
export const PAULI_ROTATIONS_RULE = 'pauli-rotations';
