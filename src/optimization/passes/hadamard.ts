import type { GateOp } from '../../circuits/ir.js';
import { g } from '../gate-info.js';
import type { Recorder } from '../recorder.js';
import { tryRewrite } from './gather.js';

const isGate = (o: unknown, name: string, q?: readonly number[]): o is GateOp =>
  !!o && (o as GateOp).kind === 'gate' && (o as GateOp).name === name && (!q || ((o as GateOp).qubits.length === q.length && q.every((x, i) => (o as GateOp).qubits[i] === x)));

/**
 * Hadamard gate reduction (Nam et al. 2018, §4.2, Fig. 4): rewrites that lower the number
 * of H gates, so phase-polynomial regions grow and more rotations merge.
 */
export function reduceHadamards(rec: Recorder): number {
  let n = 0;
  for (let i = 0; i < rec.ops.length && !rec.stopped(); i++) {
    const op = rec.ops[i]!;
    if (op.kind !== 'gate') continue;
    if (op.name === 'h') {
      const q = op.qubits[0]!;
      const j = rec.nextOn(q, i + 1);
      const mid = rec.ops[j];
      if (j < 0 || !mid || mid.kind !== 'gate' || mid.qubits.length !== 1) continue;
      const k = rec.nextOn(q, j + 1);
      if (k < 0 || !isGate(rec.ops[k], 'h', [q])) continue;
      const out: Record<string, GateOp[]> = {
        s: [g('sdg', [q]), g('h', [q]), g('sdg', [q])],
        sdg: [g('s', [q]), g('h', [q]), g('s', [q])],
        z: [g('x', [q])],
        x: [g('z', [q])],
      };
      const rhs = out[mid.name];
      if (rhs && tryRewrite(rec, `template:hadamard-${mid.name}`, [i, j, k], rhs)) {
        n++;
        i = Math.max(-1, i - 2);
      }
      continue;
    }
    if (op.name === 'cx') {
      const [a, b] = op.qubits as [number, number];
      // (H⊗H) CX (H⊗H) = reversed CX
      const pa = rec.prevOn(a, i - 1);
      const pb = rec.prevOn(b, i - 1);
      const na = rec.nextOn(a, i + 1);
      const nb = rec.nextOn(b, i + 1);
      if (pa >= 0 && pb >= 0 && na >= 0 && nb >= 0 && isGate(rec.ops[pa], 'h') && isGate(rec.ops[pb], 'h') && isGate(rec.ops[na], 'h') && isGate(rec.ops[nb], 'h')) {
        const id = `template:hadamard-cx-flip-${pa < pb ? 'ab' : 'ba'}-${na < nb ? 'ab' : 'ba'}`;
        if (tryRewrite(rec, id, [pa, pb, i, na, nb], [g('cx', [b, a])])) {
          n++;
          i = Math.max(-1, Math.min(pa, pb) - 1);
          continue;
        }
      }
      // H S CX S† H on the target = S† CX S
      const p1 = pb;
      const n1 = nb;
      if (p1 < 0 || n1 < 0) continue;
      const p0 = rec.prevOn(b, p1 - 1);
      const n2 = rec.nextOn(b, n1 + 1);
      if (p0 < 0 || n2 < 0 || !isGate(rec.ops[p0], 'h') || !isGate(rec.ops[n2], 'h')) continue;
      for (const [x, y] of [
        ['s', 'sdg'],
        ['sdg', 's'],
      ] as const) {
        if (isGate(rec.ops[p1], x) && isGate(rec.ops[n1], y)) {
          if (tryRewrite(rec, `template:hadamard-${x}-cx`, [p0, p1, i, n1, n2], [g(y, [b]), g('cx', [a, b]), g(x, [b])])) {
            n++;
            i = Math.max(-1, p0 - 1);
          }
          break;
        }
      }
    }
  }
  return n;
}
