import type { GateOp } from '../../circuits/ir.js';
import { fail } from '../../errors/app-error.js';
import { distanceMatrix } from '../../routing/sabre.js';
import { routeInPlace } from '../../routing/route-in-place.js';
import { OPTIMIZATION_ERRORS } from '../error-codes.js';
import type { Recorder } from '../recorder.js';

/**
 * Respects a coupling map without changing the qubit layout, with the project's one router
 * (SABRE, src/routing): each run of gates between measurements, resets and barriers that has a
 * two-qubit gate on uncoupled wires is routed from the identity layout and brought back to it,
 * as one step of rule `route-swaps` (SWAPs read as relabelings; the checker follows them).
 * Only the circuit's own wires are used, so the output keeps the input's registers.
 * Returns the number of SWAPs inserted.
 */
export function routeOnCoupling(rec: Recorder, coupling: readonly (readonly [number, number])[], numQubits: number): number {
  const edges = coupling.filter(([x, y]) => x < numQubits && y < numQubits);
  const dist = distanceMatrix(numQubits, edges);
  const blocked = (op: GateOp) => op.qubits.length === 2 && dist[op.qubits[0]!]![op.qubits[1]!] !== 1;
  for (const op of rec.ops) {
    if (op.kind !== 'gate' || op.qubits.length !== 2) continue;
    const [a, b] = op.qubits as [number, number];
    if (dist[a]![b] === Infinity) {
      throw fail(OPTIMIZATION_ERRORS.OPTIMIZATION_TARGET_UNSUPPORTED, `Qubits ${a} and ${b} are not connected on the device within the circuit's ${numQubits} qubits`, { qubits: [a, b] });
    }
  }
  let swaps = 0;
  for (let i = 0; i < rec.ops.length;) {
    if (rec.ops[i]!.kind !== 'gate') {
      i++;
      continue;
    }
    let j = i;
    while (j < rec.ops.length && rec.ops[j]!.kind === 'gate') j++;
    const run = rec.ops.slice(i, j) as GateOp[];
    if (!run.some(blocked)) {
      i = j;
      continue;
    }
    const routed = routeInPlace(run, numQubits, edges, dist);
    rec.apply(
      'route-swaps',
      run.map((_, k) => i + k),
      routed.ops,
    );
    swaps += routed.swaps;
    i += routed.ops.length;
  }
  return swaps;
}
