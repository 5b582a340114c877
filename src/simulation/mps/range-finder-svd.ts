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

/**
 * Orthonormalises q columns of length m stored contiguously (column j at j·m) in place, Gram–Schmidt
 * twice; a column dependent on the earlier ones becomes zero.
 */
export function orthonormaliseColumns(m: number, q: number, re: Float64Array, im: Float64Array): void {
  for (let j = 0; j < q; j++) {
    const oj = j * m;
    let n0 = 0;
    for (let i = 0; i < m; i++) n0 += re[oj + i]! * re[oj + i]! + im[oj + i]! * im[oj + i]!;
    for (let pass = 0; pass < 2; pass++)
      for (let c = 0; c < j; c++) {
        const oc = c * m;
        let dr = 0;
        let di = 0;
        for (let i = 0; i < m; i++) {
          const ur = re[oc + i]!;
          const ui = im[oc + i]!;
          const vr = re[oj + i]!;
          const vi = im[oj + i]!;
          dr += ur * vr + ui * vi;
          di += ur * vi - ui * vr;
        }
        if (dr === 0 && di === 0) continue;
        for (let i = 0; i < m; i++) {
          const ur = re[oc + i]!;
          const ui = im[oc + i]!;
          re[oj + i]! -= dr * ur - di * ui;
          im[oj + i]! -= dr * ui + di * ur;
        }
      }
    let n1 = 0;
    for (let i = 0; i < m; i++) n1 += re[oj + i]! * re[oj + i]! + im[oj + i]! * im[oj + i]!;
    const inv = n1 > 1e-24 * n0 && n1 > 0 ? 1 / Math.sqrt(n1) : 0;
    for (let i = 0; i < m; i++) {
      re[oj + i]! *= inv;
      im[oj + i]! *= inv;
    }
  }
}

/**
 * The leading `want` (+ oversampling) singular triplets of an m×n row-major matrix: U m×k, s, V† k×n.
 * Sketches are kept column-major (each column contiguous) so every product and projection is a
 * contiguous dot product or axpy.
 */
export function rangeFinderSvd(m: number, n: number, are: Float64Array, aim: Float64Array, want: number): Svd {
  const q = Math.min(want + OVERSAMPLE, m, n);
  // Y = A·Ω, column j: y_i = Σ_k A[i,k] ω_k (Ω column j contiguous).
  const wr = new Float64Array(n);
  const wi = new Float64Array(n);
  const yr = new Float64Array(q * m);
  const yi = new Float64Array(q * m);
  for (let j = 0; j < q; j++) {
    for (let k = 0; k < n; k++) {
      wr[k] = gaussian();
      wi[k] = gaussian();
    }
    for (let i = 0; i < m; i++) {
      let sr = 0;
      let si = 0;
      const o = i * n;
      for (let k = 0; k < n; k++) {
        const ar = are[o + k]!;
        const ai = aim[o + k]!;
        sr += ar * wr[k]! - ai * wi[k]!;
        si += ar * wi[k]! + ai * wr[k]!;
      }
      yr[j * m + i] = sr;
      yi[j * m + i] = si;
    }
  }
  orthonormaliseColumns(m, q, yr, yi);
  // Z = A†·Y (n×q, column-major): z_k += conj(A[i,k]) y_i.
  const zr = new Float64Array(q * n);
  const zi = new Float64Array(q * n);
  adjointTimes(m, n, q, are, aim, yr, yi, zr, zi);
  orthonormaliseColumns(n, q, zr, zi);
  // Y = A·Z
  for (let j = 0; j < q; j++)
    for (let i = 0; i < m; i++) {
      let sr = 0;
      let si = 0;
      const o = i * n;
      const oz = j * n;
      for (let k = 0; k < n; k++) {
        const ar = are[o + k]!;
        const ai = aim[o + k]!;
        const xr = zr[oz + k]!;
        const xi = zi[oz + k]!;
        sr += ar * xr - ai * xi;
        si += ar * xi + ai * xr;
      }
      yr[j * m + i] = sr;
      yi[j * m + i] = si;
    }
  orthonormaliseColumns(m, q, yr, yi);
  // B = Q†A (q×n row-major): row j of B is (A† q_j)† — the same products as Z, conjugated.
  const br = new Float64Array(q * n);
  const bi = new Float64Array(q * n);
  adjointTimes(m, n, q, are, aim, yr, yi, br, bi);
  for (let e = 0; e < q * n; e++) bi[e] = -bi[e]!;
  const d = svd(q, n, br, bi);
  // U = Q·U_b (m×k row-major).
  const k = d.k;
  const ur = new Float64Array(m * k);
  const ui = new Float64Array(m * k);
  for (let j = 0; j < q; j++)
    for (let i = 0; i < m; i++) {
      const xr = yr[j * m + i]!;
      const xi = yi[j * m + i]!;
      if (xr === 0 && xi === 0) continue;
      const o = i * k;
      const ob = j * k;
      for (let c = 0; c < k; c++) {
        const gr = d.ure[ob + c]!;
        const gi = d.uim[ob + c]!;
        ur[o + c]! += xr * gr - xi * gi;
        ui[o + c]! += xr * gi + xi * gr;
      }
    }
  return { ure: ur, uim: ui, s: d.s, vhre: d.vhre, vhim: d.vhim, k };
}

/** Z (n×q, column-major) = A†·Y for A m×n row-major and Y m×q column-major. */
function adjointTimes(m: number, n: number, q: number, are: Float64Array, aim: Float64Array, yr: Float64Array, yi: Float64Array, zr: Float64Array, zi: Float64Array): void {
  for (let j = 0; j < q; j++) {
    const oz = j * n;
    for (let i = 0; i < m; i++) {
      const xr = yr[j * m + i]!;
      const xi = yi[j * m + i]!;
      if (xr === 0 && xi === 0) continue;
      const o = i * n;
      for (let k = 0; k < n; k++) {
        const ar = are[o + k]!;
        const ai = -aim[o + k]!;
        zr[oz + k]! += ar * xr - ai * xi;
        zi[oz + k]! += ar * xi + ai * xr;
      }
    }
  }
}
