/**
 * Issue #36 over real HTTP: `method` and `method_options` on simulator runs (sync, async, batch),
 * the `auto` choice and its reason, per-method qubit limits (a 5 000-qubit Clifford circuit runs
 * although CIRCUIT_MAX_QUBITS is 64), refusals with their codes and paths, and the device listing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, signUp } from '../helpers/app.js';
import type { App } from '../../src/http/app-types.js';
import { settleExecutionJob } from './helpers.js';

type Gate = { op: string; qubits: number[]; params?: number[] };
const wire = (n: number, gates: Gate[], measured: number[] = Array.from({ length: n }, (_, q) => q)) => ({
  schema: '0.2',
  num_qubits: n,
  num_clbits: measured.length,
  gates,
  measurements: measured.map((q, c) => ({ qubit: q, clbit: c })),
});
const ghz = (n: number): Gate[] => [{ op: 'h', qubits: [0] }, ...Array.from({ length: n - 1 }, (_, q) => ({ op: 'cx', qubits: [q, q + 1] }))];
/** A nearest-neighbour chain with T gates: not Clifford, low entanglement. */
const chain = (n: number): Gate[] => [...ghz(n), ...Array.from({ length: n }, (_, q) => ({ op: 't', qubits: [q] })), ...Array.from({ length: n }, (_, q) => ({ op: 'h', qubits: [q] }))];

/** p2-local-simulator's qubits (the catalogue's 25, under EXECUTION_SIM_MAX_QUBITS): its statevector limit. */
const SV = 25;

describe('simulation methods on simulator runs', () => {
  let app: App;
  beforeAll(async () => {
    app = await buildTestApp();
  });
  afterAll(async () => {
    await app.close();
  });

  const run = async (auth: Record<string, string>, payload: Record<string, unknown>, provider = 'provider-two') =>
    app.inject({ method: 'POST', url: `/v1/execute/${provider}`, headers: auth, payload });

  it('auto runs a 5 000-qubit GHZ on the stabilizer method and says why', async () => {
    const u = await signUp(app);
    const n = 5000;
    const r = await run(u.auth, { circuit: wire(n, ghz(n), [0, 1, 2500, 4999]), shots: 1000, seed: 3, client_token: 'ghz5000' });
    expect(r.statusCode, r.body).toBe(200);
    const res = r.json().data.results;
    expect(res.meta).toMatchObject({ method: 'stabilizer', method_reason: expect.stringMatching(/Clifford/) });
    expect(Object.keys(res.counts).sort()).toEqual(['0000', '1111']);
    expect(res.probabilities_kind).toBe('exact');
    expect(res.probabilities).toEqual({ '0000': expect.closeTo(0.5, 12), '1111': expect.closeTo(0.5, 12) });
  });

  it('refuses what a method cannot take: statevector above its limit, a non-Clifford gate on the stabilizer, an unknown method', async () => {
    const u = await signUp(app);
    const big = await run(u.auth, { circuit: wire(40, ghz(40)), shots: 10, method: 'statevector', client_token: 'sv40' });
    expect(big.statusCode).toBe(422);
    expect(big.json().error).toMatchObject({ code: 'EXECUTION_TRANSLATION_FAILED', details: { max_qubits: SV, num_qubits: 40 } });
    const t = await run(u.auth, {
      circuit: wire(2, [
        { op: 'h', qubits: [0] },
        { op: 't', qubits: [1] },
      ]),
      shots: 10,
      method: 'stabilizer',
      client_token: 'stab-t',
    });
    expect(t.statusCode).toBe(422);
    expect(t.json().error.code).toBe('SIMULATION_NOT_CLIFFORD');
    expect(t.json().error.details[0]).toMatchObject({ path: '/circuit/gates/1', methods: expect.arrayContaining(['statevector']) });
    const bad = await run(u.auth, { circuit: wire(2, ghz(2)), shots: 10, method: 'tensor', client_token: 'bad' });
    expect(bad.statusCode).toBe(400);
    const sv = await run(u.auth, { circuit: wire(2, ghz(2)), shots: 10, method: 'stabilizer', result_types: ['statevector'], client_token: 'stab-sv' });
    expect(sv.statusCode).toBe(422);
    expect(sv.json().error).toMatchObject({ code: 'SIMULATION_RESULT_TYPE_UNSUPPORTED', details: [{ path: '/result_types' }] });
  });

  it('auto picks an exact MPS for a 60-qubit nearest-neighbour circuit and refuses an all-to-all one naming the methods and limits', async () => {
    const u = await signUp(app);
    const r = await run(u.auth, { circuit: wire(60, chain(60), [0, 30, 59]), shots: 200, seed: 1, client_token: 'mps60' });
    expect(r.statusCode, r.body).toBe(200);
    const res = r.json().data.results;
    expect(res.meta).toMatchObject({ method: 'matrix_product_state', method_reason: expect.stringMatching(/bond dimension/) });
    expect(res.truncation).toMatchObject({ fidelity_lower_bound: 1, max_bond_dimension_reached: 2 });
    expect(res.probabilities_kind).toBe('exact');
    const dense: Gate[] = [];
    for (let a = 0; a < 40; a++) for (let b = a + 1; b < 40; b += 3) dense.push({ op: 'h', qubits: [a] }, { op: 'cx', qubits: [a, b] }, { op: 't', qubits: [b] });
    const no = await run(u.auth, { circuit: wire(40, dense, [0]), shots: 10, client_token: 'dense40' });
    expect(no.statusCode).toBe(422);
    const e = no.json().error;
    expect(e.code).toBe('SIMULATION_METHOD_UNAVAILABLE');
    expect(e.message).toMatch(new RegExp(`statevector limit of ${SV}`));
    expect(e.message).toMatch(/not Clifford-only/);
    expect(e.message).toMatch(/max_bond_dimension/);
  });

  it('matrix_product_state with method_options truncates and reports it; density_matrix gives exact probabilities', async () => {
    const u = await signUp(app);
    const gates: Gate[] = [];
    for (let layer = 0; layer < 8; layer++)
      for (let q = layer % 2; q + 1 < 12; q += 2) gates.push({ op: 'ry', qubits: [q], params: [0.3 + q * 0.1] }, { op: 'cx', qubits: [q, q + 1] }, { op: 't', qubits: [q + 1] });
    const r = await run(u.auth, { circuit: wire(12, gates, [0, 1, 2]), shots: 100, seed: 2, method: 'matrix_product_state', method_options: { max_bond_dimension: 2 }, client_token: 'mps-trunc' });
    expect(r.statusCode, r.body).toBe(200);
    const res = r.json().data.results;
    expect(res.meta.method).toBe('matrix_product_state');
    expect(res.meta.method_reason).toBeUndefined();
    expect(res.truncation.max_bond_dimension_reached).toBe(2);
    expect(res.truncation.fidelity_lower_bound).toBeLessThan(1);
    const dm = await run(u.auth, {
      circuit: wire(3, [...ghz(3), { op: 't', qubits: [0] }, { op: 'h', qubits: [0] }]),
      shots: 100,
      seed: 2,
      method: 'density_matrix',
      result_types: ['probabilities', 'counts'],
      client_token: 'dm',
    });
    expect(dm.statusCode, dm.body).toBe(200);
    expect(dm.json().data.results).toMatchObject({ probabilities_kind: 'exact', meta: { method: 'density_matrix' } });
    const wrongOpts = await run(u.auth, { circuit: wire(2, ghz(2)), method: 'stabilizer', method_options: { max_bond_dimension: 4 }, client_token: 'opts' });
    expect(wrongOpts.statusCode).toBe(400);
    expect(wrongOpts.json().error.details[0].path).toBe('/method_options');
  });

  it('density_matrix takes a noise model in method_options and includes it exactly; noise needs that method and probabilities in range', async () => {
    const u = await signUp(app);
    // X then amplitude damping 0.2: P(1) = 0.8; readout P(read 0 | 1) = 0.1 makes it 0.72.
    const r = await run(u.auth, {
      circuit: wire(1, [{ op: 'x', qubits: [0] }]),
      shots: 100,
      seed: 4,
      method: 'density_matrix',
      method_options: { noise: { amplitude_damping: 0.2, readout_error: [0, 0.1] } },
      result_types: ['probabilities', 'counts'],
      client_token: 'dm-noise',
    });
    expect(r.statusCode, r.body).toBe(200);
    const res = r.json().data.results;
    expect(res.meta.method).toBe('density_matrix');
    expect(res.probabilities_kind).toBe('exact');
    expect(res.probabilities).toEqual({ '0': expect.closeTo(0.28, 12), '1': expect.closeTo(0.72, 12) });
    const auto = await run(u.auth, { circuit: wire(1, [{ op: 'x', qubits: [0] }]), method_options: { noise: { depolarizing_1q: 0.1 } }, client_token: 'noise-auto' });
    expect(auto.statusCode).toBe(400);
    expect(auto.json().error.details[0]).toMatchObject({ path: '/method_options/noise', code: 'METHOD_OPTIONS_UNUSED' });
    const range = await run(u.auth, {
      circuit: wire(1, [{ op: 'x', qubits: [0] }]),
      method: 'density_matrix',
      method_options: { noise: { depolarizing_1q: 1.5 } },
      client_token: 'noise-range',
    });
    expect(range.statusCode).toBe(400);
    expect(JSON.stringify(range.json().error)).toContain('depolarizing_1q');
    const extra = await run(u.auth, { circuit: wire(1, [{ op: 'x', qubits: [0] }]), method: 'density_matrix', method_options: { noise: { t1: 5 } }, client_token: 'noise-extra' });
    expect(extra.statusCode).toBe(400);
  });

  it('the async and batch forms take the method too', async () => {
    const u = await signUp(app);
    const q = await run(u.auth, { circuit: wire(1000, ghz(1000), [0, 999]), shots: 500, seed: 4, client_token: 'async-stab', async: true });
    expect(q.statusCode, q.body).toBe(202);
    await settleExecutionJob(app, q.json().data.job_id);
    const done = (await app.inject({ method: 'GET', url: `/v1/execute/provider-two/${q.json().data.job_id}`, headers: u.auth })).json().data;
    expect(done.status).toBe('completed');
    expect(done.results.meta.method).toBe('stabilizer');
    expect(Object.keys(done.results.counts).sort()).toEqual(['00', '11']);
    const b = await app.inject({
      method: 'POST',
      url: '/v1/execute/provider-two/batch',
      headers: u.auth,
      payload: { circuits: [wire(3, ghz(3)), wire(3, [...ghz(3), { op: 't', qubits: [0] }])], shots: 50, seed: 1, method: 'density_matrix', client_token: 'batch-dm' },
    });
    expect(b.statusCode, b.body).toBe(200);
    const items = b.json().data.items;
    expect(items.map((i: { status: string }) => i.status)).toEqual(['completed', 'completed']);
    expect(items[0].job.results.meta.method).toBe('density_matrix');
  });

  it('the simulator device lists its methods with their qubit limits', async () => {
    const r = await app.inject({ method: 'GET', url: '/v1/execute/provider-two/devices' });
    const sim = r.json().data.devices.find((d: { id: string }) => d.id === 'p2-local-simulator');
    expect(sim.methods).toEqual([
      { method: 'statevector', max_qubits: SV, result_types: ['counts', 'memory', 'probabilities', 'statevector', 'expectation'] },
      { method: 'stabilizer', max_qubits: 16384, result_types: ['counts', 'memory', 'probabilities', 'expectation'] },
      { method: 'matrix_product_state', max_qubits: 1024, result_types: ['counts', 'memory', 'probabilities', 'expectation'] },
      { method: 'density_matrix', max_qubits: 14, result_types: ['counts', 'memory', 'probabilities', 'expectation'] },
    ]);
    const hw = r.json().data.devices.find((d: { kind: string }) => d.kind === 'hardware');
    expect(hw.methods).toBeNull();
  });
});
