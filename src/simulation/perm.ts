/**
 * Runs of controlled-X ops (x, cx, ccx, c3x, c4x) composed into one permutation of a
 * chunk's amplitudes, applied as cycles: a CX ladder over 14 qubits becomes one pass
 * instead of 13. The tables (wasm path, applied out of place) or cycles (JS path) are
 * computed when a block starts (O(2^L)), not stored in the plan, so long circuits do
 * not hold a table per block.
 */
import type { KOp } from './kernels.js';

/** f(l): where local index l goes after the X ops (in order) of a K_PERM op (targets qs, controls offs). */
function mapper(op: KOp): (l: number) => number {
  const ts = op.qs;
  const cs = op.offs;
  const k = ts.length;
  return (l) => {
    let v = l;
    for (let j = 0; j < k; j++) if ((v & cs[j]!) === cs[j]!) v ^= 1 << ts[j]!;
    return v;
  };
}

/** Writes f(l) << shift for l < dim into out (length ≥ dim). */
function destinations(op: KOp, dim: number, out: Int32Array, shift: number): void {
  const f = mapper(op);
  let affine = true;
  for (const c of op.offs) if ((c & (c - 1)) !== 0) affine = false;
  if (!affine) {
    for (let l = 0; l < dim; l++) out[l] = f(l) << shift;
    return;
  }
  // Zero or one control per op: l ↦ A·l ⊕ b over GF(2), built one column at a time.
  const b = f(0);
  out[0] = b << shift;
  for (let bit = 1; bit < dim; bit <<= 1) {
    const col = (f(bit) ^ b) << shift;
    for (let l = 0; l < bit; l++) out[bit | l] = out[l]! ^ col;
  }
}

/** Where each amplitude goes, as byte offsets (index × 8), written into `out` (length dim). */
export function permTable(op: KOp, dim: number, out: Int32Array): void {
  destinations(op, dim, out, 3);
}

/**
 * Cycles of the op's permutation over `dim` amplitudes, as [len, d0, …, d(len−1)]…
 * with byte offsets (index × 8) listed so that a[d_j] ← a[d_(j+1)] and a[d_last] ← old a[d_0].
 */
export function permCycles(op: KOp, dim: number): Int32Array {
  const dest = new Int32Array(dim);
  destinations(op, dim, dest, 0);
  const out = new Int32Array(dim + (dim >> 1));
  const seen = new Uint8Array(dim);
  let n = 0;
  for (let s = 0; s < dim; s++) {
    if (seen[s] === 1 || dest[s] === s) continue;
    let len = 0;
    for (let c = s; seen[c] === 0; c = dest[c]!) {
      seen[c] = 1;
      len++;
    }
    out[n] = len;
    // Cycle s → dest[s] → …: store it backwards (c_(len−1), …, c_0).
    let c = s;
    for (let j = len; j >= 1; j--) {
      out[n + j] = c << 3;
      c = dest[c]!;
    }
    n += len + 1;
  }
  return out.subarray(0, n);
}

/** Scalar fallback of the wasm `perm` kernel. */
export function applyCycles(re: Float64Array, im: Float64Array, cyc: Int32Array): void {
  let c = 0;
  const end = cyc.length;
  while (c < end) {
    const len = cyc[c++]!;
    const first = cyc[c]! >> 3;
    const tr = re[first]!;
    const ti = im[first]!;
    const last = c + len - 1;
    for (; c < last; c++) {
      const e = cyc[c]! >> 3;
      const x = cyc[c + 1]! >> 3;
      re[e] = re[x]!;
      im[e] = im[x]!;
    }
    const e = cyc[c++]! >> 3;
    re[e] = tr;
    im[e] = ti;
  }
}
