import type { Circuit } from './ir.js';

/**
 * Circuit depth: the longest chain of operations where each one waits for the previous
 * ones on its wires. Gates, measurements and resets count one layer each; a measurement
 * also occupies its classical bit (as Qiskit counts depth). Barriers count zero and do not
 * synchronise, so they never change the depth.
 *
 * The per-wire arrays are sized by the largest index the operations use, capped by the declared
 * `numQubits`/`numClbits`, so neither a declared size nor an index can size an allocation beyond
 * the other (`"qubits": 1000000000` with a measure on qubit 999999999 used to exhaust the heap).
 * The parser computes depth only once sizes are within the deployment limits; the cap keeps
 * any other caller safe too. Indices outside the declared sizes (not a valid IR) read as 0.
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
  // Typed arrays ignore writes out of range, so an invalid index can never grow them either.
  const q = new Int32Array(Math.max(0, Math.min(maxQ + 1, c.numQubits)));
  const b = new Int32Array(Math.max(0, Math.min(maxC + 1, c.numClbits)));
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
