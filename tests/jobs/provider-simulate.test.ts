import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { getExample } from '../../src/circuits/examples.js';
import type { App } from '../../src/http/app-types.js';
import { buildTestApp } from '../helpers/app.js';
import { expectAllInvariants, key, newAgent, type Agent } from './helpers.js';

const bell = getExample('bell');
const micros = (s: string) => BigInt(s.replace('.', ''));

describe('provider-one / provider-two simulator execution as prepaid jobs, over real HTTP', () => {
  let app: App;
  let a: Agent;
  let base: string;
  beforeAll(async () => {
    app = await buildTestApp();
    a = await newAgent(app, { fundMicros: 5_000_000n });
    await app.listen({ port: 0, host: '127.0.0.1' });
    base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  });
  afterEach(async () => expectAllInvariants(app));
  afterAll(async () => app.close());

  const call = async (method: string, path: string, auth: { authorization: string }, body?: unknown) => {
    const r = await fetch(base + path, {
      method,
      headers: { ...auth, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return { status: r.status, headers: r.headers, body: (await r.json()) as Record<string, any> };
  };

  it('the catalog lists both with request schema, example and pricing rule', async () => {
    const caps = (await call('GET', '/v1/catalog', { authorization: '' })).body['capabilities'] as Array<Record<string, any>>;
    for (const [id, device] of [
      ['provider-one.simulate', 'p1-simulator'],
      ['provider-two.simulate', 'p2-local-simulator'],
    ]) {
      const c = caps.find((x) => x.capability_id === id);
      expect(c, id).toBeDefined();
      expect(c?.product).toBe('product-one');
      expect(c?.description).toContain(device);
      expect(c?.request_schema.required).toEqual(['circuit']);
      expect(c?.request_schema.properties.shots.maximum).toBe(100_000);
      expect(c?.pricing.example_price).toBe('0.000210');
      expect(c?.on_interrupted).toBe('rerun');
    }
  });

  for (const provider of ['provider-one', 'provider-two'] as const) {
    it(`${provider}.simulate: submit → queued → worker → completed with the counts of POST /v1/execute/${provider}, charged once`, async () => {
      const before = (await call('GET', '/v1/account/balance', a.auth)).body;
      const k = key(provider);
      const r = await call('POST', '/v1/jobs', a.auth, { capability_id: `${provider}.simulate`, request: { circuit: bell, shots: 2000, seed: 11 }, idempotency_key: k, max_total_price: '0.01' });
      expect(r.status, JSON.stringify(r.body)).toBe(202);
      expect(r.body).toMatchObject({ status: 'queued', capability_id: `${provider}.simulate`, quoted_price: '0.000220', reserved_price: '0.000220' });
      expect(r.headers.get('location')).toBe(`/v1/jobs/${r.body['job_id']}`);

      expect(await app.services.jobsWorker.runOnce()).toEqual({ jobId: r.body['job_id'], status: 'completed' });
      const done = (await call('GET', `/v1/jobs/${r.body['job_id']}`, a.auth)).body;
      expect(done['status']).toBe('completed');
      expect(done['transitions'].map((t: { to: string }) => t.to)).toEqual(['quoted', 'reserved', 'queued', 'running', 'result_saved', 'completed']);
      expect(done['receipt']).toMatchObject({ amount_captured: '0.000220', amount_released: '0.000000', payment_rail: 'account_core_balance' });
      const res = done['result'];
      expect(res).toMatchObject({ provider, shots: 2000, seed: 11, status: 'completed' });
      const counts = res.results.counts as Record<string, number>;
      expect(Object.keys(counts).sort()).toEqual(['00', '11']);
      expect(Object.values(counts).reduce((x, y) => x + y, 0)).toBe(2000);

      // The same domain code: the platform endpoint with the same seed gives the same counts.
      const platform = await call('POST', `/v1/execute/${provider}`, a.session, { circuit: bell, shots: 2000, seed: 11, client_token: key('platform') });
      expect(platform.status).toBe(200);
      expect(platform.body['data'].results.counts).toEqual(counts);
      // The run is an execution job of the account, readable on the platform interface.
      const ex = await call('GET', `/v1/execute/${provider}/${res.execution_job_id}`, a.session);
      expect(ex.body['data']).toMatchObject({ status: 'completed', client_token: `job-${r.body['job_id']}` });
      expect(ex.body['data'].results.counts).toEqual(counts);

      const after = (await call('GET', '/v1/account/balance', a.auth)).body;
      expect(micros(before['available']) - micros(after['available'])).toBe(220n);
      expect(after['held']).toBe(before['held']);
    });
  }

  it('validation: too many qubits for the device and too many shots → 400 with /request paths; price grows with qubits', async () => {
    // Not Clifford (T gates) and entangled across the middle (no exact MPS): only the state vector takes it, up to the device's qubits.
    const gates = [...Array.from({ length: 13 }, (_, q) => ({ op: 'h', qubits: [q] })), ...Array.from({ length: 13 }, (_, q) => ({ op: 'cx', qubits: [q, 25 - q] })), { op: 't', qubits: [0] }];
    const wide = { schema: '0.2', num_qubits: 26, num_clbits: 0, gates, measurements: [] };
    const p2 = await call('POST', '/v1/jobs', a.auth, { capability_id: 'provider-two.simulate', request: { circuit: wide }, idempotency_key: key(), max_total_price: '1' });
    expect(p2.status).toBe(422);
    expect(p2.body['error']).toMatchObject({ code: 'SIMULATION_METHOD_UNAVAILABLE' });
    expect(p2.body['error'].message).toMatch(/statevector limit of 25/);
    const shots = await call('POST', '/v1/jobs', a.auth, { capability_id: 'provider-one.simulate', request: { circuit: bell, shots: 100_001 }, idempotency_key: key(), max_total_price: '1' });
    expect(shots.status).toBe(400);
    expect(shots.body['error'].details).toContainEqual(expect.objectContaining({ path: '/request/shots' }));
    // 26 qubits fit provider one's simulator (28): 0.000200 + 11 × 2^16 at the default 1024 shots.
    const big = await call('POST', '/v1/jobs', a.auth, { capability_id: 'provider-one.simulate', request: { circuit: wide }, idempotency_key: key(), max_total_price: '0.5' });
    expect(big.status).toBe(409);
    expect(big.body['error']).toMatchObject({ code: 'PRICE_ABOVE_MAXIMUM', details: { quoted_price: '0.721096' } });
  });

  it('a re-run after a worker crash returns the first execution run instead of running twice', async () => {
    const cap = app.services.jobs.capabilities.get('provider-two.simulate');
    if (cap === undefined) throw new Error('provider-two.simulate is not in the catalog');
    const prepared = cap.prepare({ circuit: bell, shots: 100 });
    const ctx = { jobId: '6f1c1c1e-0000-4000-8000-000000000001', accountId: a.accountId, attempt: 1, signal: new AbortController().signal };
    const first = await cap.run(prepared, ctx);
    const again = await cap.run(prepared, { ...ctx, attempt: 2 });
    expect(again['execution_job_id']).toBe(first['execution_job_id']);
    expect(again['results']).toEqual(first['results']);
  });

  it('EXECUTION_SIM_MAX_QUBITS bounds what the catalog promises: its schema and description say the lower limit', async () => {
    const small = await buildTestApp({ EXECUTION_SIM_MAX_QUBITS: '3' });
    try {
      const caps = (await small.inject({ method: 'GET', url: '/v1/catalog' })).json().capabilities as { capability_id: string; description: string }[];
      for (const id of ['provider-one.simulate', 'provider-two.simulate']) {
        const cap = caps.find((c) => c.capability_id === id)!;
        expect(cap.description).toContain('up to 3 qubits');
      }
    } finally {
      await small.close();
    }
  });

  it('a provider switched off is not in the catalog', async () => {
    const off = await buildTestApp({ EXECUTION_PROVIDER_ONE: 'off' });
    try {
      const ids = (await off.inject({ method: 'GET', url: '/v1/catalog' })).json().capabilities.map((c: { capability_id: string }) => c.capability_id);
      expect(ids).toContain('provider-two.simulate');
      expect(ids).not.toContain('provider-one.simulate');
    } finally {
      await off.close();
    }
  });

  it('provider-two.simulate takes a sweep with result types: priced per point, one execution job, results per point', async () => {
    const circuit = { schema: '0.2', num_qubits: 1, num_clbits: 1, parameters: ['t'], gates: [{ op: 'ry', qubits: [0], params: ['t'] }], measurements: [{ qubit: 0, clbit: 0 }] };
    const points = [{ t: 0 }, { t: Math.PI / 2 }, { t: Math.PI }];
    const body = { circuit, shots: 100, seed: 3, parameter_values: points, result_types: ['counts', 'expectation'], observables: [{ pauli: 'Z', coeff: 2 }] };
    const r = await call('POST', '/v1/jobs', a.auth, { capability_id: 'provider-two.simulate', request: body, idempotency_key: key('sweep'), max_total_price: '0.01' });
    expect(r.status, JSON.stringify(r.body)).toBe(202);
    // 0.000200 + 0.000001 × 1 block × 1, three points.
    expect(r.body['quoted_price']).toBe('0.000603');
    expect(await app.services.jobsWorker.runOnce()).toEqual({ jobId: r.body['job_id'], status: 'completed' });
    const done = (await call('GET', `/v1/jobs/${r.body['job_id']}`, a.auth)).body;
    const res = done['result'].results;
    expect(res.points.map((p: { expectation: { value: number } }) => p.expectation.value)).toEqual([expect.closeTo(2, 12), expect.closeTo(0, 12), expect.closeTo(-2, 12)]);
    // Per-shot memory is priced by the bitstrings it returns: 3 points × 400 shots = 1 200 → 2 blocks of 1 000.
    const mem = await call('POST', '/v1/jobs', a.auth, {
      capability_id: 'provider-two.simulate',
      request: { ...body, shots: 400, result_types: ['counts', 'memory'], observables: undefined },
      idempotency_key: key('sweep-memory'),
      max_total_price: '0.01',
    });
    expect(mem.status, JSON.stringify(mem.body)).toBe(202);
    // (0.000200 + 0.000001 × 4 blocks) × 3 points + 0.000001 × 2.
    expect(mem.body['quoted_price']).toBe('0.000614');
    expect(await app.services.jobsWorker.runOnce()).toEqual({ jobId: mem.body['job_id'], status: 'completed' });
    const memDone = (await call('GET', `/v1/jobs/${mem.body['job_id']}`, a.auth)).body;
    expect(memDone['receipt']).toMatchObject({ amount_captured: '0.000614' });
    for (const pt of memDone['result'].results.points as { counts: Record<string, number>; memory: string[] }[]) {
      expect(pt.memory).toHaveLength(400);
      const hist: Record<string, number> = {};
      for (const b of pt.memory) hist[b] = (hist[b] ?? 0) + 1;
      expect(hist).toEqual(pt.counts);
    }
    // An unbound parameter is a 400 at submission: nothing is held.
    const bad = await call('POST', '/v1/jobs', a.auth, {
      capability_id: 'provider-two.simulate',
      request: { circuit, shots: 10, parameter_values: [{ u: 1 }] },
      idempotency_key: key('sweep-bad'),
      max_total_price: '0.01',
    });
    expect(bad.status).toBe(400);
    expect(JSON.stringify(bad.body)).toContain('PARAMETER_UNKNOWN');
  });
});
