/**
 * Eigen-decomposition of a complex Hermitian matrix: Householder reduction to a tridiagonal matrix
 * (made real by a diagonal phase), implicit QL with Wilkinson shifts for its eigenvalues, inverse
 * iteration on it for the wanted eigenvectors only, and the reflectors applied back to those. O(n³)
 * with small constants — several times cheaper than a one-sided Jacobi SVD of the matrix it is the
 * Gram matrix of. Eigenvectors come out orthonormal to machine precision even for degenerate
 * eigenvalues (a final Gram–Schmidt pass, then unitary reflections), which is what the MPS split
 * relies on.
 */
import { eigenSpace } from './mps-wasm.js';
import { tridiagonalVectors } from './tridiagonal-vectors.js';

export interface HermitianEigen {
  /** The `want` largest eigenvalues, descending. */
  readonly values: Float64Array;
  /** How many eigenvectors were computed (the leading ones). */
  readonly vectors: number;
  /** n×vectors row-major: column j is the eigenvector of values[j]. */
  readonly re: Float64Array;
  readonly im: Float64Array;
}

/**
 * The `want` largest eigenpairs of the Hermitian n×n row-major matrix (are, aim). Only the lower
 * triangle is read; the arrays are overwritten (they are the work space). `vectors`, given the
 * eigenvalues, says how many eigenvectors (leading ones) to compute; all `want` by default.
 */
export function hermitianEigen(n: number, are0: Float64Array, aim0: Float64Array, want: number, vectors?: (values: Float64Array) => number): HermitianEigen {
  const k = Math.max(0, Math.min(want, n));
  // In WebAssembly memory when available: the O(n³) loops run there, in the JS loops' order.
  const ws = eigenSpace(n, k, are0, aim0);
  const are = ws?.are ?? are0;
  const aim = ws?.aim ?? aim0;
  const d = new Float64Array(n);
  const e = new Float64Array(n); // e[j] couples j and j+1 (real, ≥ 0 after the phase)
  const phr = new Float64Array(n);
  const phi = new Float64Array(n);
  // Reflector j (j = 0..n−3) acts on rows j+1..n−1: H = I − τ v v†; v stored in column j below the diagonal.
  const tau = ws?.tau ?? new Float64Array(n);
  const pr = ws?.pr ?? new Float64Array(n);
  const pi = ws?.pi ?? new Float64Array(n);
  const vcr = ws?.vcr ?? new Float64Array(n);
  const vci = ws?.vci ?? new Float64Array(n);
  for (let j = 0; j + 2 < n; j++) {
    const len = n - j - 1;
    let sig2 = 0;
    for (let i = j + 1; i < n; i++) sig2 += are[i * n + j]! ** 2 + aim[i * n + j]! ** 2;
    const x0r = are[(j + 1) * n + j]!;
    const x0i = aim[(j + 1) * n + j]!;
    const ax0 = Math.hypot(x0r, x0i);
    const tail = sig2 - ax0 * ax0;
    if (!(tail > 1e-300 * Math.max(1, sig2))) {
      tau[j] = 0; // already tridiagonal in this column
      continue;
    }
    const sig = Math.sqrt(sig2);
    const fr = ax0 > 0 ? x0r / ax0 : 1;
    const fi = ax0 > 0 ? x0i / ax0 : 0;
    // v = x + φσ e1, ‖v‖² = 2σ(σ + |x0|); Hx = −φσ e1.
    are[(j + 1) * n + j] = x0r + fr * sig;
    aim[(j + 1) * n + j] = x0i + fi * sig;
    const t = 1 / (sig * (sig + ax0));
    tau[j] = t;
    // p = τ A v over the trailing block, reading the lower triangle row by row (each stored entry
    // serves A[a][b]·v_b and conj(A[a][b])·v_a); v copied contiguous first.
    for (let a = 0; a < len; a++) {
      vcr[a] = are[(j + 1 + a) * n + j]!;
      vci[a] = aim[(j + 1 + a) * n + j]!;
      pr[a] = 0;
      pi[a] = 0;
    }
    // Rows a and a+1 per step: each load (and store) of v_b and p_b serves both.
    let a = 0;
    if (ws !== null) {
      ws.symv(j);
      a = len - (len & 1);
    }
    for (; a + 1 < len; a += 2) {
      const row = (j + 1 + a) * n + j + 1;
      const row1 = row + n;
      const v0r = vcr[a]!;
      const v0i = vci[a]!;
      const v1r = vcr[a + 1]!;
      const v1i = vci[a + 1]!;
      let s0r = 0;
      let s0i = 0;
      let s1r = 0;
      let s1i = 0;
      for (let b = 0; b < a; b++) {
        const hr = are[row + b]!;
        const hi = aim[row + b]!;
        const gr = are[row1 + b]!;
        const gi = aim[row1 + b]!;
        const vbr = vcr[b]!;
        const vbi = vci[b]!;
        s0r += hr * vbr - hi * vbi;
        s0i += hr * vbi + hi * vbr;
        s1r += gr * vbr - gi * vbi;
        s1i += gr * vbi + gi * vbr;
        pr[b]! += hr * v0r + hi * v0i + gr * v1r + gi * v1i;
        pi[b]! += hr * v0i - hi * v0r + gr * v1i - gi * v1r;
      }
      // The 2×2 diagonal block: A[a][a], A[a+1][a] (and its conjugate), A[a+1][a+1].
      const d0 = are[row + a]!;
      const d1 = are[row1 + a + 1]!;
      const cr = are[row1 + a]!;
      const ci = aim[row1 + a]!;
      pr[a]! += s0r + d0 * v0r + cr * v1r + ci * v1i;
      pi[a]! += s0i + d0 * v0i + cr * v1i - ci * v1r;
      pr[a + 1]! += s1r + d1 * v1r + cr * v0r - ci * v0i;
      pi[a + 1]! += s1i + d1 * v1i + cr * v0i + ci * v0r;
    }
    if (a < len) {
      const row = (j + 1 + a) * n + j + 1;
      const var_ = vcr[a]!;
      const vai = vci[a]!;
      let sr = 0;
      let si = 0;
      for (let b = 0; b < a; b++) {
        const hr = are[row + b]!;
        const hi = aim[row + b]!;
        const vbr = vcr[b]!;
        const vbi = vci[b]!;
        sr += hr * vbr - hi * vbi;
        si += hr * vbi + hi * vbr;
        pr[b]! += hr * var_ + hi * vai;
        pi[b]! += hr * vai - hi * var_;
      }
      const dd = are[row + a]!;
      pr[a]! += sr + dd * var_;
      pi[a]! += si + dd * vai;
    }
    for (let a = 0; a < len; a++) {
      pr[a]! *= t;
      pi[a]! *= t;
    }
    // β = v†p (real), w = p − (τβ/2) v.
    let beta = 0;
    for (let a = 0; a < len; a++) {
      const ia = j + 1 + a;
      beta += are[ia * n + j]! * pr[a]! + aim[ia * n + j]! * pi[a]!;
    }
    const c = (t * beta) / 2;
    for (let a = 0; a < len; a++) {
      const ia = j + 1 + a;
      pr[a]! -= c * are[ia * n + j]!;
      pi[a]! -= c * aim[ia * n + j]!;
    }
    // A ← A − v w† − w v† (lower triangle), rows a and a+1 per step (v_b, w_b loaded once for both).
    let ra = 0;
    if (ws !== null) {
      ws.rank2(j);
      ra = len - (len & 1);
    }
    for (; ra < len; ra += 2) {
      const pair = ra + 1 < len;
      const ia = j + 1 + ra;
      const row = ia * n;
      const row1 = row + n;
      const v0r = vcr[ra]!;
      const v0i = vci[ra]!;
      const w0r = pr[ra]!;
      const w0i = pi[ra]!;
      const v1r = pair ? vcr[ra + 1]! : 0;
      const v1i = pair ? vci[ra + 1]! : 0;
      const w1r = pair ? pr[ra + 1]! : 0;
      const w1i = pair ? pi[ra + 1]! : 0;
      for (let b = 0; b <= ra; b++) {
        const ib = j + 1 + b;
        const vbr = vcr[b]!;
        const vbi = vci[b]!;
        const wbr = pr[b]!;
        const wbi = pi[b]!;
        // v_a conj(w_b) + w_a conj(v_b)
        are[row + ib]! -= v0r * wbr + v0i * wbi + w0r * vbr + w0i * vbi;
        aim[row + ib]! -= v0i * wbr - v0r * wbi + w0i * vbr - w0r * vbi;
        if (pair) {
          are[row1 + ib]! -= v1r * wbr + v1i * wbi + w1r * vbr + w1i * vbi;
          aim[row1 + ib]! -= v1i * wbr - v1r * wbi + w1i * vbr - w1r * vbi;
        }
      }
      if (pair) {
        // Row a+1's diagonal entry (b = a+1).
        const ib = ia + 1;
        are[row1 + ib]! -= v1r * w1r + v1i * w1i + w1r * v1r + w1i * v1i;
        aim[row1 + ib]! -= v1i * w1r - v1r * w1i + w1i * v1r - w1r * v1i;
      }
    }
    // The column below the diagonal is now −φσ e1 (recorded as the subdiagonal through phr/phi).
    phr[j] = -fr * sig;
    phi[j] = -fi * sig;
  }
  for (let j = 0; j < n; j++) d[j] = are[j * n + j]!;
  // Subdiagonal entries c_j (complex): from the reflections, or read directly where none was needed.
  const cr = new Float64Array(n);
  const ci = new Float64Array(n);
  for (let j = 0; j + 1 < n; j++) {
    if (j + 2 < n && tau[j]! !== 0) {
      cr[j] = phr[j]!;
      ci[j] = phi[j]!;
    } else {
      cr[j] = are[(j + 1) * n + j]!;
      ci[j] = aim[(j + 1) * n + j]!;
    }
  }
  // δ_0 = 1, δ_{j+1} = δ_j c_j/|c_j| makes D†TD real with subdiagonal |c_j|.
  const dr = new Float64Array(n);
  const di = new Float64Array(n);
  dr[0] = 1;
  for (let j = 0; j + 1 < n; j++) {
    const a = Math.hypot(cr[j]!, ci[j]!);
    e[j] = a;
    const ur = a > 0 ? cr[j]! / a : 1;
    const ui = a > 0 ? ci[j]! / a : 0;
    dr[j + 1] = dr[j]! * ur - di[j]! * ui;
    di[j + 1] = dr[j]! * ui + di[j]! * ur;
  }
  // Eigenvalues by QL without vectors (O(n²)); the vectors wanted by inverse iteration on the
  // tridiagonal (tridiagonal-vectors.ts), O(n) each, instead of accumulating every QL rotation into an
  // n×n matrix (O(n³)) of which at most `want` columns are used.
  const dv = d.slice();
  const ev = e.slice();
  tridiagonalQl(n, d, e, null);
  const sorted = d.slice().sort().reverse();
  const values = sorted.slice(0, k);
  const kv = Math.max(0, Math.min(k, vectors?.(values) ?? k));
  let z = tridiagonalVectors(n, dv, ev, sorted, kv);
  if (!z.every(Number.isFinite)) {
    // Inverse iteration overflowed (not seen in practice): the rotations, accumulated, cannot.
    const zq = new Float64Array(n * n);
    for (let j = 0; j < n; j++) zq[j * n + j] = 1;
    const d2 = dv.slice();
    tridiagonalQl(n, d2, ev, zq);
    const order = Array.from({ length: n }, (_, j) => j).sort((x, y) => d2[y]! - d2[x]!);
    z = new Float64Array(n * kv);
    for (let c = 0; c < kv; c++) z.set(zq.subarray(order[c]! * n, order[c]! * n + n), c * n);
  }
  // V = Q·D·Z; row-major n×kv.
  const onWasm = ws !== null && (kv & 1) === 0 && kv > 0;
  const vr = onWasm ? ws.vr.subarray(0, n * kv) : new Float64Array(n * kv);
  const vim = onWasm ? ws.vi.subarray(0, n * kv) : new Float64Array(n * kv);
  for (let c = 0; c < kv; c++)
    for (let i = 0; i < n; i++) {
      const zv = z[c * n + i]!;
      vr[i * kv + c] = dr[i]! * zv;
      vim[i * kv + c] = di[i]! * zv;
    }
  // Apply H_{n−3} … H_0: M ← M − τ v (v† M) on rows j+1..n−1 (WebAssembly for an even kv, same order).
  if (onWasm) {
    ws.back(kv);
    return { values, vectors: kv, re: vr.slice(), im: vim.slice() };
  }
  backTransformJs(n, kv, are, aim, tau, vr, vim);
  return { values, vectors: kv, re: vr, im: vim };
}

/**
 * Implicit QL with Wilkinson shifts on the real symmetric tridiagonal (d diagonal, e[j] between j
 * and j+1); the rotations are accumulated into z (column-major). d becomes the eigenvalues.
 */
function tridiagonalQl(n: number, d: Float64Array, e: Float64Array, z: Float64Array | null): void {
  for (let l = 0; l < n; l++) {
    let iter = 0;
    for (;;) {
      let m = l;
      for (; m < n - 1; m++) {
        const dd = Math.abs(d[m]!) + Math.abs(d[m + 1]!);
        if (Math.abs(e[m]!) <= Number.EPSILON * dd || Math.abs(e[m]!) < 1e-300) break;
      }
      if (m === l) break;
      if (++iter > 60) break; // does not happen for finite input; keep whatever converged
      let g = (d[l + 1]! - d[l]!) / (2 * e[l]!);
      let r = Math.hypot(g, 1);
      g = d[m]! - d[l]! + e[l]! / (g + (g >= 0 ? r : -r));
      let s = 1;
      let c = 1;
      let p = 0;
      let i = m - 1;
      for (; i >= l; i--) {
        let f = s * e[i]!;
        const b = c * e[i]!;
        r = Math.hypot(f, g);
        e[i + 1] = r;
        if (r === 0) {
          d[i + 1]! -= p;
          e[m] = 0;
          break;
        }
        s = f / r;
        c = g / r;
        g = d[i + 1]! - p;
        r = (d[i]! - g) * s + 2 * c * b;
        p = s * r;
        d[i + 1] = g + p;
        g = c * r - b;
        if (z === null) continue;
        // Rotate columns i and i+1 of z.
        const oi = i * n;
        const o1 = oi + n;
        for (let q = 0; q < n; q++) {
          f = z[o1 + q]!;
          const zi = z[oi + q]!;
          z[o1 + q] = s * zi + c * f;
          z[oi + q] = c * zi - s * f;
        }
      }
      if (r === 0 && i >= l) continue;
      d[l]! -= p;
      e[l] = g;
      e[m] = 0;
    }
  }
}

/** V ← H_0 ⋯ H_{n−3} V (n×kv row-major), the reflectors in A's columns below the diagonal. */
export function backTransformJs(n: number, kv: number, are: Float64Array, aim: Float64Array, tau: Float64Array, vr: Float64Array, vim: Float64Array): void {
  const sr = new Float64Array(kv);
  const si = new Float64Array(kv);
  for (let j = n - 3; j >= 0; j--) {
    const t = tau[j]!;
    if (t === 0) continue;
    sr.fill(0);
    si.fill(0);
    // Two rows per step, so each load of s serves both (the back-transformation was a fifth of the split).
    let i = j + 1;
    for (; i + 1 < n; i += 2) {
      const ar = are[i * n + j]!;
      const ai = -aim[i * n + j]!;
      const br = are[(i + 1) * n + j]!;
      const bi = -aim[(i + 1) * n + j]!;
      const row = i * kv;
      const row1 = row + kv;
      for (let c = 0; c < kv; c++) {
        const mr = vr[row + c]!;
        const mi = vim[row + c]!;
        const nr = vr[row1 + c]!;
        const ni = vim[row1 + c]!;
        sr[c]! += ar * mr - ai * mi + br * nr - bi * ni;
        si[c]! += ar * mi + ai * mr + br * ni + bi * nr;
      }
    }
    if (i < n) {
      const ar = are[i * n + j]!;
      const ai = -aim[i * n + j]!;
      const row = i * kv;
      for (let c = 0; c < kv; c++) {
        const mr = vr[row + c]!;
        const mi = vim[row + c]!;
        sr[c]! += ar * mr - ai * mi;
        si[c]! += ar * mi + ai * mr;
      }
    }
    for (let c = 0; c < kv; c++) {
      sr[c]! *= t;
      si[c]! *= t;
    }
    i = j + 1;
    for (; i + 1 < n; i += 2) {
      const ar = are[i * n + j]!;
      const ai = aim[i * n + j]!;
      const br = are[(i + 1) * n + j]!;
      const bi = aim[(i + 1) * n + j]!;
      const row = i * kv;
      const row1 = row + kv;
      for (let c = 0; c < kv; c++) {
        const xr = sr[c]!;
        const xi = si[c]!;
        vr[row + c]! -= ar * xr - ai * xi;
        vim[row + c]! -= ar * xi + ai * xr;
        vr[row1 + c]! -= br * xr - bi * xi;
        vim[row1 + c]! -= br * xi + bi * xr;
      }
    }
    if (i < n) {
      const ar = are[i * n + j]!;
      const ai = aim[i * n + j]!;
      const row = i * kv;
      for (let c = 0; c < kv; c++) {
        vr[row + c]! -= ar * sr[c]! - ai * si[c]!;
        vim[row + c]! -= ar * si[c]! + ai * sr[c]!;
      }
    }
  }
}
