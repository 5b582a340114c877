/**
 * The density matrix in the Pauli basis: ρ = 2^−n Σ_P r_P P with r_P = Tr(ρP) real, 4^n numbers
 * (half the memory of the complex vectorised ρ, and real arithmetic). Qubit q's Pauli is the base-4
 * digit q of the index (0 I, 1 X, 2 Y, 3 Z). A channel (a gate is a one-operator channel) on k qubits
 * acts on r by its Pauli transfer matrix R_ij = 2^−k Tr(P_i E(P_j)), real and sparse for the
 * channels met here (a Clifford's is a signed permutation, depolarizing is diagonal, damping nearly
 * so). Each op is one pass with straight-line code generated for its non-zeros (the engine's
 * kernels are complex and dense: a 2-qubit depolarizing superoperator there is 16 complex products
 * per entry, here one).
 * Probabilities are the Walsh–Hadamard transform of the {I, Z}^n entries; Tr(ρP) is read directly.
 */
import type { DenseMatrix } from '../gate-matrices.js';
import type { Kraus } from './superoperators.js';

/** Pauli matrices (row-major 2×2, re and im) in digit order I, X, Y, Z. */
const P_RE = [
  [1, 0, 0, 1],
  [0, 1, 1, 0],
  [0, 0, 0, 0],
  [1, 0, 0, -1],
];
const P_IM = [
  [0, 0, 0, 0],
  [0, 0, 0, 0],
  [0, -1, 1, 0],
  [0, 0, 0, 0],
];

/** Values below this in a transfer matrix are rounding noise of the products and are dropped. */
const ZERO = 1e-14;

/** The 2^k × 2^k Pauli string with digits of `j` (digit t on matrix bit t). */
function pauliString(k: number, j: number): { re: Float64Array; im: Float64Array } {
  const d = 1 << k;
  const re = new Float64Array(d * d);
  const im = new Float64Array(d * d);
  for (let r = 0; r < d; r++)
    for (let c = 0; c < d; c++) {
      let ar = 1;
      let ai = 0;
      for (let t = 0; t < k; t++) {
        const p = (j >> (2 * t)) & 3;
        const e = ((r >> t) & 1) * 2 + ((c >> t) & 1);
        const br = P_RE[p]![e]!;
        const bi = P_IM[p]![e]!;
        const nr = ar * br - ai * bi;
        ai = ar * bi + ai * br;
        ar = nr;
      }
      re[r * d + c] = ar;
      im[r * d + c] = ai;
    }
  return { re, im };
}

/** C = A·B or A·B† for d×d complex matrices. */
function mul(d: number, ar: Float64Array, ai: Float64Array, br: Float64Array, bi: Float64Array, adjointB: boolean): { re: Float64Array; im: Float64Array } {
  const re = new Float64Array(d * d);
  const im = new Float64Array(d * d);
  for (let r = 0; r < d; r++)
    for (let c = 0; c < d; c++) {
      let sr = 0;
      let si = 0;
      for (let m = 0; m < d; m++) {
        const xr = ar[r * d + m]!;
        const xi = ai[r * d + m]!;
        const yr = adjointB ? br[c * d + m]! : br[m * d + c]!;
        const yi = adjointB ? -bi[c * d + m]! : bi[m * d + c]!;
        sr += xr * yr - xi * yi;
        si += xr * yi + xi * yr;
      }
      re[r * d + c] = sr;
      im[r * d + c] = si;
    }
  return { re, im };
}

/** The Pauli transfer matrix (4^k × 4^k, row-major) of a Kraus channel on k qubits. */
export function transferMatrix(ch: Kraus): Float64Array {
  const k = ch.k;
  const d = 1 << k;
  const D = 1 << (2 * k);
  const paulis = Array.from({ length: D }, (_, j) => pauliString(k, j));
  const R = new Float64Array(D * D);
  for (let j = 0; j < D; j++) {
    // E(P_j) = Σ K P_j K†
    const er = new Float64Array(d * d);
    const ei = new Float64Array(d * d);
    for (const K of ch.ops) {
      const kp = mul(d, K.re, K.im, paulis[j]!.re, paulis[j]!.im, false);
      const t = mul(d, kp.re, kp.im, K.re, K.im, true);
      for (let e = 0; e < d * d; e++) {
        er[e]! += t.re[e]!;
        ei[e]! += t.im[e]!;
      }
    }
    for (let i = 0; i < D; i++) {
      // Tr(P_i E) = Σ_{r,c} P_i[r,c] E[c,r]; the real part (the imaginary part is zero for Hermitian-preserving E).
      let s = 0;
      const P = paulis[i]!;
      for (let r = 0; r < d; r++) for (let c = 0; c < d; c++) s += P.re[r * d + c]! * er[c * d + r]! - P.im[r * d + c]! * ei[c * d + r]!;
      const v = s / d;
      R[i * D + j] = Math.abs(v) < ZERO ? 0 : v;
    }
  }
  return R;
}

/** A unitary as a one-operator channel. */
export const unitaryChannel = (m: DenseMatrix): Kraus => ({ k: m.k, ops: [m] });

/** A channel on `sub` (positions inside a k-qubit list) widened with identities to all k. */
export function widen(R: Float64Array, sub: readonly number[], k: number): Float64Array {
  const ks = sub.length;
  const Ds = 1 << (2 * ks);
  const D = 1 << (2 * k);
  const out = new Float64Array(D * D);
  const subDigits = (j: number): number => {
    let v = 0;
    sub.forEach((p, t) => (v |= ((j >> (2 * p)) & 3) << (2 * t)));
    return v;
  };
  const subMask = sub.reduce((a, p) => a | (3 << (2 * p)), 0);
  for (let i = 0; i < D; i++)
    for (let j = 0; j < D; j++) {
      if ((i & ~subMask) !== (j & ~subMask)) continue;
      out[i * D + j] = R[subDigits(i) * Ds + subDigits(j)]!;
    }
  return out;
}

/** A·B for D×D real matrices, rounding noise dropped. */
export function compose(D: number, A: Float64Array, B: Float64Array): Float64Array {
  const C = new Float64Array(D * D);
  for (let i = 0; i < D; i++)
    for (let m = 0; m < D; m++) {
      const a = A[i * D + m]!;
      if (a === 0) continue;
      for (let j = 0; j < D; j++) C[i * D + j]! += a * B[m * D + j]!;
    }
  for (let e = 0; e < D * D; e++) if (Math.abs(C[e]!) < ZERO) C[e] = 0;
  return C;
}

export type PassKernel = (r: Float64Array, total: number) => void;

type Compiled = (r: Float64Array, total: number, mask: number, o: Int32Array, c: Float64Array) => void;

/** Generated loops by sparsity pattern: few patterns occur, so each is compiled once and stays hot. */
const compiled = new Map<string, Compiled>();

/**
 * One pass of transfer matrix R (4^k × 4^k) on qubits `qubits` (digit t ↔ qubits[t]) over the whole
 * vector: straight-line code over its non-zeros, generated per sparsity pattern, with offsets and
 * values as loop invariants read from arrays. Identity rows are not stored. Why generated: measured
 * 2× (one qubit, dense 4×4 loop in locals) to 10× (two qubits, a compressed-row loop) faster; the
 * source holds only integers and identifiers made here, nothing from a request.
 */
export function passKernel(R: Float64Array, qubits: readonly number[]): PassKernel {
  const k = qubits.length;
  const D = 1 << (2 * k);
  const offs = new Int32Array(D);
  for (let j = 0; j < D; j++) {
    let o = 0;
    for (let t = 0; t < k; t++) o += ((j >> (2 * t)) & 3) * 4 ** qubits[t]!;
    offs[j] = o;
  }
  const mask = qubits.reduce((a, q) => a | (3 * 4 ** q), 0);
  const used = new Set<number>();
  const rows: string[] = [];
  const coeffs: number[] = [];
  for (let i = 0; i < D; i++) {
    let identity = R[i * D + i] === 1;
    for (let j = 0; j < D; j++) if (j !== i && R[i * D + j] !== 0) identity = false;
    if (identity) continue;
    const terms: string[] = [];
    for (let j = 0; j < D; j++) {
      const v = R[i * D + j]!;
      if (v === 0) continue;
      used.add(j);
      terms.push(`c${coeffs.length}*x${j}`);
      coeffs.push(v);
    }
    rows.push(`r[b+o${i}]=${terms.length === 0 ? '0' : terms.join('+')};`);
  }
  if (rows.length === 0) return () => undefined;
  const pattern = `${k}:${[...used].join(',')}:${rows.join('')}`;
  let f = compiled.get(pattern);
  if (f === undefined) {
    const consts = [...Array.from({ length: D }, (_, j) => `const o${j}=o[${j}];`), ...coeffs.map((_, t) => `const c${t}=c[${t}];`), 'const nm=~mask;'].join('');
    const loads = [...used].map((j) => `const x${j}=r[b+o${j}];`).join('');
    // eslint-disable-next-line @typescript-eslint/no-implied-eval -- a generated kernel (see above); its source is built from integers only
    f = new Function('r', 'total', 'mask', 'o', 'c', `${consts}for(let b=0;b<total;b=((b|mask)+1)&nm){${loads}${rows.join('')}}`) as Compiled;
    compiled.set(pattern, f);
  }
  const c = Float64Array.from(coeffs);
  const g = f;
  return (r, total) => g(r, total, mask, offs, c);
}

/** Probabilities of the computational basis states: Walsh–Hadamard transform of r over {I, Z}^n. */
export function diagonal(r: Float64Array, n: number): Float64Array {
  const N = 1 << n;
  const v = new Float64Array(N);
  for (let z = 0; z < N; z++) {
    let idx = 0;
    for (let q = 0; q < n; q++) if ((z >> q) & 1) idx += 3 * 4 ** q;
    v[z] = r[idx]!;
  }
  for (let h = 1; h < N; h <<= 1)
    for (let i = 0; i < N; i += 2 * h)
      for (let j = i; j < i + h; j++) {
        const a = v[j]!;
        const b = v[j + h]!;
        v[j] = a + b;
        v[j + h] = a - b;
      }
  for (let i = 0; i < N; i++) v[i]! /= N;
  return v;
}

/** Tr(ρP) for a Pauli string (rightmost character on qubit 0). */
export function pauliValue(r: Float64Array, n: number, pauli: string): number {
  let idx = 0;
  for (let q = 0; q < n; q++) {
    const ch = pauli[n - 1 - q];
    const digit = ch === 'X' ? 1 : ch === 'Y' ? 2 : ch === 'Z' ? 3 : 0;
    idx += digit * 4 ** q;
  }
  return r[idx]!;
}

/** r of |0…0⟩: 1 on every string of I and Z. */
export function initialState(n: number): Float64Array {
  const r = new Float64Array(4 ** n);
  for (let z = 0; z < 1 << n; z++) {
    let idx = 0;
    for (let q = 0; q < n; q++) if ((z >> q) & 1) idx += 3 * 4 ** q;
    r[idx] = 1;
  }
  return r;
}

export interface TransferOp {
  readonly qubits: readonly number[];
  readonly R: Float64Array;
}

/** Qubits whose digits are always in a block when n > L: runs of 16 contiguous entries (two cache lines). */
const FORCED = 2;

/**
 * Runs the ops on r by cache blocking (as the state-vector plan does): a run of ops whose qubits lie in
 * a set S of at most L qubits is one block, and for each fixed value of the other digits the 4^L
 * entries are gathered into an L2-sized buffer, every op of the block is applied there, and they are
 * written back. An op may join an earlier block when it shares no qubit with an op left out of it
 * (ops on disjoint qubits commute). Returns the number of blocks.
 */
export function runBlocked(r: Float64Array, n: number, ops: readonly TransferOp[], L: number, check: () => void): number {
  if (n <= L) {
    for (const op of ops) {
      check();
      passKernel(op.R, op.qubits)(r, 4 ** n);
    }
    return ops.length;
  }
  let blocks = 0;
  const buf = new Float64Array(4 ** L);
  let remaining = ops;
  while (remaining.length > 0) {
    check();
    const inS = new Uint8Array(n);
    for (let q = 0; q < FORCED; q++) inS[q] = 1;
    let size = FORCED;
    const blocked = new Uint8Array(n);
    const taken: TransferOp[] = [];
    const next: TransferOp[] = [];
    for (const op of remaining) {
      const extra = op.qubits.filter((q) => inS[q] === 0).length;
      if (op.qubits.every((q) => blocked[q] === 0) && size + extra <= L) {
        for (const q of op.qubits)
          if (inS[q] === 0) {
            inS[q] = 1;
            size++;
          }
        taken.push(op);
      } else {
        for (const q of op.qubits) blocked[q] = 1;
        next.push(op);
      }
    }
    for (let q = 0; q < n && size < L; q++)
      if (inS[q] === 0) {
        inS[q] = 1;
        size++;
      }
    const S: number[] = [];
    for (let q = 0; q < n; q++) if (inS[q] === 1) S.push(q);
    const local = new Map(S.map((q, t) => [q, t]));
    const kernels = taken.map((op) =>
      passKernel(
        op.R,
        op.qubits.map((q) => local.get(q)!),
      ),
    );
    const chunk = 4 ** L;
    // The lowest `low` qubits of S are qubits 0..low−1: their 4^low entries are contiguous runs.
    let low = 0;
    while (low < L && S[low] === low) low++;
    const run = 4 ** low;
    const goff = new Int32Array(chunk / run);
    for (let t = 0; t < goff.length; t++) {
      let o = 0;
      for (let d = low; d < L; d++) o += ((t >> (2 * (d - low))) & 3) * 4 ** S[d]!;
      goff[t] = o;
    }
    const M = S.reduce((a, q) => a | (3 * 4 ** q), 0);
    const nM = ~M;
    const total = 4 ** n;
    const runs = goff.length;
    for (let base = 0; base < total; base = ((base | M) + 1) & nM) {
      for (let t = 0; t < runs; t++) {
        const src = base + goff[t]!;
        const dst = t * run;
        for (let i = 0; i < run; i++) buf[dst + i] = r[src + i]!;
      }
      for (const f of kernels) f(buf, chunk);
      for (let t = 0; t < runs; t++) {
        const dst = base + goff[t]!;
        const src = t * run;
        for (let i = 0; i < run; i++) r[dst + i] = buf[src + i]!;
      }
    }
    blocks++;
    remaining = next;
  }
  return blocks;
}
