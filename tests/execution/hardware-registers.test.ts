import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, signUp } from '../helpers/app.js';
import { fundAccount } from '../helpers/ledger.js';
import type { App } from '../../src/http/app-types.js';

/**
 * Issue 34 item 8: counts (and memory) on hardware are split by classical register as on the
 * simulator (docs/workloads.md): "1 0" with `registers`, the last declared register leftmost —
 * here through quote → hold → continue on the emulated grid device.
 */
describe('hardware counts split by classical register', () => {
  let app: App;
  beforeAll(async () => {
    app = await buildTestApp({ EXECUTION_EMULATED_NOISE: 'off' });
  });
  afterAll(async () => {
    await app.close();
  });

  // x on q1; q0 → register a (1 bit), q1 → register b (1 bit): exactly "1 0" every shot.
  const circuit = {
    schema: '0.2',
    num_qubits: 2,
    num_clbits: 2,
    registers: [
      { name: 'a', size: 1 },
      { name: 'b', size: 1 },
    ],
    gates: [{ op: 'x', qubits: [1] }],
    measurements: [
      { qubit: 0, clbit: 0 },
      { qubit: 1, clbit: 1 },
    ],
  };

  async function holdAndRun(auth: { authorization: string }, token: string, extra: Record<string, unknown>) {
    const q = await app.inject({ method: 'POST', url: '/v1/billing/hardware/quote', headers: auth, payload: { provider: 'provider-two', device: 'p2-grid-9', shots: 100, ...extra } });
    expect(q.statusCode, q.body).toBe(200);
    const h = await app.inject({ method: 'POST', url: '/v1/billing/hardware/hold', headers: auth, payload: { quote_id: q.json().data.quote_id } });
    expect(h.statusCode, h.body).toBe(201);
    const id = h.json().data.job_id as string;
    const cont = await app.inject({ method: 'POST', url: `/v1/execute/provider-two/held/${id}`, headers: auth, payload: { circuit, client_token: token, seed: 5, ...extra } });
    expect(cont.statusCode, cont.body).toBe(202);
    await app.services.executionWorker.drain();
    const done = await app.inject({ method: 'GET', url: `/v1/execute/provider-two/${id}`, headers: auth });
    expect(done.statusCode).toBe(200);
    return done.json().data;
  }

  it('plain counts: keys split by register, with registers', async () => {
    const u = await signUp(app);
    await fundAccount(app, u.accountId, 10_000_000n);
    const done = await holdAndRun(u.auth, 'reg-plain', {});
    expect(done.status).toBe('completed');
    expect(done.results.counts).toEqual({ '1 0': 100 });
    expect(done.results.registers).toEqual([
      { name: 'a', size: 1 },
      { name: 'b', size: 1 },
    ]);
    // The simulator gives the same shape for the same circuit.
    const sim = await app.inject({
      method: 'POST',
      url: '/v1/execute/provider-two',
      headers: u.auth,
      payload: { circuit, device: 'p2-local-simulator', shots: 100, seed: 5, client_token: 'reg-sim' },
    });
    expect(sim.statusCode, sim.body).toBe(200);
    expect(sim.json().data.results.counts).toEqual(done.results.counts);
    expect(sim.json().data.results.registers).toEqual(done.results.registers);
  });

  it('counts and memory: memory split the same way', async () => {
    const u = await signUp(app);
    await fundAccount(app, u.accountId, 10_000_000n);
    const done = await holdAndRun(u.auth, 'reg-mem', { result_types: ['counts', 'memory'] });
    expect(done.status).toBe('completed');
    expect(done.results.counts).toEqual({ '1 0': 100 });
    expect(done.results.memory).toHaveLength(100);
    expect(new Set(done.results.memory)).toEqual(new Set(['1 0']));
    expect(done.results.registers).toEqual([
      { name: 'a', size: 1 },
      { name: 'b', size: 1 },
    ]);
  });
});
