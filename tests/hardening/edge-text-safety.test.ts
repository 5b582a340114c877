import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/http/app-types.js';
import { buildTestApp, signUp } from '../helpers/app.js';
import { newAgent, type Agent } from '../jobs/helpers.js';

// Runs on PGlite, and on PostgreSQL when DATABASE_URL is set: both refused these strings with a 500.
const OPERATOR = 'operator-token-for-edge-tests-0123456789';
const BELL = {
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

type Reply = { statusCode: number; json: () => any };

function expectRefused(r: Reply, where: { in: string; path: string }, code = 'INVALID_CHARACTERS'): void {
  expect(r.statusCode, JSON.stringify(r.json())).toBe(400);
  const e = r.json().error;
  expect(e.code).toBe(code);
  expect(e.details).toEqual(expect.arrayContaining([expect.objectContaining(where)]));
}

describe('NUL bytes and lone surrogates are refused at the edge', () => {
  let app: App;
  let session: { authorization: string };
  let agent: Agent;
  beforeAll(async () => {
    app = await buildTestApp({ QRAIL_OPERATOR_TOKEN: OPERATOR });
    session = (await signUp(app)).auth;
    agent = await newAgent(app);
  });
  afterAll(async () => app.close());

  it('a credential name with U+0000 → 400 at /name, nothing stored', async () => {
    const r = await app.inject({ method: 'POST', url: '/v1/auth/credentials', headers: session, payload: { name: 'a\u0000b', scopes: ['jobs:read'] } });
    expectRefused(r, { in: 'body', path: '/name' });
    expect(r.json().status).toBe('error');
    const list = await app.inject({ method: 'GET', url: '/v1/auth/credentials', headers: session });
    expect(list.json().data.credentials).toEqual([]);
  });

  it('?idempotency_key=%00 on GET /v1/jobs → 400 in the Jobs shape, naming the parameter', async () => {
    const r = await app.inject({ method: 'GET', url: '/v1/jobs?idempotency_key=%00', headers: agent.auth });
    expectRefused(r, { in: 'querystring', path: '/idempotency_key' });
    expect(typeof r.json().request_id).toBe('string');
  });

  it('circuit metadata with U+0000, a lone surrogate, or such a key → 400 on the Jobs submit and on execution', async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ note: 'a\u0000b' }, '/metadata/note'],
      [{ note: 'x\ud800y' }, '/metadata/note'],
      [{ note: '\udc00' }, '/metadata/note'],
      [{ ['k\u0000']: 1 }, '/metadata/k\u0000'],
      [{ nested: [{ deep: 'ok' }, '\ud83d'] }, '/metadata/nested/1'],
    ];
    for (const [metadata, path] of cases) {
      const job = await app.inject({
        method: 'POST',
        url: '/v1/jobs',
        headers: agent.auth,
        payload: {
          capability_id: 'circuit.simulate',
          request: { circuit: { ...BELL, metadata }, shots: 10 },
          idempotency_key: `meta-${Math.random().toString(36).slice(2)}`,
          max_total_price: '1.000000',
        },
      });
      expectRefused(job, { in: 'body', path: `/request/circuit${path}` });
      const run = await app.inject({
        method: 'POST',
        url: '/v1/execute/provider-one',
        headers: session,
        payload: { circuit: { ...BELL, metadata }, shots: 10, client_token: `meta-${Math.random().toString(36).slice(2)}` },
      });
      expectRefused(run, { in: 'body', path: `/circuit${path}` });
    }
    // A well-formed astral character (a surrogate pair) is fine.
    const ok = await app.inject({ method: 'POST', url: '/v1/circuits/validate', payload: { circuit: { ...BELL, metadata: { note: 'ok \ud83d\ude00' } } } });
    expect(ok.statusCode).toBe(200);
  });

  it('sandbox processor pages with %00 in the path → 400', async () => {
    for (const [method, url] of [
      ['GET', '/v1/billing/processor/sandbox/checkout/%00'],
      ['POST', '/v1/billing/processor/sandbox/checkout/cs_%00/pay'],
      ['GET', '/v1/billing/processor/sandbox/portal/%00'],
      ['POST', '/v1/billing/processor/sandbox/portal/a%00b/payment-method'],
    ] as const) {
      const r = await app.inject({ method, url, ...(method === 'POST' ? { headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: 'card=pm_card_visa' } : {}) });
      expectRefused(r, { in: 'params', path: '/id' });
    }
    const form = await app.inject({ method: 'POST', url: '/v1/billing/processor/sandbox/checkout/cs_x/pay', headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: 'card=pm%00' });
    expectRefused(form, { in: 'body', path: '/card' });
  });

  it('an operator credit-grant reason with U+0000 → 400 at /reason, no credit', async () => {
    const u = await signUp(app);
    const r = await app.inject({
      method: 'POST',
      url: '/v1/billing/operator/credit-grant',
      headers: { authorization: `Bearer ${OPERATOR}` },
      payload: { email: u.email, amount: '1.00', reason: 'promo\u0000' },
    });
    expectRefused(r, { in: 'body', path: '/reason' });
    const w = await app.inject({ method: 'GET', url: '/v1/billing/wallet', headers: u.auth });
    expect(w.json().data.available).toBe('0.000000');
  });

  it('a header with U+0000 (Idempotency-Key) → 400 naming the header', async () => {
    const r = await app.inject({ method: 'POST', url: '/v1/billing/hardware/quote', headers: { ...session, 'idempotency-key': 'k\u0000' }, payload: { device: 'p2-ion-11', shots: 10 } });
    expectRefused(r, { in: 'headers', path: '/idempotency-key' });
  });

  it('JSON nested deeper than the bound → 400 JSON_TOO_DEEP, before parsing', async () => {
    // Built as text: JSON.stringify itself recurses.
    const deep = `${'{"a":'.repeat(5_000)}"leaf"${'}'.repeat(5_000)}`;
    const body = `{"circuit":${JSON.stringify(BELL).slice(0, -1)},"metadata":${deep}}}`;
    const r = await app.inject({ method: 'POST', url: '/v1/circuits/validate', headers: { 'content-type': 'application/json' }, payload: body });
    expect(r.statusCode).toBe(400);
    // A JSON body is refused before it is parsed (src/http/plugins/json-body.ts): nothing to point at yet.
    expect(r.json().error.code).toBe('JSON_TOO_DEEP');
    const arr = `${'['.repeat(100_000)}${']'.repeat(100_000)}`;
    const a = await app.inject({ method: 'POST', url: '/v1/circuits/analyze', headers: { 'content-type': 'application/json' }, payload: `{"circuit":${arr}}` });
    expect(a.statusCode).toBe(400);
    expect(a.json().error.code).toBe('JSON_TOO_DEEP');
  });
});
