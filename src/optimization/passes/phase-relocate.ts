import { opQubits } from '../../circuits/ir.js';
import { commute, phaseGate, phaseOf } from '../gate-info.js';
import type { Recorder } from '../recorder.js';
import { TaggedMoves } from './tagged-move.js';

interface Slot {
  at: number;
  q: number;
  cst: boolean;
}

/** Affine parities of every wire point: for each op index, the parity key of its qubits after it. */
function scan(rec: Recorder): { keyOfPhase: Map<number, { key: string; cst: boolean }>; slots: Map<string, Slot[]> } {
  // A reduce, not a spread: one argument per operation overflows the stack near 10^5 operations.
  const n = rec.ops.reduce((m, o) => Math.max(m, ...opQubits(o)), 0) + 1;
  const lin: bigint[] = [];
  const cst: boolean[] = [];
  let v = 0;
  let seg = 0;
  const fresh = (q: number) => {
    lin[q] = 1n << BigInt(v++);
    cst[q] = false;
  };
  for (let q = 0; q < n; q++) fresh(q);
  const keyOfPhase = new Map<number, { key: string; cst: boolean }>();
  const slots = new Map<string, Slot[]>();
  const key = (q: number) => `${seg}:${lin[q]!.toString(16)}`;
  const addSlot = (at: number, q: number) => {
    const k = key(q);
    const list = slots.get(k) ?? [];
    list.push({ at, q, cst: cst[q]! });
    slots.set(k, list);
  };
  for (let q = 0; q < n; q++) addSlot(0, q);
  rec.ops.forEach((op, i) => {
    if (op.kind !== 'gate') {
      seg++;
      opQubits(op).forEach(fresh);
      for (let q = 0; q < n; q++) addSlot(i + 1, q);
      return;
    }
    if (phaseOf(op) !== undefined) {
      keyOfPhase.set(i, { key: key(op.qubits[0]!), cst: cst[op.qubits[0]!]! });
      return;
    }
    const [c, d] = op.qubits as [number, number];
    switch (op.name) {
      case 'cx':
        lin[d] = lin[d]! ^ lin[c]!;
        cst[d] = cst[d] !== cst[c];
        break;
      case 'x':
        cst[c] = !cst[c];
        break;
      case 'swap': {
        const l = lin[c]!;
        const k = cst[c]!;
        lin[c] = lin[d]!;
        cst[c] = cst[d]!;
        lin[d] = l;
        cst[d] = k;
        break;
      }
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
    for (const q of op.qubits) addSlot(i + 1, q);
  });
  return { keyOfPhase, slots };
}

/**
 * Rotation placement (part of Nam et al.'s rotation merging: a merged rotation may sit at
 * any point where its parity is on a wire). A CNOT pair that would cancel but for phase
 * gates on its target gets those gates moved to another point with the same parity outside
 * the pair; then the pair cancels. Global steps, justified like phase-polynomial merging.
 */
export function relocateBlockingPhases(rec: Recorder, maxMoves = 10_000): number {
  let moves = 0;
  let start = 0;
  outer: while (moves < maxMoves && !rec.stopped()) {
    const { keyOfPhase, slots } = scan(rec);
    for (let i = start; i < rec.ops.length; i++) {
      const a = rec.ops[i]!;
      if (a.kind !== 'gate' || a.name !== 'cx') continue;
      const [c, t] = a.qubits as [number, number];
      const blockers: number[] = [];
      let partner = -1;
      // only the ops on c or t matter (the others commute with the pair): walked along those two
      // wires, as a scan of the list would cost the ops of every other wire in between
      for (let j = nextOnEither(rec, c, t, i + 1); j >= 0; j = nextOnEither(rec, c, t, j + 1)) {
        const b = rec.ops[j]!;
        if (b.kind === 'gate' && b.name === 'cx' && b.qubits[0] === c && b.qubits[1] === t) {
          partner = j;
          break;
        }
        if (commute(a, b)) continue;
        if (b.kind === 'gate' && phaseOf(b) !== undefined && b.qubits[0] === t && blockers.length < 4) {
          blockers.push(j);
          continue;
        }
        break;
      }
      if (partner < 0 || blockers.length === 0) continue;
      const plan: { from: number; slot: Slot }[] = [];
      for (const bIdx of blockers) {
        const info = keyOfPhase.get(bIdx);
        if (!info) continue outer;
        const cands = (slots.get(info.key) ?? []).filter((s) => s.at <= i || s.at > partner);
        if (cands.length === 0) continue;
        // nearest point before the pair, else after it
        const before = cands.filter((s) => s.at <= i).pop();
        const slot = before ?? cands.find((s) => s.at > partner)!;
        plan.push({ from: bIdx, slot });
      }
      if (plan.length !== blockers.length) continue;
      // apply from the highest index down so earlier indices stay valid
      const ops = plan.map((p) => ({ ...p, op: rec.ops[p.from]! }));
      // one global step per move, recomputing indices through a tag array
      const moves1 = new TaggedMoves(rec);
      for (const p of ops) {
        const angle = phaseOf(p.op)!;
        const info = keyOfPhase.get(p.from)!;
        const sign = info.cst === p.slot.cst ? 1 : -1;
        moves1.move(p.from, phaseGate(p.slot.q, sign * angle), p.slot.at);
      }
      moves++;
      start = Math.max(0, i - 1);
      continue outer;
    }
    break;
  }
  return moves;
}

/** The first op at or after `from` on qubit c or t, or -1. */
function nextOnEither(rec: Recorder, c: number, t: number, from: number): number {
  const x = rec.nextOn(c, from);
  const y = rec.nextOn(t, from);
  return x < 0 ? y : y < 0 ? x : Math.min(x, y);
}
