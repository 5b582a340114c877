import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/http/app-types.js';
import { buildTestApp } from '../helpers/app.js';

type Gate = { op: string; qubits: number[]; params?: (number | string)[]; clbits?: number[] };
const c02 = (n: number, gates: Gate[], measurements: { qubit: number; clbit: number }[] = []) => ({
  schema: '0.2',
  num_qubits: n,
  num_clbits: measurements.length > 0 || gates.some((g) => g.op === 'measure') ? n : 0,
  gates,
  measurements,
});
const BELL = c02(
  2,
  [
    { op: 'h', qubits: [0] },
    { op: 'cx', qubits: [0, 1] },
  ],
  [
    { qubit: 0, clbit: 0 },
    { qubit: 1, clbit: 1 },
  ],
);
const GHZ3_QASM = { format: 'qasm2', source: 'OPENQASM 2.0;\ninclude "qelib1.inc";\nqreg q[3];\ncreg c[3];\nh q[0];\ncx q[0],q[1];\ncx q[1],q[2];\nmeasure q -> c;\n' };
const W3 = c02(3, [
  { op: 'ry', qubits: [0], params: [2 * Math.acos(1 / Math.sqrt(3))] },
  { op: 'ch', qubits: [0, 1] },
  { op: 'cx', qubits: [1, 2] },
  { op: 'cx', qubits: [0, 1] },
  { op: 'x', qubits: [0] },
]);
const chain = (n: number): Gate[] => [{ op: 'h', qubits: [0] }, ...Array.from({ length: n - 1 }, (_, q) => ({ op: 'cx', qubits: [q, q + 1] }))];
const H_LOG2_3 = -(1 / 3) * Math.log2(1 / 3) - (2 / 3) * Math.log2(2 / 3);

async function post(app: App, url: string, payload: unknown) {
  const r = await app.inject({ method: 'POST', url, payload: payload as Record<string, unknown> });
  return { status: r.statusCode, body: r.json() };
}

describe('POST /v1/analysis/coupling', () => {
  let app: App;
  beforeAll(async () => {
    app = await buildTestApp();
  });
  afterAll(async () => app.close());
  const analyse = (payload: unknown) => post(app, '/v1/analysis/coupling', payload);

  it('Bell, measured: C = 1, S = 1, I = 2 bits, in the envelope', async () => {
    const { status, body } = await analyse({ circuit: BELL, mode: 'measured' });
    expect(status).toBe(200);
    expect(body.status).toBe('ok');
    expect(typeof body.meta.request_id).toBe('string');
    const d = body.data;
    expect(d.mode_requested).toBe('measured');
    expect(d.mode_used).toBe('measured');
    expect(d.fallback).toBeUndefined();
    expect(d.measured.entropies_bits).toEqual([1, 1]);
    expect(d.measured.pairs).toHaveLength(1);
    expect(d.measured.pairs[0].qubits).toEqual([0, 1]);
    expect(d.measured.pairs[0].concurrence).toBeCloseTo(1, 7);
    expect(d.measured.pairs[0].mutual_information_bits).toBeCloseTo(2, 9);
    expect(d.qualitative.pairs[0]).toMatchObject({ qubits: [0, 1], may_be_entangled: true, interaction_weight: 1 });
    expect(d.qualitative.interaction_graph.edges).toEqual([{ qubits: [0, 1], weight: 1, gates: { cx: 1 } }]);
    expect(d.limits).toEqual({ measured_max_qubits: 20, time_budget_ms: 10000 });
  });

  it('GHZ₃ from OpenQASM, auto (the default): every pair C = 0, I = 1 bit, S = 1', async () => {
    const { status, body } = await analyse({ circuit: GHZ3_QASM });
    expect(status).toBe(200);
    const d = body.data;
    expect(d.mode_requested).toBe('auto');
    expect(d.mode_used).toBe('measured');
    expect(d.measured.entropies_bits).toEqual([1, 1, 1]);
    expect(d.measured.pairs.map((p: { qubits: number[] }) => p.qubits)).toEqual([
      [0, 1],
      [0, 2],
      [1, 2],
    ]);
    for (const p of d.measured.pairs) {
      expect(p.concurrence).toBe(0);
      expect(p.mutual_information_bits).toBeCloseTo(1, 9);
    }
  });

  it('W₃: C = 2/3 per pair, S ≈ 0.918', async () => {
    const { body } = await analyse({ circuit: W3, mode: 'measured' });
    const d = body.data;
    expect(d.mode_used).toBe('measured');
    for (const s of d.measured.entropies_bits) expect(s).toBeCloseTo(H_LOG2_3, 8);
    expect(d.measured.entropies_bits[0]).toBeCloseTo(0.918, 3);
    for (const p of d.measured.pairs) expect(p.concurrence).toBeCloseTo(2 / 3, 6);
  });

  it('a product state: all zero, and qualitative says the pairs cannot be entangled', async () => {
    const product = c02(3, [
      { op: 'h', qubits: [0] },
      { op: 'ry', qubits: [1], params: [0.7] },
      { op: 'x', qubits: [2] },
      { op: 'rz', qubits: [0], params: ['pi/3'] },
    ]);
    const { body } = await analyse({ circuit: product, mode: 'measured' });
    const d = body.data;
    expect(d.measured.entropies_bits).toEqual([0, 0, 0]);
    for (const p of d.measured.pairs) {
      expect(p.concurrence).toBe(0);
      expect(p.mutual_information_bits).toBe(0);
    }
    expect(d.qualitative.pairs.every((p: { may_be_entangled: boolean; score: number }) => !p.may_be_entangled && p.score === 0)).toBe(true);
    expect(d.qualitative.components).toEqual([[0], [1], [2]]);
  });

  it('requested pairs only, answered as [min, max] in request order', async () => {
    const { body } = await analyse({
      circuit: c02(4, chain(4)),
      mode: 'measured',
      pairs: [
        [3, 0],
        [1, 2],
      ],
    });
    const d = body.data;
    expect(d.pairs_scope).toBe('requested');
    expect(d.measured.pairs.map((p: { qubits: number[] }) => p.qubits)).toEqual([
      [0, 3],
      [1, 2],
    ]);
    expect(d.qualitative.pairs.map((p: { qubits: number[] }) => p.qubits)).toEqual([
      [0, 3],
      [1, 2],
    ]);
    expect(d.measured.entropies_bits).toHaveLength(4);
  });

  it('qualitative mode: no measured part, no fallback', async () => {
    const { status, body } = await analyse({ circuit: BELL, mode: 'qualitative' });
    expect(status).toBe(200);
    expect(body.data.mode_used).toBe('qualitative');
    expect(body.data.measured).toBeUndefined();
    expect(body.data.fallback).toBeUndefined();
  });

  describe('fallback to qualitative, with success status', () => {
    it('TOO_MANY_QUBITS: gates on 21 qubits with the default limit of 20', async () => {
      const { status, body } = await analyse({ circuit: c02(21, chain(21)), mode: 'measured', pairs: [[0, 20]] });
      expect(status).toBe(200);
      expect(body.status).toBe('ok');
      expect(body.data.mode_used).toBe('qualitative');
      expect(body.data.measured).toBeUndefined();
      expect(body.data.fallback).toMatchObject({ requested: 'measured', reason_code: 'TOO_MANY_QUBITS' });
      expect(body.data.fallback.reason).toMatch(/21 qubits.*at most 20/);
      expect(body.data.qualitative.pairs[0]).toMatchObject({ qubits: [0, 20], may_be_entangled: true });
    });

    it('auto reports its fallback too (requested: auto)', async () => {
      const { body } = await analyse({ circuit: c02(21, chain(21)), mode: 'auto', pairs: [[0, 1]] });
      expect(body.data.mode_used).toBe('qualitative');
      expect(body.data.fallback).toMatchObject({ requested: 'auto', reason_code: 'TOO_MANY_QUBITS' });
    });

    it('MID_CIRCUIT_MEASUREMENT', async () => {
      const c = c02(2, [
        { op: 'h', qubits: [0] },
        { op: 'measure', qubits: [0], clbits: [0] },
        { op: 'cx', qubits: [0, 1] },
      ]);
      const { status, body } = await analyse({ circuit: c, mode: 'measured' });
      expect(status).toBe(200);
      expect(body.data.mode_used).toBe('qualitative');
      expect(body.data.fallback).toMatchObject({ requested: 'measured', reason_code: 'MID_CIRCUIT_MEASUREMENT' });
    });

    it('RESET', async () => {
      const c = c02(2, [
        { op: 'h', qubits: [0] },
        { op: 'cx', qubits: [0, 1] },
        { op: 'reset', qubits: [0] },
        { op: 'h', qubits: [0] },
      ]);
      const { status, body } = await analyse({ circuit: c, mode: 'measured' });
      expect(status).toBe(200);
      expect(body.data.fallback).toMatchObject({ requested: 'measured', reason_code: 'RESET' });
      // After the reset, qubit 0 has a fresh light cone: the pair is provably uncoupled.
      expect(body.data.qualitative.pairs[0].may_be_entangled).toBe(false);
    });
  });

  describe('input errors are 400 envelopes with paths', () => {
    it('a pair out of range or repeating a qubit: COUPLING_PAIR_INVALID at /pairs/i/j', async () => {
      const { status, body } = await analyse({
        circuit: BELL,
        pairs: [
          [0, 1],
          [1, 0],
          [0, 1],
          [0, 2],
          [1, 1],
        ],
      });
      expect(status).toBe(400);
      expect(body.status).toBe('error');
      expect(body.error.code).toBe('COUPLING_PAIR_INVALID');
      expect(body.error.details.map((d: { path: string; code: string }) => `${d.path} ${d.code}`)).toEqual(['/pairs/3/1 QUBIT_OUT_OF_RANGE', '/pairs/4/1 DUPLICATE_QUBIT']);
    });

    it('a pair that is not two integers: VALIDATION_FAILED at its path', async () => {
      const { status, body } = await analyse({
        circuit: BELL,
        pairs: [
          [0, 1, 2],
          [0, -1],
        ],
      });
      expect(status).toBe(400);
      expect(body.error.code).toBe('VALIDATION_FAILED');
      const paths = body.error.details.map((d: { path: string }) => d.path);
      expect(paths).toContain('/pairs/0');
      expect(paths).toContain('/pairs/1/1');
    });

    it('a bad circuit: CIRCUIT_INVALID with paths under /circuit', async () => {
      const { status, body } = await analyse({
        circuit: c02(2, [
          { op: 'cx', qubits: [0, 5] },
          { op: 'nope', qubits: [0] },
        ]),
        mode: 'measured',
      });
      expect(status).toBe(400);
      expect(body.error.code).toBe('CIRCUIT_INVALID');
      const paths = body.error.details.map((d: { path: string }) => d.path);
      expect(paths.every((p: string) => p.startsWith('/circuit/'))).toBe(true);
      expect(paths.length).toBeGreaterThanOrEqual(2);
    });

    it('an unknown mode or field: VALIDATION_FAILED', async () => {
      const { status, body } = await analyse({ circuit: BELL, mode: 'exact', extra: true });
      expect(status).toBe(400);
      expect(body.error.code).toBe('VALIDATION_FAILED');
      const paths = body.error.details.map((d: { path: string }) => d.path);
      expect(paths).toContain('/mode');
    });

    it('a missing circuit: VALIDATION_FAILED', async () => {
      const { status, body } = await analyse({ mode: 'auto' });
      expect(status).toBe(400);
      expect(body.error.code).toBe('VALIDATION_FAILED');
    });
  });
});

describe('coupling settings from the environment', () => {
  it('COUPLING_MEASURED_MAX_QUBITS lowers the limit: GHZ₃ falls back at 2', async () => {
    const app = await buildTestApp({ COUPLING_MEASURED_MAX_QUBITS: '2' });
    try {
      const { status, body } = await post(app, '/v1/analysis/coupling', { circuit: GHZ3_QASM, mode: 'measured' });
      expect(status).toBe(200);
      expect(body.data.limits.measured_max_qubits).toBe(2);
      expect(body.data.fallback).toMatchObject({ reason_code: 'TOO_MANY_QUBITS' });
      expect(body.data.qualitative.pairs_may_be_entangled).toBe(3);
    } finally {
      await app.close();
    }
  });

  it('TIME_BUDGET_EXCEEDED with COUPLING_TIME_BUDGET_MS=1 on a 16-qubit circuit', async () => {
    const app = await buildTestApp({ COUPLING_TIME_BUDGET_MS: '1' });
    try {
      const { status, body } = await post(app, '/v1/analysis/coupling', { circuit: c02(16, chain(16)), mode: 'measured' });
      expect(status).toBe(200);
      expect(body.data.mode_used).toBe('qualitative');
      expect(body.data.fallback).toMatchObject({ requested: 'measured', reason_code: 'TIME_BUDGET_EXCEEDED' });
      expect(body.data.qualitative.pairs).toHaveLength(120);
    } finally {
      await app.close();
    }
  });

  it('an invalid setting stops the start-up', async () => {
    await expect(buildTestApp({ COUPLING_MEASURED_MAX_QUBITS: 'lots' })).rejects.toThrow(/COUPLING_MEASURED_MAX_QUBITS/);
  });
});

describe('POST /v1/analysis/coupling/compare', () => {
  let app: App;
  beforeAll(async () => {
    app = await buildTestApp();
  });
  afterAll(async () => app.close());
  const compare = (payload: unknown) => post(app, '/v1/analysis/coupling/compare', payload);

  it('before and after an optimization that cancels CX pairs: preserved, measured deltas 0', async () => {
    const before = c02(3, [...chain(3), { op: 'cx', qubits: [0, 2] }, { op: 'cx', qubits: [0, 2] }]);
    const after = c02(3, chain(3));
    const { status, body } = await compare({ before, after });
    expect(status).toBe(200);
    const d = body.data;
    expect(d.basis).toBe('measured');
    expect(d.preserved).toBe(true);
    expect(d.tolerance).toBe(1e-6);
    expect(d.summary).toEqual({ pairs: 3, preserved: 3, changed: 0, gained: 0, lost: 0, uncoupled: 0 });
    for (const p of d.pairs) expect(p.measured.mutual_information_bits).toEqual({ before: 1, after: 1, delta: 0 });
    expect(d.entropies.map((e: { delta: number }) => e.delta)).toEqual([0, 0, 0]);
  });

  it('a routed circuit with a qubit map: preserved; with the wrong map: gained and lost', async () => {
    // Bell pair on logical 0 and 2, logical 1 in |+⟩.
    const before = c02(3, [
      { op: 'h', qubits: [0] },
      { op: 'cx', qubits: [0, 2] },
      { op: 'h', qubits: [1] },
    ]);
    // On a line 0–1–2–3 (0 and 2 not adjacent), initial layout identity: a SWAP brings logical 0
    // next to logical 2. Final layout: logical 0 → 1, logical 1 → 0, logical 2 → 2; qubit 3 is an idle ancilla.
    const routed = c02(4, [
      { op: 'h', qubits: [0] },
      { op: 'h', qubits: [1] },
      { op: 'swap', qubits: [0, 1] },
      { op: 'cx', qubits: [1, 2] },
    ]);
    const { status, body } = await compare({ before, after: routed, qubit_map: [1, 0, 2] });
    expect(status).toBe(200);
    expect(body.data.after).toEqual({ num_qubits: 4, mode_used: 'measured' });
    expect(body.data.basis).toBe('measured');
    expect(body.data.preserved).toBe(true);
    const statuses = Object.fromEntries(body.data.pairs.map((p: { qubits: number[]; status: string }) => [p.qubits.join(','), p.status]));
    expect(statuses).toEqual({ '0,1': 'uncoupled', '0,2': 'preserved', '1,2': 'uncoupled' });
    expect(body.data.pairs[1].after_qubits).toEqual([1, 2]);
    // The SWAP moves states without mixing them, so even structurally nothing is gained.
    const qual = await compare({ before, after: routed, qubit_map: [1, 0, 2], mode: 'qualitative' });
    expect(qual.body.data.basis).toBe('qualitative');
    expect(qual.body.data.preserved).toBe(true);
    // The Bell pair is symmetric, so exchanging its two ends is also a correct map.
    expect((await compare({ before, after: routed, qubit_map: [2, 0, 1] })).body.data.preserved).toBe(true);
    // Without the map (identity) the pair seems to move: one lost, one gained, entropies differ.
    const identity = await compare({ before, after: routed });
    expect(identity.body.data.preserved).toBe(false);
    expect(identity.body.data.summary).toMatchObject({ gained: 1, lost: 1 });
    expect(identity.body.data.entropies[0]).toMatchObject({ qubit: 0, after_qubit: 0, before: 1, after: 0, delta: -1 });
  });

  it('one side out of measured scope: qualitative basis, the side says why', async () => {
    const { status, body } = await compare({ before: c02(21, chain(21)), after: c02(21, chain(21)), pairs: [[0, 20]], mode: 'measured' });
    expect(status).toBe(200);
    expect(body.data.basis).toBe('qualitative');
    expect(body.data.before.fallback).toMatchObject({ requested: 'measured', reason_code: 'TOO_MANY_QUBITS' });
    expect(body.data.preserved).toBe(true);
    expect(body.data.pairs[0].measured).toBeUndefined();
  });

  it('input errors: both circuits’ problems at once; bad qubit_map and pairs with paths', async () => {
    const bad = await compare({ before: c02(2, [{ op: 'cx', qubits: [0, 9] }]), after: { format: 'qasm2', source: 'OPENQASM 2.0;\nqreg q[1];\nfoo q[0];\n' } });
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe('CIRCUIT_INVALID');
    const paths: string[] = bad.body.error.details.map((d: { path: string }) => d.path);
    expect(paths.some((p) => p.startsWith('/before/'))).toBe(true);
    expect(paths.some((p) => p.startsWith('/after'))).toBe(true);

    const map = await compare({ before: BELL, after: BELL, qubit_map: [1, 1] });
    expect(map.status).toBe(400);
    expect(map.body.error.code).toBe('COUPLING_QUBIT_MAP_INVALID');
    expect(map.body.error.details[0].path).toBe('/qubit_map/1');

    const pairs = await compare({
      before: BELL,
      after: BELL,
      pairs: [
        [0, 1],
        [0, 3],
      ],
    });
    expect(pairs.status).toBe(400);
    expect(pairs.body.error.details[0].path).toBe('/pairs/1/1');

    const tol = await compare({ before: BELL, after: BELL, tolerance: -1 });
    expect(tol.status).toBe(400);
    expect(tol.body.error.code).toBe('VALIDATION_FAILED');
  });
});
