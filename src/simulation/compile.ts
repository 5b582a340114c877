/**
 * From gate matrices to kernel ops: fuse runs of single-qubit gates on the same qubit
 * into one 2×2, then classify every matrix into the cheapest kernel kind (diagonal,
 * phase, permutation, controlled 2×2, dense).
 */
import type { DenseMatrix } from './gate-matrices.js';
import { matmul } from './gate-matrices.js';
import { K_DENSE, K_DH, K_DIAG1, K_DIAGN, K_H, K_MAT1, K_MAT1X2, K_MONO, K_PHASE, K_X } from './kernels.js';
import type { KOp } from './kernels.js';

/** Entries closer than this to 0 or 1 are treated as exactly 0 or 1 when classifying. */
const EPS = 1e-12;

/** A unitary on global qubits (bit j of the matrix ↔ qubits[j]). */
export interface GateItem {
  readonly qubits: readonly number[];
  readonly mat: DenseMatrix;
  /** How many original circuit gates this item stands for. */
  readonly gates: number;
}

/** Merges consecutive single-qubit items on the same qubit (order-preserving across other qubits). */
export function fuseSingleQubitRuns(items: readonly GateItem[]): GateItem[] {
  const out: GateItem[] = [];
  const pending = new Map<number, GateItem>();
  const flush = (q: number): void => {
    const p = pending.get(q);
    if (p !== undefined) {
      out.push(p);
      pending.delete(q);
    }
  };
  for (const it of items) {
    if (it.qubits.length === 1) {
      const q = it.qubits[0]!;
      const p = pending.get(q);
      pending.set(q, p === undefined ? it : { qubits: [q], mat: matmul(it.mat, p.mat), gates: p.gates + it.gates });
    } else {
      for (const q of it.qubits) flush(q);
      out.push(it);
    }
  }
  // Remaining singles commute with everything after them (nothing after touches their qubit).
  for (const q of [...pending.keys()].sort((a, b) => a - b)) flush(q);
  return out;
}

const near = (x: number, y: number): boolean => Math.abs(x - y) <= EPS;

function isDiagonal(m: DenseMatrix): boolean {
  const d = 1 << m.k;
  for (let r = 0; r < d; r++) for (let c = 0; c < d; c++) if (r !== c && (!near(m.re[r * d + c]!, 0) || !near(m.im[r * d + c]!, 0))) return false;
  return true;
}

function isIdentityEntry(m: DenseMatrix, r: number, c: number): boolean {
  const d = 1 << m.k;
  return near(m.re[r * d + c]!, r === c ? 1 : 0) && near(m.im[r * d + c]!, 0);
}

/** If m is U on bit t controlled by all other bits, U as 8 numbers. */
function asControlled(m: DenseMatrix, t: number): Float64Array | undefined {
  const d = 1 << m.k;
  const cbits = (d - 1) & ~(1 << t);
  for (let c = 0; c < d; c++) {
    const active = (c & cbits) === cbits;
    for (let r = 0; r < d; r++) {
      if (active && (r & cbits) === cbits) continue;
      if (!isIdentityEntry(m, r, c)) return undefined;
    }
  }
  const i0 = cbits;
  const i1 = cbits | (1 << t);
  const at = (r: number, c: number): [number, number] => [m.re[r * d + c]!, m.im[r * d + c]!];
  return Float64Array.from([...at(i0, i0), ...at(i0, i1), ...at(i1, i0), ...at(i1, i1)]);
}

function monomialPerm(m: DenseMatrix): Int32Array | undefined {
  const d = 1 << m.k;
  const perm = new Int32Array(d);
  const seen = new Uint8Array(d);
  for (let c = 0; c < d; c++) {
    let row = -1;
    for (let r = 0; r < d; r++) {
      if (near(m.re[r * d + c]!, 0) && near(m.im[r * d + c]!, 0)) continue;
      if (row >= 0) return undefined;
      row = r;
    }
    if (row < 0 || seen[row] === 1) return undefined;
    seen[row] = 1;
    perm[c] = row;
  }
  return perm;
}

const EMPTY_I = new Int32Array(0);
const EMPTY_F = new Float64Array(0);

function op1(kind: number, t: number, cmask: number, m: Float64Array): KOp {
  return { kind, t, cmask, m, qs: EMPTY_I, qmask: 0, offs: EMPTY_I, perm: EMPTY_I, scratch: EMPTY_F };
}

/** The fastest kernel op for matrix `m` whose bit j acts on local bit `bits[j]`. */
export function makeKOp(m: DenseMatrix, bits: readonly number[]): KOp {
  const k = m.k;
  const d = 1 << k;
  if (isDiagonal(m)) {
    const diag: number[] = [];
    for (let i = 0; i < d; i++) diag.push(m.re[i * d + i]!, m.im[i * d + i]!);
    // Phase only on the all-ones entry (p, s, t, z, cz, cp, ccz): one multiply on a fraction of amplitudes.
    let phaseOnly = true;
    for (let i = 0; i < d - 1; i++) if (!near(diag[2 * i]!, 1) || !near(diag[2 * i + 1]!, 0)) phaseOnly = false;
    const all = bits.reduce((a, b) => a | (1 << b), 0);
    if (phaseOnly) return op1(K_PHASE, 0, all, Float64Array.of(diag[2 * d - 2]!, diag[2 * d - 1]!));
    if (k === 1) return op1(K_DIAG1, bits[0]!, 0, Float64Array.from(diag));
  }
  for (let t = 0; t < k; t++) {
    const u = asControlled(m, t);
    if (u === undefined) continue;
    const cmask = bits.reduce((a, b, j) => (j === t ? a : a | (1 << b)), 0);
    const tb = bits[t]!;
    const isX = near(u[0]!, 0) && near(u[1]!, 0) && near(u[2]!, 1) && near(u[3]!, 0) && near(u[4]!, 1) && near(u[5]!, 0) && near(u[6]!, 0) && near(u[7]!, 0);
    if (isX) return op1(K_X, tb, cmask, EMPTY_F);
    if (near(u[2]!, 0) && near(u[3]!, 0) && near(u[4]!, 0) && near(u[5]!, 0)) {
      if (near(u[0]!, 1) && near(u[1]!, 0)) return op1(K_PHASE, 0, cmask | (1 << tb), Float64Array.of(u[6]!, u[7]!));
      return op1(K_DIAG1, tb, cmask, Float64Array.of(u[0]!, u[1]!, u[6]!, u[7]!));
    }
    const r = Math.SQRT1_2;
    const isH = cmask === 0 && near(u[0]!, r) && near(u[2]!, r) && near(u[4]!, r) && near(u[6]!, -r) && near(u[1]!, 0) && near(u[3]!, 0) && near(u[5]!, 0) && near(u[7]!, 0);
    if (isH) return op1(K_H, tb, 0, EMPTY_F);
    // [[a, a], [b, −b]]: H followed by a diagonal (rz·h, p·h, …), half the multiplications of a 2×2.
    const rowPhasedH = cmask === 0 && near(u[0]!, u[2]!) && near(u[1]!, u[3]!) && near(u[6]!, -u[4]!) && near(u[7]!, -u[5]!);
    if (rowPhasedH) return op1(K_DH, tb, 0, Float64Array.of(u[0]!, u[1]!, u[4]!, u[5]!));
    return op1(K_MAT1, tb, cmask, u);
  }
  const qs = Int32Array.from(bits);
  const qmask = bits.reduce((a, b) => a | (1 << b), 0);
  const offs = new Int32Array(d);
  for (let c = 0; c < d; c++) for (let j = 0; j < k; j++) if ((c >> j) & 1) offs[c]! |= 1 << bits[j]!;
  const scratch = new Float64Array(2 * d);
  if (isDiagonal(m)) {
    const tab = new Float64Array(2 * d);
    for (let i = 0; i < d; i++) [tab[2 * i], tab[2 * i + 1]] = [m.re[i * d + i]!, m.im[i * d + i]!];
    return { kind: K_DIAGN, t: 0, cmask: 0, m: tab, qs, qmask, offs, perm: EMPTY_I, scratch };
  }
  const perm = monomialPerm(m);
  if (perm !== undefined) {
    const ph = new Float64Array(2 * d);
    for (let c = 0; c < d; c++) [ph[2 * c], ph[2 * c + 1]] = [m.re[perm[c]! * d + c]!, m.im[perm[c]! * d + c]!];
    return { kind: K_MONO, t: 0, cmask: 0, m: ph, qs, qmask, offs, perm, scratch };
  }
  const mm = new Float64Array(2 * d * d);
  for (let i = 0; i < d * d; i++) [mm[2 * i], mm[2 * i + 1]] = [m.re[i]!, m.im[i]!];
  return { kind: K_DENSE, t: 0, cmask: 0, m: mm, qs, qmask, offs, perm: EMPTY_I, scratch };
}

/** The 2×2 of an uncontrolled single-qubit op, or undefined. */
function as2x2(op: KOp): Float64Array | undefined {
  const r = Math.SQRT1_2;
  switch (op.kind) {
    case K_MAT1:
      return op.cmask === 0 ? op.m : undefined;
    case K_H:
      return Float64Array.of(r, 0, r, 0, r, 0, -r, 0);
    case K_DH:
      return Float64Array.of(op.m[0]!, op.m[1]!, op.m[0]!, op.m[1]!, op.m[2]!, op.m[3]!, -op.m[2]!, -op.m[3]!);
    case K_DIAG1:
      return op.cmask === 0 ? Float64Array.of(op.m[0]!, op.m[1]!, 0, 0, 0, 0, op.m[2]!, op.m[3]!) : undefined;
    default:
      return undefined;
  }
}

const oneBit = (op: KOp): number => (op.kind === K_PHASE ? -1 : op.t);

/**
 * Pairs consecutive uncontrolled single-qubit ops on different bits into one MAT1X2
 * sweep (after 1-qubit fusion a layer is a run of such ops).
 */
export function pairSingleQubitOps(ops: readonly KOp[]): KOp[] {
  const out: KOp[] = [];
  for (let i = 0; i < ops.length; i++) {
    const a = ops[i]!;
    const b = ops[i + 1];
    const ma = as2x2(a);
    const mb = b === undefined ? undefined : as2x2(b);
    if (ma !== undefined && mb !== undefined && b !== undefined && oneBit(a) !== oneBit(b)) {
      const m = new Float64Array(16);
      m.set(ma, 0);
      m.set(mb, 8);
      out.push({ ...a, kind: K_MAT1X2, t: a.t, cmask: b.t, m });
      i++;
    } else out.push(a);
  }
  return out;
}
