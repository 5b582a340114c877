import type { ComplexMatrix } from './hermitian.js';

/**
 * Reduced density matrices of a pure state: every single-qubit one and the two-qubit ones
 * of the requested pairs, in few passes over the 2^n amplitudes.
 *
 * For a pair (a, b) with basis index x_a + 2·x_b, the 16 entries of ρ_ab fall in four groups:
 *  - diagonal: probabilities; from P(a=1), P(b=1) and P(a=1, b=1);
 *  - one flip on a (ρ[0][1], ρ[2][3]) or on b (ρ[0][2], ρ[1][3]): sums of c_a = ψ(a=0)ψ*(a=1)
 *    split by the value of the other bit;
 *  - two flips (ρ[0][3], ρ[1][2]): genuinely per pair.
 * The first two groups are computed for all pairs at once: one pass per qubit a builds the
 * 2^(n−1) arrays p(a=1) and c_a, then "folds" them (add the upper half onto the lower half,
 * bit by bit, recording each upper-half sum), which yields the sum over bit b = 1 for every
 * b in 2·2^(n−1) additions. Only the two-flip group needs work per pair (2^(n−2) index
 * quadruples, two complex multiply-adds each), and that work is cache-blocked: every pair
 * inside a tile of 2^14 amplitudes is done while the tile is in cache (see `doubleFlips`).
 */

export interface PureState {
  readonly numQubits: number;
  /** Amplitudes; index bit k ↔ qubit k. */
  readonly re: Float64Array;
  readonly im: Float64Array;
}

export type Pair = readonly [number, number];

/** Single-qubit reduced states [[1 − p1, c], [c*, p1]] for every qubit. */
export interface SingleQubitStates {
  readonly p1: Float64Array;
  readonly cRe: Float64Array;
  readonly cIm: Float64Array;
}

export interface ReducedStates {
  readonly singles: SingleQubitStates;
  /** One 4×4 matrix per requested pair, in the order given, normalised to trace 1. */
  readonly pairs: readonly ComplexMatrix[];
  /** ‖ψ‖² before normalisation (1 for a well-formed state). */
  readonly norm: number;
}

/** Called between units of work; may throw to abort (time budget) or await to yield the event loop. */
export type Checkpoint = () => void | Promise<void>;

interface QubitPass {
  /** P(a=1, b=1) for every b (index = qubit). */
  readonly both: Float64Array;
  /** Σ over b=1 of ψ(a=0)ψ*(a=1), for every b. */
  readonly flipRe: Float64Array;
  readonly flipIm: Float64Array;
}

/** Sum of each upper half while folding, i.e. Σ_j v[j]·bit_r(j) for every bit r. Destroys v. */
function foldBitSums(v: Float64Array, bits: number, out: Float64Array): void {
  let len = 1 << bits;
  for (let r = bits - 1; r >= 0; r--) {
    const half = len >>> 1;
    let s = 0;
    for (let j = half; j < len; j++) s += v[j] as number;
    out[r] = s;
    for (let j = 0; j < half; j++) v[j] = (v[j] as number) + (v[j + half] as number);
    len = half;
  }
}

class Scratch {
  readonly prob: Float64Array;
  readonly cRe: Float64Array;
  readonly cIm: Float64Array;
  readonly sums: Float64Array;
  constructor(n: number) {
    const h = n === 0 ? 1 : 1 << (n - 1);
    this.prob = new Float64Array(h);
    this.cRe = new Float64Array(h);
    this.cIm = new Float64Array(h);
    this.sums = new Float64Array(Math.max(1, n - 1));
  }
}

/** Single-qubit terms of qubit a and, when `full`, the pair sums against every other qubit. */
function qubitPass(state: PureState, a: number, singles: { p1: Float64Array; cRe: Float64Array; cIm: Float64Array }, scratch: Scratch | undefined): QubitPass | undefined {
  const { re, im, numQubits: n } = state;
  const size = re.length;
  const A = 1 << a;
  let p1 = 0;
  let cr = 0;
  let ci = 0;
  if (scratch === undefined) {
    for (let hi = 0; hi < size; hi += 2 * A) {
      for (let i = hi; i < hi + A; i++) {
        const r0 = re[i] as number,
          m0 = im[i] as number,
          r1 = re[i + A] as number,
          m1 = im[i + A] as number;
        p1 += r1 * r1 + m1 * m1;
        cr += r0 * r1 + m0 * m1;
        ci += m0 * r1 - r0 * m1;
      }
    }
    singles.p1[a] = p1;
    singles.cRe[a] = cr;
    singles.cIm[a] = ci;
    return undefined;
  }
  const { prob, cRe, cIm, sums } = scratch;
  let j = 0;
  for (let hi = 0; hi < size; hi += 2 * A) {
    for (let i = hi; i < hi + A; i++, j++) {
      const r0 = re[i] as number,
        m0 = im[i] as number,
        r1 = re[i + A] as number,
        m1 = im[i + A] as number;
      const p = r1 * r1 + m1 * m1;
      const xr = r0 * r1 + m0 * m1;
      const xi = m0 * r1 - r0 * m1;
      prob[j] = p;
      cRe[j] = xr;
      cIm[j] = xi;
      p1 += p;
      cr += xr;
      ci += xi;
    }
  }
  singles.p1[a] = p1;
  singles.cRe[a] = cr;
  singles.cIm[a] = ci;
  const both = new Float64Array(n);
  const flipRe = new Float64Array(n);
  const flipIm = new Float64Array(n);
  // Reduced bit r is qubit r below a and qubit r+1 above it (bit a was removed).
  const qubitOf = (r: number) => (r < a ? r : r + 1);
  const spread = (target: Float64Array) => {
    for (let r = 0; r < n - 1; r++) target[qubitOf(r)] = sums[r] as number;
  };
  foldBitSums(prob, n - 1, sums);
  spread(both);
  foldBitSums(cRe, n - 1, sums);
  spread(flipRe);
  foldBitSums(cIm, n - 1, sums);
  spread(flipIm);
  both[a] = p1;
  return { both, flipRe, flipIm };
}

/** ρ_ab[0][3] = Σ ψ(a0 b0) ψ*(a1 b1) and ρ_ab[1][2] = Σ ψ(a1 b0) ψ*(a0 b1), for a < b. */
function doubleFlip(state: PureState, a: number, b: number): [number, number, number, number] {
  const { re, im } = state;
  const size = re.length;
  const A = 1 << a;
  const B = 1 << b;
  let r03 = 0,
    i03 = 0,
    r12 = 0,
    i12 = 0;
  for (let hi = 0; hi < size; hi += 2 * B) {
    for (let mid = hi; mid < hi + B; mid += 2 * A) {
      const end = mid + A;
      for (let i = mid; i < end; i++) {
        const re00 = re[i] as number,
          im00 = im[i] as number;
        const re10 = re[i + A] as number,
          im10 = im[i + A] as number;
        const re01 = re[i + B] as number,
          im01 = im[i + B] as number;
        const re11 = re[i + A + B] as number,
          im11 = im[i + A + B] as number;
        r03 += re00 * re11 + im00 * im11;
        i03 += im00 * re11 - re00 * im11;
        r12 += re10 * re01 + im10 * im01;
        i12 += im10 * re01 - re10 * im01;
      }
    }
  }
  return [r03, i03, r12, i12];
}

/** Double-flip sums of (a, b), both below the tile width, over the base indices of tile [t, t + size). */
function lowLowTile(re: Float64Array, im: Float64Array, t: number, size: number, A: number, B: number, acc: Float64Array, o: number): void {
  let r03 = 0,
    i03 = 0,
    r12 = 0,
    i12 = 0;
  for (let hi = t; hi < t + size; hi += 2 * B) {
    for (let mid = hi; mid < hi + B; mid += 2 * A) {
      const end = mid + A;
      for (let i = mid; i < end; i++) {
        const re00 = re[i] as number,
          im00 = im[i] as number;
        const re10 = re[i + A] as number,
          im10 = im[i + A] as number;
        const re01 = re[i + B] as number,
          im01 = im[i + B] as number;
        const re11 = re[i + A + B] as number,
          im11 = im[i + A + B] as number;
        r03 += re00 * re11 + im00 * im11;
        i03 += im00 * re11 - re00 * im11;
        r12 += re10 * re01 + im10 * im01;
        i12 += im10 * re01 - re10 * im01;
      }
    }
  }
  acc[o] = (acc[o] as number) + r03;
  acc[o + 1] = (acc[o + 1] as number) + i03;
  acc[o + 2] = (acc[o + 2] as number) + r12;
  acc[o + 3] = (acc[o + 3] as number) + i12;
}

/** Double-flip sums of (a, b) with a inside the tile and b above it: tiles t and t + B. */
function lowHighTile(re: Float64Array, im: Float64Array, t: number, size: number, A: number, B: number, acc: Float64Array, o: number): void {
  let r03 = 0,
    i03 = 0,
    r12 = 0,
    i12 = 0;
  for (let hi = t; hi < t + size; hi += 2 * A) {
    const end = hi + A;
    for (let i = hi; i < end; i++) {
      const re00 = re[i] as number,
        im00 = im[i] as number;
      const re10 = re[i + A] as number,
        im10 = im[i + A] as number;
      const re01 = re[i + B] as number,
        im01 = im[i + B] as number;
      const re11 = re[i + A + B] as number,
        im11 = im[i + A + B] as number;
      r03 += re00 * re11 + im00 * im11;
      i03 += im00 * re11 - re00 * im11;
      r12 += re10 * re01 + im10 * im01;
      i12 += im10 * re01 - re10 * im01;
    }
  }
  acc[o] = (acc[o] as number) + r03;
  acc[o + 1] = (acc[o + 1] as number) + i03;
  acc[o + 2] = (acc[o + 2] as number) + r12;
  acc[o + 3] = (acc[o + 3] as number) + i12;
}

/** Tile width (qubits) of the cache-blocked double-flip passes: 2^14 amplitudes = 256 KiB of re + im (two tiles fit a 1 MiB L2). */
export const DEFAULT_TILE_BITS = 14;

/**
 * The double-flip sums [Re, Im of ρ[0][3], Re, Im of ρ[1][2]] of every pair (a < b), 4 per
 * pair in `acc`. Cache-blocked: pairs with both qubits inside a tile of 2^tileBits amplitudes
 * are all done while the tile is in cache (one sweep over the state for all of them); pairs
 * with one qubit above the tile sweep once per high qubit (two tiles at a time); only pairs
 * with both qubits above the tile stream the state once each.
 */
async function doubleFlips(state: PureState, pairs: readonly Pair[], tileBits: number, checkpoint: Checkpoint): Promise<Float64Array> {
  const { re, im } = state;
  const size = re.length;
  const k = Math.min(tileBits, state.numQubits);
  const T = 1 << k;
  const acc = new Float64Array(4 * pairs.length);
  const lowLow: number[] = [];
  const lowHigh = new Map<number, number[]>();
  const highHigh: number[] = [];
  pairs.forEach(([a, b], p) => {
    if (b < k) lowLow.push(p);
    else if (a < k) lowHigh.set(b, [...(lowHigh.get(b) ?? []), p]);
    else highHigh.push(p);
  });
  if (lowLow.length > 0) {
    for (let t = 0; t < size; t += T) {
      await checkpoint();
      for (const p of lowLow) lowLowTile(re, im, t, T, 1 << pairs[p]![0], 1 << pairs[p]![1], acc, 4 * p);
    }
  }
  for (const [b, list] of lowHigh) {
    const B = 1 << b;
    for (let t = 0; t < size; t += T) {
      if ((t & B) !== 0) continue;
      await checkpoint();
      for (const p of list) lowHighTile(re, im, t, T, 1 << pairs[p]![0], B, acc, 4 * p);
    }
  }
  for (const p of highHigh) {
    await checkpoint();
    const [r03, i03, r12, i12] = doubleFlip(state, pairs[p]![0], pairs[p]![1]);
    acc.set([r03, i03, r12, i12], 4 * p);
  }
  return acc;
}

function normalisePair(pair: Pair): Pair {
  return pair[0] < pair[1] ? pair : [pair[1], pair[0]];
}

/**
 * Reduced states of `state`: all single-qubit ones and one per pair (pairs of distinct
 * qubits in range; the caller validates). `checkpoint` runs between passes. `tileBits` is the
 * cache tile of the double-flip passes (a tuning knob; tests use small tiles).
 */
export async function reducedStates(state: PureState, pairs: readonly Pair[], checkpoint: Checkpoint = () => undefined, tileBits: number = DEFAULT_TILE_BITS): Promise<ReducedStates> {
  const n = state.numQubits;
  if (state.re.length !== 1 << n || state.im.length !== 1 << n) throw new RangeError(`state of ${n} qubits must have ${1 << n} amplitudes`);
  let norm = 0;
  for (let i = 0; i < state.re.length; i++) norm += (state.re[i] as number) ** 2 + (state.im[i] as number) ** 2;
  if (!(norm > 0)) throw new RangeError('state has zero norm');

  const singles = { p1: new Float64Array(n), cRe: new Float64Array(n), cIm: new Float64Array(n) };
  const inPairs = new Set<number>();
  for (const [x, y] of pairs) {
    inPairs.add(x);
    inPairs.add(y);
  }
  const scratch = inPairs.size > 0 ? new Scratch(n) : undefined;
  const passes = new Map<number, QubitPass>();
  for (let a = 0; a < n; a++) {
    await checkpoint();
    const pass = qubitPass(state, a, singles, inPairs.has(a) ? scratch : undefined);
    if (pass !== undefined) passes.set(a, pass);
  }

  // Each distinct pair once, as (min, max); `slot` maps request order to it.
  const unique: Pair[] = [];
  const slotOf = new Map<number, number>();
  const slot = pairs.map((pair) => {
    const [a, b] = normalisePair(pair);
    const key = a * n + b;
    let k = slotOf.get(key);
    if (k === undefined) {
      k = unique.length;
      slotOf.set(key, k);
      unique.push([a, b]);
    }
    return k;
  });
  const flips = await doubleFlips(state, unique, tileBits, checkpoint);

  const matrices = unique.map(([a, b], p) => {
    const pa = passes.get(a)!;
    const pb = passes.get(b)!;
    const r03 = flips[4 * p] as number,
      i03 = flips[4 * p + 1] as number,
      r12 = flips[4 * p + 2] as number,
      i12 = flips[4 * p + 3] as number;
    const re = new Float64Array(16);
    const im = new Float64Array(16);
    const set = (i: number, j: number, r: number, m: number) => {
      re[i * 4 + j] = r / norm;
      im[i * 4 + j] = m / norm;
      re[j * 4 + i] = r / norm;
      im[j * 4 + i] = -m / norm;
    };
    const p11 = pa.both[b] as number;
    const pa1 = singles.p1[a] as number;
    const pb1 = singles.p1[b] as number;
    set(0, 0, norm - pa1 - pb1 + p11, 0);
    set(1, 1, pa1 - p11, 0);
    set(2, 2, pb1 - p11, 0);
    set(3, 3, p11, 0);
    // Flip a, b fixed: b = 1 → the folded sum; b = 0 → the rest of c_a.
    set(2, 3, pa.flipRe[b] as number, pa.flipIm[b] as number);
    set(0, 1, (singles.cRe[a] as number) - (pa.flipRe[b] as number), (singles.cIm[a] as number) - (pa.flipIm[b] as number));
    // Flip b, a fixed.
    set(1, 3, pb.flipRe[a] as number, pb.flipIm[a] as number);
    set(0, 2, (singles.cRe[b] as number) - (pb.flipRe[a] as number), (singles.cIm[b] as number) - (pb.flipIm[a] as number));
    set(0, 3, r03, i03);
    set(1, 2, r12, i12);
    return { n: 4, re, im };
  });

  for (let q = 0; q < n; q++) {
    singles.p1[q] = (singles.p1[q] as number) / norm;
    singles.cRe[q] = (singles.cRe[q] as number) / norm;
    singles.cIm[q] = (singles.cIm[q] as number) / norm;
  }
  return { singles, pairs: slot.map((k) => matrices[k]!), norm };
}

/**
 * Reference implementation for tests: ρ_ab by the definition, one full pass per pair.
 * Not used by the service.
 */
export function pairStateByDefinition(state: PureState, a: number, b: number): ComplexMatrix {
  const re = new Float64Array(16);
  const im = new Float64Array(16);
  const size = state.re.length;
  let norm = 0;
  for (let i = 0; i < size; i++) norm += (state.re[i] as number) ** 2 + (state.im[i] as number) ** 2;
  const A = 1 << a,
    B = 1 << b;
  for (let i = 0; i < size; i++) {
    if ((i & A) !== 0 || (i & B) !== 0) continue;
    const idx = [i, i + A, i + B, i + A + B];
    for (let x = 0; x < 4; x++) {
      for (let y = 0; y < 4; y++) {
        const rx = state.re[idx[x]!] as number,
          mx = state.im[idx[x]!] as number;
        const ry = state.re[idx[y]!] as number,
          my = state.im[idx[y]!] as number;
        re[x * 4 + y] = (re[x * 4 + y] as number) + (rx * ry + mx * my) / norm;
        im[x * 4 + y] = (im[x * 4 + y] as number) + (mx * ry - rx * my) / norm;
      }
    }
  }
  return { n: 4, re, im };
}
