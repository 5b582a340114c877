/**
 * Whole-unitary equivalence up to global phase, for small circuits (≤ 12 qubits by default).
 *
 * W = B†·A is applied to every computational basis column e_j (A's gates, then B's gates
 * inverted in reverse order) and each column must satisfy ‖W e_j − λ e_j‖₂ ≤ ε with one
 * common λ (|λ| = 1). That is exactly "W = λ I up to ε per column", i.e. A = λ B.
 * Cost is 2^n columns × passes × 2^n amplitudes; runs of monomial gates (permutations with
 * phases: x, cx, ccx, swap, t, s, z, rz, cz, …) are fused into one pass, so a Clifford+T
 * circuit costs about one pass per Hadamard. The first mismatching column stops the check.
 */
import type { Circuit, GateOp } from '../circuits/ir.js';
import type { EquivalenceResult, EquivalenceStats } from './equivalence-result.js';
import { dagger, gateMatrix, type CMatrix } from './gate-matrices.js';
import { gateShapeProblem, prepareCircuits } from './prepare-circuits.js';

export interface UnitaryOptions {
  /** Tolerance on ‖W e_j − λ e_j‖₂ per column, and on |λ_j − λ_0|. Default 1e-9. */
  readonly epsilon?: number;
  /** Refuse (answer 'unknown') above this many qubits. Default 12. */
  readonly maxQubits?: number;
  /** Give up with 'unknown' after this long. Default: no limit. */
  readonly timeBudgetMs?: number;
}

export const DEFAULT_EPSILON = 1e-9;
export const DEFAULT_MAX_UNITARY_QUBITS = 12;
/** Matrix entries below this magnitude count as zero when deciding that a gate is monomial. */
const ZERO = 1e-14;

interface MonomialStep {
  readonly kind: 'monomial';
  readonly perm: Int32Array;
  readonly pr: Float64Array;
  readonly pi: Float64Array;
}
interface DenseStep {
  readonly kind: 'dense';
  readonly k: number;
  /** Base indices: every index with the gate's qubits cleared. */
  readonly bases: Int32Array;
  /** offsets[l]: the index bits of local basis state l (local bit k-1-j is qubit j). */
  readonly offsets: Int32Array;
  readonly m: CMatrix;
}
type Step = MonomialStep | DenseStep;

/** Local index of global index s for the gate qubits (qubits[0] is the local MSB). */
function localIndex(s: number, qubits: readonly number[]): number {
  let l = 0;
  for (const q of qubits) l = (l << 1) | ((s >> q) & 1);
  return l;
}

function withLocal(s: number, qubits: readonly number[], l: number): number {
  const k = qubits.length;
  for (let j = 0; j < k; j++) {
    const bit = (l >> (k - 1 - j)) & 1;
    const q = qubits[j]!;
    s = (s & ~(1 << q)) | (bit << q);
  }
  return s;
}

/** For a monomial matrix: row of the single nonzero entry of each column, and its value. */
function monomialColumns(m: CMatrix): { rows: Int32Array; vr: Float64Array; vi: Float64Array } | undefined {
  const d = m.dim;
  const rows = new Int32Array(d);
  const vr = new Float64Array(d);
  const vi = new Float64Array(d);
  for (let c = 0; c < d; c++) {
    let found = -1;
    for (let r = 0; r < d; r++) {
      const re = m.re[r * d + c]!;
      const im = m.im[r * d + c]!;
      if (Math.abs(re) > ZERO || Math.abs(im) > ZERO) {
        if (found >= 0) return undefined;
        found = r;
        vr[c] = re;
        vi[c] = im;
      }
    }
    if (found < 0) return undefined;
    rows[c] = found;
  }
  return { rows, vr, vi };
}

class Compiler {
  readonly steps: Step[] = [];
  private acc: { perm: Int32Array; pr: Float64Array; pi: Float64Array } | undefined;
  constructor(private readonly n: number) {}

  add(m: CMatrix, qubits: readonly number[]): void {
    const mono = monomialColumns(m);
    if (mono) {
      this.fuse(mono, qubits);
      return;
    }
    this.flush();
    const N = 1 << this.n;
    const k = qubits.length;
    let mask = 0;
    for (const q of qubits) mask |= 1 << q;
    const bases = new Int32Array(N >> k);
    let at = 0;
    for (let i = 0; i < N; i++) if ((i & mask) === 0) bases[at++] = i;
    const offsets = new Int32Array(1 << k);
    for (let l = 0; l < 1 << k; l++) offsets[l] = withLocal(0, qubits, l);
    this.steps.push({ kind: 'dense', k, bases, offsets, m });
  }

  private fuse(mono: { rows: Int32Array; vr: Float64Array; vi: Float64Array }, qubits: readonly number[]): void {
    const N = 1 << this.n;
    if (!this.acc) {
      const perm = new Int32Array(N);
      for (let i = 0; i < N; i++) perm[i] = i;
      this.acc = { perm, pr: new Float64Array(N).fill(1), pi: new Float64Array(N) };
    }
    const { perm, pr, pi } = this.acc;
    for (let i = 0; i < N; i++) {
      const s = perm[i]!;
      const l = localIndex(s, qubits);
      perm[i] = withLocal(s, qubits, mono.rows[l]!);
      const a = pr[i]!;
      const b = pi[i]!;
      const c = mono.vr[l]!;
      const d = mono.vi[l]!;
      pr[i] = a * c - b * d;
      pi[i] = a * d + b * c;
    }
  }

  flush(): void {
    if (this.acc) this.steps.push({ kind: 'monomial', ...this.acc });
    this.acc = undefined;
  }
}

/**
 * Simulates one basis column through the steps. The state lives in dense buffers, but while
 * few amplitudes are nonzero only those are visited (reversible Toffoli networks keep a
 * basis column at a handful of amplitudes throughout), switching to full passes once the
 * support passes N/8. Amplitudes whose components both fall below PRUNE are dropped in
 * sparse mode; the total error this can introduce stays orders of magnitude below ε.
 */
const PRUNE = 1e-15;

class ColumnSimulator {
  vr: Float64Array;
  vi: Float64Array;
  private wr: Float64Array;
  private wi: Float64Array;
  supp: Int32Array;
  suppLen = 0;
  dense = false;
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
      if (!this.dense && this.suppLen > this.N >> 3) this.dense = true;
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

function applyDense(st: DenseStep, vr: Float64Array, vi: Float64Array): void {
  const { bases, offsets, m } = st;
  const d = m.dim;
  if (d === 2) {
    const o1 = offsets[1]!;
    const a = m.re[0]!, b = m.re[1]!, c = m.re[2]!, e = m.re[3]!;
    const ai = m.im[0]!, bi = m.im[1]!, ci = m.im[2]!, ei = m.im[3]!;
    for (let t = 0; t < bases.length; t++) {
      const i0 = bases[t]!;
      const i1 = i0 + o1;
      const xr = vr[i0]!, xi = vi[i0]!, yr = vr[i1]!, yi = vi[i1]!;
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

function result(
  equivalent: true | false | 'unknown',
  checked: string,
  start: number,
  extra: { reason?: string; stats?: EquivalenceStats } = {},
): EquivalenceResult {
  return { equivalent, method: 'unitary', checked, ...extra, elapsedMs: Date.now() - start };
}

/** Compiles A then B⁻¹; a string is the reason the circuits cannot be compiled. */
function compile(n: number, a: readonly GateOp[], b: readonly GateOp[]): Step[] | string {
  const comp = new Compiler(n);
  for (const [list, inverse] of [[a, false], [[...b].reverse(), true]] as const) {
    for (const g of list) {
      const shape = gateShapeProblem(g, n);
      if (shape) return shape;
      const m = gateMatrix(g.name, g.params);
      if (!m) return `no matrix for gate ${g.name} with ${g.params.length} parameter(s)`;
      if (m.dim !== 1 << g.qubits.length) return `gate ${g.name} expects ${Math.log2(m.dim)} qubits, got ${g.qubits.length}`;
      comp.add(inverse ? dagger(m) : m, g.qubits);
    }
  }
  comp.flush();
  return comp.steps;
}

export function unitaryEquivalent(a: Circuit, b: Circuit, opts: UnitaryOptions = {}): EquivalenceResult {
  const start = Date.now();
  const eps = opts.epsilon ?? DEFAULT_EPSILON;
  const maxQubits = opts.maxQubits ?? DEFAULT_MAX_UNITARY_QUBITS;
  const deadline = opts.timeBudgetMs === undefined ? Infinity : start + opts.timeBudgetMs;
  const prep = prepareCircuits(a, b);
  if (prep.kind === 'decided') return result(prep.equivalent, 'circuit structure (qubits, clbits, measurements)', start, { reason: prep.reason });
  const n = prep.numQubits;
  const what = `whole unitary on ${n} qubit(s) up to global phase: ‖B†A·e_j − λ·e_j‖₂ ≤ ${eps} for every basis state j with one common λ` +
    (prep.measured > 0 ? `; ${prep.measured} identical terminal measurement(s) stripped` : '');
  if (n > maxQubits) return result('unknown', what, start, { reason: `${n} qubits is above the unitary limit of ${maxQubits}` });
  const steps = compile(n, prep.a, prep.b);
  if (typeof steps === 'string') return result('unknown', what, start, { reason: steps });
  const N = 1 << n;
  const stats = { qubits: n, gatesA: prep.a.length, gatesB: prep.b.length, passesPerColumn: steps.length };
  const sim = new ColumnSimulator(N);
  let lr = 0;
  let li = 0;
  for (let j = 0; j < N; j++) {
    if ((j & 63) === 63 && Date.now() >= deadline) {
      return result('unknown', what, start, { reason: `time budget of ${opts.timeBudgetMs} ms ran out after ${j} of ${N} columns`, stats: { ...stats, columnsChecked: j } });
    }
    sim.start(j);
    sim.run(steps);
    const { vr, vi } = sim;
    if (j === 0) {
      lr = vr[0]!;
      li = vi[0]!;
    }
    let off = 0;
    if (sim.dense) {
      for (let i = 0; i < N; i++) if (i !== j) off += vr[i]! * vr[i]! + vi[i]! * vi[i]!;
    } else {
      for (let t = 0; t < sim.suppLen; t++) {
        const i = sim.supp[t]!;
        if (i !== j) off += vr[i]! * vr[i]! + vi[i]! * vi[i]!;
      }
    }
    const dr = vr[j]! - lr;
    const di = vi[j]! - li;
    const dist = Math.sqrt(off + dr * dr + di * di);
    if (dist > eps) {
      const basis = j.toString(2).padStart(n, '0');
      return result(false, what, start, {
        reason: `basis state |${basis}⟩ (qubit 0 rightmost) is mapped differently: ‖B†A·e_j − λ·e_j‖₂ = ${dist.toExponential(3)} > ${eps}`,
        stats: { ...stats, columnsChecked: j + 1 },
      });
    }
  }
  return result(true, what, start, { stats: { ...stats, columnsChecked: N } });
}
