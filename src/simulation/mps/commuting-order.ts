/**
 * Runs a purely unitary gate list in an order that differs from the given one only by exchanging
 * gates on disjoint qubits (which commute, so the state is the same): among the gates whose qubits
 * have no earlier pending gate, one-qubit gates go first (they need no canonical centre) and then the
 * two-qubit gate cheapest to reach from the MPS orthogonality centre. A layer of nearest-neighbour
 * gates is thus swept back and forth instead of always left to right, which saves the QR steps that
 * would walk the centre back across the chain after every layer.
 */
export function runInCommutingOrder(n: number, gates: readonly (readonly number[])[], cost: (qubits: readonly number[]) => number, run: (g: number) => void): void {
  const queues: number[][] = Array.from({ length: n }, () => []);
  gates.forEach((qs, g) => {
    for (const q of qs) queues[q]!.push(g);
  });
  const ptr = new Int32Array(n);
  const inReady = new Uint8Array(gates.length);
  const ready: number[] = [];
  const offer = (g: number | undefined): void => {
    if (g === undefined || inReady[g] === 1) return;
    for (const q of gates[g]!) if (queues[q]![ptr[q]!] !== g) return;
    inReady[g] = 1;
    ready.push(g);
  };
  for (let q = 0; q < n; q++) offer(queues[q]![0]);
  while (ready.length > 0) {
    let best = 0;
    let bestCost = Infinity;
    for (let j = 0; j < ready.length; j++) {
      const g = ready[j]!;
      const c = gates[g]!.length < 2 ? -1 : cost(gates[g]!);
      if (c < bestCost || (c === bestCost && g < ready[best]!)) {
        best = j;
        bestCost = c;
      }
      if (c < 0) break; // a one-qubit gate: nothing is cheaper
    }
    const g = ready[best]!;
    ready[best] = ready[ready.length - 1]!;
    ready.pop();
    run(g);
    for (const q of gates[g]!) ptr[q]!++;
    for (const q of gates[g]!) offer(queues[q]![ptr[q]!]);
  }
}
