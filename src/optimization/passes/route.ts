import type { GateOp, Operation } from '../../circuits/ir.js';
import { fail } from '../../errors/app-error.js';
import { distanceMatrix } from '../../routing/sabre.js';
import { routeInPlace } from '../../routing/route-in-place.js';
import { OPTIMIZATION_ERRORS } from '../error-codes.js';
import type { Recorder } from '../recorder.js';

/** Wires 0…n−1 connected to one another through the edges among wires 0…w−1: the union-find root of each. */
function components(w: number, coupling: readonly (readonly [number, number])[]): number[] {
  const parent = [...Array(w).keys()];
  const find = (x: number): number => (parent[x] === x ? x : (parent[x] = find(parent[x]!)));
  for (const [x, y] of coupling) if (x < w && y < w) parent[find(x)] = find(y);
  return parent.map((_, i) => find(i));
}

/**
 * The fewest wires, from the circuit's own n up to the device's, through which every two-qubit
 * gate's wires are connected on the coupling map; undefined when even the whole device is not enough.
 */
export function routingWidth(ops: readonly Operation[], coupling: readonly (readonly [number, number])[], n: number, deviceQubits: number): number | undefined {
  const pairs = ops.filter((o): o is GateOp => o.kind === 'gate' && o.qubits.length === 2).map((o) => o.qubits as readonly [number, number]);
  for (let w = n; w <= Math.max(n, deviceQubits); w++) {
    const root = components(w, coupling);
    if (pairs.every(([a, b]) => root[a] === root[b])) return w;
  }
  return undefined;
}

/**
 * Respects a coupling map without changing the qubit layout, with the project's one router
 * (SABRE, src/routing): each run of gates between measurements, resets and barriers that has a
 * two-qubit gate on uncoupled wires is routed from the identity layout and brought back to it,
 * as one step of rule `route-swaps` (SWAPs read as relabelings; the checker follows them).
 * The circuit's own wires are used when they are connected on the device; otherwise the fewest
 * further device wires are borrowed (a `widen` step first): SWAPs pass qubits through them and
 * every run gives them back as it found them, so the output acts as the input on the circuit's
 * wires and as the identity on the borrowed ones (docs/decisions/optimization-borrowed-wires.md).
 * Returns the number of SWAPs inserted.
 */
export function routeOnCoupling(rec: Recorder, coupling: readonly (readonly [number, number])[], circuitQubits: number, deviceQubits: number): number {
  const numQubits = routingWidth(rec.ops, coupling, circuitQubits, deviceQubits);
  if (numQubits === undefined) {
    throw fail(OPTIMIZATION_ERRORS.OPTIMIZATION_TARGET_UNSUPPORTED, `Some two-qubit gates act on qubits that are not connected on the device`, { device_qubits: deviceQubits });
  }
  if (numQubits > circuitQubits) rec.widen(numQubits);
  const edges = coupling.filter(([x, y]) => x < numQubits && y < numQubits);
  const dist = distanceMatrix(numQubits, edges);
  const blocked = (op: GateOp) => op.qubits.length === 2 && dist[op.qubits[0]!]![op.qubits[1]!] !== 1;
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
