/**
 * Cross-check against an independent simulator (the `quantum-circuit` npm package, a
 * devDependency) on hundreds of random circuits of up to 10 qubits. quantum-circuit
 * stores the state as {index: complex} with wire w ↔ bit w of the index (the same as
 * ours), controls first in `wires`; some gates have other names or parameterisations.
 */
import { describe, expect, it } from 'vitest';
import QuantumCircuit from 'quantum-circuit';
import { circuit, gate, measure } from '../../src/circuits/ir.js';
import type { Operation } from '../../src/circuits/ir.js';
import { simulate } from '../../src/simulation/index.js';
import { lcg } from './textbook.js';

type Map = { qc: string; names: string[]; conv?: (p: number[]) => number[] };
const M: Record<string, Map & { arity: number; params: number }> = {
  id: { qc: 'id', names: [], arity: 1, params: 0 },
  x: { qc: 'x', names: [], arity: 1, params: 0 },
  y: { qc: 'y', names: [], arity: 1, params: 0 },
  z: { qc: 'z', names: [], arity: 1, params: 0 },
  h: { qc: 'h', names: [], arity: 1, params: 0 },
  s: { qc: 's', names: [], arity: 1, params: 0 },
  sdg: { qc: 'sdg', names: [], arity: 1, params: 0 },
  t: { qc: 't', names: [], arity: 1, params: 0 },
  tdg: { qc: 'tdg', names: [], arity: 1, params: 0 },
  sx: { qc: 'srn', names: [], arity: 1, params: 0 },
  sxdg: { qc: 'srndg', names: [], arity: 1, params: 0 },
  rx: { qc: 'rx', names: ['theta'], arity: 1, params: 1 },
  ry: { qc: 'ry', names: ['theta'], arity: 1, params: 1 },
  rz: { qc: 'rz', names: ['phi'], arity: 1, params: 1 },
  p: { qc: 'u1', names: ['lambda'], arity: 1, params: 1 },
  u1: { qc: 'u1', names: ['lambda'], arity: 1, params: 1 },
  u2: { qc: 'u2', names: ['phi', 'lambda'], arity: 1, params: 2 },
  u3: { qc: 'u3', names: ['theta', 'phi', 'lambda'], arity: 1, params: 3 },
  u: { qc: 'u3', names: ['theta', 'phi', 'lambda'], arity: 1, params: 3 },
  cx: { qc: 'cx', names: [], arity: 2, params: 0 },
  cy: { qc: 'cy', names: [], arity: 2, params: 0 },
  cz: { qc: 'cz', names: [], arity: 2, params: 0 },
  ch: { qc: 'ch', names: [], arity: 2, params: 0 },
  swap: { qc: 'swap', names: [], arity: 2, params: 0 },
  csx: { qc: 'csrn', names: [], arity: 2, params: 0 },
  crx: { qc: 'crx', names: ['theta'], arity: 2, params: 1 },
  cry: { qc: 'cry', names: ['theta'], arity: 2, params: 1 },
  crz: { qc: 'crz', names: ['phi'], arity: 2, params: 1 },
  cu1: { qc: 'cu1', names: ['lambda'], arity: 2, params: 1 },
  cp: { qc: 'cu1', names: ['lambda'], arity: 2, params: 1 },
  cu3: { qc: 'cu3', names: ['theta', 'phi', 'lambda'], arity: 2, params: 3 },
  // quantum-circuit's xx/yy(θ) = exp(-iθ P⊗P); ours rxx/ryy(θ) = exp(-iθ/2 P⊗P). Its zz(θ) = exp(-iθ/2 Z⊗Z).
  rxx: { qc: 'xx', names: ['theta'], arity: 2, params: 1, conv: ([t]) => [t! / 2] },
  ryy: { qc: 'yy', names: ['theta'], arity: 2, params: 1, conv: ([t]) => [t! / 2] },
  rzz: { qc: 'zz', names: ['theta'], arity: 2, params: 1 },
  ccx: { qc: 'ccx', names: [], arity: 3, params: 0 },
  cswap: { qc: 'cswap', names: [], arity: 3, params: 0 },
};
const NAMES = Object.keys(M);

function randomCircuit(rnd: () => number, n: number, gates: number): { ops: Operation[]; qc: InstanceType<typeof QuantumCircuit> } {
  const qc = new QuantumCircuit(n);
  const ops: Operation[] = [];
  let col = 0;
  for (let g = 0; g < gates; g++) {
    let name = NAMES[Math.floor(rnd() * NAMES.length)]!;
    while (M[name]!.arity > n) name = NAMES[Math.floor(rnd() * NAMES.length)]!;
    const m = M[name]!;
    const pool = Array.from({ length: n }, (_, i) => i);
    const qs: number[] = [];
    for (let j = 0; j < m.arity; j++) qs.push(pool.splice(Math.floor(rnd() * pool.length), 1)[0]!);
    const params = Array.from({ length: m.params }, () => (rnd() * 2 - 1) * 2 * Math.PI);
    ops.push(gate(name, qs, params));
    const qp = m.conv ? m.conv(params) : params;
    const named: Record<string, number> = {};
    m.names.forEach((k, i) => (named[k] = qp[i]!));
    qc.addGate(m.qc, col++, m.arity === 1 ? qs[0]! : qs, { params: named });
  }
  return { ops, qc };
}

describe('cross-check against quantum-circuit', () => {
  const rnd = lcg(20240601);
  // 300 circuits: n cycles 1..10, 8–40 gates each.
  for (let batch = 0; batch < 10; batch++) {
    it(`random circuits batch ${batch} (30 circuits, probabilities within 1e-9)`, () => {
      let worstP = 0;
      let worstFid = 0;
      for (let k = 0; k < 30; k++) {
        const n = 1 + ((batch * 30 + k) % 10);
        const { ops, qc } = randomCircuit(rnd, n, 8 + Math.floor(rnd() * 33));
        qc.run();
        const meas = Array.from({ length: n }, (_, q) => measure(q, q));
        const r = simulate(circuit(n, n, [...ops, ...meas]), { shots: 0, seed: 1, returnStatevector: true, blockQubits: 5 + (k % 6) });
        expect(r.probabilitiesKind).toBe('exact');
        let ovRe = 0;
        let ovIm = 0;
        for (let i = 0; i < 1 << n; i++) {
          const a = (qc.state[String(i)] as { re: number; im: number } | undefined) ?? { re: 0, im: 0 };
          const key = i.toString(2).padStart(n, '0');
          const mine = r.probabilities![key] ?? 0;
          worstP = Math.max(worstP, Math.abs(mine - (a.re * a.re + a.im * a.im)));
          const br = r.statevector!.re[i]!;
          const bi = r.statevector!.im[i]!;
          ovRe += a.re * br + a.im * bi;
          ovIm += a.re * bi - a.im * br;
        }
        worstFid = Math.max(worstFid, Math.abs(1 - Math.hypot(ovRe, ovIm)));
      }
      expect(worstP).toBeLessThan(1e-9);
      expect(worstFid).toBeLessThan(1e-9);
    });
  }
});
