import { existsSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { getExample } from '../../src/circuits/examples.js';
import type { App } from '../../src/http/app-types.js';
import { buildTestApp } from '../helpers/app.js';
import { expectAllInvariants, key, newAgent, submit, type Agent } from './helpers.js';

const PRICE = /^(?:0|[1-9]\d*)\.\d{6}$/;
const bell = getExample('bell');

describe('live catalog and one lifecycle per capability over HTTP', () => {
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

  /** A request over a real socket (the lifecycles below go through the listening server). */
  const call = async (method: 'GET' | 'POST', path: string, body?: unknown) => {
    const r = await fetch(base + path, {
      method,
      headers: { ...a.auth, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await r.text();
    return { status: r.status, text, body: JSON.parse(text) as Record<string, any> };
  };

  /** Submit → 202 queued → worker → completed, over real HTTP; checks price, receipt and balance movement. */
  async function lifecycle(capability_id: string, request: Record<string, unknown>) {
    const before = (await call('GET', '/v1/account/balance')).body;
    const r = await call('POST', '/v1/jobs', { capability_id, request, idempotency_key: key(capability_id), max_total_price: '1.000000' });
    expect(r.status, r.text).toBe(202);
    const queued = r.body;
    expect(queued).toMatchObject({ status: 'queued', capability_id, product: capability_id.startsWith('speech.') ? 'product-two' : 'product-one', payment_rail: 'account_core_balance' });
    expect(queued['quoted_price']).toMatch(PRICE);
    expect(await app.services.jobsWorker.runOnce()).toEqual({ jobId: queued['job_id'], status: 'completed' });
    const got = await call('GET', (queued['retrieval_url'] as string).replace('http://qrail.test', ''));
    expect(got.status).toBe(200);
    const done = got.body;
    expect(done.status).toBe('completed');
    expect(done.receipt.amount_captured).toBe(queued['quoted_price']);
    const after = (await call('GET', '/v1/account/balance')).body;
    const micros = (s: string) => BigInt(s.replace('.', ''));
    expect(micros(before['available']) - micros(after['available'])).toBe(micros(queued['quoted_price']));
    expect(after['held']).toBe(before['held']);
    return done;
  }

  it('GET /v1/catalog lists every capability with product, pricing rule, request schema and a valid example', async () => {
    // Public: no token needed, over a real socket.
    const r = await fetch(`${base}/v1/catalog`);
    expect(r.status).toBe(200);
    const caps = ((await r.json()) as { capabilities: Array<Record<string, any>> }).capabilities;
    const ids = caps.map((c) => c.capability_id);
    expect(ids).toEqual(expect.arrayContaining(['circuit.simulate', 'circuit.analyze', 'circuit.optimize', 'coupling.analyze', 'provider-one.simulate', 'provider-two.simulate', 'speech.synthesize']));
    for (const c of caps) {
      expect(['product-one', 'product-two', 'robotics']).toContain(c.product);
      expect(c.description.length).toBeGreaterThan(10);
      expect(c.pricing.formula.length).toBeGreaterThan(5);
      expect(c.pricing.example_price).toMatch(PRICE);
      expect(c.request_schema.type).toBe('object');
      expect(c.request_schema.additionalProperties).toBe(false);
      expect(c.example.capability_id).toBe(c.capability_id);
    }
    const sim = caps.find((c) => c.capability_id === 'circuit.simulate');
    expect(sim?.request_schema.required).toEqual(['circuit', 'shots']);
    expect(JSON.stringify(sim?.request_schema)).toContain('"0.2"');
    // Every published example is accepted as is, by a capability that can run here; one that
    // cannot (no speech engine on this machine) is refused before anything is reserved.
    for (const c of caps.filter((x) => x.available === false)) {
      const s = await submit(app, a, { ...c.example, idempotency_key: key('example') });
      expect(s.statusCode, `${c.capability_id}: ${s.body}`).toBe(503);
    }
    for (const c of caps.filter((x) => x.available === true)) {
      const s = await submit(app, a, { ...c.example, idempotency_key: key('example') });
      expect(s.statusCode, `${c.capability_id}: ${s.body}`).toBe(202);
      expect(s.json().quoted_price).toBe(c.pricing.example_price);
    }
    await app.services.jobsWorker.drain();
  });

  it('circuit.simulate: Bell state counts, price from shots and qubits', async () => {
    const done = await lifecycle('circuit.simulate', { circuit: bell, shots: 1000, seed: 7 });
    expect(done.quoted_price).toBe('0.000110');
    expect(done.quote.breakdown).toMatchObject({ shots: 1000, num_qubits: 2, qubit_factor: 1 });
    const counts = done.result.counts as Record<string, number>;
    expect(Object.keys(counts).sort()).toEqual(['00', '11']);
    expect(Object.values(counts).reduce((x, y) => x + y, 0)).toBe(1000);
    expect(done.result.seed).toBe(7);
  });

  it('circuit.simulate: bigger circuits cost more; over the ceiling → 409 PRICE_ABOVE_MAXIMUM; invalid circuits → 400 with /request paths', async () => {
    // Not Clifford (a T gate), so auto runs (and prices) it on the state vector.
    const wide = { schema: '0.2', num_qubits: 22, num_clbits: 0, gates: [{ op: 't', qubits: [0] }], measurements: [] };
    const r = await submit(app, a, { capability_id: 'circuit.simulate', request: { circuit: wide, shots: 100000 }, idempotency_key: key(), max_total_price: '1' });
    expect(r.statusCode).toBe(409);
    expect(r.json().error.code).toBe('PRICE_ABOVE_MAXIMUM');
    expect(r.json().error.details.quoted_price).toBe('4.096100');
    const bad = {
      schema: '0.2',
      num_qubits: 2,
      gates: [
        { op: 'cx', qubits: [0, 5] },
        { op: 'nope', qubits: [0] },
      ],
    };
    const v = await submit(app, a, { capability_id: 'circuit.simulate', request: { circuit: bad, shots: 10 }, idempotency_key: key(), max_total_price: '1' });
    expect(v.statusCode).toBe(400);
    expect(v.json().error.code).toBe('CIRCUIT_INVALID');
    const paths = v.json().error.details.map((d: { path: string }) => d.path);
    expect(paths.every((p: string) => p.startsWith('/request/circuit/gates/'))).toBe(true);
    expect(paths.length).toBeGreaterThanOrEqual(2);
    const shots = await submit(app, a, { capability_id: 'circuit.simulate', request: { circuit: bell, shots: 0 }, idempotency_key: key(), max_total_price: '1' });
    expect(shots.json().error.details).toContainEqual(expect.objectContaining({ path: '/request/shots', code: 'TOO_SMALL' }));
  });

  it('circuit.analyze: the analysis of POST /v1/circuits/analyze', async () => {
    const done = await lifecycle('circuit.analyze', { circuit: bell });
    const platform = (await app.inject({ method: 'POST', url: '/v1/circuits/analyze', payload: { circuit: bell } })).json().data;
    expect(done.result.depth).toBe(platform.depth);
    expect(done.result.compatibility).toEqual(platform.compatibility);
    expect(done.quoted_price).toBe('0.000204');
  });

  it('circuit.optimize: a proven-equivalent circuit', async () => {
    const done = await lifecycle('circuit.optimize', { circuit: getExample('optimizable'), profile: 'safe' });
    expect(done.result.proof.verified).toBe(true);
    expect(done.result.circuit.schema).toBe('0.2');
    expect(done.result.metrics_after).toBeDefined();
  });

  it('coupling.analyze: measured coupling of a Bell pair', async () => {
    const done = await lifecycle('coupling.analyze', { circuit: bell, mode: 'measured' });
    expect(done.result.mode_used).toBe('measured');
    expect(done.result.num_qubits).toBe(2);
  });

  it.skipIf(!existsSync('/usr/bin/espeak-ng') && !existsSync('/usr/local/bin/espeak-ng'))('speech.synthesize: a WAV from the local speech engine (product-two)', async () => {
    const done = await lifecycle('speech.synthesize', { text: 'Hello qubits.' });
    expect(done.quoted_price).toBe('0.000630');
    expect(done.result.mime_type).toBe('audio/wav');
    expect(Buffer.from(done.result.audio_base64, 'base64').subarray(0, 4).toString('latin1')).toBe('RIFF');
  });
});
