import type { Circuit } from '../../src/circuits/ir.js';
import type { PureState } from '../../src/coupling/reduced-states.js';

/**
 * A deliberately naive state-vector simulator for the coupling tests (a few gates only),
 * independent of src/simulation so the two check each other.
 */
type C = [number, number];
const mul = (a: C, b: C): C => [a[0] * b[0] - a[1] * b[1], a[0] * b[1] + a[1] * b[0]];
const add = (a: C, b: C): C => [a[0] + b[0], a[1] + b[1]];
const r2 = Math.SQRT1_2;

function oneQubit(name: string, params: readonly number[]): [C, C, C, C] {
  const [t = 0] = params;
  switch (name) {
    case 'id':
      return [
        [1, 0],
        [0, 0],
        [0, 0],
        [1, 0],
      ];
    case 'h':
      return [
        [r2, 0],
        [r2, 0],
        [r2, 0],
        [-r2, 0],
      ];
    case 'x':
      return [
        [0, 0],
        [1, 0],
        [1, 0],
        [0, 0],
      ];
    case 'y':
      return [
        [0, 0],
        [0, -1],
        [0, 1],
        [0, 0],
      ];
    case 'z':
      return [
        [1, 0],
        [0, 0],
        [0, 0],
        [-1, 0],
      ];
    case 's':
      return [
        [1, 0],
        [0, 0],
        [0, 0],
        [0, 1],
      ];
    case 't':
      return [
        [1, 0],
        [0, 0],
        [0, 0],
        [r2, r2],
      ];
    case 'rx':
      return [
        [Math.cos(t / 2), 0],
        [0, -Math.sin(t / 2)],
        [0, -Math.sin(t / 2)],
        [Math.cos(t / 2), 0],
      ];
    case 'ry':
      return [
        [Math.cos(t / 2), 0],
        [-Math.sin(t / 2), 0],
        [Math.sin(t / 2), 0],
        [Math.cos(t / 2), 0],
      ];
    case 'rz':
      return [
        [Math.cos(t / 2), -Math.sin(t / 2)],
        [0, 0],
        [0, 0],
        [Math.cos(t / 2), Math.sin(t / 2)],
      ];
    default:
      throw new Error(`tiny-sim: no gate ${name}`);
  }
}

export function tinyFinalState(c: Circuit): PureState {
  const n = c.numQubits;
  let amp: C[] = Array.from({ length: 1 << n }, (_, i) => (i === 0 ? [1, 0] : [0, 0]));
  for (const op of c.ops) {
    if (op.kind !== 'gate') continue;
    const q = op.qubits;
    const next: C[] = amp.map(() => [0, 0]);
    const bit = (i: number, k: number) => (i >> q[k]!) & 1;
    if (q.length === 1) {
      const [m00, m01, m10, m11] = oneQubit(op.name, op.params);
      const m = [
        [m00, m01],
        [m10, m11],
      ];
      amp.forEach((a, i) => {
        const b = bit(i, 0);
        for (const o of [0, 1]) {
          const j = (i & ~(1 << q[0]!)) | (o << q[0]!);
          next[j] = add(next[j]!, mul(m[o]![b]!, a));
        }
      });
    } else if (op.name === 'ch') {
      const h = oneQubit('h', []);
      amp.forEach((a, i) => {
        if (!bit(i, 0)) {
          next[i] = add(next[i]!, a);
          return;
        }
        const b = bit(i, 1);
        for (const o of [0, 1]) {
          const j = (i & ~(1 << q[1]!)) | (o << q[1]!);
          next[j] = add(next[j]!, mul(h[o * 2 + b]!, a));
        }
      });
    } else {
      amp.forEach((a, i) => {
        let j = i;
        let phase: C = [1, 0];
        if (op.name === 'cx' && bit(i, 0)) j = i ^ (1 << q[1]!);
        else if (op.name === 'ccx' && bit(i, 0) && bit(i, 1)) j = i ^ (1 << q[2]!);
        else if (op.name === 'cz' && bit(i, 0) && bit(i, 1)) phase = [-1, 0];
        else if (op.name === 'swap' && bit(i, 0) !== bit(i, 1)) j = i ^ (1 << q[0]!) ^ (1 << q[1]!);
        else if (!['cx', 'ccx', 'cz', 'swap'].includes(op.name)) throw new Error(`tiny-sim: no gate ${op.name}`);
        next[j] = add(next[j]!, mul(phase, a));
      });
    }
    amp = next;
  }
  return { numQubits: n, re: Float64Array.from(amp, (a) => a[0]), im: Float64Array.from(amp, (a) => a[1]) };
}
