import type { DenseStep, MonomialStep, Step } from './unitary-compiler.js';

/**
 * Simulates one basis column through the steps. The state lives in dense buffers, but while
 * few amplitudes are nonzero only those are visited (reversible Toffoli networks keep a
 * basis column at a handful of amplitudes throughout), switching to full passes once the
 * support passes N/8. Amplitudes whose components both fall below PRUNE are dropped in
 * sparse mode; the total error this can introduce stays orders of magnitude below ε.
 */
const PRUNE = 1e-15;

export class ColumnSimulator {
  vr: Float64Array;
  vi: Float64Array;
  private wr: Float64Array;
  private wi: Float64Array;
  supp: Int32Array;
  suppLen = 0;
  dense = false;
  /** Whether any column so far needed full passes. */
  everDense = false;
  private nextSupp: Int32Array;
  private readonly stamp: Int32Array;
  private epoch = 0;
  private readonly inR = new Float64Array(32);
  private readonly inI = new Float64Array(32);

  constructor(private readonly N: number) {
    this.vr = new Float64Array(N);
    this.vi = new Float64Array(N);
    this.wr = new Float64Array(N);
    this.wi = new Float64Array(N);
    this.supp = new Int32Array(N);
    this.nextSupp = new Int32Array(N);
    this.stamp = new Int32Array(N);
  }

  start(j: number): void {
    if (this.dense) {
      this.vr.fill(0);
      this.vi.fill(0);
      this.wr.fill(0);
      this.wi.fill(0);
    } else {
      for (let t = 0; t < this.suppLen; t++) {
        const i = this.supp[t]!;
        this.vr[i] = 0;
        this.vi[i] = 0;
      }
    }
    this.dense = false;
    this.vr[j] = 1;
    this.supp[0] = j;
    this.suppLen = 1;
  }

  run(steps: readonly Step[]): void {
    for (const st of steps) {
      if (!this.dense && this.suppLen > this.N >> 3) this.dense = this.everDense = true;
      if (st.kind === 'monomial') {
        if (this.dense) this.monomialDense(st);
        else this.monomialSparse(st);
      } else if (this.dense) {
        applyDense(st, this.vr, this.vi);
      } else {
        this.denseSparse(st);
      }
    }
  }

  private swap(): void {
    [this.vr, this.wr] = [this.wr, this.vr];
    [this.vi, this.wi] = [this.wi, this.vi];
  }

  private monomialDense(st: MonomialStep): void {
    const { perm, pr, pi } = st;
    const { vr, vi, wr, wi } = this;
    for (let i = 0; i < this.N; i++) {
      const t = perm[i]!;
      const xr = vr[i]!;
      const xi = vi[i]!;
      wr[t] = xr * pr[i]! - xi * pi[i]!;
      wi[t] = xr * pi[i]! + xi * pr[i]!;
    }
    this.swap();
  }

  private monomialSparse(st: MonomialStep): void {
    const { perm, pr, pi } = st;
    const { vr, vi, wr, wi, supp } = this;
    for (let s = 0; s < this.suppLen; s++) {
      const i = supp[s]!;
      const t = perm[i]!;
      const xr = vr[i]!;
      const xi = vi[i]!;
      wr[t] = xr * pr[i]! - xi * pi[i]!;
      wi[t] = xr * pi[i]! + xi * pr[i]!;
      vr[i] = 0;
      vi[i] = 0;
      supp[s] = t;
    }
    this.swap();
  }

  private denseSparse(st: DenseStep): void {
    const { offsets, m } = st;
    const d = m.dim;
    const { vr, vi, supp, nextSupp, stamp, inR, inI } = this;
    const epoch = ++this.epoch;
    const mask = offsets[d - 1]!;
    let out = 0;
    for (let s = 0; s < this.suppLen; s++) {
      const base = supp[s]! & ~mask;
      if (stamp[base] === epoch) continue;
      stamp[base] = epoch;
      for (let l = 0; l < d; l++) {
        inR[l] = vr[base + offsets[l]!]!;
        inI[l] = vi[base + offsets[l]!]!;
      }
      for (let r = 0; r < d; r++) {
        let sr = 0;
        let si = 0;
        for (let c = 0; c < d; c++) {
          const mr = m.re[r * d + c]!;
          const mi = m.im[r * d + c]!;
          if (mr === 0 && mi === 0) continue;
          sr += mr * inR[c]! - mi * inI[c]!;
          si += mr * inI[c]! + mi * inR[c]!;
        }
        const idx = base + offsets[r]!;
        if (Math.abs(sr) < PRUNE && Math.abs(si) < PRUNE) {
          vr[idx] = 0;
          vi[idx] = 0;
        } else {
          vr[idx] = sr;
          vi[idx] = si;
          nextSupp[out++] = idx;
        }
      }
    }
    this.nextSupp = supp;
    this.supp = nextSupp;
    this.suppLen = out;
  }
}

export function applyDense(st: DenseStep, vr: Float64Array, vi: Float64Array): void {
  const { bases, offsets, m } = st;
  const d = m.dim;
  if (d === 2) {
    const o1 = offsets[1]!;
    const a = m.re[0]!,
      b = m.re[1]!,
      c = m.re[2]!,
      e = m.re[3]!;
    const ai = m.im[0]!,
      bi = m.im[1]!,
      ci = m.im[2]!,
      ei = m.im[3]!;
    for (let t = 0; t < bases.length; t++) {
      const i0 = bases[t]!;
      const i1 = i0 + o1;
      const xr = vr[i0]!,
        xi = vi[i0]!,
        yr = vr[i1]!,
        yi = vi[i1]!;
      vr[i0] = a * xr - ai * xi + b * yr - bi * yi;
      vi[i0] = a * xi + ai * xr + b * yi + bi * yr;
      vr[i1] = c * xr - ci * xi + e * yr - ei * yi;
      vi[i1] = c * xi + ci * xr + e * yi + ei * yr;
    }
    return;
  }
  const inR = new Float64Array(d);
  const inI = new Float64Array(d);
  for (let t = 0; t < bases.length; t++) {
    const base = bases[t]!;
    for (let l = 0; l < d; l++) {
      inR[l] = vr[base + offsets[l]!]!;
      inI[l] = vi[base + offsets[l]!]!;
    }
    for (let r = 0; r < d; r++) {
      let sr = 0;
      let si = 0;
      for (let c = 0; c < d; c++) {
        const mr = m.re[r * d + c]!;
        const mi = m.im[r * d + c]!;
        if (mr === 0 && mi === 0) continue;
        sr += mr * inR[c]! - mi * inI[c]!;
        si += mr * inI[c]! + mi * inR[c]!;
      }
      vr[base + offsets[r]!] = sr;
      vi[base + offsets[r]!] = si;
    }
  }
}

/**
 * Dense simulation of B columns at once, lane-interleaved (amplitude i of lane b at
 * i·B + b): the permutation, phase and index work of each pass is shared by B columns and
 * the inner loops are contiguous. Used once columns are known to fill the state anyway.
 */
export class BatchSimulator {
  vr: Float64Array;
  vi: Float64Array;
  private wr: Float64Array;
  private wi: Float64Array;

  constructor(
    private readonly N: number,
    readonly B: number,
  ) {
    this.vr = new Float64Array(N * B);
    this.vi = new Float64Array(N * B);
    this.wr = new Float64Array(N * B);
    this.wi = new Float64Array(N * B);
  }

  /** Lanes 0..count-1 start as e_{j0+b}; unused lanes stay zero. */
  start(j0: number, count: number): void {
    this.vr.fill(0);
    this.vi.fill(0);
    for (let b = 0; b < count; b++) this.vr[(j0 + b) * this.B + b] = 1;
  }

  run(steps: readonly Step[]): void {
    for (const st of steps) {
      if (st.kind === 'monomial') this.monomial(st);
      else if (st.m.dim === 2) this.dense2(st);
      else this.denseK(st);
    }
  }

  private monomial(st: MonomialStep): void {
    const { perm, pr, pi } = st;
    const { vr, vi, wr, wi, B } = this;
    for (let i = 0; i < this.N; i++) {
      const s = i * B;
      const t = perm[i]! * B;
      const a = pr[i]!;
      const c = pi[i]!;
      for (let b = 0; b < B; b++) {
        const xr = vr[s + b]!;
        const xi = vi[s + b]!;
        wr[t + b] = xr * a - xi * c;
        wi[t + b] = xr * c + xi * a;
      }
    }
    [this.vr, this.wr] = [wr, vr];
    [this.vi, this.wi] = [wi, vi];
  }

  private dense2(st: DenseStep): void {
    const { bases, offsets, m } = st;
    const { vr, vi, B } = this;
    const o1 = offsets[1]! * B;
    const a = m.re[0]!,
      b_ = m.re[1]!,
      c = m.re[2]!,
      e = m.re[3]!;
    const ai = m.im[0]!,
      bi = m.im[1]!,
      ci = m.im[2]!,
      ei = m.im[3]!;
    for (let t = 0; t < bases.length; t++) {
      const s0 = bases[t]! * B;
      const s1 = s0 + o1;
      for (let l = 0; l < B; l++) {
        const i0 = s0 + l;
        const i1 = s1 + l;
        const xr = vr[i0]!,
          xi = vi[i0]!,
          yr = vr[i1]!,
          yi = vi[i1]!;
        vr[i0] = a * xr - ai * xi + b_ * yr - bi * yi;
        vi[i0] = a * xi + ai * xr + b_ * yi + bi * yr;
        vr[i1] = c * xr - ci * xi + e * yr - ei * yi;
        vi[i1] = c * xi + ci * xr + e * yi + ei * yr;
      }
    }
  }

  private denseK(st: DenseStep): void {
    const { bases, offsets, m } = st;
    const { vr, vi, B } = this;
    const d = m.dim;
    const inR = new Float64Array(d * B);
    const inI = new Float64Array(d * B);
    for (let t = 0; t < bases.length; t++) {
      const base = bases[t]!;
      for (let l = 0; l < d; l++) {
        const s = (base + offsets[l]!) * B;
        for (let b = 0; b < B; b++) {
          inR[l * B + b] = vr[s + b]!;
          inI[l * B + b] = vi[s + b]!;
        }
      }
      for (let r = 0; r < d; r++) {
        const s = (base + offsets[r]!) * B;
        for (let b = 0; b < B; b++) {
          vr[s + b] = 0;
          vi[s + b] = 0;
        }
        for (let c = 0; c < d; c++) {
          const mr = m.re[r * d + c]!;
          const mi = m.im[r * d + c]!;
          if (mr === 0 && mi === 0) continue;
          for (let b = 0; b < B; b++) {
            const xr = inR[c * B + b]!;
            const xi = inI[c * B + b]!;
            vr[s + b] = vr[s + b]! + mr * xr - mi * xi;
            vi[s + b] = vi[s + b]! + mr * xi + mi * xr;
          }
        }
      }
    }
  }
}
