import type { Operation } from '../circuits/ir.js';

/**
 * Where a circuit with mid-circuit measurement, reset or conditioned gates splits into unitary
 * segments. Every measure, reset and conditioned gate becomes a cut (a conditioned gate is a
 * barrier on its qubits: nothing is rewritten across it, and it is never rewritten itself); gates (and barriers) go to the earliest segment their wires
 * allow, cuts to the earliest boundary after the gates and cuts before them on their qubit (and
 * the measurements before them into their clbit, and for a conditioned gate the measurements and
 * conditioned gates before it on the clbits it reads; a measurement likewise waits for the
 * conditioned gates before it that read its clbit). The ops are then reordered: cuts before
 * segment 0, segment 0, cuts after it, segment 1, … — on every wire the order is unchanged, so
 * it is the same circuit (the replayer's `reorder` rule checks exactly that).
 */
export interface SegmentPlan {
  /** order[k] = index in the input of the k-th op of the reordered list. */
  readonly order: readonly number[];
  /** The unitary segments as [start, end) ranges of the reordered list, in order (possibly empty). */
  readonly segments: readonly (readonly [number, number])[];
}

/**
 * Whether the circuit measures or resets a qubit that is used again, or has a conditioned gate
 * (the checker cannot compare such circuits whole).
 */
export function hasMidCircuitOps(ops: readonly Operation[]): boolean {
  const touched = new Set<number>();
  const measured = new Set<number>();
  for (const op of ops) {
    if (op.kind === 'barrier') continue;
    if (op.kind === 'conditioned') return true;
    if (op.kind === 'gate') {
      if (op.qubits.some((q) => measured.has(q))) return true;
      for (const q of op.qubits) touched.add(q);
    } else if (op.kind === 'reset') {
      if (touched.has(op.qubit)) return true;
    } else {
      measured.add(op.qubit);
      touched.add(op.qubit);
    }
  }
  return false;
}

export function planSegments(ops: readonly Operation[]): SegmentPlan | undefined {
  if (!hasMidCircuitOps(ops)) return undefined;
  const gateLevel = new Map<number, number>(); // segment of the last gate on a qubit
  const cutLevel = new Map<number, number>(); // boundary of the last cut on a qubit
  const clbitLevel = new Map<number, number>(); // boundary of the last cut writing or reading a clbit
  const segOf: number[] = [];
  const cutOf: number[] = [];
  let last = 0;
  ops.forEach((op, i) => {
    if (op.kind === 'gate' || op.kind === 'barrier') {
      const s = Math.max(0, ...op.qubits.map((q) => Math.max(gateLevel.get(q) ?? -1, (cutLevel.get(q) ?? -1) + 1)));
      for (const q of op.qubits) gateLevel.set(q, s);
      segOf[i] = s;
      last = Math.max(last, s);
      return;
    }
    // the clbits a cut writes (measure) or reads (conditioned gate): they keep their order too
    const qs = op.kind === 'conditioned' ? op.gate.qubits : [op.qubit];
    const cs = op.kind === 'conditioned' ? op.condition.clbits : op.kind === 'measure' ? [op.clbit] : [];
    let b = Math.max(-1, ...qs.map((q) => Math.max(gateLevel.get(q) ?? -1, cutLevel.get(q) ?? -1)));
    for (const c of cs) b = Math.max(b, clbitLevel.get(c) ?? -1);
    for (const c of cs) clbitLevel.set(c, b);
    for (const q of qs) cutLevel.set(q, b);
    cutOf[i] = b;
    last = Math.max(last, b);
  });
  const segBuckets: number[][] = Array.from({ length: last + 1 }, () => []);
  const cutBuckets: number[][] = Array.from({ length: last + 2 }, () => []);
  ops.forEach((_, i) => {
    if (segOf[i] !== undefined) segBuckets[segOf[i]]!.push(i);
    else cutBuckets[cutOf[i]! + 1]!.push(i);
  });
  const order: number[] = [...cutBuckets[0]!];
  const segments: [number, number][] = [];
  for (let s = 0; s <= last; s++) {
    segments.push([order.length, order.length + segBuckets[s]!.length]);
    for (const i of segBuckets[s]!) order.push(i);
    for (const i of cutBuckets[s + 1]!) order.push(i);
  }
  return { order, segments };
}
