/**
 * The MPS split's inner kernels against plain references: inverse iteration on a tridiagonal
 * (eigenvalues from the Jacobi SVD of a positive definite tridiagonal; split, degenerate and clustered
 * spectra), the blocked Gram, U†θ and A·B products (odd and even sizes) against triple loops, and the
 * paired Gram–Schmidt on rank-deficient columns.
 */
import { describe, expect, it } from 'vitest';
import { adjointTimes, gramLower, times } from '../../src/simulation/mps/complex-kernels.js';
import { svd } from '../../src/simulation/mps/jacobi-svd.js';
import { orthonormaliseColumns } from '../../src/simulation/mps/orthonormalise.js';
import { tridiagonalVectors } from '../../src/simulation/mps/tridiagonal-vectors.js';
import { lcg } from './textbook.js';

/** max |Tz − λz| over the columns and max |ZᵀZ − I|. */
function check(n: number, d: Float64Array, e: Float64Array, lam: Float64Array, k: number): { residual: number; orth: number } {
  const z = tridiagonalVectors(n, d, e, lam, k);
  let residual = 0;
  let orth = 0;
  for (let j = 0; j < k; j++) {
    for (let i = 0; i < n; i++) {
      let t = d[i]! * z[j * n + i]!;
      if (i > 0) t += e[i - 1]! * z[j * n + i - 1]!;
      if (i + 1 < n) t += e[i]! * z[j * n + i + 1]!;
      residual = Math.max(residual, Math.abs(t - lam[j]! * z[j * n + i]!));
    }
    for (let c = 0; c < k; c++) {
      let s = 0;
      for (let i = 0; i < n; i++) s += z[j * n + i]! * z[c * n + i]!;
      orth = Math.max(orth, Math.abs(s - (j === c ? 1 : 0)));
    }
  }
  return { residual, orth };
}

/** Eigenvalues (descending) of a positive definite tridiagonal: its singular values. */
function reference(n: number, d: Float64Array, e: Float64Array): Float64Array {
  const re = new Float64Array(n * n);
  for (let i = 0; i < n; i++) {
    re[i * n + i] = d[i]!;
    if (i + 1 < n) re[i * n + i + 1] = re[(i + 1) * n + i] = e[i]!;
  }
  const s = svd(n, n, re, new Float64Array(n * n)).s;
  return Float64Array.from({ length: n }, (_, j) => s[j] ?? 0);
}

describe('tridiagonal inverse iteration', () => {
  it('finds the leading eigenvectors of random, split-degenerate and clustered tridiagonals', () => {
    const rnd = lcg(3);
    const n = 40;
    const e = Float64Array.from({ length: n }, () => rnd() - 0.5);
    const d = Float64Array.from({ length: n }, () => 2 + rnd());
    const r = check(n, d, e, reference(n, d, e), 20);
    expect(r.residual).toBeLessThan(1e-12);
    expect(r.orth).toBeLessThan(1e-13);
    // Three equal blocks [[2,1],[1,2]] and a 5: eigenvalues 5, 3, 3, 3, 1, 1, 1 (zero couplings split it).
    const d2 = Float64Array.of(2, 2, 5, 2, 2, 2, 2);
    const e2 = Float64Array.of(1, 0, 0, 1, 0, 1, 0);
    const lam2 = reference(7, d2, e2);
    expect(Array.from(lam2).map((v) => Math.round(v * 1e9) / 1e9)).toEqual([5, 3, 3, 3, 1, 1, 1]);
    const r2 = check(7, d2, e2, lam2, 7);
    expect(r2.residual).toBeLessThan(1e-13);
    expect(r2.orth).toBeLessThan(1e-14);
    // A tight cluster: diagonal 1 + 1e-12·i, couplings 1e-13.
    const d3 = Float64Array.from({ length: 16 }, (_, i) => 1 + 1e-12 * i);
    const e3 = new Float64Array(16).fill(1e-13);
    const r3 = check(16, d3, e3, reference(16, d3, e3), 8);
    expect(r3.residual).toBeLessThan(1e-14);
    expect(r3.orth).toBeLessThan(1e-14);
  });
});

describe('blocked complex products', () => {
  it('Gram lower triangle and U†θ equal the triple loops for odd and even sizes', () => {
    const rnd = lcg(9);
    for (const [m, n, k] of [
      [7, 5, 3],
      [8, 6, 4],
      [1, 4, 1],
      [6, 9, 5],
    ] as const) {
      const tr = Float64Array.from({ length: m * n }, () => rnd() - 0.5);
      const ti = Float64Array.from({ length: m * n }, () => rnd() - 0.5);
      const gr = new Float64Array(m * m);
      const gi = new Float64Array(m * m);
      const total = gramLower(m, n, tr, ti, gr, gi);
      let trace = 0;
      for (let a = 0; a < m; a++)
        for (let b = 0; b <= a; b++) {
          let sr = 0;
          let si = 0;
          for (let c = 0; c < n; c++) {
            sr += tr[a * n + c]! * tr[b * n + c]! + ti[a * n + c]! * ti[b * n + c]!;
            si += ti[a * n + c]! * tr[b * n + c]! - tr[a * n + c]! * ti[b * n + c]!;
          }
          expect(Math.abs(gr[a * m + b]! - sr)).toBeLessThan(1e-14);
          expect(Math.abs(gi[a * m + b]! - si)).toBeLessThan(1e-14);
          if (a === b) trace += sr;
        }
      expect(Math.abs(total - trace)).toBeLessThan(1e-13);
      const ur = Float64Array.from({ length: m * k }, () => rnd() - 0.5);
      const ui = Float64Array.from({ length: m * k }, () => rnd() - 0.5);
      const rr = new Float64Array(k * n).fill(7); // overwritten, not accumulated into
      const ri = new Float64Array(k * n).fill(7);
      adjointTimes(m, k, n, ur, ui, tr, ti, rr, ri);
      for (let j = 0; j < k; j++)
        for (let c = 0; c < n; c++) {
          let sr = 0;
          let si = 0;
          for (let i = 0; i < m; i++) {
            sr += ur[i * k + j]! * tr[i * n + c]! + ui[i * k + j]! * ti[i * n + c]!;
            si += ur[i * k + j]! * ti[i * n + c]! - ui[i * k + j]! * tr[i * n + c]!;
          }
          expect(Math.abs(rr[j * n + c]! - sr)).toBeLessThan(1e-14);
          expect(Math.abs(ri[j * n + c]! - si)).toBeLessThan(1e-14);
        }
    }
  });
});

describe('blocked matrix product', () => {
  it('A·B equals the triple loop for odd and even sizes', () => {
    const rnd = lcg(13);
    for (const [m, p, q] of [
      [5, 3, 4],
      [4, 6, 8],
      [1, 1, 3],
      [7, 7, 7],
    ] as const) {
      const v = (len: number): Float64Array => Float64Array.from({ length: len }, () => rnd() - 0.5);
      const [ar, ai, br, bi] = [v(m * p), v(m * p), v(p * q), v(p * q)];
      const cr = new Float64Array(m * q).fill(3); // overwritten, not accumulated into
      const ci = new Float64Array(m * q).fill(3);
      times(m, p, q, ar, ai, br, bi, cr, ci);
      for (let i = 0; i < m; i++)
        for (let c = 0; c < q; c++) {
          let sr = 0;
          let si = 0;
          for (let k = 0; k < p; k++) {
            sr += ar[i * p + k]! * br[k * q + c]! - ai[i * p + k]! * bi[k * q + c]!;
            si += ar[i * p + k]! * bi[k * q + c]! + ai[i * p + k]! * br[k * q + c]!;
          }
          expect(Math.abs(cr[i * q + c]! - sr)).toBeLessThan(1e-14);
          expect(Math.abs(ci[i * q + c]! - si)).toBeLessThan(1e-14);
        }
    }
  });
});

describe('paired Gram–Schmidt', () => {
  it('orthonormalises rank-deficient columns, keeps their span and returns R with M = Q·R', () => {
    const rnd = lcg(4);
    const m = 12;
    const q = 9;
    const re = Float64Array.from({ length: m * q }, () => rnd() - 0.5);
    const im = Float64Array.from({ length: m * q }, () => rnd() - 0.5);
    // Column 5 = column 1 + i·column 2, column 8 = 2·column 0: rank 7.
    for (let i = 0; i < m; i++) {
      re[5 * m + i] = re[m + i]! - im[2 * m + i]!;
      im[5 * m + i] = im[m + i]! + re[2 * m + i]!;
      re[8 * m + i] = 2 * re[i]!;
      im[8 * m + i] = 2 * im[i]!;
    }
    const orig = { re: re.slice(), im: im.slice() };
    const rr = new Float64Array(q * q);
    const ri = new Float64Array(q * q);
    orthonormaliseColumns(m, q, re, im, rr, ri);
    // The coefficients rebuild the columns: M = Q·R.
    for (let j = 0; j < q; j++)
      for (let i = 0; i < m; i++) {
        let sr = 0;
        let si = 0;
        for (let c = 0; c < q; c++) {
          sr += re[c * m + i]! * rr[c * q + j]! - im[c * m + i]! * ri[c * q + j]!;
          si += re[c * m + i]! * ri[c * q + j]! + im[c * m + i]! * rr[c * q + j]!;
        }
        expect(Math.abs(sr - orig.re[j * m + i]!)).toBeLessThan(1e-13);
        expect(Math.abs(si - orig.im[j * m + i]!)).toBeLessThan(1e-13);
      }
    const norms = Array.from({ length: q }, (_, j) => Math.hypot(...re.subarray(j * m, j * m + m), ...im.subarray(j * m, j * m + m)));
    expect(norms.map((v) => Math.round(v * 1e9) / 1e9)).toEqual([1, 1, 1, 1, 1, 0, 1, 1, 0]);
    for (let a = 0; a < q; a++)
      for (let b = 0; b < q; b++) {
        let sr = 0;
        let si = 0;
        for (let i = 0; i < m; i++) {
          sr += re[a * m + i]! * re[b * m + i]! + im[a * m + i]! * im[b * m + i]!;
          si += re[a * m + i]! * im[b * m + i]! - im[a * m + i]! * re[b * m + i]!;
        }
        expect(Math.abs(sr - (a === b && norms[a]! > 0.5 ? 1 : 0))).toBeLessThan(1e-14);
        expect(Math.abs(si)).toBeLessThan(1e-14);
      }
    // Every original column lies in the span: QQ†x = x.
    for (let j = 0; j < q; j++) {
      const xr = orig.re.subarray(j * m, j * m + m);
      const xi = orig.im.subarray(j * m, j * m + m);
      const pr = new Float64Array(m);
      const pi = new Float64Array(m);
      for (let c = 0; c < q; c++) {
        let dr = 0;
        let di = 0;
        for (let i = 0; i < m; i++) {
          dr += re[c * m + i]! * xr[i]! + im[c * m + i]! * xi[i]!;
          di += re[c * m + i]! * xi[i]! - im[c * m + i]! * xr[i]!;
        }
        for (let i = 0; i < m; i++) {
          pr[i]! += dr * re[c * m + i]! - di * im[c * m + i]!;
          pi[i]! += dr * im[c * m + i]! + di * re[c * m + i]!;
        }
      }
      for (let i = 0; i < m; i++) {
        expect(Math.abs(pr[i]! - xr[i]!)).toBeLessThan(1e-13);
        expect(Math.abs(pi[i]! - xi[i]!)).toBeLessThan(1e-13);
      }
    }
  });
});
