import type { Circuit } from './ir.js';

/**
 * Circuit depth: the longest chain of operations where each one waits for the previous
 * ones on its wires. Gates, measurements and resets count one layer each; a measurement
 * also occupies its classical bit (as Qiskit counts depth), and a conditioned gate the bits it
 * reads, so it comes after the measurement that wrote them. Barriers count zero and do not
 * synchronise, so they never change the depth.
 *
 * Memory is bounded by the operations, never by a declared size or by the value of an index:
 * `"qubits": 1000000000` with one measure on qubit 999999999 used to allocate per-wire arrays
 * of 10^9 entries (heap exhausted, process aborted). Wires are kept in a dense array while the
 * largest index is small, in a map otherwise.
 */
export function circuitDepth(c: Circuit): number {
  let maxQ = -1;
  let maxC = -1;
  for (const op of c.ops) {
    switch (op.kind) {
      case 'measure':
        if (op.clbit > maxC) maxC = op.clbit;
        if (op.qubit > maxQ) maxQ = op.qubit;
        break;
      case 'reset':
        if (op.qubit > maxQ) maxQ = op.qubit;
        break;
      case 'gate':
      case 'barrier':
        for (const x of op.qubits) if (x > maxQ) maxQ = x;
        break;
      case 'conditioned':
        for (const x of op.gate.qubits) if (x > maxQ) maxQ = x;
        for (const x of op.condition.clbits) if (x > maxC) maxC = x;
        break;
    }
  }
  const q = wireLevels(maxQ + 1);
  const b = wireLevels(maxC + 1);
  let depth = 0;
  for (const op of c.ops) {
    let level: number;
    switch (op.kind) {
      case 'barrier':
        continue;
      case 'measure':
        level = 1 + Math.max(q.get(op.qubit), b.get(op.clbit));
        q.set(op.qubit, level);
        b.set(op.clbit, level);
        break;
      case 'reset':
        level = 1 + q.get(op.qubit);
        q.set(op.qubit, level);
        break;
      case 'gate': {
        let m = 0;
        for (const x of op.qubits) m = Math.max(m, q.get(x));
        level = m + 1;
        for (const x of op.qubits) q.set(x, level);
        break;
      }
      case 'conditioned': {
        // it waits for the measurements of the bits it reads, and (as in Qiskit's DAG) holds them
        let m = 0;
        for (const x of op.gate.qubits) m = Math.max(m, q.get(x));
        for (const x of op.condition.clbits) m = Math.max(m, b.get(x));
        level = m + 1;
        for (const x of op.gate.qubits) q.set(x, level);
        for (const x of op.condition.clbits) b.set(x, level);
        break;
      }
    }
    if (level > depth) depth = level;
  }
  return depth;
}

/** Largest wire count kept densely (the deployment maximum of CIRCUIT_MAX_QUBITS is 1,024). */
const DENSE_WIRES = 1 << 16;

interface WireLevels {
  get(wire: number): number;
  set(wire: number, level: number): void;
}

function wireLevels(wires: number): WireLevels {
  if (wires <= DENSE_WIRES) {
    const a = new Float64Array(Math.max(0, wires));
    return { get: (w) => a[w] ?? 0, set: (w, l) => void (a[w] = l) };
  }
  const m = new Map<number, number>();
  return { get: (w) => m.get(w) ?? 0, set: (w, l) => void m.set(w, l) };
}
