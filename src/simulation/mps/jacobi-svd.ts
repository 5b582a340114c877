/**
 * One-sided (Hestenes) Jacobi SVD of a complex m×n matrix: columns are orthogonalised by complex
 * plane rotations until every pair is orthogonal to machine precision; the column norms are the
 * singular values. Small and robust (accurate small singular values, no bidiagonalisation); a
 * wide matrix is decomposed through its adjoint. Row-major storage, separate re/im arrays. The MPS
 * split now goes through gram-split.ts; this stays as the independent reference its tests use.
 */

export interface Svd {
  /** m×k, columns the left singular vectors. */
  readonly ure: Float64Array;
  readonly uim: Float64Array;
  /** k singular values, descending. */
  readonly s: Float64Array;
  /** k×n, rows the right singular vectors conjugated (V†). */
  readonly vhre: Float64Array;
  readonly vhim: Float64Array;
  readonly k: number;
}

const EPS = 1e-15;
const MAX_SWEEPS = 60;

/** SVD of a tall or square matrix (m ≥ n): A = U·diag(s)·V†, k = n. */
function tall(m: number, n: number, are: Float64Array, aim: Float64Array): Svd {
  // Work on columns: copy into column-major for contiguous column access.
  const cr = new Float64Array(m * n);
  const ci = new Float64Array(m * n);
  for (let i = 0; i < m; i++)
    for (let j = 0; j < n; j++) {
      cr[j * m + i] = are[i * n + j]!;
      ci[j * m + i] = aim[i * n + j]!;
    }
  // V accumulated column-major (n×n).
  const vr = new Float64Array(n * n);
  const vi = new Float64Array(n * n);
  for (let j = 0; j < n; j++) vr[j * n + j] = 1;
  const norm = new Float64Array(n);
  for (let j = 0; j < n; j++) {
    let s = 0;
    for (let i = 0; i < m; i++) s += cr[j * m + i]! ** 2 + ci[j * m + i]! ** 2;
    norm[j] = s;
  }
  for (let sweep = 0; sweep < MAX_SWEEPS; sweep++) {
    let rotated = false;
    for (let p = 0; p < n - 1; p++) {
      for (let q = p + 1; q < n; q++) {
        const a = norm[p]!;
        const b = norm[q]!;
        if (!(a > 0 && b > 0)) continue;
        // γ = a_p^H a_q
        let gr = 0;
        let gi = 0;
        const op = p * m;
        const oq = q * m;
        for (let i = 0; i < m; i++) {
          const xr = cr[op + i]!;
          const xi = ci[op + i]!;
          const yr = cr[oq + i]!;
          const yi = ci[oq + i]!;
          gr += xr * yr + xi * yi;
          gi += xr * yi - xi * yr;
        }
        const g = Math.hypot(gr, gi);
        if (!(g > EPS * Math.sqrt(a * b)) || g < 1e-300) continue;
        rotated = true;
        // Phase e^{-iφ} on column q makes γ real; then a real Jacobi rotation.
        const er = gr / g;
        const ei = -gi / g;
        const zeta = (b - a) / (2 * g);
        const t = (zeta >= 0 ? 1 : -1) / (Math.abs(zeta) + Math.sqrt(1 + zeta * zeta));
        const c = 1 / Math.sqrt(1 + t * t);
        const s = c * t;
        for (let i = 0; i < m; i++) {
          const xr = cr[op + i]!;
          const xi = ci[op + i]!;
          const y0r = cr[oq + i]!;
          const y0i = ci[oq + i]!;
          const yr = y0r * er - y0i * ei;
          const yi = y0r * ei + y0i * er;
          cr[op + i] = c * xr - s * yr;
          ci[op + i] = c * xi - s * yi;
          cr[oq + i] = s * xr + c * yr;
          ci[oq + i] = s * xi + c * yi;
        }
        const vp = p * n;
        const vq = q * n;
        for (let i = 0; i < n; i++) {
          const xr = vr[vp + i]!;
          const xi = vi[vp + i]!;
          const y0r = vr[vq + i]!;
          const y0i = vi[vq + i]!;
          const yr = y0r * er - y0i * ei;
          const yi = y0r * ei + y0i * er;
          vr[vp + i] = c * xr - s * yr;
          vi[vp + i] = c * xi - s * yi;
          vr[vq + i] = s * xr + c * yr;
          vi[vq + i] = s * xi + c * yi;
        }
        norm[p] = Math.max(0, a - t * g);
        norm[q] = b + t * g;
      }
    }
    // Recompute norms exactly once per sweep (the updates drift).
    for (let j = 0; j < n; j++) {
      let s = 0;
      for (let i = 0; i < m; i++) s += cr[j * m + i]! ** 2 + ci[j * m + i]! ** 2;
      norm[j] = s;
    }
    if (!rotated) break;
  }
  const order = Array.from({ length: n }, (_, j) => j).sort((x, y) => norm[y]! - norm[x]!);
  const k = n;
  const ure = new Float64Array(m * k);
  const uim = new Float64Array(m * k);
  const s = new Float64Array(k);
  const vhre = new Float64Array(k * n);
  const vhim = new Float64Array(k * n);
  order.forEach((j, col) => {
    const sv = Math.sqrt(norm[j]!);
    s[col] = sv;
    const inv = sv > 0 ? 1 / sv : 0;
    for (let i = 0; i < m; i++) {
      ure[i * k + col] = cr[j * m + i]! * inv;
      uim[i * k + col] = ci[j * m + i]! * inv;
    }
    // V† row col = conj(V column j).
    for (let i = 0; i < n; i++) {
      vhre[col * n + i] = vr[j * n + i]!;
      vhim[col * n + i] = -vi[j * n + i]!;
    }
  });
  return { ure, uim, s, vhre, vhim, k };
}

/** A = U·diag(s)·V† for any m×n (row-major); k = min(m, n). */
export function svd(m: number, n: number, are: Float64Array, aim: Float64Array): Svd {
  if (m >= n) return tall(m, n, are, aim);
  // A† = U' S V'† ⇒ A = V' S U'†.
  const hr = new Float64Array(n * m);
  const hi = new Float64Array(n * m);
  for (let i = 0; i < m; i++)
    for (let j = 0; j < n; j++) {
      hr[j * m + i] = are[i * n + j]!;
      hi[j * m + i] = -aim[i * n + j]!;
    }
  const t = tall(n, m, hr, hi);
  const k = t.k; // = m
  // U = V' = (V'†)† : m×k; V† = U'† : k×n.
  const ure = new Float64Array(m * k);
  const uim = new Float64Array(m * k);
  for (let r = 0; r < k; r++)
    for (let i = 0; i < m; i++) {
      ure[i * k + r] = t.vhre[r * m + i]!;
      uim[i * k + r] = -t.vhim[r * m + i]!;
    }
  const vhre = new Float64Array(k * n);
  const vhim = new Float64Array(k * n);
  for (let r = 0; r < k; r++)
    for (let j = 0; j < n; j++) {
      vhre[r * n + j] = t.ure[j * k + r]!;
      vhim[r * n + j] = -t.uim[j * k + r]!;
    }
  return { ure, uim, s: t.s, vhre, vhim, k };
}
