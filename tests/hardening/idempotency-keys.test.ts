import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/http/app-types.js';
import { StoreUnavailableError } from '../../src/store/db.js';
import { idempotencyRepository } from '../../src/store/repositories/idempotency-repository.js';
import { buildTestApp, signUp } from '../helpers/app.js';
import { expectLedgerInvariants, fundAccount } from '../helpers/ledger.js';

const OPERATOR = 'op-token-for-idempotency-tests-0123456789';
type User = Awaited<ReturnType<typeof signUp>>;

describe('Idempotency-Key on platform POSTs (issue 17, defect 8)', () => {
  let app: App;
  beforeAll(async () => {
    // Each test signs up fresh accounts: more logins a minute than the default auth bucket allows.
    app = await buildTestApp({ QRAIL_OPERATOR_TOKEN: OPERATOR, RATE_LIMIT_AUTH_PER_MINUTE: '1000' });
  });
  afterEach(async () => expectLedgerInvariants(app));
  afterAll(async () => app.close());

  const topUp = (u: User, key: string | undefined, amount = '10.00') =>
    app.inject({
      method: 'POST',
      url: '/v1/billing/processor/payment-intent',
      headers: { ...u.auth, ...(key === undefined ? {} : { 'idempotency-key': key }) },
      payload: { amount, payment_method: 'pm_card_visa' },
    });
  const available = async (u: User) => (await app.inject({ method: 'GET', url: '/v1/billing/wallet', headers: u.auth })).json().data.available as string;
  const paymentIntents = async (u: User) =>
    Number((await app.db.query<{ n: string }>("SELECT count(*)::text AS n FROM billing_processor_payments WHERE account_id = $1 AND kind = 'payment_intent'", [u.accountId])).rows[0]?.n);

  it('a payment intent sent twice with one key creates one PaymentIntent and one credit; the second answer is the first, replayed', async () => {
    const u = await signUp(app);
    const first = await topUp(u, 'topup-0001');
    expect(first.statusCode).toBe(200);
    expect(first.json().data).toMatchObject({ status: 'succeeded', credited: true });
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    const second = await topUp(u, 'topup-0001');
    expect(second.statusCode).toBe(200);
    expect(second.headers['idempotent-replayed']).toBe('true');
    expect(second.headers['content-type']).toBe(first.headers['content-type']);
    expect(second.body).toBe(first.body);
    expect(await paymentIntents(u)).toBe(1);
    expect(await available(u)).toBe('10.000000');
  });

  it('the same key with another body or on another route is refused with 409 IDEMPOTENCY_KEY_REUSED in the envelope; nothing moves', async () => {
    const u = await signUp(app);
    expect((await topUp(u, 'topup-reuse')).statusCode).toBe(200);
    const other = await topUp(u, 'topup-reuse', '20.00');
    expect(other.statusCode).toBe(409);
    expect(other.json()).toMatchObject({ status: 'error', error: { code: 'IDEMPOTENCY_KEY_REUSED', details: { original_route: 'POST /v1/billing/processor/payment-intent' } } });
    const route = await app.inject({ method: 'POST', url: '/v1/billing/processor/checkout-session', headers: { ...u.auth, 'idempotency-key': 'topup-reuse' }, payload: { amount: '10.00' } });
    expect(route.statusCode).toBe(409);
    expect(route.json().error.code).toBe('IDEMPOTENCY_KEY_REUSED');
    expect(await paymentIntents(u)).toBe(1);
    expect(await available(u)).toBe('10.000000');
  });

  it('keys are scoped to the account: the same key on another account is independent', async () => {
    const a = await signUp(app);
    const b = await signUp(app);
    expect((await topUp(a, 'shared-key')).statusCode).toBe(200);
    const rb = await topUp(b, 'shared-key');
    expect(rb.statusCode).toBe(200);
    expect(rb.headers['idempotent-replayed']).toBeUndefined();
    expect(rb.json().data.credited).toBe(true);
    expect(await available(a)).toBe('10.000000');
    expect(await available(b)).toBe('10.000000');
  });

  it('10 concurrent requests with one key: exactly one effect; the others replay it or get 409 IDEMPOTENCY_KEY_IN_FLIGHT with Retry-After', async () => {
    const u = await signUp(app);
    const all = await Promise.all(Array.from({ length: 10 }, () => topUp(u, 'topup-race')));
    const originals = all.filter((r) => r.statusCode === 200 && r.headers['idempotent-replayed'] === undefined);
    expect(originals).toHaveLength(1);
    for (const r of all) {
      if (r === originals[0]) continue;
      if (r.statusCode === 200) {
        expect(r.headers['idempotent-replayed']).toBe('true');
        expect(r.body).toBe(originals[0]?.body);
      } else {
        expect(r.statusCode).toBe(409);
        expect(r.json().error.code).toBe('IDEMPOTENCY_KEY_IN_FLIGHT');
        expect(r.headers['retry-after']).toBe('1');
      }
    }
    expect(await paymentIntents(u)).toBe(1);
    expect(await available(u)).toBe('10.000000');
    const after = await topUp(u, 'topup-race');
    expect(after.headers['idempotent-replayed']).toBe('true');
  });

  it('a hold placed twice on one quote with one key replays (201, same job); without a key the second hold is still 409', async () => {
    const u = await signUp(app);
    await fundAccount(app, u.accountId, 10_000_000n);
    const quote = async () =>
      (await app.inject({ method: 'POST', url: '/v1/billing/hardware/quote', headers: u.auth, payload: { provider: 'provider-two', device: 'p2-ion-11', shots: 100 } })).json().data.quote_id as string;
    const q1 = await quote();
    const hold = (quoteId: string, key?: string) =>
      app.inject({ method: 'POST', url: '/v1/billing/hardware/hold', headers: { ...u.auth, ...(key === undefined ? {} : { 'idempotency-key': key }) }, payload: { quote_id: quoteId } });
    const h1 = await hold(q1, 'hold-1');
    expect(h1.statusCode).toBe(201);
    const h2 = await hold(q1, 'hold-1');
    expect(h2.statusCode).toBe(201);
    expect(h2.headers['idempotent-replayed']).toBe('true');
    expect(h2.body).toBe(h1.body);
    expect(await available(u)).toBe('6.700000');

    const q2 = await quote();
    expect((await hold(q2)).statusCode).toBe(201);
    const again = await hold(q2);
    expect(again.statusCode).toBe(409);
    expect(again.json().error.code).toBe('QUOTE_ALREADY_USED');
    expect(await available(u)).toBe('3.400000');
  });

  it('a quote requested twice with one key is one quote', async () => {
    const u = await signUp(app);
    const q = () =>
      app.inject({ method: 'POST', url: '/v1/billing/hardware/quote', headers: { ...u.auth, 'idempotency-key': 'quote-1' }, payload: { provider: 'provider-two', device: 'p2-ion-11', shots: 10 } });
    const a = await q();
    const b = await q();
    expect(a.statusCode).toBe(200);
    expect(b.headers['idempotent-replayed']).toBe('true');
    expect(b.json().data.quote_id).toBe(a.json().data.quote_id);
  });

  it('a credential created twice with one key is one credential; the replay shows its secret, which the database does not hold in clear', async () => {
    const u = await signUp(app);
    const create = () => app.inject({ method: 'POST', url: '/v1/auth/credentials', headers: { ...u.auth, 'idempotency-key': 'cred-1' }, payload: { name: 'agent', scopes: ['jobs:read'] } });
    const a = await create();
    expect(a.statusCode).toBe(201);
    const b = await create();
    expect(b.statusCode).toBe(201);
    expect(b.headers['idempotent-replayed']).toBe('true');
    expect(b.headers['cache-control']).toBe('no-store');
    expect(b.body).toBe(a.body);
    const list = (await app.inject({ method: 'GET', url: '/v1/auth/credentials', headers: u.auth })).json().data.credentials;
    expect(list).toHaveLength(1);
    const secret = a.json().data.secret as string;
    const stored = await app.db.query<{ blob: string }>("SELECT key_hash || ' ' || coalesce(response, '') AS blob FROM idempotency_keys WHERE owner = $1", [u.accountId]);
    expect(stored.rows).toHaveLength(1);
    expect(stored.rows[0]?.blob).not.toContain(secret);
    expect(stored.rows[0]?.blob).not.toContain('cred-1');
  });

  it('a key past its 24 h retention starts a new request (a new effect)', async () => {
    const u = await signUp(app);
    expect((await topUp(u, 'topup-old')).statusCode).toBe(200);
    await app.db.query("UPDATE idempotency_keys SET created_at = now() - interval '25 hours' WHERE owner = $1", [u.accountId]);
    const again = await topUp(u, 'topup-old');
    expect(again.statusCode).toBe(200);
    expect(again.headers['idempotent-replayed']).toBeUndefined();
    expect(again.json().data.credited).toBe(true);
    expect(await paymentIntents(u)).toBe(2);
    expect(await available(u)).toBe('20.000000');
  });

  it('keys past retention are purged; younger ones stay', async () => {
    const u = await signUp(app);
    expect((await topUp(u, 'purge-old')).statusCode).toBe(200);
    expect((await topUp(u, 'purge-young')).statusCode).toBe(200);
    await app.db.query("UPDATE idempotency_keys SET created_at = now() - interval '25 hours' WHERE owner = $1 AND key_hash = encode(sha256(convert_to('purge-old', 'UTF8')), 'hex')", [u.accountId]);
    expect(await idempotencyRepository(app.db).purge()).toBeGreaterThanOrEqual(1);
    const left = await app.db.query<{ n: string }>('SELECT count(*)::text AS n FROM idempotency_keys WHERE owner = $1', [u.accountId]);
    expect(left.rows[0]?.n).toBe('1');
  });

  it('a 5xx is not stored: the retry runs again, under the same run, so the money moved once', async () => {
    const u = await signUp(app);
    const payments = app.services.billing.payments;
    const original = payments.paymentIntent.bind(payments);
    // The effect happens, then the store fails before the answer: the client sees a 503.
    payments.paymentIntent = async (...args: Parameters<typeof original>) => {
      await original(...args);
      throw new StoreUnavailableError(new Error('connection lost'));
    };
    try {
      const failed = await topUp(u, 'topup-5xx');
      expect(failed.statusCode).toBe(503);
      expect(failed.json().error.code).toBe('STORE_UNAVAILABLE');
    } finally {
      payments.paymentIntent = original;
    }
    const retry = await topUp(u, 'topup-5xx');
    expect(retry.statusCode).toBe(200);
    expect(retry.headers['idempotent-replayed']).toBeUndefined();
    expect(await paymentIntents(u)).toBe(1);
    expect(await available(u)).toBe('10.000000');
    expect((await topUp(u, 'topup-5xx')).headers['idempotent-replayed']).toBe('true');
  });

  it('a run that died before storing its answer blocks retries only until its lease lapses; the retry then credits nothing twice', async () => {
    const u = await signUp(app);
    expect((await topUp(u, 'topup-crash')).statusCode).toBe(200);
    // As a process killed between the credit and the stored response leaves it.
    await app.db.query("UPDATE idempotency_keys SET state = 'in_progress', status_code = NULL, response = NULL, locked_until = now() + interval '1 hour' WHERE owner = $1", [u.accountId]);
    const blocked = await topUp(u, 'topup-crash');
    expect(blocked.statusCode).toBe(409);
    expect(blocked.json().error.code).toBe('IDEMPOTENCY_KEY_IN_FLIGHT');
    await app.db.query("UPDATE idempotency_keys SET locked_until = now() - interval '1 second' WHERE owner = $1", [u.accountId]);
    const retry = await topUp(u, 'topup-crash');
    expect(retry.statusCode).toBe(200);
    expect(retry.json().data.payment_intent_id).toBeDefined();
    expect(await paymentIntents(u)).toBe(1);
    expect(await available(u)).toBe('10.000000');
  });

  it('refuses a malformed key with 400 before anything runs', async () => {
    const u = await signUp(app);
    for (const key of ['x'.repeat(256), '']) {
      const r = await topUp(u, key);
      expect(r.statusCode, JSON.stringify(key.length)).toBe(400);
      expect(r.json()).toMatchObject({ status: 'error', error: { code: 'VALIDATION_FAILED' } });
    }
    expect(await paymentIntents(u)).toBe(0);
  });

  it('a refusal by the handler (4xx) is stored and replayed; a body the schema refuses stores nothing, so the key stays usable', async () => {
    const u = await signUp(app);
    const hold = (key: string, quoteId: string) => app.inject({ method: 'POST', url: '/v1/billing/hardware/hold', headers: { ...u.auth, 'idempotency-key': key }, payload: { quote_id: quoteId } });
    const missing = '00000000-0000-4000-8000-000000000000';
    const first = await hold('hold-missing', missing);
    expect(first.statusCode).toBe(404);
    const again = await hold('hold-missing', missing);
    expect(again.statusCode).toBe(404);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body).toBe(first.body);

    const bad = await topUp(u, 'topup-after-400', 'ten dollars');
    expect(bad.statusCode).toBe(400);
    expect(bad.json().error.code).toBe('VALIDATION_FAILED');
    const good = await topUp(u, 'topup-after-400');
    expect(good.statusCode).toBe(200);
    expect(good.headers['idempotent-replayed']).toBeUndefined();
    expect(await available(u)).toBe('10.000000');
  });

  it('the OpenAPI document names the header on every idempotent operation and the replay header on its answers', async () => {
    const doc = app.swagger() as unknown as {
      paths: Record<string, Record<string, { parameters?: Array<{ in: string; name: string }>; responses: Record<string, { headers?: Record<string, unknown> }> }>>;
    };
    const idempotent = [
      '/v1/billing/processor/payment-intent',
      '/v1/billing/processor/checkout-session',
      '/v1/billing/hardware/quote',
      '/v1/billing/hardware/hold',
      '/v1/auth/credentials',
      '/v1/billing/operator/credit-grant',
      '/v1/execute/provider-one',
    ];
    for (const path of idempotent) {
      const op = doc.paths[path]?.['post'];
      expect(
        op?.parameters?.some((p) => p.in === 'header' && p.name === 'idempotency-key'),
        path,
      ).toBe(true);
      const ok = Object.entries(op?.responses ?? {}).filter(([s]) => s.startsWith('2'));
      expect(ok.length, path).toBeGreaterThan(0);
      for (const [, r] of ok) expect(r.headers?.['Idempotent-Replayed'], path).toEqual({ $ref: '#/components/headers/Idempotent-Replayed' });
    }
  });

  it('hashing a body nested as deep as the size limit allows does not exhaust the stack', async () => {
    const u = await signUp(app);
    const depth = 200_000;
    const payload = `{"client_token":"deep-1","circuit":${'['.repeat(depth)}${']'.repeat(depth)}}`;
    const r = await app.inject({ method: 'POST', url: '/v1/execute/provider-one', headers: { ...u.auth, 'idempotency-key': 'deep-1', 'content-type': 'application/json' }, payload });
    expect(r.statusCode).toBeLessThan(500);
    expect(r.json().status).toBe('error');
  });

  it('operator credit grants honour the key (scoped to the operator)', async () => {
    const u = await signUp(app);
    const grant = () =>
      app.inject({
        method: 'POST',
        url: '/v1/billing/operator/credit-grant',
        headers: { authorization: `Bearer ${OPERATOR}`, 'idempotency-key': `grant-${u.accountId}` },
        payload: { email: u.email, amount: '5.00' },
      });
    const a = await grant();
    expect(a.statusCode).toBe(200);
    const b = await grant();
    expect(b.headers['idempotent-replayed']).toBe('true');
    expect(b.body).toBe(a.body);
    expect(await available(u)).toBe('5.000000');
  });

  it('execution runs accept the key beside client_token; the key replays, client_token keeps working without it', async () => {
    const u = await signUp(app);
    const body = {
      circuit: { schema: '0.2', num_qubits: 1, num_clbits: 1, gates: [{ op: 'h', qubits: [0] }], measurements: [{ qubit: 0, clbit: 0 }], metadata: {} },
      shots: 10,
      seed: 1,
      client_token: 'run-1',
    };
    const run = (key?: string) => app.inject({ method: 'POST', url: '/v1/execute/provider-one', headers: { ...u.auth, ...(key === undefined ? {} : { 'idempotency-key': key }) }, payload: body });
    const a = await run('exec-1');
    expect(a.statusCode).toBe(200);
    const b = await run('exec-1');
    expect(b.headers['idempotent-replayed']).toBe('true');
    expect(b.body).toBe(a.body);
    const c = await run();
    expect(c.statusCode).toBe(200);
    expect(c.json().data.job_id).toBe(a.json().data.job_id);
  });
});
