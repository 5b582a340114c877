/**
 * The MPS split's kernels against an independent reference (the one-sided Jacobi SVD): the Hermitian
 * eigen-decomposition (Householder tridiagonalisation + implicit QL) on random, rank-deficient,
 * diagonal and degenerate matrices, and the truncated Gram split θ ≈ U·R.
 */
import { describe, expect, it } from 'vitest';
import { gramSplit } from '../../src/simulation/mps/gram-split.js';
import { hermitianEigen } from '../../src/simulation/mps/hermitian-eigen.js';
import { svd } from '../../src/simulation/mps/jacobi-svd.js';
import { lcg } from './textbook.js';

type C = { re: Float64Array; im: Float64Array };

function random(m: number, n: number, rnd: () => number): C {
  return { re: Float64Array.from({ length: m * n }, () => rnd() - 0.5), im: Float64Array.from({ length: m * n }, () => rnd() - 0.5) };
}

/** θθ† (m×m, full). */
function gram(m: number, n: number, t: C): C {
  const re = new Float64Array(m * m);
  const im = new Float64Array(m * m);
  for (let a = 0; a < m; a++)
    for (let b = 0; b < m; b++)
      for (let c = 0; c < n; c++) {
        re[a * m + b]! += t.re[a * n + c]! * t.re[b * n + c]! + t.im[a * n + c]! * t.im[b * n + c]!;
        im[a * m + b]! += t.im[a * n + c]! * t.re[b * n + c]! - t.re[a * n + c]! * t.im[b * n + c]!;
      }
  return { re, im };
}

/** Checks A·v = λ·v and V†V = I for the returned pairs; returns the largest residual. */
function checkEigen(n: number, a: C, want: number): Float64Array {
  const e = hermitianEigen(n, a.re.slice(), a.im.slice(), want);
  let scale = 0;
  for (let i = 0; i < n * n; i++) scale = Math.max(scale, Math.hypot(a.re[i]!, a.im[i]!));
  for (let j = 0; j < want; j++) {
    for (let i = 0; i < n; i++) {
      let sr = 0;
      let si = 0;
      for (let c = 0; c < n; c++) {
        const vr = e.re[c * want + j]!;
        const vi = e.im[c * want + j]!;
        sr += a.re[i * n + c]! * vr - a.im[i * n + c]! * vi;
        si += a.re[i * n + c]! * vi + a.im[i * n + c]! * vr;
      }
      expect(Math.abs(sr - e.values[j]! * e.re[i * want + j]!)).toBeLessThan(1e-11 * Math.max(1, scale) * n);
      expect(Math.abs(si - e.values[j]! * e.im[i * want + j]!)).toBeLessThan(1e-11 * Math.max(1, scale) * n);
    }
    for (let k = 0; k < want; k++) {
      let dr = 0;
      let di = 0;
      for (let i = 0; i < n; i++) {
        dr += e.re[i * want + j]! * e.re[i * want + k]! + e.im[i * want + j]! * e.im[i * want + k]!;
        di += e.re[i * want + j]! * e.im[i * want + k]! - e.im[i * want + j]! * e.re[i * want + k]!;
      }
      expect(Math.abs(dr - (j === k ? 1 : 0))).toBeLessThan(1e-12);
      expect(Math.abs(di)).toBeLessThan(1e-12);
    }
    if (j > 0) expect(e.values[j]!).toBeLessThanOrEqual(e.values[j - 1]!);
  }
  return e.values;
}

describe('Hermitian eigen-decomposition', () => {
  it('matches the Jacobi SVD on Gram matrices of random and rank-deficient matrices', () => {
    const rnd = lcg(7);
    for (const [m, n] of [
      [1, 3],
      [2, 2],
      [5, 9],
      [16, 16],
      [40, 64],
      [24, 8], // rank 8 < 24: sixteen zero eigenvalues
    ] as const) {
      const t = random(m, n, rnd);
      if (m === 16) {
        // Two repeated rows: rank-deficient.
        t.re.copyWithin(15 * n, 0, n);
        t.im.copyWithin(15 * n, 0, n);
        t.re.copyWithin(14 * n, n, 2 * n);
        t.im.copyWithin(14 * n, n, 2 * n);
      }
      const values = checkEigen(m, gram(m, n, t), m);
      const ref = svd(m, n, t.re.slice(), t.im.slice());
      for (let j = 0; j < m; j++) expect(Math.abs(values[j]! - (j < ref.k ? ref.s[j]! ** 2 : 0))).toBeLessThan(1e-11 * m);
    }
  });

  it('returns orthonormal eigenvectors for degenerate spectra (identity, diagonal, repeated values)', () => {
    const rnd = lcg(11);
    const n = 12;
    const id: C = { re: new Float64Array(n * n), im: new Float64Array(n * n) };
    for (let i = 0; i < n; i++) id.re[i * n + i] = 1;
    expect(Array.from(checkEigen(n, id, n))).toEqual(Array.from({ length: n }, () => 1));
    const diag: C = { re: new Float64Array(n * n), im: new Float64Array(n * n) };
    for (let i = 0; i < n; i++) diag.re[i * n + i] = i % 3;
    const dv = checkEigen(n, diag, 5);
    expect(Array.from(dv)).toEqual([2, 2, 2, 2, 1]);
    // U·diag(3,3,3,1,1,0,…)·U† with U unitary (left singular vectors of a random square matrix).
    const u = svd(n, n, ...(Object.values(random(n, n, rnd)) as [Float64Array, Float64Array]));
    const lam = [3, 3, 3, 1, 1, 0, 0, 0, 0, 0, 0, 0];
    const a: C = { re: new Float64Array(n * n), im: new Float64Array(n * n) };
    for (let i = 0; i < n; i++)
      for (let j = 0; j < n; j++)
        for (let k = 0; k < n; k++) {
          const xr = u.ure[i * n + k]! * lam[k]!;
          const xi = u.uim[i * n + k]! * lam[k]!;
          a.re[i * n + j]! += xr * u.ure[j * n + k]! + xi * u.uim[j * n + k]!;
          a.im[i * n + j]! += xi * u.ure[j * n + k]! - xr * u.uim[j * n + k]!;
        }
    const v = checkEigen(n, a, n);
    lam.forEach((l, j) => expect(Math.abs(v[j]! - l)).toBeLessThan(1e-12));
  });
});

describe('Gram split θ ≈ U·R', () => {
  it('is exact without truncation and keeps exactly the leading singular weight when truncated', () => {
    const rnd = lcg(5);
    const m = 12;
    const n = 20;
    const t = random(m, n, rnd);
    // Rank 9: three rows are combinations of others.
    for (let c = 0; c < n; c++) {
      t.re[9 * n + c] = t.re[c]! + t.re[n + c]!;
      t.im[9 * n + c] = t.im[c]! + t.im[n + c]!;
      t.re[10 * n + c] = 2 * t.re[2 * n + c]!;
      t.im[10 * n + c] = 2 * t.im[2 * n + c]!;
      t.re[11 * n + c] = t.re[3 * n + c]! - t.im[4 * n + c]!;
      t.im[11 * n + c] = t.im[3 * n + c]! + t.re[4 * n + c]!;
    }
    const ref = svd(m, n, t.re.slice(), t.im.slice());
    const full = gramSplit(m, n, t.re, t.im, { maxBond: Infinity, threshold: 0 });
    expect(full.k).toBe(9);
    for (let i = 0; i < m; i++)
      for (let c = 0; c < n; c++) {
        let sr = 0;
        let si = 0;
        for (let j = 0; j < full.k; j++) {
          sr += full.ure[i * full.k + j]! * full.rre[j * n + c]! - full.uim[i * full.k + j]! * full.rim[j * n + c]!;
          si += full.ure[i * full.k + j]! * full.rim[j * n + c]! + full.uim[i * full.k + j]! * full.rre[j * n + c]!;
        }
        expect(Math.abs(sr - t.re[i * n + c]!)).toBeLessThan(1e-12);
        expect(Math.abs(si - t.im[i * n + c]!)).toBeLessThan(1e-12);
      }
    const cut = gramSplit(m, n, t.re, t.im, { maxBond: 4, threshold: 0 });
    expect(cut.k).toBe(4);
    let top = 0;
    let all = 0;
    for (let j = 0; j < ref.k; j++) {
      all += ref.s[j]! ** 2;
      if (j < 4) top += ref.s[j]! ** 2;
    }
    expect(Math.abs(cut.kept - top)).toBeLessThan(1e-11);
    expect(Math.abs(cut.total - all)).toBeLessThan(1e-11);
    // The threshold drops the smallest values while their weight stays within it.
    const tail2 = ref.s[7]! ** 2 + ref.s[8]! ** 2;
    const thr = gramSplit(m, n, t.re, t.im, { maxBond: Infinity, threshold: (tail2 * 1.0001) / all });
    expect(thr.k).toBe(7);
  });
});
