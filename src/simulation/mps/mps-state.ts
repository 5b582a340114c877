/**
 * A matrix product state with an orthogonality centre: site tensors A[l, s, r] (row-major
 * (l·2 + s)·χr + r), every site left of the centre left-canonical and right of it right-canonical,
 * so the singular values of a two-site update are the Schmidt coefficients and truncating them
 * discards exactly their weight. Qubits move between sites by SWAP gates (a swap network); the map
 * qubit → site is kept instead of swapping back.
 */
import type { DenseMatrix } from '../gate-matrices.js';
import { adjointTimes, times } from './complex-kernels.js';
import { adjoint, gramSplit, type Truncation } from './gram-split.js';
import { orthonormaliseColumns } from './orthonormalise.js';

interface Site {
  l: number;
  r: number;
  re: Float64Array;
  im: Float64Array;
}

export type { Truncation } from './gram-split.js';

const ROUNDING_WEIGHT = 1e-12;

const SWAP: DenseMatrix = {
  k: 2,
  re: Float64Array.of(1, 0, 0, 0, 0, 0, 1, 0, 0, 1, 0, 0, 0, 0, 0, 1),
  im: new Float64Array(16),
};

export class Mps {
  readonly sites: Site[];
  /** qubit → site and site → qubit. */
  readonly pos: Int32Array;
  readonly at: Int32Array;
  private center = 0;
  /** ∏ (1 − discarded weight) over truncations: the usual estimate (exact for one truncation). */
  fidelity = 1;
  /**
   * Σ_k ‖U_kψ_{k−1} − ψ_k‖ = Σ_k √(2 − 2√(1 − w_k)): each normalised truncation moves the state by
   * that much, unitaries keep distances, so ‖φ − ψ‖ ≤ this sum and |⟨φ|ψ⟩|² ≥ (1 − D²/2)².
   */
  distance = 0;
  discarded = 0;
  truncations = 0;
  maxBondReached = 1;

  constructor(
    readonly n: number,
    private readonly trunc: Truncation,
  ) {
    this.sites = Array.from({ length: n }, () => ({ l: 1, r: 1, re: Float64Array.of(1, 0), im: new Float64Array(2) }));
    this.pos = Int32Array.from({ length: n }, (_, i) => i);
    this.at = Int32Array.from({ length: n }, (_, i) => i);
  }

  apply1(q: number, m: DenseMatrix): void {
    const t = this.sites[this.pos[q]!]!;
    const [ar, ai, br, bi, cr, ci, dr, di] = [m.re[0]!, m.im[0]!, m.re[1]!, m.im[1]!, m.re[2]!, m.im[2]!, m.re[3]!, m.im[3]!];
    for (let l = 0; l < t.l; l++)
      for (let r = 0; r < t.r; r++) {
        const i0 = l * 2 * t.r + r;
        const i1 = i0 + t.r;
        const x0r = t.re[i0]!;
        const x0i = t.im[i0]!;
        const x1r = t.re[i1]!;
        const x1i = t.im[i1]!;
        t.re[i0] = ar * x0r - ai * x0i + br * x1r - bi * x1i;
        t.im[i0] = ar * x0i + ai * x0r + br * x1i + bi * x1r;
        t.re[i1] = cr * x0r - ci * x0i + dr * x1r - di * x1i;
        t.im[i1] = cr * x0i + ci * x0r + dr * x1i + di * x1r;
      }
  }

  /** QR steps plus swaps before a gate on qubits a and b could run: what the scheduler minimises. */
  moveCost(a: number, b: number): number {
    const pa = this.pos[a]!;
    const pb = this.pos[b]!;
    const lo = Math.min(pa, pb);
    const hi = Math.max(pa, pb);
    const toCentre = this.center < lo ? lo - this.center : this.center > hi ? this.center - hi : 0;
    return toCentre + (hi - lo - 1);
  }

  /** A two-qubit gate (index bit 0 ↔ qubit a, bit 1 ↔ qubit b): the two are brought next to each other by swaps first. */
  apply2(a: number, b: number, m: DenseMatrix): void {
    while (Math.abs(this.pos[a]! - this.pos[b]!) > 1) {
      // Move b one site towards a.
      const pb = this.pos[b]!;
      const step = this.pos[a]! < pb ? pb - 1 : pb;
      this.applySites(step, SWAP);
      const q1 = this.at[step]!;
      const q2 = this.at[step + 1]!;
      this.at[step] = q2;
      this.at[step + 1] = q1;
      this.pos[q1] = step + 1;
      this.pos[q2] = step;
    }
    const left = Math.min(this.pos[a]!, this.pos[b]!);
    // θ's basis is s_left + 2·s_right; the gate's is s_a + 2·s_b: transpose when a is on the right.
    this.applySites(left, this.pos[a] === left ? m : transposeQubits(m));
  }

  /**
   * Moves the orthogonality centre to `to` by QR factorisations (an isometry is all the canonical form
   * needs; the Schmidt values come from the two-site SVDs). Columns dependent on earlier ones are
   * dropped, so bonds shrink to their rank.
   */
  moveCenter(to: number): void {
    while (this.center < to) {
      const c = this.center;
      const A = this.sites[c]!;
      const B = this.sites[c + 1]!;
      const rows = A.l * 2;
      const { qr, qi, rr, ri, k } = isometry(rows, A.r, A.re, A.im);
      this.sites[c] = { l: A.l, r: k, re: qr, im: qi };
      const prod = matmul(k, A.r, B.r * 2, rr, ri, B.re, B.im);
      this.sites[c + 1] = { l: k, r: B.r, re: prod.re, im: prod.im };
      this.center++;
    }
    while (this.center > to) {
      const c = this.center;
      const A = this.sites[c - 1]!;
      const B = this.sites[c]!;
      const cols = 2 * B.r;
      // B† = Q R ⇒ B = R† Q†: the site becomes Q† (rows orthonormal), R† moves left.
      const hr = new Float64Array(cols * B.l);
      const hi = new Float64Array(cols * B.l);
      for (let i = 0; i < B.l; i++)
        for (let j = 0; j < cols; j++) {
          hr[j * B.l + i] = B.re[i * cols + j]!;
          hi[j * B.l + i] = -B.im[i * cols + j]!;
        }
      const { qr, qi, rr, ri, k } = isometry(cols, B.l, hr, hi);
      const sr = new Float64Array(k * cols);
      const si = new Float64Array(k * cols);
      for (let a = 0; a < k; a++)
        for (let j = 0; j < cols; j++) {
          sr[a * cols + j] = qr[j * k + a]!;
          si[a * cols + j] = -qi[j * k + a]!;
        }
      this.sites[c] = { l: k, r: B.r, re: sr, im: si };
      // R† (B.l × k)
      const lr = new Float64Array(B.l * k);
      const li = new Float64Array(B.l * k);
      for (let a = 0; a < k; a++)
        for (let i = 0; i < B.l; i++) {
          lr[i * k + a] = rr[a * B.l + i]!;
          li[i * k + a] = -ri[a * B.l + i]!;
        }
      const prod = matmul(A.l * 2, A.r, k, A.re, A.im, lr, li);
      this.sites[c - 1] = { l: A.l, r: k, re: prod.re, im: prod.im };
      this.center--;
    }
  }

  /** A 4×4 matrix on sites (i, i+1), basis s_i + 2·s_{i+1}; SVD split with truncation. */
  private applySites(i: number, m: DenseMatrix): void {
    if (this.center < i) this.moveCenter(i);
    else if (this.center > i + 1) this.moveCenter(i + 1);
    const A = this.sites[i]!;
    const B = this.sites[i + 1]!;
    const chiL = A.l;
    const chiR = B.r;
    // θ[(l,s1),(s2,r)] = Σ_m A[l,s1,m] B[m,s2,r]
    const th = matmul(chiL * 2, A.r, 2 * chiR, A.re, A.im, B.re, B.im);
    const rows = chiL * 2;
    const cols = 2 * chiR;
    const outR = new Float64Array(rows * cols);
    const outI = new Float64Array(rows * cols);
    const g = m.re;
    const gi = m.im;
    for (let l = 0; l < chiL; l++) {
      const o0 = l * 2 * cols; // (l, s1=0), s2 = 0 at +0, s2 = 1 at +chiR
      const o1 = o0 + cols; // (l, s1=1)
      for (let r = 0; r < chiR; r++) {
        // Basis index s1 + 2·s2: 0 ↔ (0,0), 1 ↔ (1,0), 2 ↔ (0,1), 3 ↔ (1,1).
        const i0 = o0 + r;
        const i1 = o1 + r;
        const i2 = o0 + chiR + r;
        const i3 = o1 + chiR + r;
        const x0r = th.re[i0]!;
        const x0i = th.im[i0]!;
        const x1r = th.re[i1]!;
        const x1i = th.im[i1]!;
        const x2r = th.re[i2]!;
        const x2i = th.im[i2]!;
        const x3r = th.re[i3]!;
        const x3i = th.im[i3]!;
        for (let o = 0; o < 4; o++) {
          const b = o * 4;
          const sr = g[b]! * x0r - gi[b]! * x0i + g[b + 1]! * x1r - gi[b + 1]! * x1i + g[b + 2]! * x2r - gi[b + 2]! * x2i + g[b + 3]! * x3r - gi[b + 3]! * x3i;
          const si = g[b]! * x0i + gi[b]! * x0r + g[b + 1]! * x1i + gi[b + 1]! * x1r + g[b + 2]! * x2i + gi[b + 2]! * x2r + g[b + 3]! * x3i + gi[b + 3]! * x3r;
          const idx = o === 0 ? i0 : o === 1 ? i1 : o === 2 ? i2 : i3;
          outR[idx] = sr;
          outI[idx] = si;
        }
      }
    }
    // Split through the Gram matrix of the shorter side (see gramSplit): θ ≈ U·R with U an isometry.
    // For a square θ either side costs the same: the centre then continues in the direction it came
    // from (arriving at i it leaves at i+1 and vice versa), so a sweep in either direction needs one
    // QR step per gate, not two.
    let k: number;
    let kept: number;
    let total: number;
    if (rows < cols || (rows === cols && this.center === i)) {
      const sp = gramSplit(rows, cols, outR, outI, this.trunc);
      ({ k, kept, total } = sp);
      this.sites[i] = { l: chiL, r: k, re: sp.ure, im: sp.uim };
      this.sites[i + 1] = { l: k, r: chiR, re: sp.rre, im: sp.rim };
      this.center = i + 1;
    } else {
      // θ† = U·R ⇒ θ = R†·U†: the right site gets U† (rows orthonormal), the centre stays on the left.
      const hr = new Float64Array(cols * rows);
      const hi = new Float64Array(cols * rows);
      for (let r = 0; r < rows; r++)
        for (let c = 0; c < cols; c++) {
          hr[c * rows + r] = outR[r * cols + c]!;
          hi[c * rows + r] = -outI[r * cols + c]!;
        }
      const sp = gramSplit(cols, rows, hr, hi, this.trunc);
      ({ k, kept, total } = sp);
      this.sites[i] = { l: chiL, r: k, ...adjoint(k, rows, sp.rre, sp.rim) };
      this.sites[i + 1] = { l: k, r: chiR, ...adjoint(cols, k, sp.ure, sp.uim) };
      this.center = i;
    }
    const w = total > 0 ? Math.max(0, 1 - kept / total) : 0;
    // Below this the ratio is rounding of two sums of up to 128² terms (and eigenvalues under
    // gram-split's ZERO_EIG): not a truncation, so an untruncated run reports fidelity 1.
    if (w > ROUNDING_WEIGHT) {
      this.fidelity *= 1 - w;
      this.distance += Math.sqrt((2 * w) / (1 + Math.sqrt(1 - w)));
      this.discarded += w;
      this.truncations++;
    }
    if (k > this.maxBondReached) this.maxBondReached = k;
  }

  /**
   * The conditional distribution walk: calls visit(site, v0, v1, norm0, norm1) with the prefix vector
   * times A[site]_s. The state is made right-canonical first (centre at site 0).
   */
  prepareSampling(): void {
    this.moveCenter(0);
  }

  /** v·A[site]_s (v of length A.l) for s = 0 and 1. */
  step(site: number, vr: Float64Array, vi: Float64Array): [Float64Array, Float64Array, Float64Array, Float64Array] {
    const A = this.sites[site]!;
    const o0r = new Float64Array(A.r);
    const o0i = new Float64Array(A.r);
    const o1r = new Float64Array(A.r);
    const o1i = new Float64Array(A.r);
    for (let l = 0; l < A.l; l++) {
      const xr = vr[l]!;
      const xi = vi[l]!;
      if (xr === 0 && xi === 0) continue;
      const b0 = l * 2 * A.r;
      const b1 = b0 + A.r;
      for (let r = 0; r < A.r; r++) {
        const ar = A.re[b0 + r]!;
        const ai = A.im[b0 + r]!;
        o0r[r]! += xr * ar - xi * ai;
        o0i[r]! += xr * ai + xi * ar;
        const br = A.re[b1 + r]!;
        const bi = A.im[b1 + r]!;
        o1r[r]! += xr * br - xi * bi;
        o1i[r]! += xr * bi + xi * br;
      }
    }
    return [o0r, o0i, o1r, o1i];
  }

  /** A rigorous lower bound on |⟨exact|ψ⟩|² from the truncations so far (see `distance`). */
  fidelityLowerBound(): number {
    const half = 1 - (this.distance * this.distance) / 2;
    return half > 0 ? half * half : 0;
  }

  /** The full state vector (index bit k ↔ qubit k), for small n: contracted site by site. */
  toStatevector(): { re: Float64Array; im: Float64Array } {
    let cur: { idx: number; re: Float64Array; im: Float64Array }[] = [{ idx: 0, re: Float64Array.of(1), im: Float64Array.of(0) }];
    for (let site = 0; site < this.n; site++) {
      const bit = 2 ** this.at[site]!;
      const next: typeof cur = [];
      for (const c of cur) {
        const [a0r, a0i, a1r, a1i] = this.step(site, c.re, c.im);
        next.push({ idx: c.idx, re: a0r, im: a0i }, { idx: c.idx + bit, re: a1r, im: a1i });
      }
      cur = next;
    }
    const re = new Float64Array(2 ** this.n);
    const im = new Float64Array(2 ** this.n);
    for (const c of cur) {
      re[c.idx] = c.re[0]!;
      im[c.idx] = c.im[0]!;
    }
    return { re, im };
  }

  /**
   * A_s† ρ A_s for site `site` and s = 0, 1 (ρ of size A.l × A.l): the reduced prefix density in the
   * bond basis after fixing (or, summed over s, tracing) that site. Right-canonical sites to the right
   * contract to the identity, so Tr of the result is the probability of the prefix. Both s come from
   * one blocked product ρ·A (A as l × 2r) and one blocked A_s†·T_s each.
   */
  transfer(site: number, rr: Float64Array, ri: Float64Array): [{ re: Float64Array; im: Float64Array }, { re: Float64Array; im: Float64Array }] {
    const A = this.sites[site]!;
    const { l, r } = A;
    const tr = new Float64Array(l * 2 * r);
    const ti = new Float64Array(l * 2 * r);
    times(l, l, 2 * r, rr, ri, A.re, A.im, tr, ti);
    const asr = new Float64Array(l * r);
    const asi = new Float64Array(l * r);
    const tsr = new Float64Array(l * r);
    const tsi = new Float64Array(l * r);
    const out: [{ re: Float64Array; im: Float64Array }, { re: Float64Array; im: Float64Array }] = [
      { re: new Float64Array(r * r), im: new Float64Array(r * r) },
      { re: new Float64Array(r * r), im: new Float64Array(r * r) },
    ];
    for (let s = 0; s < 2; s++) {
      for (let a = 0; a < l; a++) {
        const from = (a * 2 + s) * r;
        asr.set(A.re.subarray(from, from + r), a * r);
        asi.set(A.im.subarray(from, from + r), a * r);
        tsr.set(tr.subarray(from, from + r), a * r);
        tsi.set(ti.subarray(from, from + r), a * r);
      }
      adjointTimes(l, r, r, asr, asi, tsr, tsi, out[s]!.re, out[s]!.im);
    }
    return out;
  }

  /** Σ_s A_s† ρ A_s (the site traced out): A and ρ·A viewed as (2l)×r matrices, one blocked product. */
  transferTraced(site: number, rr: Float64Array, ri: Float64Array): { re: Float64Array; im: Float64Array } {
    const A = this.sites[site]!;
    const { l, r } = A;
    const tr = new Float64Array(l * 2 * r);
    const ti = new Float64Array(l * 2 * r);
    times(l, l, 2 * r, rr, ri, A.re, A.im, tr, ti);
    const re = new Float64Array(r * r);
    const im = new Float64Array(r * r);
    adjointTimes(2 * l, r, r, A.re, A.im, tr, ti, re, im);
    return { re, im };
  }

  /** ⟨ψ|P|ψ⟩ for one-qubit Paulis (qubit → 'X' | 'Y' | 'Z') by the transfer matrices of ⟨ψ| and P|ψ⟩. */
  pauliExpectation(ops: ReadonlyMap<number, string>): number {
    let er = Float64Array.of(1);
    let ei = Float64Array.of(0);
    let dim = 1;
    for (let site = 0; site < this.n; site++) {
      const A = this.sites[site]!;
      const p = ops.get(this.at[site]!);
      const nr = new Float64Array(A.r * A.r);
      const ni = new Float64Array(A.r * A.r);
      for (let s = 0; s < 2; s++) {
        // B_s = Σ_t P[s,t] A_t; P is a signed/phased permutation.
        const t = p === 'X' || p === 'Y' ? 1 - s : s;
        let fr = 1;
        let fi = 0;
        if (p === 'Z' && s === 1) fr = -1;
        if (p === 'Y') [fr, fi] = s === 0 ? [0, -1] : [0, 1];
        // tmp = E · B_s  (dim × A.r), E is (A.l × A.l) here: dim = A.l.
        const tr = new Float64Array(dim * A.r);
        const ti = new Float64Array(dim * A.r);
        for (let a = 0; a < dim; a++)
          for (let l = 0; l < A.l; l++) {
            const xr = er[a * dim + l]!;
            const xi = ei[a * dim + l]!;
            if (xr === 0 && xi === 0) continue;
            const base = (l * 2 + t) * A.r;
            for (let r = 0; r < A.r; r++) {
              const br = fr * A.re[base + r]! - fi * A.im[base + r]!;
              const bi = fr * A.im[base + r]! + fi * A.re[base + r]!;
              tr[a * A.r + r]! += xr * br - xi * bi;
              ti[a * A.r + r]! += xr * bi + xi * br;
            }
          }
        // new[r1, r2] += Σ_a conj(A[a, s, r1]) tmp[a, r2]
        for (let a = 0; a < dim; a++) {
          const base = (a * 2 + s) * A.r;
          for (let r1 = 0; r1 < A.r; r1++) {
            const cr = A.re[base + r1]!;
            const ci = -A.im[base + r1]!;
            if (cr === 0 && ci === 0) continue;
            for (let r2 = 0; r2 < A.r; r2++) {
              const xr = tr[a * A.r + r2]!;
              const xi = ti[a * A.r + r2]!;
              nr[r1 * A.r + r2]! += cr * xr - ci * xi;
              ni[r1 * A.r + r2]! += cr * xi + ci * xr;
            }
          }
        }
      }
      er = nr;
      ei = ni;
      dim = A.r;
    }
    return er[0]!;
  }
}

/** (m×p)·(p×q), row-major. */
function matmul(m: number, p: number, q: number, ar: Float64Array, ai: Float64Array, br: Float64Array, bi: Float64Array): { re: Float64Array; im: Float64Array } {
  const re = new Float64Array(m * q);
  const im = new Float64Array(m * q);
  times(m, p, q, ar, ai, br, bi, re, im);
  return { re, im };
}

/** The same two-qubit matrix with its qubits swapped (index bits exchanged). */
function transposeQubits(m: DenseMatrix): DenseMatrix {
  const sw = (i: number): number => ((i & 1) << 1) | (i >> 1);
  const re = new Float64Array(16);
  const im = new Float64Array(16);
  for (let r = 0; r < 4; r++)
    for (let c = 0; c < 4; c++) {
      re[sw(r) * 4 + sw(c)] = m.re[r * 4 + c]!;
      im[sw(r) * 4 + sw(c)] = m.im[r * 4 + c]!;
    }
  return { k: 2, re, im };
}

/** M (m×n) = Q·R with Q's k columns orthonormal (dependent columns dropped) and R = Q†M (k×n). */
function isometry(m: number, n: number, re: Float64Array, im: Float64Array): { qr: Float64Array; qi: Float64Array; rr: Float64Array; ri: Float64Array; k: number } {
  // Columns contiguous for the Gram–Schmidt passes.
  const wr = new Float64Array(m * n);
  const wi = new Float64Array(m * n);
  for (let i = 0; i < m; i++)
    for (let j = 0; j < n; j++) {
      wr[j * m + i] = re[i * n + j]!;
      wi[j * m + i] = im[i * n + j]!;
    }
  const cr = new Float64Array(n * n);
  const ci = new Float64Array(n * n);
  orthonormaliseColumns(m, n, wr, wi, cr, ci);
  const keep: number[] = [];
  for (let j = 0; j < n; j++) {
    let z = true;
    for (let i = 0; i < m && z; i++) if (wr[j * m + i] !== 0 || wi[j * m + i] !== 0) z = false;
    if (!z) keep.push(j);
  }
  const k = Math.max(1, keep.length);
  if (keep.length === 0) keep.push(0);
  const qr = new Float64Array(m * k);
  const qi = new Float64Array(m * k);
  for (let i = 0; i < m; i++)
    keep.forEach((j, a) => {
      qr[i * k + a] = wr[j * m + i]!;
      qi[i * k + a] = wi[j * m + i]!;
    });
  // R: the Gram–Schmidt coefficients of the kept columns (a dropped column's row is zero: nothing
  // was projected on it).
  const rr = new Float64Array(k * n);
  const ri = new Float64Array(k * n);
  keep.forEach((j, a) => {
    rr.set(cr.subarray(j * n, j * n + n), a * n);
    ri.set(ci.subarray(j * n, j * n + n), a * n);
  });
  return { qr, qi, rr, ri, k };
}
