import type { GateOp, Operation } from '../../circuits/ir.js';
import { CERTIFICATE_BUDGET, rotationDistance } from '../../verification/numeric-policy.js';
import { phaseOf } from '../gate-info.js';
import { Recorder } from '../recorder.js';
import { RESYNTH_PHASE_POLYNOMIAL_RULE } from './todd-regions.js';

/**
 * Gates whose path sum the `resynth-phase-polynomial` checker reads (src/verification/phase-polynomial-rule.ts):
 * CNOT, X, SWAP, CZ, H and one-qubit phase gates, each by its arity.
 */
const ARITY: Readonly<Record<string, number>> = { h: 1, x: 1, id: 1, z: 1, s: 1, sdg: 1, t: 1, tdg: 1, rz: 1, p: 1, u1: 1, cx: 2, swap: 2, cz: 2 };

function readable(op: Operation): boolean {
  if (op.kind !== 'gate') return true; // a segment boundary: never part of a step
  if (ARITY[op.name] !== op.qubits.length || new Set(op.qubits).size !== op.qubits.length) return false;
  return op.params.every(Number.isFinite);
}

const QUARTER = Math.PI / 4;
/** The checker's snapping distance: a parity's summed angle this close to a multiple of π/4 is read as one. */
const SNAP = 1e-9;

/** Summed phase angle per affine parity of a gate run (H starts a path variable), keyed by the parity, summed as the checker sums. */
function paritySums(run: readonly GateOp[], qubits: readonly number[]): Map<string, number> {
  // the input variables numbered alike for both runs compared
  const lin = new Map<number, bigint>(qubits.map((q, i) => [q, 1n << BigInt(i)]));
  const cst = new Map<number, boolean>(qubits.map((q) => [q, false]));
  let next = qubits.length;
  const wire = (q: number): bigint => lin.get(q)!;
  const sums = new Map<string, number>();
  for (const op of run) {
    const [a, b] = op.qubits as [number, number];
    const theta = phaseOf(op);
    if (theta !== undefined) {
      const key = wire(a).toString(36);
      sums.set(key, (sums.get(key) ?? 0) + (cst.get(a) ? -theta : theta));
      continue;
    }
    if (op.name === 'cx') {
      lin.set(b, wire(b) ^ wire(a));
      cst.set(b, cst.get(b) !== cst.get(a));
    } else if (op.name === 'x') {
      cst.set(a, !cst.get(a));
    } else if (op.name === 'swap') {
      const [la, lb, ca, cb] = [wire(a), wire(b), cst.get(a), cst.get(b)];
      lin.set(a, lb);
      lin.set(b, la);
      cst.set(a, cb!);
      cst.set(b, ca!);
    } else if (op.name === 'h') {
      lin.set(a, 1n << BigInt(next++));
      cst.set(a, false);
    }
    // cz and id: wire values unchanged (cz's Clifford terms never snap)
  }
  return sums;
}

/**
 * What the checker will count for replacing `from` by `to` (numeric-policy.ts): the distance of each
 * parity's sum from the π/4 grid when within SNAP, on both sides, plus the other sums' differences.
 * The runs give the same parities here (the passes only move or merge phases), so both sides are keyed alike.
 */
function estimate(from: readonly GateOp[], to: readonly GateOp[]): number {
  const qubits = [...new Set([...from, ...to].flatMap((o) => o.qubits))];
  const a = paritySums(from, qubits);
  const b = paritySums(to, qubits);
  let deviation = 0;
  const rest = new Map<string, number>();
  for (const [sums, sign] of [
    [a, 1],
    [b, -1],
  ] as const) {
    for (const [key, theta] of sums) {
      const k = Math.round(theta / QUARTER);
      if (Math.abs(theta - k * QUARTER) <= SNAP) deviation += rotationDistance(theta, k * QUARTER);
      else rest.set(key, (rest.get(key) ?? 0) + sign * theta);
    }
  }
  for (const d of rest.values()) deviation += rotationDistance(d, 0);
  return deviation;
}

/**
 * Runs a pass that only merges, moves or re-places one-qubit phase gates on points of the same affine
 * parity (phase-polynomial merging, rotation placement) and records its effect as local steps of rule
 * `resynth-phase-polynomial`, one per changed run of gates between non-gate ops, instead of the pass's
 * own global steps: the replayer proves each with the checker's path sum (same linear map, same
 * Hadamard structure, same phase function), so no whole-circuit check is needed. On a 28-qubit,
 * 4,285-gate circuit that check could not finish, and its fallback kept almost nothing (issue 37).
 * When a run holds a gate the checker cannot read, or the rounding would not fit the certificate's
 * budget, the pass's global steps are kept as they were.
 */
export function asLocalSteps(rec: Recorder, pass: (r: Recorder) => number): number {
  if (!rec.ops.every(readable)) return pass(rec);
  const probe = new Recorder(rec.ops);
  probe.stopped = rec.stopped;
  probe.finishStopped = rec.finishStopped;
  probe.deviation = rec.deviation;
  probe.tol = rec.tol;
  const changes = pass(probe);
  if (changes === 0) return 0;
  const before = runs(rec.ops);
  const after = runs(probe.ops);
  if (before.length !== after.length || !probe.ops.every(readable)) return global(rec, probe, changes);
  const steps: { from: number; to: number; out: GateOp[]; deviation: number }[] = [];
  let total = 0;
  for (let k = 0; k < before.length; k++) {
    const [x0, x1] = before[k]!;
    const [y0, y1] = after[k]!;
    const old = rec.ops.slice(x0, x1) as GateOp[];
    const out = probe.ops.slice(y0, y1) as GateOp[];
    if (old.length === out.length && old.every((o, i) => o === out[i])) continue;
    if (old.length === 0) return global(rec, probe, changes);
    const deviation = estimate(old, out);
    total += deviation;
    steps.push({ from: x0, to: x1, out, deviation });
  }
  if (rec.deviation + total > CERTIFICATE_BUDGET / 2) return global(rec, probe, changes);
  // right to left, so the positions of the runs not yet replaced stay valid
  for (const st of steps.reverse()) {
    rec.apply(
      RESYNTH_PHASE_POLYNOMIAL_RULE,
      Array.from({ length: st.to - st.from }, (_, i) => st.from + i),
      st.out,
    );
    rec.charge(st.deviation);
  }
  return changes;
}

/** The runs [from, to) of gates between non-gate ops (empty ones included, so both lists align). */
function runs(ops: readonly Operation[]): [number, number][] {
  const out: [number, number][] = [];
  let from = 0;
  ops.forEach((op, i) => {
    if (op.kind === 'gate') return;
    out.push([from, i]);
    from = i + 1;
  });
  out.push([from, ops.length]);
  return out;
}

/** Keeps the pass's own (global) steps. */
function global(rec: Recorder, probe: Recorder, changes: number): number {
  for (const st of probe.steps) rec.steps.push(st);
  rec.ops = probe.ops;
  rec.deviation = probe.deviation;
  rec.tol = probe.tol;
  return changes;
}
