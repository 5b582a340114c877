import type { Circuit } from './ir.js';

/**
 * Circuit depth: the longest chain of operations where each one waits for the previous
 * ones on its wires. Gates, measurements and resets count one layer each; a measurement
 * also occupies its classical bit (as Qiskit counts depth). Barriers count zero and do not
 * synchronise, so they never change the depth.
 *
 * The per-wire arrays are sized by the largest index the operations use, not by the declared
 * `numQubits`/`numClbits`: validation computes the depth of circuits whose declared sizes are
 * still unchecked against the limits (e.g. `"num_qubits": 200000000` with no gates), and must
 * not allocate by them.
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
    }
  }
  const q = new Array<number>(maxQ + 1).fill(0);
  const b = new Array<number>(maxC + 1).fill(0);
  let depth = 0;
  for (const op of c.ops) {
    let level: number;
    switch (op.kind) {
      case 'barrier':
        continue;
      case 'measure':
        level = 1 + Math.max(q[op.qubit] ?? 0, b[op.clbit] ?? 0);
        q[op.qubit] = level;
        b[op.clbit] = level;
        break;
      case 'reset':
        level = 1 + (q[op.qubit] ?? 0);
        q[op.qubit] = level;
        break;
      case 'gate': {
        let m = 0;
        for (const x of op.qubits) m = Math.max(m, q[x] ?? 0);
        level = m + 1;
        for (const x of op.qubits) q[x] = level;
        break;
      }
    }
    if (level > depth) depth = level;
  }
  return depth;
}
