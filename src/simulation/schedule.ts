/**
 * Orders the ops of one fused block for the kernels. Ops on disjoint qubits commute, so
 * any order that keeps each qubit's ops in sequence is the same unitary. A layer of
 * single-qubit gates followed by a CX ladder arrives interleaved (1q, 1q, cx, 1q, cx, …);
 * reordered, the single-qubit ops form one run and the
 * controlled-X ops one run, which is composed into a single permutation (perm.ts).
 */
import type { KOp } from './kernels.js';
import { K_PERM, K_X } from './kernels.js';

const SINGLE = 0;
const PERMUTATION = 1;
const OTHER = 2;

export interface PlacedOp {
  readonly op: KOp;
  /** OR of 1 << local bit over the qubits the op acts on (targets and controls). */
  readonly mask: number;
}

const classOf = (p: PlacedOp): number => (p.op.kind === K_X ? PERMUTATION : (p.mask & (p.mask - 1)) === 0 ? SINGLE : OTHER);

/**
 * Reorders into runs of one class at a time (topological order of the per-qubit chains,
 * Kahn's algorithm with one ready queue per class): drain the current class, including
 * ops it makes ready, then move to the next class that has ready ops. O(ops × qubits).
 */
function reorder(ops: readonly PlacedOp[]): PlacedOp[] {
  const m = ops.length;
  const indeg = new Int32Array(m);
  const succ: number[][] = ops.map(() => []);
  const last = new Int32Array(32).fill(-1);
  ops.forEach((p, i) => {
    for (let bits = p.mask; bits !== 0; bits &= bits - 1) {
      const b = 31 - Math.clz32(bits & -bits);
      const prev = last[b]!;
      const s = prev >= 0 ? succ[prev]! : undefined;
      if (s !== undefined && s[s.length - 1] !== i) {
        s.push(i);
        indeg[i]!++;
      }
      last[b] = i;
    }
  });
  const ready: number[][] = [[], [], []];
  const cls = ops.map(classOf);
  for (let i = 0; i < m; i++) if (indeg[i] === 0) ready[cls[i]!]!.push(i);
  const out: PlacedOp[] = [];
  let want = SINGLE;
  while (out.length < m) {
    const q = ready[want]!;
    if (q.length === 0) {
      want = (want + 1) % 3;
      continue;
    }
    for (let k = 0; k < q.length; k++) {
      const i = q[k]!;
      out.push(ops[i]!);
      for (const j of succ[i]!) if (--indeg[j]! === 0) ready[cls[j]!]!.push(j);
    }
    q.length = 0;
  }
  return out;
}

function permOf(xs: readonly KOp[]): KOp {
  return {
    kind: K_PERM,
    t: 0,
    cmask: 0,
    m: new Float64Array(0),
    qs: Int32Array.from(xs, (x) => x.t),
    qmask: 0,
    offs: Int32Array.from(xs, (x) => x.cmask),
    perm: new Int32Array(0),
    scratch: new Float64Array(0),
  };
}

/**
 * The block's ops in kernel order: reordered, X runs of ≥ 2 composed. Single-qubit ops
 * are not paired into MAT1X2 sweeps here: the wasm kernels are faster one at a time
 * (a diagonal keeps its cheap kernel) and pairing measured no gain for the JS ones.
 */
export function scheduleOps(ops: readonly PlacedOp[]): KOp[] {
  const ordered = reorder(ops).map((p) => p.op);
  const merged: KOp[] = [];
  for (let i = 0; i < ordered.length;) {
    let j = i;
    while (j < ordered.length && ordered[j]!.kind === K_X) j++;
    if (j - i >= 2) {
      merged.push(permOf(ordered.slice(i, j)));
      i = j;
    } else merged.push(ordered[i++]!);
  }
  return merged;
}
