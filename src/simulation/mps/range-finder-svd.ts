/**
 * A truncated SVD by a randomized range finder (Halko, Martinsson, Tropp): Q spans A·Ω (one power
 * step, Ω Gaussian), then the small matrix Q†A is decomposed exactly (jacobi-svd.ts). For a 2χ×2χ
 * two-site matrix cut to χ this is several times cheaper than the full Jacobi SVD. The kept vectors
 * are exact singular vectors of the projection QQ†A, so the truncation is a projection of A and the
 * weight it misses, ‖A‖² − Σ kept s², is what the caller discards: the fidelity bound stays a bound.
 * Ω comes from a fixed-seed generator, so runs are reproducible.
 */
import { svd, type Svd } from './jacobi-svd.js';

/** Extra columns beyond the wanted rank (the usual small oversampling). */
export const OVERSAMPLE = 8;

let state = 0x9e3779b9;
function uniform(): number {
  state ^= state << 13;
  state ^= state >>> 17;
  state ^= state << 5;
  return ((state >>> 0) + 0.5) / 4294967296;
}
function gaussian(): number {
  return Math.sqrt(-2 * Math.log(uniform())) * Math.cos(2 * Math.PI * uniform());
}

/** C (m×q) = op(A)·B with op(A) = A (m×p stored) or A† (A stored p×m); row-major. */
function mul(m: number, p: number, q: number, ar: Float64Array, ai: Float64Array, adj: boolean, br: Float64Array, bi: Float64Array): [Float64Array, Float64Array] {
  const cr = new Float64Array(m * q);
  const ci = new Float64Array(m * q);
  for (let i = 0; i < m; i++)
    for (let k = 0; k < p; k++) {
      const xr = adj ? ar[k * m + i]! : ar[i * p + k]!;
      const xi = adj ? -ai[k * m + i]! : ai[i * p + k]!;
      if (xr === 0 && xi === 0) continue;
      const o = k * q;
      const c = i * q;
      for (let j = 0; j < q; j++) {
        const yr = br[o + j]!;
        const yi = bi[o + j]!;
        cr[c + j]! += xr * yr - xi * yi;
        ci[c + j]! += xr * yi + xi * yr;
      }
    }
  return [cr, ci];
}

/** Orthonormalises the q columns of an m×q row-major matrix in place (Gram–Schmidt twice); dependent columns become zero. */
export function orthonormalise(m: number, q: number, re: Float64Array, im: Float64Array): void {
  for (let j = 0; j < q; j++) {
    let n0 = 0;
    for (let i = 0; i < m; i++) n0 += re[i * q + j]! ** 2 + im[i * q + j]! ** 2;
    for (let pass = 0; pass < 2; pass++)
      for (let c = 0; c < j; c++) {
        let dr = 0;
        let di = 0;
        for (let i = 0; i < m; i++) {
          const ur = re[i * q + c]!;
          const ui = im[i * q + c]!;
          const vr = re[i * q + j]!;
          const vi = im[i * q + j]!;
          dr += ur * vr + ui * vi;
          di += ur * vi - ui * vr;
        }
        if (dr === 0 && di === 0) continue;
        for (let i = 0; i < m; i++) {
          const ur = re[i * q + c]!;
          const ui = im[i * q + c]!;
          re[i * q + j]! -= dr * ur - di * ui;
          im[i * q + j]! -= dr * ui + di * ur;
        }
      }
    let n1 = 0;
    for (let i = 0; i < m; i++) n1 += re[i * q + j]! ** 2 + im[i * q + j]! ** 2;
    const inv = n1 > 1e-24 * n0 && n1 > 0 ? 1 / Math.sqrt(n1) : 0;
    for (let i = 0; i < m; i++) {
      re[i * q + j]! *= inv;
      im[i * q + j]! *= inv;
    }
  }
}

/** The leading `want` (+ oversampling) singular triplets of an m×n matrix: U m×k, s, V† k×n. */
export function rangeFinderSvd(m: number, n: number, are: Float64Array, aim: Float64Array, want: number): Svd {
  const q = Math.min(want + OVERSAMPLE, m, n);
  const or = new Float64Array(n * q);
  const oi = new Float64Array(n * q);
  for (let e = 0; e < n * q; e++) {
    or[e] = gaussian();
    oi[e] = gaussian();
  }
  let [yr, yi] = mul(m, n, q, are, aim, false, or, oi);
  orthonormalise(m, q, yr, yi);
  const [zr, zi] = mul(n, m, q, are, aim, true, yr, yi);
  orthonormalise(n, q, zr, zi);
  [yr, yi] = mul(m, n, q, are, aim, false, zr, zi);
  orthonormalise(m, q, yr, yi);
  // B = Q†A (q×n)
  const [br, bi] = mul(q, m, n, yr, yi, true, are, aim);
  const d = svd(q, n, br, bi);
  const [ur, ui] = mul(m, q, d.k, yr, yi, false, d.ure, d.uim);
  return { ure: ur, uim: ui, s: d.s, vhre: d.vhre, vhim: d.vhim, k: d.k };
}
