/**
 * npm run bench:coupling — measured coupling of all pairs (entropies, concurrence, mutual
 * information) of a dense random state at n = 14, 18, 20.
 *
 * Compared, in the same run, with a baseline that builds each 4×4 reduced density matrix
 * in its own tight pass over the state (the straightforward way), followed by the same
 * eigen-computations. Both must agree to 1e-9. Target: all 190 pairs at n = 20 ≤ 3 s.
 * Last line: {"bench":"coupling","n":20,"pairs":190,"seconds":…}.
 */
import { measureCoupling } from '../src/coupling/measured.js';
import { concurrence, entropyBits, qubitEntropyBits } from '../src/coupling/measures.js';
import type { ComplexMatrix } from '../src/coupling/hermitian.js';
import type { Pair, PureState } from '../src/coupling/reduced-states.js';
import { allPairs } from '../src/coupling/qualitative.js';
import { analyzeCoupling, DEFAULT_COUPLING_SETTINGS } from '../src/coupling/analyze-coupling.js';
import { circuit, gate, type GateOp } from '../src/circuits/ir.js';
import { finalState } from '../src/simulation/index.js';

function randomState(n: number, seed: number): PureState {
  let s = seed >>> 0;
  const rnd = () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const size = 2 ** n;
  const re = new Float64Array(size);
  const im = new Float64Array(size);
  let norm = 0;
  for (let i = 0; i < size; i++) {
    re[i] = rnd() - 0.5;
    im[i] = rnd() - 0.5;
    norm += re[i]! ** 2 + im[i]! ** 2;
  }
  const k = 1 / Math.sqrt(norm);
  for (let i = 0; i < size; i++) {
    re[i] = re[i]! * k;
    im[i] = im[i]! * k;
  }
  return { numQubits: n, re, im };
}

/** Baseline: one pass per pair accumulating the 10 independent entries of ρ_ab. */
function pairMatrixOnePass(st: PureState, a: number, b: number): ComplexMatrix {
  const { re, im } = st;
  const size = re.length;
  const A = 1 << a;
  const B = 1 << b;
  let d0 = 0,
    d1 = 0,
    d2 = 0,
    d3 = 0;
  let r01 = 0,
    i01 = 0,
    r02 = 0,
    i02 = 0,
    r03 = 0,
    i03 = 0,
    r12 = 0,
    i12 = 0,
    r13 = 0,
    i13 = 0,
    r23 = 0,
    i23 = 0;
  for (let hi = 0; hi < size; hi += 2 * B) {
    for (let mid = hi; mid < hi + B; mid += 2 * A) {
      for (let i = mid; i < mid + A; i++) {
        const x0 = re[i]!,
          y0 = im[i]!,
          x1 = re[i + A]!,
          y1 = im[i + A]!,
          x2 = re[i + B]!,
          y2 = im[i + B]!,
          x3 = re[i + A + B]!,
          y3 = im[i + A + B]!;
        d0 += x0 * x0 + y0 * y0;
        d1 += x1 * x1 + y1 * y1;
        d2 += x2 * x2 + y2 * y2;
        d3 += x3 * x3 + y3 * y3;
        r01 += x0 * x1 + y0 * y1;
        i01 += y0 * x1 - x0 * y1;
        r02 += x0 * x2 + y0 * y2;
        i02 += y0 * x2 - x0 * y2;
        r03 += x0 * x3 + y0 * y3;
        i03 += y0 * x3 - x0 * y3;
        r12 += x1 * x2 + y1 * y2;
        i12 += y1 * x2 - x1 * y2;
        r13 += x1 * x3 + y1 * y3;
        i13 += y1 * x3 - x1 * y3;
        r23 += x2 * x3 + y2 * y3;
        i23 += y2 * x3 - x2 * y3;
      }
    }
  }
  const mre = new Float64Array(16);
  const mim = new Float64Array(16);
  const set = (i: number, j: number, r: number, m: number) => {
    mre[i * 4 + j] = r;
    mim[i * 4 + j] = m;
    mre[j * 4 + i] = r;
    mim[j * 4 + i] = -m;
  };
  set(0, 0, d0, 0);
  set(1, 1, d1, 0);
  set(2, 2, d2, 0);
  set(3, 3, d3, 0);
  set(0, 1, r01, i01);
  set(0, 2, r02, i02);
  set(0, 3, r03, i03);
  set(1, 2, r12, i12);
  set(1, 3, r13, i13);
  set(2, 3, r23, i23);
  return { n: 4, re: mre, im: mim };
}

function baseline(st: PureState, pairs: readonly Pair[]): { entropies: number[]; pairs: { c: number; mi: number }[] } {
  const n = st.numQubits;
  const entropies: number[] = [];
  for (let q = 0; q < n; q++) {
    const Q = 1 << q;
    let p1 = 0,
      cr = 0,
      ci = 0;
    for (let i = 0; i < st.re.length; i++) {
      if (i & Q) continue;
      const x0 = st.re[i]!,
        y0 = st.im[i]!,
        x1 = st.re[i + Q]!,
        y1 = st.im[i + Q]!;
      p1 += x1 * x1 + y1 * y1;
      cr += x0 * x1 + y0 * y1;
      ci += y0 * x1 - x0 * y1;
    }
    entropies.push(qubitEntropyBits(1 - p1, p1, cr, ci));
  }
  return {
    entropies,
    pairs: pairs.map(([a, b]) => {
      const rho = pairMatrixOnePass(st, a, b);
      return { c: concurrence(rho), mi: entropies[a]! + entropies[b]! - entropyBits(rho) };
    }),
  };
}

async function time<T>(f: () => Promise<T> | T): Promise<[T, number]> {
  const t0 = performance.now();
  const r = await f();
  return [r, (performance.now() - t0) / 1000];
}

const rows: { n: number; pairs: number; folded: number; baseline: number; maxDiff: number }[] = [];
for (const n of [14, 18, 20]) {
  const st = randomState(n, 20240 + n);
  const pairs = allPairs(n);
  await measureCoupling(st, pairs.slice(0, 2)); // warm-up (JIT)
  let best = Infinity;
  let result = await measureCoupling(st, pairs);
  for (let rep = 0; rep < 3; rep++) {
    const [r, s] = await time(() => measureCoupling(st, pairs));
    result = r;
    best = Math.min(best, s);
  }
  const [base, baseSeconds] = await time(() => baseline(st, pairs));
  let maxDiff = 0;
  result.pairs.forEach((p, k) => {
    maxDiff = Math.max(maxDiff, Math.abs(p.concurrence - base.pairs[k]!.c), Math.abs(p.mutual_information_bits - base.pairs[k]!.mi));
  });
  result.entropies_bits.forEach((s, q) => (maxDiff = Math.max(maxDiff, Math.abs(s - base.entropies[q]!))));
  rows.push({ n, pairs: pairs.length, folded: best, baseline: baseSeconds, maxDiff });
}

// End to end, as the endpoint runs it: simulate a 20-qubit circuit (5 layers of ry + a CX
// ladder, 195 gates) with the service's simulator, then qualitative + all 190 measured pairs.
const e2eOps: GateOp[] = [];
for (let layer = 0; layer < 5; layer++) {
  for (let q = 0; q < 20; q++) e2eOps.push(gate('ry', [q], [0.3 + 0.1 * q + layer]));
  for (let q = layer % 2; q + 1 < 20; q += 2) e2eOps.push(gate('cx', [q, q + 1]));
  for (let q = 1 - (layer % 2); q + 1 < 20; q += 2) e2eOps.push(gate('cx', [q, q + 1]));
}
const e2eCircuit = circuit(20, 0, e2eOps);
let e2eBest = Infinity;
let e2eMode = '';
for (let rep = 0; rep < 2; rep++) {
  const [report, s] = await time(() =>
    analyzeCoupling(e2eCircuit, { mode: 'measured' }, { ...DEFAULT_COUPLING_SETTINGS, timeBudgetMs: 600_000 }, { finalState: (c, o) => finalState(c, { timeBudgetMs: o.timeBudgetMs }) }),
  );
  e2eBest = Math.min(e2eBest, s);
  e2eMode = report.mode_used;
}

console.log('| n  | pairs | folded + tiled (s, best of 3) | per-pair baseline (s) | speed-up | max |Δ| vs baseline |');
console.log('|----|-------|-------------------------------|-----------------------|----------|--------------------|');
for (const r of rows) {
  console.log(
    `| ${String(r.n).padEnd(2)} | ${String(r.pairs).padEnd(5)} | ${r.folded.toFixed(3).padEnd(29)} | ${r.baseline.toFixed(3).padEnd(21)} | ${(r.baseline / r.folded).toFixed(1).padEnd(8)} | ${r.maxDiff.toExponential(1).padEnd(18)} |`,
  );
}
console.log(`\nend to end (n = 20, ${e2eOps.length} gates, simulate + qualitative + 190 measured pairs, best of 2): ${e2eBest.toFixed(3)} s, mode_used ${e2eMode}`);
const last = rows[rows.length - 1]!;
if (last.maxDiff > 1e-9) {
  console.error(`results differ from the baseline by ${last.maxDiff}`);
  process.exitCode = 1;
}
console.log(
  JSON.stringify({
    bench: 'coupling',
    n: last.n,
    pairs: last.pairs,
    seconds: Number(last.folded.toFixed(3)),
    baseline_seconds: Number(last.baseline.toFixed(3)),
    end_to_end_seconds: Number(e2eBest.toFixed(3)),
    target_seconds: 3,
    within_target: last.folded <= 3,
  }),
);
