/**
 * Catalog honesty (issue #21 item 6): the `circuit.analyze` job returns what POST
 * /v1/circuits/analyze returns, entangled pairs included, their probe run on the compute pool;
 * a capability that cannot run now is listed `available: false` with the reason, and a
 * submission to it gets 503 CAPABILITY_UNAVAILABLE with nothing reserved.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/http/app-types.js';
import { buildTestApp } from '../helpers/app.js';
import { bell } from '../helpers/circuits.js';
import { openapiDocument, ResponseChecker } from '../helpers/openapi.js';
import { expectAllInvariants, key, newAgent, submit, type Agent } from './helpers.js';

/** n qubits in a chain of CNOTs: beyond the probe's 12 qubits its pairs are not simulated (null, with the reason). */
function chain(n: number) {
  return { schema: '0.2', num_qubits: n, num_clbits: 0, gates: [{ op: 'h', qubits: [0] }, ...Array.from({ length: n - 1 }, (_, q) => ({ op: 'cx', qubits: [q, q + 1] }))], measurements: [] };
}

describe('catalog honesty', () => {
  let app: App;
  let a: Agent;
  const tasks: string[] = [];
  let checker: ResponseChecker;
  beforeAll(async () => {
    app = await buildTestApp({ TTS_ENGINE: 'off' });
    checker = new ResponseChecker(await openapiDocument(app));
    a = await newAgent(app, { fundMicros: 1_000_000n });
    // Which compute tasks run (the capabilities reach the app's pool through this method).
    const run = app.compute.run.bind(app.compute);
    const spy: typeof app.compute.run = (task, input, opts) => {
      tasks.push(task);
      return run(task, input, opts);
    };
    app.compute.run = spy;
  });
  afterEach(async () => expectAllInvariants(app));
  afterAll(async () => app.close());

  const catalog = async () => {
    const r = await app.inject({ method: 'GET', url: '/v1/catalog' });
    expect(checker.check('GET', '/v1/catalog', r.statusCode, r.headers, r.body)).toEqual([]);
    return r.json<{ capabilities: Array<{ capability_id: string; available: boolean; unavailable_reason: string | null }> }>().capabilities;
  };
  const balance = async () => (await app.inject({ method: 'GET', url: '/v1/account/balance', headers: a.auth })).json();

  it('circuit.analyze as a job answers exactly what POST /v1/circuits/analyze answers, entangled pairs from the compute pool', async () => {
    for (const circuit of [bell, chain(4), chain(14)]) {
      tasks.length = 0;
      const s = await submit(app, a, { capability_id: 'circuit.analyze', request: { circuit }, idempotency_key: key('analyze'), max_total_price: '0.1' });
      expect(s.statusCode).toBe(202);
      expect((await app.services.jobsWorker.runOnce())?.status).toBe('completed');
      const job = (await app.inject({ method: 'GET', url: `/v1/jobs/${s.json().job_id}`, headers: a.auth })).json();
      const endpoint = (await app.inject({ method: 'POST', url: '/v1/circuits/analyze', payload: { circuit } })).json().data;
      expect(job.result).toEqual(endpoint);
      // The probe simulates only circuits within its scope, on the pool (the job's and the endpoint's run).
      expect(tasks.filter((t) => t === 'circuit.entangled-pairs')).toHaveLength(circuit.num_qubits <= 12 ? 2 : 0);
    }
    const s = await submit(app, a, { capability_id: 'circuit.analyze', request: { circuit: bell }, idempotency_key: key('analyze'), max_total_price: '0.1' });
    await app.services.jobsWorker.runOnce();
    const result = (await app.inject({ method: 'GET', url: `/v1/jobs/${s.json().job_id}`, headers: a.auth })).json().result;
    expect(result.entanglement).toMatchObject({ entangled_pairs: [[0, 1]] });
    expect(result.entanglement.entangled_pairs_method).toEqual(expect.any(String));
  });

  it('a capability that cannot run now is listed available: false with the reason, and refused with 503 before anything is reserved', async () => {
    const speech = (await catalog()).find((c) => c.capability_id === 'speech.synthesize');
    expect(speech).toMatchObject({ available: false, unavailable_reason: expect.stringContaining('TTS_ENGINE=off') });
    expect((await catalog()).find((c) => c.capability_id === 'circuit.simulate')).toMatchObject({ available: true, unavailable_reason: null });

    const before = await balance();
    const k = key('speech');
    const r = await submit(app, a, { capability_id: 'speech.synthesize', request: { text: 'hello' }, idempotency_key: k, max_total_price: '0.1' });
    expect(r.statusCode).toBe(503);
    expect(r.json().error).toMatchObject({ code: 'CAPABILITY_UNAVAILABLE', details: { reason: speech?.unavailable_reason } });
    expect(checker.check('POST', '/v1/jobs', r.statusCode, r.headers, r.body)).toEqual([]);
    expect(await balance()).toMatchObject({ available: before.available, held: before.held });
    expect((await app.db.query('SELECT 1 FROM jobs WHERE account_id = $1 AND idempotency_key = $2', [a.accountId, k])).rows).toHaveLength(0);
    // Nothing was stored under the key: it is free for another request.
    expect((await submit(app, a, { capability_id: 'circuit.analyze', request: { circuit: bell }, idempotency_key: k, max_total_price: '0.1' })).statusCode).toBe(202);
    // An invalid request is still a 400 (its problems come first).
    expect((await submit(app, a, { capability_id: 'speech.synthesize', request: { text: '' }, idempotency_key: key('speech'), max_total_price: '0.1' })).statusCode).toBe(400);
    await app.services.jobsWorker.drain();
  });

  it('a provider simulator whose device is down is unavailable until it is back', async () => {
    await app.services.execution.setDeviceStatus('p1-simulator', 'maintenance', 'planned work');
    try {
      expect((await catalog()).find((c) => c.capability_id === 'provider-one.simulate')).toMatchObject({ available: false, unavailable_reason: expect.stringContaining('maintenance') });
      const r = await submit(app, a, { capability_id: 'provider-one.simulate', request: { circuit: bell }, idempotency_key: key('p1'), max_total_price: '0.1' });
      expect(r.statusCode).toBe(503);
      expect(r.json().error.code).toBe('CAPABILITY_UNAVAILABLE');
    } finally {
      await app.services.execution.setDeviceStatus('p1-simulator', null);
    }
    expect((await catalog()).find((c) => c.capability_id === 'provider-one.simulate')).toMatchObject({ available: true });
  });
});
