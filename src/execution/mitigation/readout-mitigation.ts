/**
 * Readout-error mitigation from per-bit confusion figures (tensored model: each measured bit is
 * flipped independently, P(read 1 | 0) and P(read 0 | 1) from the device's calibration).
 *
 * The inverse is taken in the measured subspace only, as M3 does (Nation et al., PRX Quantum 2,
 * 040326): the unknowns are the bitstrings that were observed, the reduced assignment matrix is
 * built entry by entry from the per-bit figures (never the 2^n × 2^n matrix), its columns are
 * renormalised within the subspace, and the system is solved by GMRES with a Jacobi
 * preconditioner. Beyond DENSE_LIMIT observed strings only pairs within a Hamming distance
 * enter the matrix, so the cost stays near-linear in the observed strings. Pure: no I/O.
 */

/** [P(read 1 | true 0), P(read 0 | true 1)] of one classical bit. */
export type BitConfusion = readonly [number, number];

export interface ReadoutMitigated {
  /** Mitigated quasi-probabilities over the observed strings (sum 1; entries may be negative). */
  readonly quasi: Record<string, number>;
  /** The nearest probability distribution to `quasi` (L2, Smolin–Gambetta–Smith): every entry ≥ 0. */
  readonly probabilities: Record<string, number>;
  /** Σ|quasi|: 1 when nothing had to go negative; the variance of an estimate grows with its square. */
  readonly overhead: number;
  /** Hamming distance kept in the reduced matrix (the number of bits: all pairs). */
  readonly distance: number;
  readonly iterations: number;
}

/** Observed strings up to which every pair enters the reduced matrix. */
export const DENSE_LIMIT = 2048;
const SPARSE_DISTANCE = 3;

const bitAt = (key: string, clbit: number): number => (key.charCodeAt(key.length - 1 - clbit) === 49 ? 1 : 0);

/** P(read `observed` | true `truth`) under the tensored model; bits beyond `confusion` are read perfectly. */
export function assignmentProbability(observed: string, truth: string, confusion: readonly BitConfusion[]): number {
  let p = 1;
  for (let b = 0; b < observed.length; b++) {
    const o = bitAt(observed, b);
    const t = bitAt(truth, b);
    const [p01, p10] = confusion[b] ?? [0, 0];
    p *= t === 0 ? (o === 0 ? 1 - p01 : p01) : o === 1 ? 1 - p10 : p10;
    if (p === 0) return 0;
  }
  return p;
}

function hamming(a: string, b: string): number {
  let d = 0;
  for (let i = 0; i < a.length; i++) if (a.charCodeAt(i) !== b.charCodeAt(i)) d++;
  return d;
}

/** Sparse rows of the reduced matrix A[i][j] = P(read s_i | true s_j) / Σ_i' P(read s_i' | true s_j). */
function reducedMatrix(keys: readonly string[], confusion: readonly BitConfusion[], distance: number) {
  const n = keys.length;
  const cols: { row: number; v: number }[][] = keys.map(() => []);
  for (let j = 0; j < n; j++) {
    for (let i = 0; i < n; i++) {
      if (i !== j && hamming(keys[i]!, keys[j]!) > distance) continue;
      const v = assignmentProbability(keys[i]!, keys[j]!, confusion);
      if (v > 0) cols[j]!.push({ row: i, v });
    }
    // Renormalise within the subspace: probability read outside it is not seen, so a column sums to 1 here.
    const s = cols[j]!.reduce((a, e) => a + e.v, 0);
    if (s > 0) for (const e of cols[j]!) e.v /= s;
  }
  const diag = new Float64Array(n);
  for (let j = 0; j < n; j++) for (const e of cols[j]!) if (e.row === j) diag[j] = e.v;
  const matvec = (x: Float64Array): Float64Array => {
    const y = new Float64Array(n);
    for (let j = 0; j < n; j++) {
      const xj = x[j]!;
      if (xj !== 0) for (const e of cols[j]!) y[e.row]! += e.v * xj;
    }
    return y;
  };
  return { matvec, diag };
}

const dot = (a: Float64Array, b: Float64Array): number => {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i]! * b[i]!;
  return s;
};

/** Right-preconditioned restarted GMRES for A x = b, M = diag(A). */
export function gmres(matvec: (x: Float64Array) => Float64Array, diag: Float64Array, b: Float64Array, tol = 1e-10, restart = 30, maxIter = 300): { x: Float64Array; iterations: number } {
  const n = b.length;
  const x = new Float64Array(n);
  const precond = (v: Float64Array): Float64Array => v.map((e, i) => (diag[i]! !== 0 ? e / diag[i]! : e));
  const bnorm = Math.sqrt(dot(b, b)) || 1;
  let iterations = 0;
  while (iterations < maxIter) {
    const ax = matvec(x);
    const r = b.map((e, i) => e - ax[i]!);
    const beta = Math.sqrt(dot(r, r));
    if (beta / bnorm < tol) break;
    const m = Math.min(restart, n);
    const V: Float64Array[] = [r.map((e) => e / beta)];
    const Z: Float64Array[] = [];
    const H: number[][] = Array.from({ length: m + 1 }, () => new Array<number>(m).fill(0));
    const cs: number[] = [];
    const sn: number[] = [];
    const g = new Array<number>(m + 1).fill(0);
    g[0] = beta;
    let k = 0;
    for (; k < m && iterations < maxIter; k++, iterations++) {
      const z = precond(V[k]!);
      Z.push(z);
      const w = matvec(z);
      for (let i = 0; i <= k; i++) {
        const h = dot(w, V[i]!);
        H[i]![k] = h;
        for (let t = 0; t < n; t++) w[t]! -= h * V[i]![t]!;
      }
      const hn = Math.sqrt(dot(w, w));
      H[k + 1]![k] = hn;
      V.push(w.map((e) => (hn > 0 ? e / hn : 0)));
      for (let i = 0; i < k; i++) {
        const t = cs[i]! * H[i]![k]! + sn[i]! * H[i + 1]![k]!;
        H[i + 1]![k] = -sn[i]! * H[i]![k]! + cs[i]! * H[i + 1]![k]!;
        H[i]![k] = t;
      }
      const den = Math.hypot(H[k]![k]!, H[k + 1]![k]!) || 1;
      cs[k] = H[k]![k]! / den;
      sn[k] = H[k + 1]![k]! / den;
      H[k]![k] = den;
      H[k + 1]![k] = 0;
      g[k + 1] = -sn[k]! * g[k]!;
      g[k] = cs[k]! * g[k]!;
      if (Math.abs(g[k + 1]!) / bnorm < tol || hn === 0) {
        k++;
        iterations++;
        break;
      }
    }
    const y = new Array<number>(k).fill(0);
    for (let i = k - 1; i >= 0; i--) {
      let s = g[i]!;
      for (let j = i + 1; j < k; j++) s -= H[i]![j]! * y[j]!;
      y[i] = H[i]![i]! !== 0 ? s / H[i]![i]! : 0;
    }
    for (let i = 0; i < k; i++) for (let t = 0; t < n; t++) x[t]! += y[i]! * Z[i]![t]!;
    if (Math.abs(g[k]!) / bnorm < tol) break;
  }
  return { x, iterations };
}

/**
 * The nearest probability distribution (Euclidean) to a quasi-distribution summing to 1
 * (Smolin, Gambetta, Smith, PRL 108, 070502): the most negative entries are zeroed in turn and
 * their mass taken evenly from the rest, which the sort makes exact in one pass.
 */
export function nearestProbability(quasi: Readonly<Record<string, number>>): Record<string, number> {
  const entries = Object.entries(quasi).sort((a, b) => a[1] - b[1]);
  let acc = 0;
  let i = 0;
  const n = entries.length;
  while (i < n && entries[i]![1] + acc / (n - i) < 0) {
    acc += entries[i]![1];
    i++;
  }
  const out: Record<string, number> = {};
  for (let j = i; j < n; j++) out[entries[j]![0]] = entries[j]![1] + acc / (n - i);
  return out;
}

/** Mitigates counts (clbit 0 rightmost) with the confusion figures of each clbit (index = clbit). */
export function mitigateReadout(counts: Readonly<Record<string, number>>, confusion: readonly BitConfusion[]): ReadoutMitigated {
  const keys = Object.keys(counts).filter((k) => (counts[k] ?? 0) > 0);
  const shots = keys.reduce((a, k) => a + counts[k]!, 0);
  const bits = keys[0]?.length ?? 0;
  if (shots === 0) return { quasi: {}, probabilities: {}, overhead: 1, distance: bits, iterations: 0 };
  const distance = keys.length <= DENSE_LIMIT ? bits : SPARSE_DISTANCE;
  const { matvec, diag } = reducedMatrix(keys, confusion, distance);
  const b = Float64Array.from(keys, (k) => counts[k]! / shots);
  const { x, iterations } = gmres(matvec, diag, b);
  const total = x.reduce((a, e) => a + e, 0) || 1;
  const quasi: Record<string, number> = {};
  keys.forEach((k, i) => (quasi[k] = x[i]! / total));
  const overhead = Object.values(quasi).reduce((a, e) => a + Math.abs(e), 0);
  return { quasi, probabilities: nearestProbability(quasi), overhead, distance, iterations };
}

/** Total-variation distance ½ Σ |p − q| over the union of the keys. */
export function totalVariation(p: Readonly<Record<string, number>>, q: Readonly<Record<string, number>>): number {
  let s = 0;
  for (const k of new Set([...Object.keys(p), ...Object.keys(q)])) s += Math.abs((p[k] ?? 0) - (q[k] ?? 0));
  return s / 2;
}
