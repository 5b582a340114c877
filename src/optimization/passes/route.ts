import type { GateOp } from '../../circuits/ir.js';
import { fail } from '../../errors/app-error.js';
import { OPTIMIZATION_ERRORS } from '../error-codes.js';
import { g } from '../gate-info.js';
import type { Recorder } from '../recorder.js';

/**
 * Respects a coupling map without changing the qubit layout: a two-qubit gate on
 * non-adjacent qubits is conjugated by SWAPs along a shortest path (rule `route-swaps`),
 * so the output acts on the same logical qubits as the input. Simple, not optimal.
 */
export function routeOnCoupling(rec: Recorder, coupling: readonly (readonly [number, number])[], numQubits: number): number {
  const adj = new Map<number, number[]>();
  // only wires of the circuit are used: the output keeps the input's registers
  for (const [a, b] of coupling.filter(([x, y]) => x < numQubits && y < numQubits)) {
    adj.set(a, [...(adj.get(a) ?? []), b]);
    adj.set(b, [...(adj.get(b) ?? []), a]);
  }
  const adjacent = (a: number, b: number) => (adj.get(a) ?? []).includes(b);
  const path = (a: number, b: number): number[] | undefined => {
    const prev = new Map<number, number>([[a, a]]);
    const queue = [a];
    while (queue.length) {
      const x = queue.shift()!;
      if (x === b) break;
      for (const y of adj.get(x) ?? []) if (!prev.has(y)) { prev.set(y, x); queue.push(y); }
    }
    if (!prev.has(b)) return undefined;
    const p = [b];
    while (p[0] !== a) p.unshift(prev.get(p[0]!)!);
    return p;
  };
  let n = 0;
  for (let i = 0; i < rec.ops.length; i++) {
    const op = rec.ops[i]!;
    if (op.kind !== 'gate' || op.qubits.length !== 2) continue;
    const [a, b] = op.qubits as [number, number];
    if (adjacent(a, b)) continue;
    const p = path(a, b);
    if (!p) {
      throw fail(OPTIMIZATION_ERRORS.OPTIMIZATION_TARGET_UNSUPPORTED, `Qubits ${a} and ${b} are not connected on the device within the circuit's ${numQubits} qubits`, { qubits: [a, b] });
    }
    const swaps: GateOp[] = [];
    for (let k = 0; k + 2 < p.length; k++) swaps.push(g('swap', [p[k]!, p[k + 1]!]));
    const moved = g(op.name, [p[p.length - 2]!, b], op.params);
    const out = [...swaps, moved, ...[...swaps].reverse()];
    rec.apply('route-swaps', [i], out);
    i += out.length - 1;
    n++;
  }
  return n;
}
