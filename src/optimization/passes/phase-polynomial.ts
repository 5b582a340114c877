import { opQubits, type GateOp } from '../../circuits/ir.js';
import { phaseGate, phaseOf, isZeroAngle, normAngle } from '../gate-info.js';
import type { Recorder } from '../recorder.js';
import { absorbCliffordTerms, rng } from './clifford-absorb.js';
import { TagPositions } from './tag-positions.js';

export const PHASE_POLYNOMIAL_RULE = 'global:phase-polynomial';

/**
 * Rotation merging over phase polynomials (Nam, Ross, Su, Childs, Maslov 2018, §4.3),
 * in its path-sum form: every wire carries an affine parity of path variables
 * (CNOT, X and SWAP transform parities; any other non-diagonal gate starts fresh
 * variables on its qubits). A one-qubit phase rotation contributes θ·f to the circuit's
 * phase function, where f is its wire's parity at that point; the phase function does not
 * depend on where a term sits, so all rotations on one parity merge into one. Not a
 * local rule: justified by whole-circuit equivalence (see docs/optimizer.md).
 */
export function mergePhasePolynomial(rec: Recorder, place: 'first' | 'last' = 'first', absorb: { seed?: number; effort?: number } = {}): number {
  // A reduce, not a spread: one argument per operation overflows the stack near 10^5 operations.
  const n = rec.ops.reduce((m, o) => Math.max(m, ...opQubits(o)), 0) + 1;
  const lin: bigint[] = [];
  const cst: boolean[] = [];
  // Each parity also carries a random linear fingerprint (two 32-bit words per variable, XORed
  // like the parity), so a lookup costs O(1) instead of printing a bigint as wide as the circuit;
  // the bigint confirms it (a fingerprint taken by another parity falls back to the printed key).
  const fpA: number[] = [];
  const fpB: number[] = [];
  const rand = rng(0x9a17);
  const owners = new Map<number, bigint>();
  const keyOf = (q: number): string => {
    const k = (fpA[q]! >>> 0) * 2097152 + (fpB[q]! >>> 11);
    const owner = owners.get(k);
    if (owner === undefined) owners.set(k, lin[q]!);
    return owner === undefined || owner === lin[q] ? String(k) : `x${lin[q]!.toString(16)}`;
  };
  let nextVar = 0;
  const fresh = (q: number) => {
    lin[q] = 1n << BigInt(nextVar++);
    fpA[q] = Math.floor(rand() * 4294967296) | 0;
    fpB[q] = Math.floor(rand() * 4294967296) | 0;
    cst[q] = false;
  };
  for (let q = 0; q < n; q++) fresh(q);

  interface Term {
    idx: number[];
    signs: number[];
    sum: number;
    lin: bigint;
    seg: number;
    changed: boolean;
    slot?: { at: number; q: number; cst: boolean };
  }
  const classes: Term[] = [];
  let table = new Map<string, Term>();
  let virtual = new Map<string, Term>();
  const segments: Map<string, Term>[] = [table];
  const virtuals: Map<string, Term>[] = [virtual];
  /** Wire points whose parity has no rotation yet: a rotation could be created there. */
  const slot = (at: number, q: number) => {
    const key = keyOf(q);
    if (!virtual.has(key)) virtual.set(key, { idx: [], signs: [], sum: 0, lin: lin[q]!, seg: segments.length - 1, changed: false, slot: { at, q, cst: cst[q]! } });
  };
  for (let q = 0; q < n; q++) slot(0, q);
  rec.ops.forEach((op, i) => {
    if (op.kind !== 'gate') {
      table = new Map();
      virtual = new Map();
      segments.push(table);
      virtuals.push(virtual);
      opQubits(op).forEach(fresh);
      for (let q = 0; q < n; q++) slot(i + 1, q);
      return;
    }
    const a = phaseOf(op);
    if (a !== undefined) {
      const q = op.qubits[0]!;
      const key = keyOf(q);
      const sign = cst[q] ? -1 : 1;
      let t = table.get(key);
      if (!t) {
        t = { idx: [], signs: [], sum: 0, lin: lin[q]!, seg: segments.length - 1, changed: false };
        table.set(key, t);
        classes.push(t);
      }
      t.idx.push(i);
      t.signs.push(sign);
      t.sum += sign * a;
      return;
    }
    const [c, d] = op.qubits as [number, number];
    switch (op.name) {
      case 'cx':
        lin[d] = lin[d]! ^ lin[c]!;
        fpA[d] = fpA[d]! ^ fpA[c]!;
        fpB[d] = fpB[d]! ^ fpB[c]!;
        cst[d] = cst[d] !== cst[c];
        slot(i + 1, d);
        return;
      case 'x':
        cst[c] = !cst[c];
        return;
      case 'swap': {
        [lin[c], lin[d]] = [lin[d]!, lin[c]!];
        [fpA[c], fpA[d]] = [fpA[d]!, fpA[c]!];
        [fpB[c], fpB[d]] = [fpB[d]!, fpB[c]!];
        [cst[c], cst[d]] = [cst[d]!, cst[c]!];
        return;
      }
      case 'cz':
      case 'ccz':
      case 'crz':
      case 'cp':
      case 'cu1':
      case 'rzz':
      case 'id':
        return; // diagonal: wire values unchanged
      default:
        op.qubits.forEach(fresh);
        op.qubits.forEach((q) => slot(i + 1, q));
    }
  });

  segments.forEach((seg, k) => {
    const virt = virtuals[k]!;
    for (const key of seg.keys()) virt.delete(key);
    absorbCliffordTerms(seg, virt, { stopped: rec.stopped, ...absorb });
    for (const [key, t] of virt)
      if (t.changed && !isZeroAngle(t.sum)) {
        seg.set(key, t);
        classes.push(t);
      }
  });

  // apply: the planned changes as steps on the list as it stands after the earlier ones
  const list = new TagPositions(rec.ops);
  let changes = 0;
  for (const t of classes) {
    if (rec.stopped()) break;
    if (t.idx.length < 2 && !t.changed) continue;
    if (t.idx.length === 0) {
      const sl = t.slot!;
      const gate = phaseGate(sl.q, normAngle(sl.cst ? -t.sum : t.sum));
      if (!gate) continue;
      rec.recordMove(PHASE_POLYNOMIAL_RULE, [], [], [gate], list.insertBefore(sl.at, gate));
      changes++;
      continue;
    }
    const keepAt = place === 'first' ? 0 : t.idx.length - 1;
    const keepTag = t.idx[keepAt]!;
    const keepOp = list.original(keepTag) as GateOp;
    // members in list order (the originals keep their order)
    const others = t.idx.filter((_, k) => k !== keepAt);
    if (others.length) {
      rec.record(
        PHASE_POLYNOMIAL_RULE,
        others.map((tag) => list.pos(tag)),
        others.map((tag) => list.original(tag)),
        [],
      );
      others.forEach((tag) => list.remove(tag));
    }
    const total = normAngle(t.sum * t.signs[keepAt]!);
    const merged = isZeroAngle(total) ? undefined : phaseGate(keepOp.qubits[0]!, total);
    rec.record(PHASE_POLYNOMIAL_RULE, [list.pos(keepTag)], [keepOp], merged ? [merged] : []);
    list.replace(keepTag, merged);
    changes++;
  }
  if (changes > 0) rec.ops = list.toOps();
  return changes;
}
