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
