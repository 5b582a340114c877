import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, signUp } from '../helpers/app.js';
import type { App } from '../../src/http/app-types.js';

/*
 * An independent dense reference: complex 2^n × 2^n matrices built by Kronecker products, a
 * state vector multiplied by them, and ⟨ψ|H|ψ⟩ with H as a dense matrix. It shares no code with
 * src/simulation (the simulator under test).
 */
type C = [number, number];
type M = C[][];
const cm = (a: C, b: C): C => [a[0] * b[0] - a[1] * b[1], a[0] * b[1] + a[1] * b[0]];
const ca = (a: C, b: C): C => [a[0] + b[0], a[1] + b[1]];
const kron = (a: M, b: M): M => {
  const out: M = [];
  for (let i = 0; i < a.length; i++)
    for (let k = 0; k < b.length; k++) {
      const row: C[] = [];
      for (let j = 0; j < a.length; j++) for (let l = 0; l < b.length; l++) row.push(cm(a[i]![j]!, b[k]![l]!));
      out.push(row);
    }
  return out;
};
const I2: M = [
  [
    [1, 0],
    [0, 0],
  ],
  [
    [0, 0],
    [1, 0],
  ],
];
const PAULI: Record<string, M> = {
  I: I2,
  X: [
    [
      [0, 0],
      [1, 0],
    ],
    [
      [1, 0],
      [0, 0],
    ],
  ],
  Y: [
    [
      [0, 0],
      [0, -1],
    ],
    [
      [0, 1],
      [0, 0],
    ],
  ],
  Z: [
    [
      [1, 0],
      [0, 0],
    ],
    [
      [0, 0],
      [-1, 0],
    ],
  ],
};
const ry = (t: number): M => [
  [
    [Math.cos(t / 2), 0],
    [-Math.sin(t / 2), 0],
  ],
  [
    [Math.sin(t / 2), 0],
    [Math.cos(t / 2), 0],
  ],
];
const rz = (t: number): M => [
  [
    [Math.cos(t / 2), -Math.sin(t / 2)],
    [0, 0],
  ],
  [
    [0, 0],
    [Math.cos(t / 2), Math.sin(t / 2)],
  ],
];
/** The one-qubit gate g on qubit q of n (index bit k ↔ qubit k: the leftmost Kronecker factor is qubit n−1). */
const onQubit = (g: M, q: number, n: number): M => {
  let m: M = [[[1, 0]]];
  for (let k = n - 1; k >= 0; k--) m = kron(m, k === q ? g : I2);
  return m;
};
const cxMatrix = (c: number, t: number, n: number): M => {
  const d = 2 ** n;
  const m: M = Array.from({ length: d }, () => Array.from({ length: d }, (): C => [0, 0]));
  for (let i = 0; i < d; i++) m[(i >> c) & 1 ? i ^ (1 << t) : i]![i] = [1, 0];
  return m;
};
const matvec = (m: M, v: C[]): C[] => m.map((row) => row.reduce<C>((acc, x, j) => ca(acc, cm(x, v[j]!)), [0, 0]));
const pauliMatrix = (s: string): M => [...s].reduce<M>((acc, ch) => kron(acc, PAULI[ch]!), [[[1, 0]]]);
const expectationDense = (psi: C[], terms: { pauli: string; coeff: number }[]): number =>
  terms.reduce((sum, t) => {
    const hp = matvec(pauliMatrix(t.pauli), psi);
    return sum + t.coeff * psi.reduce((a, x, i) => a + (x[0] * hp[i]![0] + x[1] * hp[i]![1]), 0);
  }, 0);

const N = 6;
const PARAMS = ['a0', 'a1', 'a2', 'a3', 'a4', 'a5', 'phi'];
/** A hardware-efficient ansatz: RY layer, CX ladder, RZ(2·phi + π/4) layer, RY layer with expressions. */
const ansatz = {
  schema: '0.2',
  num_qubits: N,
  num_clbits: N,
  parameters: PARAMS,
  gates: [
    ...Array.from({ length: N }, (_, q) => ({ op: 'ry', qubits: [q], params: [`a${q}`] })),
    ...Array.from({ length: N - 1 }, (_, q) => ({ op: 'cx', qubits: [q, q + 1] })),
    ...Array.from({ length: N }, (_, q) => ({ op: 'rz', qubits: [q], params: ['2*phi+pi/4'] })),
    ...Array.from({ length: N }, (_, q) => ({ op: 'ry', qubits: [q], params: [`-a${(q + 1) % N}/2 + 0.3`] })),
  ],
  measurements: Array.from({ length: N }, (_, q) => ({ qubit: q, clbit: q })),
};
const HAMILTONIAN = [
  ...Array.from({ length: N - 1 }, (_, q) => ({ pauli: [...'IIIIII'].map((c, i) => (i === N - 1 - q || i === N - 2 - q ? 'Z' : c)).join(''), coeff: 0.5 })),
  ...Array.from({ length: N }, (_, q) => ({ pauli: [...'IIIIII'].map((c, i) => (i === N - 1 - q ? 'X' : c)).join(''), coeff: -0.3 })),
  { pauli: 'YYIIIX', coeff: 0.25 },
];

function denseState(v: Record<string, number>): C[] {
  const d = 2 ** N;
  let psi: C[] = Array.from({ length: d }, (_, i): C => (i === 0 ? [1, 0] : [0, 0]));
  for (let q = 0; q < N; q++) psi = matvec(onQubit(ry(v[`a${q}`]!), q, N), psi);
  for (let q = 0; q < N - 1; q++) psi = matvec(cxMatrix(q, q + 1, N), psi);
  for (let q = 0; q < N; q++) psi = matvec(onQubit(rz(2 * v['phi']! + Math.PI / 4), q, N), psi);
  for (let q = 0; q < N; q++) psi = matvec(onQubit(ry(-v[`a${(q + 1) % N}`]! / 2 + 0.3), q, N), psi);
  return psi;
}

describe('parameter sweeps and result types on the simulator', () => {
  let app: App;
  beforeAll(async () => {
    app = await buildTestApp();
  });
  afterAll(async () => {
    await app.close();
  });

  it('a 6-qubit ansatz swept over 50 points is ONE job; ⟨H⟩ per point equals an independent dense calculation', async () => {
    const u = await signUp(app);
    const points = Array.from({ length: 50 }, (_, k) => Object.fromEntries(PARAMS.map((p, i) => [p, Math.sin(1.7 * k + i) * Math.PI])));
    const r = await app.inject({
      method: 'POST',
      url: '/v1/execute/provider-two',
      headers: u.auth,
      payload: { circuit: ansatz, shots: 200, seed: 5, parameter_values: points, result_types: ['counts', 'expectation'], observables: HAMILTONIAN, client_token: 'vqe-1' },
    });
    expect(r.statusCode).toBe(200);
    const d = r.json().data;
    expect(d.status).toBe('completed');
    const res = d.results;
    expect(res.parameters).toEqual(PARAMS);
    expect(res.points).toHaveLength(50);
    res.points.forEach((p: { parameter_values: Record<string, number>; expectation: { value: number; kind: string; terms: number[] }; counts: Record<string, number>; seed: number }, k: number) => {
      expect(p.parameter_values).toEqual(points[k]);
      expect(p.seed).toBe(5 + k);
      expect(p.expectation.kind).toBe('exact');
      expect(p.expectation.terms).toHaveLength(HAMILTONIAN.length);
      expect(p.expectation.value).toBeCloseTo(expectationDense(denseState(points[k]!), HAMILTONIAN), 9);
      expect(Object.values(p.counts).reduce((a, b) => a + b, 0)).toBe(200);
    });
    // One job for the whole sweep.
    const n = await app.db.query<{ n: number }>('SELECT count(*)::int AS n FROM execution_jobs WHERE account_id = $1', [u.accountId]);
    expect(n.rows[0]!.n).toBe(1);
    // The same token replays the same sweep; read back by id it has the same points.
    const again = await app.inject({ method: 'GET', url: `/v1/execute/provider-two/${d.job_id}`, headers: u.auth });
    expect(again.json().data.results.points[7]).toEqual(res.points[7]);
  });

  it('per-shot memory: its histogram equals the counts; statevector as [re, im] pairs; exact probabilities', async () => {
    const u = await signUp(app);
    const points = [{ t: 0.3 }, { t: 1.1 }, { t: 2.9 }];
    const circuit = {
      schema: '0.2',
      num_qubits: 2,
      num_clbits: 2,
      parameters: ['t'],
      gates: [
        { op: 'rx', qubits: [0], params: ['t'] },
        { op: 'cx', qubits: [0, 1] },
      ],
      measurements: [
        { qubit: 0, clbit: 0 },
        { qubit: 1, clbit: 1 },
      ],
    };
    const r = await app.inject({
      method: 'POST',
      url: '/v1/execute/provider-one',
      headers: u.auth,
      payload: { circuit, shots: 300, parameter_values: points, result_types: ['counts', 'memory', 'probabilities', 'statevector'], client_token: 'mem-1' },
    });
    expect(r.statusCode).toBe(200);
    for (const [k, p] of (
      r.json().data.results.points as { memory: string[]; counts: Record<string, number>; statevector: [number, number][]; probabilities: Record<string, number>; probabilities_kind: string }[]
    ).entries()) {
      const hist: Record<string, number> = {};
      for (const m of p.memory) hist[m] = (hist[m] ?? 0) + 1;
      expect(hist).toEqual(p.counts);
      expect(p.memory).toHaveLength(300);
      const t = points[k]!.t;
      // rx(t) then CX: cos(t/2)|00⟩ − i·sin(t/2)|11⟩.
      expect(p.statevector[0]![0]).toBeCloseTo(Math.cos(t / 2), 12);
      expect(p.statevector[3]![1]).toBeCloseTo(-Math.sin(t / 2), 12);
      expect(p.probabilities_kind).toBe('exact');
      expect(p.probabilities['11']).toBeCloseTo(Math.sin(t / 2) ** 2, 12);
    }
    // A run without parameters: memory beside the counts, same histogram.
    const bell = {
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
    const plain = (
      await app.inject({ method: 'POST', url: '/v1/execute/provider-two', headers: u.auth, payload: { circuit: bell, shots: 101, result_types: ['memory'], client_token: 'mem-2' } })
    ).json().data.results;
    const hist: Record<string, number> = {};
    for (const m of plain.memory as string[]) hist[m] = (hist[m] ?? 0) + 1;
    expect(hist).toEqual(plain.counts);
    expect(plain.points).toBeUndefined();
  });

  it('several classical registers: keys split by a space, the last register leftmost, with the layout; a single register is unchanged', async () => {
    const u = await signUp(app);
    const qasm = 'OPENQASM 3.0;\ninclude "stdgates.inc";\nqubit[3] q;\nbit[1] a;\nbit[2] b;\nx q[0];\nx q[2];\na[0] = measure q[0];\nb[0] = measure q[1];\nb[1] = measure q[2];\n';
    const r = await app.inject({
      method: 'POST',
      url: '/v1/execute/provider-two',
      headers: u.auth,
      payload: { circuit: { format: 'qasm3', source: qasm }, shots: 20, result_types: ['counts', 'memory'], client_token: 'regs-1' },
    });
    expect(r.statusCode).toBe(200);
    const res = r.json().data.results;
    expect(res.counts).toEqual({ '10 1': 20 });
    expect(res.registers).toEqual([
      { name: 'a', size: 1 },
      { name: 'b', size: 2 },
    ]);
    expect(new Set(res.memory)).toEqual(new Set(['10 1']));
    // The example: a[1], b[2] with b = 10 and a = 0 reads "10 0".
    const q2 = 'OPENQASM 3.0;\ninclude "stdgates.inc";\nqubit[3] q;\nbit[1] a;\nbit[2] b;\nx q[2];\na[0] = measure q[0];\nb[0] = measure q[1];\nb[1] = measure q[2];\n';
    const r2 = await app.inject({ method: 'POST', url: '/v1/execute/provider-two', headers: u.auth, payload: { circuit: { format: 'qasm3', source: q2 }, shots: 5, client_token: 'regs-2' } });
    expect(r2.json().data.results.counts).toEqual({ '10 0': 5 });
    const single = await app.inject({
      method: 'POST',
      url: '/v1/execute/provider-two',
      headers: u.auth,
      payload: { circuit: { format: 'qasm3', source: q2.replace('bit[1] a;\nbit[2] b;', 'bit[3] a;').replace('b[0]', 'a[1]').replace('b[1]', 'a[2]') }, shots: 5, client_token: 'regs-3' },
    });
    expect(single.json().data.results.counts).toEqual({ '100': 5 });
    expect(single.json().data.results.registers).toBeUndefined();
  });

  it('unbound and unknown parameters are named with a stable code and a JSON path; hardware sweeps are refused', async () => {
    const u = await signUp(app);
    const circuit = {
      schema: '0.2',
      num_qubits: 1,
      num_clbits: 1,
      parameters: ['theta', 'phi'],
      gates: [{ op: 'u', qubits: [0], params: ['theta', 'phi', 'theta-phi'] }],
      measurements: [{ qubit: 0, clbit: 0 }],
    };
    const post = (payload: Record<string, unknown>, url = '/v1/execute/provider-two') => app.inject({ method: 'POST', url, headers: u.auth, payload: { circuit, shots: 10, ...payload } });
    const none = await post({ client_token: 'b0' });
    expect(none.statusCode).toBe(400);
    expect(none.json().error).toMatchObject({ code: 'EXECUTION_PARAMETERS_INVALID', details: [{ path: '/parameter_values', code: 'PARAMETER_UNBOUND' }] });
    const bad = await post({ parameter_values: [{ theta: 1, phi: 2 }, { theta: 1 }, { theta: 1, phi: 2, psi: 3 }], client_token: 'b1' });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().error.details).toEqual([
      expect.objectContaining({ path: '/parameter_values/1', code: 'PARAMETER_UNBOUND' }),
      expect.objectContaining({ path: '/parameter_values/2/psi', code: 'PARAMETER_UNKNOWN' }),
    ]);
    const undeclared = await app.inject({
      method: 'POST',
      url: '/v1/execute/provider-two',
      headers: u.auth,
      payload: { circuit: { ...circuit, gates: [{ op: 'rx', qubits: [0], params: ['theta*psi'] }] }, parameter_values: [{ theta: 1, phi: 0 }], client_token: 'b2' },
    });
    expect(undeclared.statusCode).toBe(400);
    expect(undeclared.json().error).toMatchObject({ code: 'CIRCUIT_INVALID', details: [{ path: '/circuit/gates/0/params/0', code: 'PARAMETER_UNKNOWN' }] });
    const obs = await post({ parameter_values: [{ theta: 1, phi: 2 }], result_types: ['expectation'], observables: [{ pauli: 'ZZ', coeff: 1 }], client_token: 'b3' });
    expect(obs.json().error).toMatchObject({ code: 'EXECUTION_RESULT_TYPES_INVALID', details: [{ path: '/observables/0/pauli', code: 'OBSERVABLE_INVALID' }] });
    const hw = await post({ device: 'p2-ion-11', parameter_values: [{ theta: 1, phi: 2 }], client_token: 'b4' });
    expect(hw.statusCode).toBe(409);
    expect(hw.json().error).toMatchObject({ code: 'EXECUTION_SWEEP_NOT_SUPPORTED', details: { device: 'p2-ion-11' } });
    // Another route that needs numbers says the circuit still has parameters.
    const analyze = await app.inject({ method: 'POST', url: '/v1/circuits/analyze', headers: u.auth, payload: { circuit } });
    expect(analyze.statusCode).toBe(400);
    expect(analyze.json().error.details[0]).toMatchObject({ code: 'PARAMETERS_UNBOUND', path: '/circuit/parameters' });
  });
});
