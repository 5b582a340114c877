import type { GateOp } from '../../circuits/ir.js';
import { commute, g, PI, phaseOf, qubitsOf } from '../gate-info.js';
import type { Recorder } from '../recorder.js';
import { minimalCnots, toSU4 } from '../su4.js';
import { gatherAnchor } from './gather.js';
import { blockMatrix, synthesize2q } from './kak.js';
import { isCliffordT } from './resynth-1q.js';
import { flatDistance } from '../step-deviation.js';
import { FLOAT_NOISE } from '../../verification/numeric-policy.js';

/** Ops on a block's wires that did not join it and that later members must commute past. */
const MAX_SKIPPED = 6;
const SCAN_WINDOW = 400;
const CLIFFORD_2Q = new Set(['cx', 'cz', 'swap']);

/** T gates as the metrics count them: phase gates by odd multiples of π/4. */
function tGates(ops: readonly GateOp[]): number {
  return ops.filter((o) => {
    const a = phaseOf(o);
    if (a === undefined) return false;
    const k = a / (PI / 4);
    return Math.abs(k - Math.round(k)) < 1e-9 && Math.round(k) % 2 !== 0;
  }).length;
}

const allCliffordT = (ops: readonly GateOp[]) => ops.every((o) => (o.qubits.length === 1 ? isCliffordT(o) : CLIFFORD_2Q.has(o.name)));
const twoQ = (ops: readonly GateOp[]) => ops.filter((o) => o.qubits.length === 2).length;

/**
 * The maximal gatherable block on the pair of the two-qubit gate at i: the one-qubit runs just
 * before it on both wires, then every later gate within the pair that commutes with the ops on
 * the pair's wires it would be gathered past.
 */
export function blockAt(rec: Recorder, i: number): number[] | undefined {
  const head = rec.ops[i]!;
  if (head.kind !== 'gate' || head.qubits.length !== 2) return undefined;
  const pair = head.qubits;
  const positions: number[] = [];
  for (const q of pair)
    for (let j = rec.prevOn(q, i - 1); j >= 0; j = rec.prevOn(q, j - 1)) {
      const o = rec.ops[j]!;
      if (o.kind !== 'gate' || o.qubits.length !== 1) break;
      positions.push(j);
    }
  positions.push(i);
  const skipped: GateOp[] = [];
  for (let j = i + 1; j < rec.ops.length && j - i < SCAN_WINDOW; j++) {
    const o = rec.ops[j]!;
    const qs = qubitsOf(o);
    if (!qs.some((q) => pair.includes(q))) continue;
    if (o.kind === 'gate' && qs.every((q) => pair.includes(q)) && skipped.every((s) => commute(o, s))) positions.push(j);
    else {
      if (o.kind !== 'gate' || skipped.length >= MAX_SKIPPED) break;
      skipped.push(o);
    }
  }
  positions.sort((a, b) => a - b);
  return positions;
}

function acceptable(block: readonly GateOp[], cand: readonly GateOp[]): boolean {
  const [b2, c2] = [twoQ(block), twoQ(cand)];
  if (c2 > b2 || cand.length > block.length || (c2 === b2 && cand.length === block.length)) return false;
  // T-count stays honest: a Clifford+T block gets a Clifford+T block with no more T gates;
  // other blocks may use u3 only when they hold no T gate (a u3 must never hide one)
  const tb = tGates(block);
  if (allCliffordT(block)) return allCliffordT(cand) && tGates(cand) <= tb;
  return tb === 0 && tGates(cand) === 0;
}

/**
 * The replacement chosen for a block, by its content: rounds of the fixpoint and the strategy
 * branches meet the same blocks again, and synthesis (a few eigen-decompositions and up to 48
 * local equivalences, each checked) is the pass's main cost. Bounded; cleared when full.
 */
const MEMO_LIMIT = 4096;
const memo = new Map<string, readonly GateOp[] | null>();

function bestFor(block: readonly GateOp[], pair: readonly [number, number]): readonly GateOp[] | undefined {
  const key = `${pair.join(',')}|${block.map((o) => `${o.name}:${o.qubits.join(',')}:${o.params.join(',')}`).join(';')}`;
  const hit = memo.get(key);
  if (hit !== undefined) return hit ?? undefined;
  let best: GateOp[] | undefined;
  const u = blockMatrix(block, pair);
  const b2 = twoQ(block);
  const k = u && minimalCnots(toSU4(u));
  // only blocks with more CNOTs than they need, or more one-qubit gates than 2k + 2 slots
  if (u && k !== undefined && (k < b2 || (k === b2 && block.length - b2 > 2 * k + 2))) {
    const { circuits } = synthesize2q(u, pair, allCliffordT(block) ? ['clifford-t'] : ['generic']);
    best = circuits.filter((c) => acceptable(block, c)).sort((a, b) => a.length - b.length || tGates(a) - tGates(b))[0];
  }
  if (memo.size >= MEMO_LIMIT) memo.clear();
  memo.set(key, best ?? null);
  return best;
}

/** The candidate's unitary is the block's within the recorder's tolerance (KAK numerics can miss by more). */
function reproduces(block: readonly GateOp[], cand: readonly GateOp[], pair: readonly [number, number], tol: number): boolean {
  const u = blockMatrix(block, pair);
  const v = blockMatrix(cand, pair);
  return !!u && !!v && flatDistance(u, v) <= Math.max(tol, FLOAT_NOISE);
}

/**
 * Two-qubit block resynthesis (aggressive): each maximal block on one pair of qubits whose
 * unitary needs fewer CNOTs (or fewer gates) than it has is replaced by a minimal-CNOT
 * circuit (`resynth-2q`; the checker compares the 4×4 unitaries itself).
 */
export function resynthesizeBlocks(rec: Recorder): number {
  let n = 0;
  const seen = new Set<GateOp>();
  for (let i = 0; i < rec.ops.length && !rec.stopped(); i++) {
    const head = rec.ops[i]!;
    if (head.kind !== 'gate' || head.qubits.length !== 2 || seen.has(head)) continue;
    const positions = blockAt(rec, i);
    if (!positions) continue;
    const block = positions.map((p) => rec.ops[p] as GateOp);
    for (const o of block) seen.add(o);
    const pair = head.qubits as readonly [number, number];
    const best = bestFor(block, pair);
    if (!best || !reproduces(block, best, pair, rec.tol)) continue;
    const anchor = gatherAnchor(rec, positions);
    if (!anchor) continue;
    rec.apply(
      'resynth-2q',
      positions,
      best.map((o) => g(o.name, o.qubits, o.params)),
      anchor,
    );
    n++;
    i = positions[0]! - 1; // indices before the block are unchanged; the new gates are not in `seen`
  }
  return n;
}
