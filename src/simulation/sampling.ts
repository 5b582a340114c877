/** Sampling shots from a state and turning outcomes into clbit strings (clbit 0 rightmost). */
import type { Program } from './program.js';
import type { SeededRng } from './rng.js';
import type { NoiseModel } from './noise.js';

/** Outcomes below this probability are left out of exact `probabilities`. */
export const PROBABILITY_EPS = 1e-15;

/**
 * Draws `shots` basis indices from |amplitude|² with one sweep over the state: the
 * uniforms are sorted, then matched against the running cumulative sum. Calls `emit`
 * once per distinct index with its count. O(2^n + shots·log shots), no extra 2^n array.
 */
export function sampleIndices(re: Float64Array, im: Float64Array, shots: number, rng: SeededRng, emit: (index: number, count: number) => void): void {
  if (shots <= 0) return;
  const u = new Float64Array(shots);
  let total = 0;
  for (let i = 0; i < re.length; i++) total += re[i]! * re[i]! + im[i]! * im[i]!;
  for (let s = 0; s < shots; s++) u[s] = rng.next() * total;
  u.sort();
  let k = 0;
  let cum = 0;
  let lastNonZero = 0;
  for (let i = 0; i < re.length && k < shots; i++) {
    const p = re[i]! * re[i]! + im[i]! * im[i]!;
    if (p === 0) continue;
    lastNonZero = i;
    cum += p;
    let c = 0;
    while (k < shots && u[k]! < cum) {
      k++;
      c++;
    }
    if (c > 0) emit(i, c);
  }
  // Rounding can leave the last uniforms just above the final cumulative sum.
  if (k < shots) emit(lastNonZero, shots - k);
}

/** Builds counts keyed by clbit strings from leaves of the engine. */
export class CountsBuilder {
  readonly counts = new Map<string, number>();
  private readonly chars: string[];
  private readonly m: number;

  constructor(
    private readonly program: Program,
    private readonly rng: SeededRng,
    private readonly noise: NoiseModel | undefined,
  ) {
    this.m = program.numClbits;
    this.chars = new Array<string>(this.m).fill('0');
  }

  private add(key: string, c: number): void {
    this.counts.set(key, (this.counts.get(key) ?? 0) + c);
  }

  /** Records `count` shots whose final basis index is `index` and whose mid-circuit bits are `reg`. */
  record(index: number, count: number, reg: Uint8Array): void {
    const m = this.m;
    const bits = this.chars;
    for (let c = 0; c < m; c++) bits[m - 1 - c] = reg[c] === 1 ? '1' : '0';
    for (const [q, c] of this.program.terminal) bits[m - 1 - c] = (index >> q) & 1 ? '1' : '0';
    if (this.noise === undefined) {
      this.add(bits.join(''), count);
      return;
    }
    const src = this.program.clbitSource;
    const truth = bits.slice();
    for (let s = 0; s < count; s++) {
      for (let c = 0; c < m; c++) {
        const q = src[c]!;
        if (q < 0) continue;
        const v = truth[m - 1 - c] === '1';
        const [p01, p10] = this.noise.readout(q);
        const flip = this.rng.next() < (v ? p10 : p01);
        bits[m - 1 - c] = v !== flip ? '1' : '0';
      }
      this.add(bits.join(''), 1);
    }
  }
}

/**
 * Exact distribution over the clbits written by terminal measurements (the others are 0),
 * from the final state. Undefined when more than `maxWritten` distinct clbits are written.
 */
export function exactProbabilities(program: Program, re: Float64Array, im: Float64Array, maxWritten: number, maxEntries: number): Record<string, number> | undefined {
  const term = program.terminal;
  const w = term.length;
  if (w > maxWritten) return undefined;
  const acc = new Float64Array(2 ** w);
  const qs = Int32Array.from(term.map(([q]) => q));
  const identity = term.every(([q], j) => q === j);
  for (let i = 0; i < re.length; i++) {
    const p = re[i]! * re[i]! + im[i]! * im[i]!;
    if (p === 0) continue;
    let key = 0;
    if (identity) key = i & (acc.length - 1);
    else for (let j = 0; j < w; j++) key |= ((i >> qs[j]!) & 1) << j;
    acc[key]! += p;
  }
  let entries = 0;
  for (let key = 0; key < acc.length; key++) if (acc[key]! > PROBABILITY_EPS) entries++;
  if (entries > maxEntries) return undefined;
  const m = program.numClbits;
  const out: Record<string, number> = {};
  const bits = new Array<string>(m).fill('0');
  for (let key = 0; key < acc.length; key++) {
    if (!(acc[key]! > PROBABILITY_EPS)) continue;
    for (let j = 0; j < w; j++) bits[m - 1 - term[j]![1]] = (key >> j) & 1 ? '1' : '0';
    out[bits.join('')] = acc[key]!;
  }
  return out;
}
