/**
 * The two complex products of the MPS split (gram-split.ts), on split re/im row-major arrays and
 * blocked 2×2 so each loaded element serves two outputs: the Gram matrix θθ† and R = U†θ. They were
 * a sixth of the MPS run as plain triple loops, bound by loads rather than arithmetic. Even sizes run
 * in WebAssembly SIMD (mps-wasm.ts) with the same per-element order, so with the same result.
 */
import { adjointTimesWasm, gramLowerWasm, timesWasm } from './mps-wasm.js';

/** Lower triangle (b ≤ a) of G = θθ† for θ m×n; returns Σ G[a,a] = ‖θ‖². Upper entries of diagonal blocks may be written too. */
export function gramLower(m: number, n: number, tr: Float64Array, ti: Float64Array, gr: Float64Array, gi: Float64Array): number {
  return gramLowerWasm(m, n, tr, ti, gr, gi) ?? gramLowerJs(m, n, tr, ti, gr, gi);
}

/** `gramLower` in plain JS (odd sizes, no WebAssembly; the reference the wasm kernel must match bit for bit). */
export function gramLowerJs(m: number, n: number, tr: Float64Array, ti: Float64Array, gr: Float64Array, gi: Float64Array): number {
  const m2 = m & ~1;
  for (let a = 0; a < m2; a += 2) {
    const oa = a * n;
    const oa1 = oa + n;
    for (let b = 0; b <= a; b += 2) {
      const ob = b * n;
      const ob1 = ob + n;
      let r00 = 0;
      let i00 = 0;
      let r01 = 0;
      let i01 = 0;
      let r10 = 0;
      let i10 = 0;
      let r11 = 0;
      let i11 = 0;
      for (let c = 0; c < n; c++) {
        const x0r = tr[oa + c]!;
        const x0i = ti[oa + c]!;
        const x1r = tr[oa1 + c]!;
        const x1i = ti[oa1 + c]!;
        const y0r = tr[ob + c]!;
        const y0i = ti[ob + c]!;
        const y1r = tr[ob1 + c]!;
        const y1i = ti[ob1 + c]!;
        // x·conj(y)
        r00 += x0r * y0r + x0i * y0i;
        i00 += x0i * y0r - x0r * y0i;
        r01 += x0r * y1r + x0i * y1i;
        i01 += x0i * y1r - x0r * y1i;
        r10 += x1r * y0r + x1i * y0i;
        i10 += x1i * y0r - x1r * y0i;
        r11 += x1r * y1r + x1i * y1i;
        i11 += x1i * y1r - x1r * y1i;
      }
      gr[a * m + b] = r00;
      gi[a * m + b] = i00;
      gr[a * m + b + 1] = r01;
      gi[a * m + b + 1] = i01;
      gr[(a + 1) * m + b] = r10;
      gi[(a + 1) * m + b] = i10;
      gr[(a + 1) * m + b + 1] = r11;
      gi[(a + 1) * m + b + 1] = i11;
    }
  }
  if (m2 < m) {
    // The odd last row.
    const a = m - 1;
    const oa = a * n;
    for (let b = 0; b <= a; b++) {
      const ob = b * n;
      let sr = 0;
      let si = 0;
      for (let c = 0; c < n; c++) {
        sr += tr[oa + c]! * tr[ob + c]! + ti[oa + c]! * ti[ob + c]!;
        si += ti[oa + c]! * tr[ob + c]! - tr[oa + c]! * ti[ob + c]!;
      }
      gr[a * m + b] = sr;
      gi[a * m + b] = si;
    }
  }
  let total = 0;
  for (let a = 0; a < m; a++) total += gr[a * m + a]!;
  return total;
}

/** R = U†θ (k×n) for U m×k and θ m×n; R is overwritten. */
export function adjointTimes(m: number, k: number, n: number, ur: Float64Array, ui: Float64Array, tr: Float64Array, ti: Float64Array, rr: Float64Array, ri: Float64Array): void {
  if (!adjointTimesWasm(m, k, n, ur, ui, tr, ti, rr, ri)) adjointTimesJs(m, k, n, ur, ui, tr, ti, rr, ri);
}

/** `adjointTimes` in plain JS. */
export function adjointTimesJs(m: number, k: number, n: number, ur: Float64Array, ui: Float64Array, tr: Float64Array, ti: Float64Array, rr: Float64Array, ri: Float64Array): void {
  rr.fill(0, 0, k * n);
  ri.fill(0, 0, k * n);
  const m2 = m & ~1;
  const k2 = k & ~1;
  // Rows i, i+1 of θ into rows j, j+1 of R: R[j,:] += conj(U[i,j])·θ[i,:] + conj(U[i+1,j])·θ[i+1,:].
  for (let i = 0; i < m; i += 2) {
    const pair = i < m2;
    const oi = i * n;
    const oi1 = oi + n;
    for (let j = 0; j < k; j += 2) {
      const both = j < k2;
      const a0r = ur[i * k + j]!;
      const a0i = -ui[i * k + j]!;
      const b0r = pair ? ur[(i + 1) * k + j]! : 0;
      const b0i = pair ? -ui[(i + 1) * k + j]! : 0;
      const a1r = both ? ur[i * k + j + 1]! : 0;
      const a1i = both ? -ui[i * k + j + 1]! : 0;
      const b1r = pair && both ? ur[(i + 1) * k + j + 1]! : 0;
      const b1i = pair && both ? -ui[(i + 1) * k + j + 1]! : 0;
      const oj = j * n;
      if (pair && both) {
        const oj1 = oj + n;
        for (let c = 0; c < n; c++) {
          const xr = tr[oi + c]!;
          const xi = ti[oi + c]!;
          const yr = tr[oi1 + c]!;
          const yi = ti[oi1 + c]!;
          rr[oj + c]! += a0r * xr - a0i * xi + b0r * yr - b0i * yi;
          ri[oj + c]! += a0r * xi + a0i * xr + b0r * yi + b0i * yr;
          rr[oj1 + c]! += a1r * xr - a1i * xi + b1r * yr - b1i * yi;
          ri[oj1 + c]! += a1r * xi + a1i * xr + b1r * yi + b1i * yr;
        }
      } else {
        // Edges (odd m or k): one or two of the four coefficients, unblocked.
        for (let jj = j; jj < Math.min(j + 2, k); jj++) {
          const o = jj * n;
          for (let ii = i; ii < Math.min(i + 2, m); ii++) {
            const cr = ur[ii * k + jj]!;
            const ci = -ui[ii * k + jj]!;
            const ox = ii * n;
            for (let c = 0; c < n; c++) {
              rr[o + c]! += cr * tr[ox + c]! - ci * ti[ox + c]!;
              ri[o + c]! += cr * ti[ox + c]! + ci * tr[ox + c]!;
            }
          }
        }
      }
    }
  }
}

/** C = A·B (m×q) for A m×p and B p×q; C is overwritten. Rows i, i+1 of C take rows k, k+1 of B at once. */
export function times(m: number, p: number, q: number, ar: Float64Array, ai: Float64Array, br: Float64Array, bi: Float64Array, cr: Float64Array, ci: Float64Array): void {
  if (!timesWasm(m, p, q, ar, ai, br, bi, cr, ci)) timesJs(m, p, q, ar, ai, br, bi, cr, ci);
}

/** `times` in plain JS. */
export function timesJs(m: number, p: number, q: number, ar: Float64Array, ai: Float64Array, br: Float64Array, bi: Float64Array, cr: Float64Array, ci: Float64Array): void {
  cr.fill(0, 0, m * q);
  ci.fill(0, 0, m * q);
  const p2 = p & ~1;
  for (let i = 0; i < m; i += 2) {
    const pair = i + 1 < m;
    const oa = i * p;
    const oa1 = oa + p;
    const oc = i * q;
    const oc1 = oc + q;
    for (let k = 0; k < p2; k += 2) {
      const x0r = ar[oa + k]!;
      const x0i = ai[oa + k]!;
      const x1r = ar[oa + k + 1]!;
      const x1i = ai[oa + k + 1]!;
      const ob = k * q;
      const ob1 = ob + q;
      if (pair) {
        const y0r = ar[oa1 + k]!;
        const y0i = ai[oa1 + k]!;
        const y1r = ar[oa1 + k + 1]!;
        const y1i = ai[oa1 + k + 1]!;
        for (let c = 0; c < q; c++) {
          const ur = br[ob + c]!;
          const ui = bi[ob + c]!;
          const vr = br[ob1 + c]!;
          const vi = bi[ob1 + c]!;
          cr[oc + c]! += x0r * ur - x0i * ui + x1r * vr - x1i * vi;
          ci[oc + c]! += x0r * ui + x0i * ur + x1r * vi + x1i * vr;
          cr[oc1 + c]! += y0r * ur - y0i * ui + y1r * vr - y1i * vi;
          ci[oc1 + c]! += y0r * ui + y0i * ur + y1r * vi + y1i * vr;
        }
      } else
        for (let c = 0; c < q; c++) {
          const ur = br[ob + c]!;
          const ui = bi[ob + c]!;
          const vr = br[ob1 + c]!;
          const vi = bi[ob1 + c]!;
          cr[oc + c]! += x0r * ur - x0i * ui + x1r * vr - x1i * vi;
          ci[oc + c]! += x0r * ui + x0i * ur + x1r * vi + x1i * vr;
        }
    }
    if (p2 < p) {
      // The odd last column of A.
      const k = p - 1;
      const ob = k * q;
      for (let r = i; r < Math.min(i + 2, m); r++) {
        const xr = ar[r * p + k]!;
        const xi = ai[r * p + k]!;
        const o = r * q;
        for (let c = 0; c < q; c++) {
          cr[o + c]! += xr * br[ob + c]! - xi * bi[ob + c]!;
          ci[o + c]! += xr * bi[ob + c]! + xi * br[ob + c]!;
        }
      }
    }
  }
}
