import { EPS, normAngle, PI } from '../gate-info.js';

export interface Coef {
  sum: number;
  lin: bigint;
  changed: boolean;
}

/**
 * Weight patterns w on the 7 nonzero vectors v of F₂³ (indexed 1..7) with
 * Σ w_v·(v·x) ≡ 0 (mod 4) for every x: adding (π/2)·w to the seven terms of a 3-dimensional
 * parity subspace leaves the phase function unchanged mod 2π (and the T-count too).
 * Flipping the polarity of a Toffoli's seven T/T† gates is one of these patterns.
 */
export const PATTERNS: readonly (readonly number[])[] = (() => {
  const out: number[][] = [];
  for (let m = 0; m < 128; m++) {
    const w = [...Array(7).keys()].map((i) => ((m >> i) & 1 ? -1 : 1));
    let ok = true;
    for (let x = 1; x < 8 && ok; x++) {
      let s = 0;
      for (let v = 1; v < 8; v++) {
        let dot = 0;
        for (let b = 0; b < 3; b++) dot ^= (v >> b) & 1 & ((x >> b) & 1);
        if (dot) s += w[v - 1]!;
      }
      ok = ((s % 4) + 4) % 4 === 0;
    }
    if (ok) out.push(w);
  }
  return out;
})();

/**
 * Adding π to the three nonzero parities a, b, a⊕b of a 2-dimensional subspace is also
 * zero-sum (π·(a + b − a⊕b) = 2π·ab): weights 2 on the lines of the Fano plane.
 */
export const LINES: readonly (readonly number[])[] = (() => {
  const out: number[][] = [];
  for (let u = 1; u < 8; u++)
    for (let v = u + 1; v < 8; v++) {
      if ((u ^ v) < v) continue; // each line once: u < v < u^v
      const w = Array<number>(7).fill(0);
      for (const x of [u, v, u ^ v]) w[x - 1] = 2;
      out.push(w);
    }
  return out;
})();

const zero = (a: number) => Math.abs(normAngle(a)) <= EPS;
const nz = (a: number) => (zero(a) ? 0 : 1);

/** Deterministic PRNG (mulberry32): the search is reproducible run to run. */
function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * Candidate subspaces: span{a, b, c} with a a Clifford term (or a parity that a candidate
 * can make Clifford), b and c rotation terms, all seven parities available (a rotation or a
 * wire point carrying it). Expanded for `rounds` rounds through the parities they touch.
 */
const FRONTIER_CAP = 600;

function candidates(table: Map<string, Coef>, virtual: Map<string, Coef>, rounds: number, limit: number, stopped: () => boolean): Coef[][] {
  const by = new Map<bigint, Coef>();
  for (const t of virtual.values()) by.set(t.lin, t);
  for (const t of table.values()) by.set(t.lin, t);
  const terms = [...table.values()];
  // partners of x: rotation terms b with x⊕b available (c must be a partner of a too)
  const memo = new Map<Coef, Set<Coef>>();
  const partners = (x: Coef) => {
    let set = memo.get(x);
    if (!set) {
      set = new Set(terms.filter((b) => b !== x && by.has(x.lin ^ b.lin)));
      memo.set(x, set);
    }
    return set;
  };
  const ids = new Map<Coef, number>(); // dedupe key by identity: printing big bigints is slow
  const idOf = (t: Coef) => {
    let k = ids.get(t);
    if (k === undefined) ids.set(t, (k = ids.size));
    return k;
  };
  const seen = new Set<string>();
  const out: Coef[][] = [];
  let frontier = terms.filter((t) => !zero(t.sum) && zero(4 * t.sum));
  const visited = new Set<Coef>(frontier);
  for (let r = 0; r < rounds && frontier.length && out.length < limit; r++) {
    const next: Coef[] = [];
    // each frontier parity costs a pass over all terms: bounded so huge segments stay in budget
    for (const a of frontier.slice(0, FRONTIER_CAP)) {
      if (stopped()) return out;
      const na = partners(a);
      for (const b of na) {
        const ab = by.get(a.lin ^ b.lin)!;
        for (const c of na) {
          if (c === b || c === ab) continue;
          const bc = by.get(b.lin ^ c.lin);
          const abc = bc && by.get(a.lin ^ b.lin ^ c.lin);
          if (!bc || !abc) continue;
          const ac = by.get(a.lin ^ c.lin)!;
          const set = [a, b, ab, c, ac, bc, abc];
          if (new Set(set).size !== 7) continue;
          const key = set
            .map(idOf)
            .sort((x, y) => x - y)
            .join(',');
          if (seen.has(key)) continue;
          seen.add(key);
          out.push(set);
          for (const t of set)
            if (!visited.has(t)) {
              visited.add(t);
              next.push(t);
            }
          if (out.length >= limit) return out;
        }
      }
    }
    frontier = next;
  }
  return out;
}

/**
 * Clifford-term absorption: Clifford phase terms (multiples of π/2) left over by merging —
 * typically the controlled-Z of compute/uncompute Toffoli pairs — are cancelled by adding
 * zero-sum patterns (π/2)·w over 3-dimensional parity subspaces (the choice of Toffoli
 * polarity of Nam et al. 2018). Greedy moves get stuck (one pattern undoes what another
 * needs), so the number of nonzero terms is minimised by a seeded annealing search over the
 * candidate patterns; the best state seen is kept. T-count is unchanged by construction.
 */
export function absorbCliffordTerms(table: Map<string, Coef>, virtual: Map<string, Coef>, opts: { seed?: number; effort?: number; stopped?: () => boolean } = {}): void {
  const subs = candidates(table, virtual, opts.effort && opts.effort > 1 ? 3 : 2, 4000, opts.stopped ?? (() => false));
  if (subs.length === 0) return;
  const all = [...new Set(subs.flat())];
  const initial = all.map((t) => t.sum);
  let cost = all.reduce((n, t) => n + nz(t.sum), 0);
  let best = cost;
  let bestSums = all.map((t) => t.sum);
  const rand = rng(opts.seed ?? 1);
  const iters = Math.min(400_000, 300 * subs.length * (opts.effort ?? 1));
  for (let it = 0; it < iters; it++) {
    const temp = 0.8 * (1 - it / iters) + 0.02;
    const set = subs[Math.floor(rand() * subs.length)]!;
    const k = Math.floor(rand() * (PATTERNS.length + LINES.length));
    const w = k < PATTERNS.length ? PATTERNS[k]! : LINES[k - PATTERNS.length]!;
    let delta = 0;
    for (let i = 0; i < 7; i++) if (w[i]) delta += nz(set[i]!.sum + (PI / 2) * w[i]!) - nz(set[i]!.sum);
    if (delta > 0 && rand() >= Math.exp(-delta / temp)) continue;
    for (let i = 0; i < 7; i++) if (w[i]) set[i]!.sum = normAngle(set[i]!.sum + (PI / 2) * w[i]!);
    cost += delta;
    if (cost < best) {
      best = cost;
      bestSums = all.map((t) => t.sum);
    }
  }
  all.forEach((t, i) => {
    t.sum = bestSums[i]!;
    if (!zero(t.sum - initial[i]!)) t.changed = true;
  });
}
