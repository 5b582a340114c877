import { EPS, normAngle, PI } from '../gate-info.js';
import { bitsOf } from './parity-bits.js';

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
export function rng(seed: number): () => number {
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
  // keyed by the caller's keys (one per parity), not by the bigints: V8 hashes a bigint by its lowest
  // word only, so parities of high variables would all collide
  const by = new Map<string, Coef>();
  for (const [k, t] of virtual) by.set(k, t);
  for (const [k, t] of table) by.set(k, t);
  const terms = [...table.values()];
  const order = new Map<Coef, number>(terms.map((t, i) => [t, i]));
  // Every parity gets a random linear fingerprint (two 32-bit words, f(a⊕b) = f(a)⊕f(b)), so
  // the XOR lookups below cost O(1) instead of bigint arithmetic over the segment's width; a
  // subspace is kept only after its seven relations are confirmed on the bigints.
  const fp = fingerprints([...by.values()]);
  const key = (h1: number, h2: number) => h1 * 4294967296 + h2;
  const avail = new Map<number, Coef>();
  const termOf = new Map<number, Coef>();
  for (const t of by.values()) avail.set(key(fp.get(t)![0], fp.get(t)![1]), t);
  for (const t of terms) termOf.set(key(fp.get(t)![0], fp.get(t)![1]), t);
  const xor = (m: Map<number, Coef>, ...ts: Coef[]) => {
    let h1 = 0;
    let h2 = 0;
    for (const t of ts) {
      const f = fp.get(t)!;
      h1 ^= f[0];
      h2 ^= f[1];
    }
    return m.get(key(h1 >>> 0, h2 >>> 0));
  };
  // Parities by variable: a partner b of x shares a variable with x, or else x⊕b does (x ≠ 0),
  // so the search looks only there instead of at every term (linear in the segment, not quadratic).
  const byVar = new Map<number, Coef[]>();
  for (const t of by.values()) {
    for (const v of bitsOf(t.lin)) {
      const list = byVar.get(v);
      if (list) list.push(t);
      else byVar.set(v, [t]);
    }
  }
  // partners of x: rotation terms b with x⊕b available (c must be a partner of a too), in term order
  const memo = new Map<Coef, Set<Coef>>();
  const partners = (x: Coef) => {
    let set = memo.get(x);
    if (!set) {
      const found = new Set<Coef>();
      for (const v of bitsOf(x.lin)) {
        for (const y of byVar.get(v) ?? []) {
          if (y !== x && order.has(y) && xor(avail, x, y)) found.add(y);
          const b = xor(termOf, x, y);
          if (b && b !== x) found.add(b);
        }
      }
      set = new Set([...found].sort((p, q) => order.get(p)! - order.get(q)!));
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
    // each frontier parity costs a pass over its partners (indexed, so about constant): bounded, but in
    // proportion to the segment — a fixed cap lost candidates on large circuits (8× adder chain: 5 gates)
    for (const a of frontier.slice(0, Math.max(FRONTIER_CAP, 2 * terms.length))) {
      if (stopped()) return out;
      const na = partners(a);
      for (const b of na) {
        const ab = xor(avail, a, b);
        if (!ab) continue;
        for (const c of na) {
          if (c === b || c === ab) continue;
          const bc = xor(avail, b, c);
          const abc = bc && xor(avail, a, b, c);
          if (!bc || !abc) continue;
          const ac = xor(avail, a, c);
          if (!ac) continue;
          const set = [a, b, ab, c, ac, bc, abc];
          if (new Set(set).size !== 7) continue;
          const k = set
            .map(idOf)
            .sort((x, y) => x - y)
            .join(',');
          if (seen.has(k)) continue;
          seen.add(k);
          if (ab.lin !== (a.lin ^ b.lin) || ac.lin !== (a.lin ^ c.lin) || bc.lin !== (b.lin ^ c.lin) || abc.lin !== (a.lin ^ bc.lin)) continue;
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

/** Random linear fingerprints of parities: per variable two seeded 32-bit words, XORed over the parity's variables. */
function fingerprints(parities: readonly Coef[]): Map<Coef, [number, number]> {
  const rand = rng(0x5eed);
  const words: number[] = [];
  const word = (i: number) => {
    while (words.length <= i) words.push(Math.floor(rand() * 4294967296) >>> 0);
    return words[i]!;
  };
  const out = new Map<Coef, [number, number]>();
  for (const t of parities) {
    let h1 = 0;
    let h2 = 0;
    for (const v of bitsOf(t.lin)) {
      h1 ^= word(2 * v);
      h2 ^= word(2 * v + 1);
    }
    out.set(t, [h1 >>> 0, h2 >>> 0]);
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
  const found = candidates(table, virtual, opts.effort && opts.effort > 1 ? 3 : 2, 4000, opts.stopped ?? (() => false));
  // Subspaces that share no term are independent: each group is annealed on its own, with
  // iterations in proportion to its size, so the work grows with the circuit, not its square.
  for (const subs of components(found)) anneal(subs, opts);
}

/** Groups of candidate subspaces connected through shared terms, largest first. */
function components(subs: Coef[][]): Coef[][][] {
  const parent = subs.map((_, i) => i);
  const find = (i: number): number => (parent[i] === i ? i : (parent[i] = find(parent[i]!)));
  const owner = new Map<Coef, number>();
  subs.forEach((set, i) => {
    for (const t of set) {
      const j = owner.get(t);
      if (j === undefined) owner.set(t, i);
      else parent[find(i)] = find(j);
    }
  });
  const groups = new Map<number, Coef[][]>();
  subs.forEach((set, i) => {
    const r = find(i);
    const g = groups.get(r);
    if (g) g.push(set);
    else groups.set(r, [set]);
  });
  return [...groups.values()].sort((a, b) => b.length - a.length);
}

function anneal(subs: Coef[][], opts: { seed?: number; effort?: number }): void {
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
