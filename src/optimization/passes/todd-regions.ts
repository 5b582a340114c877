import { opQubits, type GateOp, type Operation } from '../../circuits/ir.js';
import { g, phaseOf } from '../gate-info.js';
import type { Recorder } from '../recorder.js';
import { toddReduce } from './todd.js';
import { Placement, synthesize, walk } from './todd-synthesis.js';

/** The library rule that proves a region's rewrite (src/verification/phase-polynomial-rule.ts). */
export const RESYNTH_PHASE_POLYNOMIAL_RULE = 'resynth-phase-polynomial';

const QUARTER = Math.PI / 4;
const mod8 = (k: number) => ((k % 8) + 8) % 8;

/** π/4 multiples as integers (mod 8), or undefined for any other angle. */
function quarters(op: Operation): number | undefined {
  const a = phaseOf(op);
  if (a === undefined) return undefined;
  const k = Math.round(a / QUARTER);
  return Math.abs(a - k * QUARTER) <= 1e-12 ? mod8(k) : undefined;
}

/** No gate with an angle other than a π/4-multiple phase (a Clifford+T circuit, TODD's domain). */
export const onlyQuarterPhases = (ops: readonly Operation[]) => ops.every((op) => op.kind !== 'gate' || op.params.length === 0 || quarters(op) !== undefined);

const skeletal = (op: Operation) =>
  op.kind === 'gate' && new Set(op.qubits).size === op.qubits.length && (op.name === 'cx' || op.name === 'swap' || ((op.name === 'x' || op.name === 'h') && op.qubits.length === 1));

/**
 * A Hadamard-free region grown from `seed`: the CNOT, X, SWAP and π/4-multiple phase gates from
 * there on whose qubits no other op has touched since the seed. The members can be gathered at the
 * seed (every op they pass is on other qubits), which is what the replayer checks of a local step.
 */
function region(ops: readonly Operation[], seed: number, taken: ReadonlySet<number>, maxOps: number): number[] {
  const members: number[] = [];
  const blocked = new Set<number>();
  for (let i = seed; i < ops.length && members.length < maxOps; i++) {
    const op = ops[i]!;
    if (op.kind !== 'gate') break;
    const qs = opQubits(op);
    if (!taken.has(i) && (skeletal(op) || quarters(op) !== undefined) && qs.every((q) => !blocked.has(q))) members.push(i);
    else qs.forEach((q) => blocked.add(q));
  }
  return members;
}

const isT = (op: Operation) => {
  const k = quarters(op);
  return k !== undefined && k % 2 === 1;
};

/** Adds k·(y·x) mod 8 to the multilinear coefficients (sorted index lists as keys); see phase-polynomial-rule.ts. */
function expand(coef: Map<string, number>, y: bigint, k: number): void {
  const v: number[] = [];
  for (let i = 0, x = y; x !== 0n; x >>= 1n, i++) if (x & 1n) v.push(i);
  const bump = (key: string, d: number) => coef.set(key, mod8((coef.get(key) ?? 0) + d));
  for (let i = 0; i < v.length; i++) {
    bump(`${v[i]}`, k);
    for (let j = i + 1; j < v.length; j++) {
      bump(`${v[i]},${v[j]}`, -2 * k);
      if (k % 2 !== 0) for (let l = j + 1; l < v.length; l++) bump(`${v[i]},${v[j]},${v[l]}`, 4);
    }
  }
}

/**
 * The Clifford difference Σ_old (y·x) − Σ_new (y·x) (mod 8) as parity terms: a linear coefficient c
 * on x_i is c·[x_i], a quadratic 4·x_i x_j is 2[x_i] + 2[x_j] − 2[x_i ⊕ x_j]. Undefined when the
 * difference is not Clifford (the tensors differ: never for TODD's output).
 */
function cliffordDifference(old: readonly bigint[], now: readonly bigint[]): Map<bigint, number> | undefined {
  const coef = new Map<string, number>();
  for (const y of old) expand(coef, y, 1);
  for (const y of now) expand(coef, y, -1);
  const out = new Map<bigint, number>();
  const add = (y: bigint, k: number) => out.set(y, mod8((out.get(y) ?? 0) + k));
  for (const [key, c] of coef) {
    if (c === 0) continue;
    const v = key.split(',').map((s) => 1n << BigInt(s));
    if (v.length === 1) {
      if (c % 2 !== 0) return undefined;
      add(v[0]!, c);
    } else if (v.length === 2 && c === 4) {
      add(v[0]!, 2);
      add(v[1]!, 2);
      add(v[0]! ^ v[1]!, -2);
    } else return undefined;
  }
  return out;
}

export interface ToddRegionOptions {
  /** The most ops in one region (TODD's work grows with its T gates). */
  maxRegionOps?: number;
  /** Pairs TODD may try per group. */
  maxPairs?: number;
  /** Odd parities are reduced in groups (in order of first appearance) of at most this many variables… */
  maxGroupVars?: number;
  /** …and this many parities. */
  maxGroupTerms?: number;
  /** The most gates a region's rewrite may add per T gate it saves (ladders). */
  growthPerT?: number;
}

/**
 * Parities grouped (in order of first appearance) so that some point spans all of a group's: there
 * every parity TODD makes of them, and every Clifford term of the difference, has a place (a ladder
 * at worst) — the path-variable form of a Hadamard-free region (Heyfron & Campbell's partitions).
 */
function groupsInOrder(odd: readonly bigint[], place: Placement, maxVars: number, maxTerms: number): bigint[][] {
  const out: { terms: bigint[]; common: Uint8Array; support: bigint }[] = [];
  const width = (m: bigint) => m.toString(2).replace(/0/g, '').length;
  for (const y of odd) {
    const span = place.spanning(y);
    let home: (typeof out)[number] | undefined;
    for (const gr of out) {
      if (gr.terms.length >= maxTerms || width(gr.support | y) > maxVars) continue;
      if (gr.common.some((c, t) => c === 1 && span[t] === 1)) {
        home = gr;
        break;
      }
    }
    if (!home) out.push({ terms: [y], common: span, support: y });
    else {
      home.terms.push(y);
      home.common = home.common.map((c, t) => c & span[t]!);
      home.support |= y;
    }
  }
  return out.map((gr) => gr.terms);
}

/**
 * The other partition: the point spanning most of the parities left takes all it spans, and so on
 * (a greedy cover). Larger groups give TODD more to reduce where first-appearance order splits
 * parities that some later point spans together (mod_mult_55: 35 → 31 T, against 33).
 */
function groupsByCover(odd: readonly bigint[], place: Placement, maxTerms: number): bigint[][] {
  const spans = odd.map((y) => place.spanning(y));
  const left = new Set(odd.map((_, i) => i));
  const out: bigint[][] = [];
  while (left.size) {
    let best = 0;
    let most = 0;
    for (let t = 0; t < place.points.length; t++) {
      let c = 0;
      for (const i of left) c += spans[i]![t]!;
      if (c > most) [best, most] = [t, c];
    }
    // a parity no point spans (never: it had a place in the region) stays a group of its own
    const group = most > 0 ? [...left].filter((i) => spans[i]![best] === 1).slice(0, maxTerms) : [...left].slice(0, 1);
    group.forEach((i) => left.delete(i));
    out.push(group.map((i) => odd[i]!));
  }
  return out;
}

/**
 * T-count reduction in regions of CNOT, X, SWAP, H and π/4-phase gates (TODD, todd.ts). A region's
 * phase function is read off over its path variables (each H starts one), its odd parities are
 * reduced group by group with each group's signature tensor kept, the Clifford difference is added
 * back as S/Z terms, and the region is rebuilt on its own skeleton — a group is taken only when every
 * parity it needs has a place there (its variables alive together at some point). A rewrite is
 * applied only when it has fewer T gates; it is a local step of rule `resynth-phase-polynomial`,
 * which the certificate replayer proves by comparing the two path-sum phase functions
 * (phase-polynomial-rule.ts). Returns the T gates saved.
 */
export function reduceTCountInRegions(rec: Recorder, opts: ToddRegionOptions = {}): number {
  const maxOps = opts.maxRegionOps ?? 400;
  const maxVars = opts.maxGroupVars ?? 24;
  const growth = opts.growthPerT ?? 5;
  const maxTerms = opts.maxGroupTerms ?? 80;
  // groups TODD could not reduce (or not place) are not tried again after a rescan
  const hopeless = new Set<string>();
  let saved = 0;
  let from = 0;
  rescan: while (!rec.stopped()) {
    const ops = rec.ops;
    const taken = new Set<number>();
    for (let seed = from; seed < ops.length; seed++) {
      if (rec.stopped()) break rescan;
      if (taken.has(seed)) continue;
      const members = region(ops, seed, taken, maxOps);
      members.forEach((i) => taken.add(i));
      if (members.length < 2) continue;
      const mOps = members.map((i) => ops[i] as GateOp);
      const oldT = mOps.filter(isT).length;
      if (oldT < 2) continue;
      const qs = [...new Set(mOps.flatMap((o) => o.qubits))];
      const local = new Map(qs.map((q, i) => [q, i] as const));
      const toLocal = (o: GateOp) =>
        g(
          o.name,
          o.qubits.map((q) => local.get(q)!),
          o.params,
        );
      const toGlobal = (o: GateOp) =>
        g(
          o.name,
          o.qubits.map((q) => qs[q]!),
          o.params,
        );
      // the region's phase function over its path variables (local numbers; H starts a variable)
      const lin = qs.map((_, i) => 1n << BigInt(i));
      const cst = qs.map(() => false);
      let vars = qs.length;
      const terms = new Map<bigint, number>();
      const skeleton: GateOp[] = [];
      for (const o of mOps.map(toLocal)) {
        const k = quarters(o);
        const [a, b] = o.qubits as [number, number];
        if (k !== undefined) {
          terms.set(lin[a]!, mod8((terms.get(lin[a]!) ?? 0) + (cst[a] ? -k : k)));
          continue;
        }
        skeleton.push(o);
        if (o.name === 'cx') {
          lin[b] = lin[b]! ^ lin[a]!;
          cst[b] = cst[b] !== cst[a];
        } else if (o.name === 'x') cst[a] = !cst[a];
        else if (o.name === 'h') {
          lin[a] = 1n << BigInt(vars++);
          cst[a] = false;
        } else {
          [lin[a], lin[b]] = [lin[b]!, lin[a]!];
          [cst[a], cst[b]] = [cst[b]!, cst[a]!];
        }
      }
      const odd = [...terms].filter(([, k]) => k % 2 === 1).map(([y]) => y);
      if (odd.length < 2) continue;
      const place = new Placement(walk(skeleton, qs.length));
      /** The region's terms with each group of `partition` reduced by TODD (undefined when none is). */
      const reducedTerms = (partition: readonly bigint[][]): Map<bigint, number> | undefined => {
        const next = new Map<bigint, number>();
        const add = (y: bigint, k: number) => next.set(y, mod8((next.get(y) ?? 0) + k));
        for (const [y, k] of terms) add(y, k % 2 === 1 ? k - 1 : k);
        let changed = false;
        for (const group of partition) {
          const key = group
            .map((y) => y.toString(16))
            .sort()
            .join(',');
          let now: bigint[] = group;
          if (group.length >= 2 && !hopeless.has(key)) {
            // among reductions of one size, the one whose parities (and Clifford difference) need the fewest ladder CNOTs
            const ladders = (ys: Iterable<bigint>) => {
              let c = 0;
              for (const y of ys) if (!place.at(y)) c += 2 * ((place.ladder(y)?.S.length ?? 50) - 1);
              return c;
            };
            const score = (cols: readonly bigint[]) => ladders(cols) + ladders([...(cliffordDifference(group, cols) ?? new Map<bigint, number>())].filter(([, k]) => k !== 0).map(([y]) => y));
            const reduced = toddReduce(group, { stopped: rec.stopped, score, ...(opts.maxPairs !== undefined ? { maxPairs: opts.maxPairs } : {}) });
            const diff = reduced.length < group.length ? cliffordDifference(group, reduced) : undefined;
            if (diff && reduced.every((y) => place.placeable(y)) && [...diff].every(([y, k]) => k === 0 || place.placeable(y))) {
              now = reduced;
              for (const [y, k] of diff) add(y, k);
              changed = true;
            } else hopeless.add(key);
          }
          for (const y of now) add(y, 1);
        }
        return changed ? next : undefined;
      };
      // both partitions are tried; the rebuilt region with fewer T gates (then fewer gates) is kept
      let rebuilt: GateOp[] | undefined;
      for (const partition of [groupsInOrder(odd, place, maxVars, maxTerms), groupsByCover(odd, place, maxTerms)]) {
        const next = reducedTerms(partition);
        const out = next && synthesize(skeleton, place, next)?.map(toGlobal);
        if (out && (!rebuilt || out.filter(isT).length < rebuilt.filter(isT).length || (out.filter(isT).length === rebuilt.filter(isT).length && out.length < rebuilt.length))) rebuilt = out;
      }
      const gain = rebuilt ? oldT - rebuilt.filter(isT).length : 0;
      // CNOT ladders cost gates: a rewrite may add at most `growth` gates per T gate it saves
      if (!rebuilt || gain <= 0 || rebuilt.length - members.length > growth * gain) continue;
      saved += gain;
      rec.apply(RESYNTH_PHASE_POLYNOMIAL_RULE, members, rebuilt);
      from = members[0]!;
      continue rescan;
    }
    break;
  }
  return saved;
}
