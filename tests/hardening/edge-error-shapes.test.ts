import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomBytes } from 'node:crypto';
import type { App } from '../../src/http/app-types.js';
import { signatureHeader } from '../../src/billing/processor/webhook-signature.js';
import { buildTestApp, signUp } from '../helpers/app.js';
import { expectLedgerInvariants } from '../helpers/ledger.js';

const SECRET = 'whsec_test_edge_shapes_0123456789';
const now = () => Math.floor(Date.now() / 1000);
type Reply = { statusCode: number; headers: Record<string, unknown>; json: () => any };

function expectJobsShape(r: Reply, status: number, code: string): void {
  expect(r.statusCode, r.json && JSON.stringify(r.json())).toBe(status);
  const b = r.json();
  expect(Object.keys(b).sort()).toEqual(['error', 'request_id']);
  expect(b.error.code).toBe(code);
  expect(b.request_id).toBe(r.headers['x-request-id']);
}

function expectEnvelope(r: Reply, status: number, code: string): void {
  expect(r.statusCode, JSON.stringify(r.json())).toBe(status);
  const b = r.json();
  expect(b.status).toBe('error');
  expect(b.error.code).toBe(code);
  expect(b.meta.request_id).toBe(r.headers['x-request-id']);
}

describe('error shapes and headers at the edges of each interface', () => {
  let app: App;
  beforeAll(async () => {
    app = await buildTestApp({ SANDBOX_WEBHOOK_SECRET: SECRET });
  });
  afterAll(async () => app.close());

  it('405 under the Jobs interface and the token endpoint answers in the Jobs shape, with Allow', async () => {
    for (const [method, url, allow] of [
      ['DELETE', '/v1/jobs', 'GET, POST'],
      ['PUT', '/v1/jobs/0b0e3f6c-1c1f-4a53-9f4c-2a9a6e1c0d11', 'GET'],
      ['POST', '/v1/catalog', 'GET'],
      ['POST', '/v1/account/balance', 'GET'],
      ['GET', '/v1/oauth/token', 'POST'],
    ] as const) {
      const r = await app.inject({ method, url });
      expectJobsShape(r, 405, 'METHOD_NOT_ALLOWED');
      expect(String(r.headers['allow']).split(', '), url).toEqual(expect.arrayContaining(allow.split(', ')));
    }
  });

  it('router 400s and 404s under the Jobs interface answer in the Jobs shape', async () => {
    expectJobsShape(await app.inject({ method: 'GET', url: '/v1/jobs/%E0%A4%A' }), 400, 'BAD_REQUEST');
    expectJobsShape(await app.inject({ method: 'GET', url: `/v1/jobs/${'a'.repeat(300)}` }), 400, 'BAD_REQUEST');
    expectJobsShape(await app.inject({ method: 'GET', url: '/v1/account/%E0%A4%A' }), 400, 'BAD_REQUEST');
    expectJobsShape(await app.inject({ method: 'POST', url: '/v1/oauth/%E0%A4%A' }), 400, 'BAD_REQUEST');
    expectJobsShape(await app.inject({ method: 'GET', url: '/v1/jobs/x/y' }), 404, 'NOT_FOUND');
    expectJobsShape(await app.inject({ method: 'GET', url: '/v1/catalog/extra' }), 404, 'NOT_FOUND');
    // Platform paths keep the envelope.
    expectEnvelope(await app.inject({ method: 'GET', url: '/v1/billing/%E0%A4%A' }), 400, 'BAD_REQUEST');
    expectEnvelope(await app.inject({ method: 'DELETE', url: '/v1/billing/wallet' }), 405, 'METHOD_NOT_ALLOWED');
    expectEnvelope(await app.inject({ method: 'GET', url: '/v1/nothing-here' }), 404, 'NOT_FOUND');
    expectEnvelope(await app.inject({ method: 'GET', url: '/v1/jobsx' }), 404, 'NOT_FOUND');
  });

  it('the sandbox return page answers a bad query in the platform envelope, not the Jobs shape', async () => {
    const r = await app.inject({ method: 'GET', url: `/v1/billing/processor/sandbox/return?checkout=${'c'.repeat(129)}` });
    expectEnvelope(r, 400, 'VALIDATION_FAILED');
    const page = await app.inject({ method: 'GET', url: '/v1/billing/processor/sandbox/return?checkout=cs_1' });
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-type']).toContain('text/html');
  });

  it('the token endpoint answers malformed Basic credentials with an OAuth 400, not a 500', async () => {
    for (const pair of ['a%:b', 'id:%E0%A4%A', 'id%00:secret']) {
      const r = await app.inject({
        method: 'POST',
        url: '/v1/oauth/token',
        payload: 'grant_type=client_credentials',
        headers: { authorization: `Basic ${Buffer.from(pair).toString('base64')}`, 'content-type': 'application/x-www-form-urlencoded' },
      });
      expect(r.statusCode, pair).toBe(400);
      expect(r.json()).toMatchObject({ error: 'invalid_request' });
    }
  });

  it('a failed login (401) carries WWW-Authenticate', async () => {
    const u = await signUp(app);
    const r = await app.inject({ method: 'POST', url: '/v1/auth/login', payload: { email: u.email, password: 'wrong password!' } });
    expectEnvelope(r, 401, 'INVALID_CREDENTIALS');
    expect(r.headers['www-authenticate']).toBe('Bearer realm="qrail"');
  });

  it('a signed webhook with non-integer amounts or a bad timestamp → 400 WEBHOOK_PAYLOAD_INVALID, nothing credited', async () => {
    const u = await signUp(app);
    const customer = (await app.inject({ method: 'POST', url: '/v1/billing/processor/customer', headers: u.auth })).json().data.customer_id as string;
    const s = (await app.inject({ method: 'POST', url: '/v1/billing/processor/checkout-session', headers: u.auth, payload: { amount: '10.00' } })).json().data.session_id as string;
    const send = (event: Record<string, unknown>) => {
      const body = JSON.stringify(event);
      return app.inject({
        method: 'POST',
        url: '/v1/billing/processor/webhook',
        headers: { 'content-type': 'application/json', 'stripe-signature': signatureHeader(body, SECRET, now()) },
        payload: body,
      });
    };
    const evt = (object: Record<string, unknown>, over: Record<string, unknown> = {}) => ({
      id: `evt_${randomBytes(8).toString('hex')}`,
      object: 'event',
      type: 'checkout.session.completed',
      created: now(),
      data: { object: { id: s, object: 'checkout.session', payment_status: 'paid', customer, metadata: { qrail_account_id: u.accountId }, ...object } },
      ...over,
    });
    for (const bad of [
      evt({ amount_total: 'toString' }),
      evt({ amount_total: 1.5 }),
      evt({ amount_total: -100 }),
      evt({ amount_total: 1e300 }),
      evt({ amount_total: Number.MAX_SAFE_INTEGER }),
      evt({ amount_total: { valueOf: 5 } }),
      evt({ id: 'pi_1', object: 'payment_intent', amount_received: 'constructor', metadata: { qrail_purpose: 'topup', qrail_account_id: u.accountId } }, { type: 'payment_intent.succeeded' }),
      evt({ amount_total: 1000 }, { created: 1e300 }),
      evt({ amount_total: 1000 }, { id: 'evt_\u0000' }),
      evt({ amount_total: 1000, metadata: { qrail_account_id: u.accountId, ['__proto__']: { x: 1 } }, customer: 'cus_\ud800' }),
    ]) {
      const r = await send(bad);
      expectEnvelope(r, 400, 'WEBHOOK_PAYLOAD_INVALID');
    }
    const w = await app.inject({ method: 'GET', url: '/v1/billing/wallet', headers: u.auth });
    expect(w.json().data.available).toBe('0.000000');
    await expectLedgerInvariants(app);
    // The well-formed event still credits afterwards.
    const ok = await send(evt({ amount_total: 1000 }));
    expect(ok.statusCode).toBe(200);
    expect(ok.json().data.outcome).toBe('credited');
  });
});
