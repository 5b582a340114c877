import type { GateOp } from '../../circuits/ir.js';
import { commute, isIdentity, isInversePair, phaseGate, phaseOf, ROT_PERIOD, g } from '../gate-info.js';
import { OpSlots } from '../op-slots.js';
import type { Recorder } from '../recorder.js';
import { addAngles } from '../../verification/numeric-policy.js';

/** Removes gates equal to the identity up to global phase. Returns the number of rewrites. */
export function dropIdentities(rec: Recorder): number {
  let n = 0;
  for (let i = 0; i < rec.ops.length && !rec.stopped();) {
    const op = rec.ops[i]!;
    if (op.kind === 'gate' && isIdentity(op, rec.tol)) {
      rec.apply('drop-identity', [i], []);
      n++;
    } else i++;
  }
  return n;
}

/** Writes one-qubit phase gates as their cheapest named form (rz(π/4) → t, …). */
export function normalizePhases(rec: Recorder): number {
  let n = 0;
  for (let i = 0; i < rec.ops.length; i++) {
    const op = rec.ops[i]!;
    const a = phaseOf(op);
    if (a === undefined || op.kind !== 'gate') continue;
    const best = phaseGate(op.qubits[0]!, a, 'named', rec.tol);
    if (!best) {
      rec.apply('drop-identity', [i], []);
      i--;
      n++;
    } else if (best.name !== op.name || best.params.length !== op.params.length || best.params.some((p, k) => p !== op.params[k])) {
      if (best.name === 'rz' && op.name !== 'rz' && op.name !== 'p' && op.name !== 'u1') continue;
      if (best.name === 'rz' && (op.name === 'p' || op.name === 'u1')) continue;
      rec.apply('rename-phase', [i], [best]);
      n++;
    }
  }
  return n;
}

/** The rewrite of a pair (a earlier, b later) on the same qubits, if any. */
function pairRewrite(a: GateOp, b: GateOp, tol: number): { rule: string; out: GateOp[] } | undefined {
  if (isInversePair(a, b)) return { rule: 'cancel-inverse', out: [] };
  const pa = phaseOf(a);
  const pb = phaseOf(b);
  if (pa !== undefined && pb !== undefined && a.qubits[0] === b.qubits[0]) {
    const m = phaseGate(a.qubits[0]!, addAngles(pa, pb), 'named', tol);
    return { rule: 'merge-phase', out: m ? [m] : [] };
  }
  const per = ROT_PERIOD[a.name];
  if (per !== undefined && a.name === b.name && a.qubits.every((q, i) => q === b.qubits[i])) {
    return { rule: 'merge-rotation', out: [g(a.name, a.qubits, [addAngles(a.params[0]!, b.params[0]!, per)])] };
  }
  return undefined;
}

/**
 * Cancels inverse pairs and merges rotations. With `commuting`, the partner may be
 * separated by gates that commute with the first gate (Nam et al.'s commutation-aware
 * cancellation); without it, only by gates on other qubits. The partners are found along the
 * first gate's wires (op-slots.ts), so a gate costs the length of its commuting run, not of the list.
 */
export function cancelAndMerge(rec: Recorder, commuting: boolean): number {
  const slots = new OpSlots(rec.ops);
  let n = 0;
  for (let s = slots.nextLive(-1); s >= 0 && !rec.stopped();) {
    const a = slots.op(s)!;
    let next = slots.nextLive(s);
    if (a.kind === 'gate') {
      // the ops after a on its wires, in list order (one op may come up on several of them)
      const heads = a.qubits.map((q) => slots.nextOnWire(s, q));
      for (;;) {
        const j = heads.reduce((m, h) => (h >= 0 && (m < 0 || h < m) ? h : m), -1);
        if (j < 0) break;
        const b = slots.op(j)!;
        if (b.kind === 'gate' && b.qubits.length === a.qubits.length && b.qubits.every((q) => a.qubits.includes(q))) {
          const rw = pairRewrite(a, b, rec.tol);
          if (rw) {
            rec.record(rw.rule, [slots.index(s), slots.index(j)], [a, b], rw.out);
            slots.remove(j);
            if (rw.out.length) slots.replace(s, rw.out[0]!);
            else slots.remove(s);
            n++;
            // look again from the op before: the new gate (or the gap) may pair with it
            next = slots.prevLive(s);
            if (next < 0) next = slots.nextLive(-1);
            break;
          }
        }
        if (commuting && commute(a, b)) {
          for (let k = 0; k < heads.length; k++) if (heads[k] === j) heads[k] = slots.nextOnWire(j, a.qubits[k]!);
          continue;
        }
        break;
      }
    }
    s = next;
  }
  if (n > 0) rec.ops = slots.toOps();
  return n;
}
