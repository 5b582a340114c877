import type { Operation } from '../../circuits/ir.js';
import { commute, g, phaseGate, phaseOf, qubitsOf } from '../gate-info.js';
import type { Recorder } from '../recorder.js';
import { PHASE_POLYNOMIAL_RULE } from './phase-polynomial.js';
import { rng } from './clifford-absorb.js';
import { TaggedMoves } from './tagged-move.js';

interface Parity {
  lin: bigint;
  cst: boolean;
  seg: number;
  /** A random linear fingerprint of `lin` (two 32-bit words): index keys (V8 hashes a bigint by its lowest word only). */
  fa: number;
  fb: number;
}

const fpKey = (p: { fa: number; fb: number }) => (p.fa >>> 0) * 2097152 + (p.fb >>> 11);
interface Point extends Parity {
  at: number;
  q: number;
}

/** Affine parities: of every wire point (indexed on first lookup), and of each gate's qubits before / after it. */
interface Scan {
  readonly list: readonly Point[];
  readonly before: readonly (readonly Parity[] | undefined)[];
  readonly after: readonly (readonly Parity[] | undefined)[];
  /** Wire points carrying exactly this linear parity in this segment. */
  lookup(want: Parity): readonly Point[];
  /** The wire points of each qubit, in list order. */
  readonly onWire: readonly (readonly Point[] | undefined)[];
}

// A reduce, not a spread: one argument per operation overflows the stack near 10^5 operations.
const width = (ops: readonly Operation[]) => ops.reduce((m, o) => Math.max(m, ...qubitsOf(o)), 0) + 1;

/** `n` must be the same for scans that are compared: path variables are numbered by it. */
function scan(ops: readonly Operation[], n = width(ops)): Scan {
  const lin: bigint[] = [];
  const cst: boolean[] = [];
  const fa: number[] = [];
  const fb: number[] = [];
  const rand = rng(0x71c3); // the same words for the same variable numbers in every scan
  const words: number[] = [];
  const word = (k: number) => {
    while (words.length <= k) words.push(Math.floor(rand() * 4294967296) | 0);
    return words[k]!;
  };
  let v = 0;
  let seg = 0;
  const fresh = (q: number) => {
    fa[q] = word(2 * v);
    fb[q] = word(2 * v + 1);
    lin[q] = 1n << BigInt(v++);
    cst[q] = false;
  };
  const list: Point[] = [];
  const add = (at: number, q: number) => list.push({ at, q, lin: lin[q]!, cst: cst[q]!, seg, fa: fa[q]!, fb: fb[q]! });
  const now = (qs: readonly number[]) => qs.map((q) => ({ lin: lin[q]!, cst: cst[q]!, seg, fa: fa[q]!, fb: fb[q]! }));
  for (let q = 0; q < n; q++) {
    fresh(q);
    add(0, q);
  }
  const before: (Parity[] | undefined)[] = [];
  const after: (Parity[] | undefined)[] = [];
  ops.forEach((op, i) => {
    if (op.kind !== 'gate') {
      seg++;
      qubitsOf(op).forEach(fresh);
      for (let q = 0; q < n; q++) add(i + 1, q);
      return;
    }
    const [c, d] = op.qubits as [number, number];
    before[i] = now(op.qubits);
    if (phaseOf(op) !== undefined) return;
    switch (op.name) {
      case 'cx':
        lin[d] = lin[d]! ^ lin[c]!;
        fa[d] = fa[d]! ^ fa[c]!;
        fb[d] = fb[d]! ^ fb[c]!;
        cst[d] = cst[d] !== cst[c];
        break;
      case 'x':
        cst[c] = !cst[c];
        break;
      case 'swap':
        [lin[c], lin[d]] = [lin[d]!, lin[c]!];
        [fa[c], fa[d]] = [fa[d]!, fa[c]!];
        [fb[c], fb[d]] = [fb[d]!, fb[c]!];
        [cst[c], cst[d]] = [cst[d]!, cst[c]!];
        break;
      case 'cz':
      case 'ccz':
      case 'crz':
      case 'cp':
      case 'cu1':
      case 'rzz':
      case 'id':
        break;
      default:
        op.qubits.forEach(fresh);
    }
    for (const q of op.qubits) add(i + 1, q);
    after[i] = now(op.qubits);
  });
  let index: Map<number, Map<number, Point[]>> | undefined;
  const lookup = (want: Parity) => {
    if (!index) {
      index = new Map();
      for (const p of list) {
        let bySeg = index.get(p.seg);
        if (!bySeg) index.set(p.seg, (bySeg = new Map<number, Point[]>()));
        const l = bySeg.get(fpKey(p));
        if (l) l.push(p);
        else bySeg.set(fpKey(p), [p]);
      }
    }
    // the fingerprint finds the candidates, the bigint confirms them
    return (index.get(want.seg)?.get(fpKey(want)) ?? []).filter((p) => p.lin === want.lin);
  };
  const onWire: Point[][] = [];
  for (const p of list) (onWire[p.q] ??= []).push(p);
  return { list, before, after, lookup, onWire };
}

type Plan = { from: number; at: number; q: number; negate: boolean }[];

/**
 * Where the phase gates on t between CNOTs i and j can go once both CNOTs are removed:
 * each needs a wire point (anywhere in its segment) carrying its original parity. Points
 * on t strictly inside the pair carry the parity shifted by the control parity P.
 */
function planMoves(s: Scan, i: number, j: number, t: number, P: Parity, phases: readonly number[]): Plan | undefined {
  const inside = (p: Point) => p.q === t && p.at > i && p.at <= j;
  const shifted = (s.onWire[t] ?? []).filter(inside).map((p) => ({ ...p, lin: p.lin ^ P.lin, cst: p.cst !== P.cst }));
  const plan: Plan = [];
  for (const from of phases) {
    const want = s.before[from]![0]!;
    const cands = [...s.lookup(want).filter((p) => !inside(p)), ...shifted.filter((p) => p.lin === want.lin && p.seg === want.seg)];
    if (cands.length === 0) return undefined;
    let best = cands[0]!;
    for (const c of cands) if (Math.abs(c.at - from) < Math.abs(best.at - from)) best = c;
    plan.push({ from, at: best.at, q: best.q, negate: best.cst !== want.cst });
  }
  return plan;
}

/**
 * CNOT cancellation by parity (the "floating" of phase gates in Nam et al. 2018's heavy
 * setting, generalised): two CNOTs onto the same target t whose controls carry the same
 * parity cancel if, between them, t is only a CNOT target or carries phase gates / X — the
 * CNOTs between still compose, t's parity is shifted by P, and each phase gate on t is moved
 * to a wire point that carries its original parity. The phase polynomial and the linear
 * map are unchanged; recorded as global phase-polynomial steps (whole-circuit proof).
 * `sandwiches: false` skips pairs across an H-sandwich: the others keep every path variable, so
 * the caller may have them proven locally (as-local-steps.ts).
 */
export function cancelCnotsByParity(rec: Recorder, maxPairs = 2_000, sandwiches = true): number {
  let pairs = 0;
  let start = 0;
  outer: while (pairs < maxPairs && !rec.stopped()) {
    const ops = rec.ops;
    const s = scan(ops);
    for (let i = start; i < ops.length; i++) {
      const a = ops[i]!;
      if (a.kind !== 'gate' || a.name !== 'cx') continue;
      const hit = findPair(ops, s, i, sandwiches);
      if (!hit) continue;
      if (hit.sandwich) {
        rec.apply(PHASE_POLYNOMIAL_RULE, [i, hit.j], []);
        execute(rec, hit.plan);
      } else execute(rec, hit.plan, [i, hit.j]);
      pairs++;
      // moved phases may land earlier; CNOTs before i are rescanned on the next call
      start = i;
      continue outer;
    }
    break;
  }
  return pairs;
}

const zType = (op: Operation, q: number) => op.kind === 'gate' && commute(op, g('z', [q]));

/**
 * The partner j of CNOT i and the phase moves, if any. Between them t runs through
 * "X frames" (CNOT target, phase, X) and, when t gets an H, "Z frames" closed by the next H
 * on t with t's parity back to its value after the opening H (CNOTs touching t, phases, CZ).
 * In a Z frame CX(a,t) has become CZ(a,t), which commutes with all of it provided a itself
 * only sees Z-type gates — so the relative-phase-Toffoli saving of compute/uncompute pairs
 * (3 CNOTs instead of 4 each) is found exactly, with the phases re-placed.
 */
function findPair(ops: readonly Operation[], s: Scan, i: number, sandwiches: boolean): { j: number; plan: Plan; sandwich: boolean } | undefined {
  const [ca, t] = (ops[i] as { qubits: readonly number[] }).qubits as [number, number];
  const P = s.before[i]![0]!;
  const phases: number[] = [];
  let frame: Parity | undefined; // set inside a Z frame: t's parity after the opening H
  let sandwich = false;
  let aMoved = false; // a saw a gate that does not commute with Z
  for (let j = i + 1; j < ops.length; j++) {
    const b = ops[j]!;
    const qs = qubitsOf(b);
    if (qs.includes(ca) && !qs.includes(t) && !zType(b, ca)) {
      if (sandwich) return undefined;
      aMoved = true;
    }
    if (!qs.includes(t)) continue;
    if (b.kind !== 'gate') return undefined;
    if (frame) {
      if (b.name === 'h') {
        const end = s.before[j]![0]!;
        if (end.lin !== frame.lin || end.cst !== frame.cst) return undefined;
        frame = undefined;
        continue;
      }
      if (qs.includes(ca)) return undefined;
      if (phaseOf(b) !== undefined || b.name === 'cx' || b.name === 'cz') continue;
      return undefined;
    }
    if (b.name === 'cx' && b.qubits[1] === t) {
      const Q = s.before[j]![0]!;
      if (Q.lin === P.lin && Q.cst === P.cst && Q.seg === P.seg && (!sandwich || b.qubits[0] === ca)) {
        const plan = sandwich ? planSkeleton(ops, i, j, P, phases) : planMoves(s, i, j, t, P, phases);
        if (plan) return { j, plan, sandwich };
      }
      continue;
    }
    if (b.name === 'x') continue;
    if (phaseOf(b) !== undefined && phases.length < 12) {
      phases.push(j);
      continue;
    }
    if (b.name === 'h' && !aMoved && sandwiches) {
      frame = s.after[j]![0]!;
      sandwich = true;
      continue;
    }
    return undefined;
  }
  return undefined;
}

/**
 * Phase moves once CNOTs i and j are gone, planned on that skeleton: conjugating by CX(a,t)
 * turns each phase gate on t in an X frame into one on (its skeleton parity ⊕ P).
 */
function planSkeleton(ops: readonly Operation[], i: number, j: number, P: Parity, phases: readonly number[]): Plan | undefined {
  const sk = ops.filter((_, k) => k !== i && k !== j);
  const s = scan(sk, width(ops));
  const plan: Plan = [];
  for (const orig of phases) {
    const from = orig < j ? orig - 1 : orig - 2;
    const S = s.before[from]![0]!;
    const want = { lin: S.lin ^ P.lin, cst: S.cst !== P.cst, seg: S.seg, fa: S.fa ^ P.fa, fb: S.fb ^ P.fb };
    const cands = s.lookup(want);
    if (cands.length === 0 || S.seg !== P.seg) return undefined;
    let best = cands[0]!;
    for (const c of cands) if (Math.abs(c.at - from) < Math.abs(best.at - from)) best = c;
    plan.push({ from, at: best.at, q: best.q, negate: best.cst !== want.cst });
  }
  return plan;
}

/** Applies the phase moves, then removes the CNOT pair given by its snapshot indices (if not yet removed). */
function execute(rec: Recorder, plan: Plan, pair?: readonly [number, number]): void {
  const moves = new TaggedMoves(rec);
  for (const m of plan) {
    const angle = phaseOf(rec.ops[moves.pos(m.from)]!)!;
    moves.move(m.from, phaseGate(m.q, m.negate ? -angle : angle), m.at);
  }
  if (pair) rec.apply(PHASE_POLYNOMIAL_RULE, [moves.pos(pair[0]), moves.pos(pair[1])], []);
}
