/**
 * Optimization of a parameterized circuit (docs/decisions/optimization-parameterized.md): adjacent
 * rotations about the same axis on the same qubits merge, G(a)·G(b) → G(a+b), with a and b
 * symbolic expressions (kept canonical when affine, so `theta` and `-theta` cancel to nothing).
 * Every merge is one certificate step; the checker (src/verification/symbolic-check.ts) replays
 * them. The rule is an identity for ALL parameter values (each G is a one-parameter group
 * exp(−iθK/2) or diag(1, e^{iθ}) with fixed K), so a replayed certificate covers every binding.
 */
import { gate, symbolicGate, withOps, type Circuit, type GateOp, type Operation } from '../circuits/ir.js';
import { isZeroExpr, numExpr, sumExpr, type ParamExpr } from '../circuits/param-expr.js';
import { opQubits } from '../circuits/ir.js';

/**
 * Gates G(θ) with G(a)·G(b) = G(a+b) exactly (not only up to phase) and G(0) = I. `symmetric`:
 * the gate is the same with its qubits swapped, so rzz on [0,1] merges with rzz on [1,0].
 */
export const ADDITIVE_GATES: ReadonlyMap<string, { readonly symmetric: boolean }> = new Map([
  ['rx', { symmetric: false }],
  ['ry', { symmetric: false }],
  ['rz', { symmetric: false }],
  ['p', { symmetric: false }],
  ['u1', { symmetric: false }],
  ['rxx', { symmetric: true }],
  ['ryy', { symmetric: true }],
  ['rzz', { symmetric: true }],
  ['crx', { symmetric: false }],
  ['cry', { symmetric: false }],
  ['crz', { symmetric: false }],
  ['cp', { symmetric: true }],
  ['cu1', { symmetric: true }],
]);

/** One merge: the ops at `positions` (indices into the op list as it is when the step applies) become `output` at the first position. */
export interface SymbolicStep {
  readonly rule: 'merge-rotation';
  readonly positions: readonly [number, number];
  readonly gate: string;
  readonly qubits: readonly number[];
  /** The merged gate's parameter as wire text (expression or number), or null when it is the identity (dropped). */
  readonly output: string | number | null;
}

export interface SymbolicOptimization {
  readonly circuit: Circuit;
  readonly steps: readonly SymbolicStep[];
}

const exprOf = (op: GateOp): ParamExpr => op.exprs?.[0] ?? numExpr(op.params[0]!);

function sameWires(a: GateOp, b: GateOp): boolean {
  if (a.name !== b.name || a.qubits.length !== b.qubits.length) return false;
  if (a.qubits.every((q, i) => b.qubits[i] === q)) return true;
  return ADDITIVE_GATES.get(a.name)?.symmetric === true && a.qubits.length === 2 && a.qubits[0] === b.qubits[1] && a.qubits[1] === b.qubits[0];
}

/** The merged gate of a then b (b later), or null when it is the identity. */
export function mergedGate(a: GateOp, b: GateOp): GateOp | null {
  const sa = a.exprs?.[0];
  const sb = b.exprs?.[0];
  if ((sa === undefined || sa === null) && (sb === undefined || sb === null)) {
    const v = a.params[0]! + b.params[0]!;
    return v === 0 ? null : gate(a.name, a.qubits, [v]);
  }
  const e = sumExpr(exprOf(a), exprOf(b));
  return isZeroExpr(e) ? null : symbolicGate(a.name, a.qubits, [Number.NaN], [e]);
}

/** One left-to-right pass merging each additive gate into the last op on its wires when that is the same gate. */
export function mergeRotations(c: Circuit, paramText: (op: GateOp) => string | number): SymbolicOptimization {
  const out: (Operation | null)[] = [];
  const last = new Map<number, number>();
  const steps: SymbolicStep[] = [];
  // Positions in the certificate are in the list as it is when each step applies (dropped ops removed):
  // a Fenwick tree counts the dropped ones before an index in O(log n).
  const tree = new Int32Array(c.ops.length + 1);
  let dropped = 0;
  const drop = (i: number): void => {
    dropped++;
    for (let k = i + 1; k <= c.ops.length; k += k & -k) tree[k]!++;
  };
  const removedBefore = (i: number): number => {
    let n = 0;
    for (let k = i; k > 0; k -= k & -k) n += tree[k]!;
    return n;
  };
  for (const op of c.ops) {
    const qs = opQubits(op);
    if (op.kind === 'gate' && ADDITIVE_GATES.has(op.name)) {
      const prevIdx = last.get(qs[0]!);
      const prev = prevIdx === undefined ? null : out[prevIdx];
      if (prev !== null && prev !== undefined && prev.kind === 'gate' && sameWires(prev, op) && qs.every((q) => last.get(q) === prevIdx)) {
        const merged = mergedGate(prev, op);
        const pos = prevIdx! - removedBefore(prevIdx!);
        const live = out.length - dropped;
        steps.push({ rule: 'merge-rotation', positions: [pos, live], gate: op.name, qubits: [...prev.qubits], output: merged === null ? null : paramText(merged) });
        out[prevIdx!] = merged;
        if (merged === null) {
          drop(prevIdx!);
          for (const q of qs) last.delete(q);
        }
        continue;
      }
    }
    out.push(op);
    for (const q of qs) last.set(q, out.length - 1);
  }
  return {
    circuit: withOps(
      c,
      out.filter((o): o is Operation => o !== null),
    ),
    steps,
  };
}
