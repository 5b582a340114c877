/**
 * Structural entanglement: interaction-graph components and the pairs of qubits that may be
 * entangled at the end, from light cones. Two qubits may be entangled only if their backward
 * light cones share a multi-qubit gate; a `swap` only exchanges the two qubits' partners (it moves
 * states without mixing them, as coupling's qualitative mode treats it); a reset or mid-circuit
 * measurement cuts a qubit from its past. Terminal measurements are ignored: the question is
 * about the state before them.
 */
import { opQubits, type Circuit } from '../ir.js';

/** Connected components over the qubits that take part in any operation (singletons included). */
export function interactionComponents(c: Circuit): number[][] {
  const parent = Array.from({ length: c.numQubits }, (_, i) => i);
  const find = (x: number): number => {
    while (parent[x] !== x) {
      parent[x] = parent[parent[x]!]!;
      x = parent[x]!;
    }
    return x;
  };
  const used = new Set<number>();
  for (const op of c.ops) {
    if (op.kind === 'barrier') continue;
    const qs = opQubits(op);
    qs.forEach((q) => used.add(q));
    for (let i = 1; i < qs.length; i++) parent[find(qs[i]!)] = find(qs[0]!);
  }
  const groups = new Map<number, number[]>();
  for (const q of [...used].sort((a, b) => a - b)) {
    const r = find(q);
    const g = groups.get(r) ?? [];
    g.push(q);
    groups.set(r, g);
  }
  return [...groups.values()].sort((a, b) => a[0]! - b[0]!);
}

/** Pairs (a < b) whose backward light cones at the end of the circuit share a multi-qubit gate. */
export function lightConePairs(c: Circuit): [number, number][] {
  const n = c.numQubits;
  // shared[a*n+b] = 1 when the cones of a and b share some multi-qubit gate event.
  const shared = new Uint8Array(n * n);
  let terminalFrom = c.ops.length;
  while (terminalFrom > 0 && c.ops[terminalFrom - 1]!.kind === 'measure') terminalFrom--;
  const row = new Uint8Array(n);
  for (let i = 0; i < terminalFrom; i++) {
    // A conditioned gate acts as its gate would: measurement and classical control (LOCC) add no
    // entanglement of their own, but a conditioned multi-qubit gate entangles its qubits.
    const o = c.ops[i]!;
    const op = o.kind === 'conditioned' ? o.gate : o;
    if (op.kind === 'gate' && op.name === 'swap') {
      const [a, b] = op.qubits as readonly [number, number];
      for (let z = 0; z < n; z++) {
        if (z === a || z === b) continue;
        const t = shared[a * n + z]!;
        shared[a * n + z] = shared[b * n + z]!;
        shared[b * n + z] = t;
        shared[z * n + a] = shared[a * n + z]!;
        shared[z * n + b] = shared[b * n + z]!;
      }
    } else if (op.kind === 'gate' && op.qubits.length >= 2) {
      const g = op.qubits;
      row.fill(0);
      for (const y of g) for (let z = 0; z < n; z++) row[z] = row[z]! | shared[y * n + z]!;
      for (const z of g) row[z] = 1;
      for (const x of g) {
        for (let z = 0; z < n; z++) {
          shared[x * n + z] = row[z]!;
          shared[z * n + x] = row[z]!;
        }
      }
    } else if (op.kind === 'reset' || op.kind === 'measure') {
      const q = op.qubit;
      for (let z = 0; z < n; z++) {
        shared[q * n + z] = 0;
        shared[z * n + q] = 0;
      }
    }
  }
  const pairs: [number, number][] = [];
  for (let a = 0; a < n; a++) for (let b = a + 1; b < n; b++) if (shared[a * n + b]) pairs.push([a, b]);
  return pairs;
}
