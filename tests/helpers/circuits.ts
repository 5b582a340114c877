import type { CircuitV02 } from '../../packages/client/src/index.js';

/** A Bell pair, measured (wire format 0.2). */
export const bell: CircuitV02 = {
  schema: '0.2',
  num_qubits: 2,
  num_clbits: 2,
  gates: [
    { op: 'h', qubits: [0] },
    { op: 'cx', qubits: [0, 1] },
  ],
  measurements: [
    { qubit: 0, clbit: 0 },
    { qubit: 1, clbit: 1 },
  ],
};

/** A three-qubit GHZ state, measured. */
export const ghz3: CircuitV02 = {
  schema: '0.2',
  num_qubits: 3,
  num_clbits: 3,
  gates: [
    { op: 'h', qubits: [0] },
    { op: 'cx', qubits: [0, 1] },
    { op: 'cx', qubits: [1, 2] },
  ],
  measurements: [
    { qubit: 0, clbit: 0 },
    { qubit: 1, clbit: 1 },
    { qubit: 2, clbit: 2 },
  ],
};

/**
 * A deterministic random Clifford+T circuit (wire format 0.2). At the defaults it keeps the
 * aggressive optimizer busy for a second or more, which the compute-pool tests rely on.
 */
export function busyCircuit(n = 8, len = 600, seed = 7) {
  let s = seed;
  const rnd = () => (s = (Math.imul(s, 1103515245) + 12345) >>> 0) / 2 ** 32;
  const ones = ['h', 't', 'tdg', 's', 'x'];
  const gates = Array.from({ length: len }, () => {
    if (rnd() < 0.35) {
      const a = Math.floor(rnd() * n);
      const b = (a + 1 + Math.floor(rnd() * (n - 1))) % n;
      return { op: 'cx', qubits: [a, b] };
    }
    return { op: ones[Math.floor(rnd() * ones.length)]!, qubits: [Math.floor(rnd() * n)] };
  });
  return { schema: '0.2', num_qubits: n, num_clbits: 0, gates, measurements: [], metadata: {} };
}
