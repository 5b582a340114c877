import { opQubits, type GateOp, type Operation } from '../../circuits/ir.js';
import { g, phaseGate, phaseOf } from '../gate-info.js';
import type { Recorder } from '../recorder.js';
import { toddReduce } from './todd.js';

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

const skeletal = (op: Operation) => op.kind === 'gate' && new Set(op.qubits).size === op.qubits.length && (op.name === 'cx' || op.name === 'swap' || (op.name === 'x' && op.qubits.length === 1));

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

interface Wires {
  lin: bigint[];
  cst: boolean[];
}

/** Solves y = ⊕_{q∈S} lin[q] for S (the wires' parities are a basis), or undefined. */
function combination(lin: readonly bigint[], y: bigint): number[] | undefined {
  const rows = lin.map((l, q) => ({ l, s: 1n << BigInt(q) }));
  const basis: { l: bigint; s: bigint; top: bigint }[] = [];
  for (const r of rows) {
    let { l, s } = r;
    for (const b of basis)
      if (l & b.top) {
        l ^= b.l;
        s ^= b.s;
      }
    if (l === 0n) continue;
    let top = 1n;
    while (!(l & top)) top <<= 1n;
    for (const b of basis)
      if (b.l & top) {
        b.l ^= l;
        b.s ^= s;
      }
    basis.push({ l, s, top });
  }
  let l = y;
  let s = 0n;
  for (const b of basis)
    if (l & b.top) {
      l ^= b.l;
      s ^= b.s;
    }
  if (l !== 0n) return undefined;
  const out: number[] = [];
  for (let q = 0; s !== 0n; s >>= 1n, q++) if (s & 1n) out.push(q);
  return out;
}

/**
 * The region rebuilt on its own CNOT skeleton: each parity's phase goes to the first wire point
 * that carries it; a parity no point carries is computed onto one wire by a CNOT ladder at the
 * point where that is cheapest, and uncomputed. Qubits are the region's local numbers.
 */
function synthesize(skeleton: readonly GateOp[], n: number, terms: ReadonlyMap<bigint, number>): GateOp[] {
  const points: Wires[] = [];
  const w: Wires = { lin: Array.from({ length: n }, (_, q) => 1n << BigInt(q)), cst: Array.from({ length: n }, () => false) };
  const snap = () => points.push({ lin: [...w.lin], cst: [...w.cst] });
  snap();
  for (const op of skeleton) {
    const [a, b] = op.qubits as [number, number];
    if (op.name === 'cx') {
      w.lin[b] = w.lin[b]! ^ w.lin[a]!;
      w.cst[b] = w.cst[b] !== w.cst[a];
    } else if (op.name === 'x') w.cst[a] = !w.cst[a];
    else {
      [w.lin[a], w.lin[b]] = [w.lin[b]!, w.lin[a]!];
      [w.cst[a], w.cst[b]] = [w.cst[b]!, w.cst[a]!];
    }
    snap();
  }
  const at: GateOp[][] = points.map(() => []);
  const phase = (q: number, k: number, negate: boolean) => phaseGate(q, (negate ? -k : k) * QUARTER)!;
  for (const [y, k] of terms) {
    if (mod8(k) === 0) continue;
    let placed = false;
    for (let t = 0; t < points.length && !placed; t++) {
      const q = points[t]!.lin.indexOf(y);
      if (q >= 0) {
        at[t]!.push(phase(q, k, points[t]!.cst[q]!));
        placed = true;
      }
    }
    if (placed) continue;
    let best: { t: number; S: number[] } | undefined;
    points.forEach((p, t) => {
      const S = combination(p.lin, y);
      if (S && (!best || S.length < best.S.length)) best = { t, S };
    });
    const { t, S } = best!;
    const [root, ...others] = S;
    const p = points[t]!;
    const cst = S.reduce((c, q) => c !== p.cst[q], false);
    const ladder = others.map((q) => g('cx', [q, root!]));
    at[t]!.push(...ladder, phase(root!, k, cst), ...[...ladder].reverse());
  }
  const out: GateOp[] = [...at[0]!];
  skeleton.forEach((op, i) => out.push(op, ...at[i + 1]!));
  return out;
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
  /** Pairs TODD may try per region. */
  maxPairs?: number;
}

/**
 * T-count reduction inside Hadamard-free regions (TODD, todd.ts): each region's phase polynomial
 * is read off, its odd parities reduced with the signature tensor kept, the Clifford difference
 * added back as S/Z terms, and the region rebuilt on its own CNOT skeleton. A rewrite is applied
 * only when it has fewer T gates; it is a local step of rule `resynth-phase-polynomial`, which the
 * certificate replayer proves by comparing the two phase polynomials (phase-polynomial-rule.ts).
 * Returns the T gates saved.
 */
export function reduceTCountInRegions(rec: Recorder, opts: ToddRegionOptions = {}): number {
  const maxOps = opts.maxRegionOps ?? 400;
  // regions whose odd parities TODD could not reduce are not tried again after a rescan
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
      // the region's polynomial over its input wires (local numbers)
      const lin = qs.map((_, i) => 1n << BigInt(i));
      const cst = qs.map(() => false);
      const terms = new Map<bigint, number>();
      const skeleton: GateOp[] = [];
      for (const o of mOps.map(toLocal)) {
        const k = quarters(o);
        const [a, b] = o.qubits as [number, number];
        if (k !== undefined) terms.set(lin[a]!, mod8((terms.get(lin[a]!) ?? 0) + (cst[a] ? -k : k)));
        else {
          skeleton.push(o);
          if (o.name === 'cx') {
            lin[b] = lin[b]! ^ lin[a]!;
            cst[b] = cst[b] !== cst[a];
          } else if (o.name === 'x') cst[a] = !cst[a];
          else {
            [lin[a], lin[b]] = [lin[b]!, lin[a]!];
            [cst[a], cst[b]] = [cst[b]!, cst[a]!];
          }
        }
      }
      const odd = [...terms].filter(([, k]) => k % 2 === 1).map(([y]) => y);
      const key = odd
        .map((y) => y.toString(16))
        .sort()
        .join(',');
      if (odd.length < 2 || hopeless.has(key)) continue;
      const now = toddReduce(odd, { stopped: rec.stopped, ...(opts.maxPairs !== undefined ? { maxPairs: opts.maxPairs } : {}) });
      const diff = now.length < odd.length ? cliffordDifference(odd, now) : undefined;
      if (!diff) {
        hopeless.add(key);
        continue;
      }
      const next = new Map<bigint, number>();
      const add = (y: bigint, k: number) => next.set(y, mod8((next.get(y) ?? 0) + k));
      for (const [y, k] of terms) add(y, k % 2 === 1 ? k - 1 : k);
      for (const y of now) add(y, 1);
      for (const [y, k] of diff) add(y, k);
      const rebuilt = synthesize(skeleton, qs.length, next).map(toGlobal);
      if (rebuilt.filter(isT).length >= oldT) {
        hopeless.add(key);
        continue;
      }
      saved += oldT - rebuilt.filter(isT).length;
      rec.apply(RESYNTH_PHASE_POLYNOMIAL_RULE, members, rebuilt);
      from = members[0]!;
      continue rescan;
    }
    break;
  }
  return saved;
}
