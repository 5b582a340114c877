import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/http/app-types.js';
import { StoreUnavailableError } from '../../src/store/db.js';
import { buildTestApp, signUp } from '../helpers/app.js';
import { expectLedgerInvariants, fundAccount } from '../helpers/ledger.js';
import { FakeStripe } from '../billing/fake-stripe.js';

type User = Awaited<ReturnType<typeof signUp>>;

/**
 * The crash windows of Idempotency-Key runs (docs/decisions/foundation-idempotency-crash-windows.md):
 * a process that made its effect and died before storing the response leaves the key in progress;
 * once the lease lapses, the retry runs again under the same run token and must find that effect.
 */
async function crashBeforeStore(app: App, u: User): Promise<void> {
  await app.db.query("UPDATE idempotency_keys SET state = 'in_progress', status_code = NULL, response = NULL, locked_until = now() - interval '1 second' WHERE owner = $1", [u.accountId]);
}

describe('Idempotency-Key crash windows (issue 17, defect 8)', () => {
  let app: App;
  beforeAll(async () => {
    app = await buildTestApp({ RATE_LIMIT_AUTH_PER_MINUTE: '1000' });
  });
  afterEach(async () => expectLedgerInvariants(app));
  afterAll(async () => app.close());

  const available = async (u: User) => (await app.inject({ method: 'GET', url: '/v1/billing/wallet', headers: u.auth })).json().data.available as string;
  const quote = async (u: User) =>
    (await app.inject({ method: 'POST', url: '/v1/billing/hardware/quote', headers: u.auth, payload: { provider: 'provider-two', device: 'p2-ion-11', shots: 100 } })).json().data.quote_id as string;
  const hold = (u: User, quoteId: string, key?: string) =>
    app.inject({
      method: 'POST',
      url: '/v1/billing/hardware/hold',
      headers: { ...u.auth, ...(key === undefined ? {} : { 'idempotency-key': key }) },
      payload: { quote_id: quoteId },
    });
  const heldJobs = async (u: User) => (await app.db.query<{ job_id: string }>('SELECT job_id FROM billing_held_jobs WHERE account_id = $1', [u.accountId])).rows;

  it('the retry of a hold whose run died before answering gets that hold (201, same job), not 409 QUOTE_ALREADY_USED; the money is held once', async () => {
    const u = await signUp(app);
    await fundAccount(app, u.accountId, 10_000_000n);
    const q = await quote(u);
    const first = await hold(u, q, 'hold-crash');
    expect(first.statusCode).toBe(201);
    await crashBeforeStore(app, u);
    const retry = await hold(u, q, 'hold-crash');
    expect(retry.statusCode).toBe(201);
    expect(retry.headers['idempotent-replayed']).toBeUndefined();
    const a = first.json().data;
    const b = retry.json().data;
    expect(Object.keys(b).sort()).toEqual(Object.keys(a).sort());
    expect(b).toMatchObject({ job_id: a.job_id, hold_id: a.hold_id, quote_id: q, amount: a.amount, status: 'held' });
    expect(await heldJobs(u)).toHaveLength(1);
    expect(await available(u)).toBe('6.700000');
    // Its answer is now stored: the next retry replays it.
    const third = await hold(u, q, 'hold-crash');
    expect(third.headers['idempotent-replayed']).toBe('true');
    expect(third.body).toBe(retry.body);
  });

  it('the retry of a hold that ended in a 5xx after the hold was placed gets that hold', async () => {
    const u = await signUp(app);
    await fundAccount(app, u.accountId, 10_000_000n);
    const q = await quote(u);
    const billing = app.services.billing;
    const original = billing.hardwareHold.bind(billing);
    billing.hardwareHold = async (...args: Parameters<typeof original>) => {
      await original(...args);
      throw new StoreUnavailableError(new Error('connection lost'));
    };
    try {
      expect((await hold(u, q, 'hold-5xx')).statusCode).toBe(503);
    } finally {
      billing.hardwareHold = original;
    }
    const retry = await hold(u, q, 'hold-5xx');
    expect(retry.statusCode).toBe(201);
    expect(retry.json().data.job_id).toBe((await heldJobs(u))[0]?.job_id);
    expect(await heldJobs(u)).toHaveLength(1);
    expect(await available(u)).toBe('6.700000');
  });

  it('another key (another run) or no key on a held quote is still 409 QUOTE_ALREADY_USED naming the job', async () => {
    const u = await signUp(app);
    await fundAccount(app, u.accountId, 10_000_000n);
    const q = await quote(u);
    const first = await hold(u, q, 'hold-a');
    expect(first.statusCode).toBe(201);
    for (const key of ['hold-b', undefined]) {
      const r = await hold(u, q, key);
      expect(r.statusCode, String(key)).toBe(409);
      expect(r.json().error).toMatchObject({ code: 'QUOTE_ALREADY_USED', details: { job_id: first.json().data.job_id } });
    }
    expect(await available(u)).toBe('6.700000');
  });

  const createCredential = (u: User, key: string) =>
    app.inject({
      method: 'POST',
      url: '/v1/auth/credentials',
      headers: { ...u.auth, 'idempotency-key': key },
      payload: { name: 'agent', scopes: ['jobs:read'] },
    });
  const credentials = async (u: User) =>
    (await app.inject({ method: 'GET', url: '/v1/auth/credentials', headers: u.auth })).json().data.credentials as Array<{ credential_id?: string; id?: string; revoked_at: string | null }>;
  const jobsWith = (secret: string) => app.inject({ method: 'GET', url: '/v1/jobs', headers: { authorization: `Bearer ${secret}` } });

  it('the retry of a credential creation whose run died before answering makes no second credential: the same one, with a new secret that works', async () => {
    const u = await signUp(app);
    const first = await createCredential(u, 'cred-crash');
    expect(first.statusCode).toBe(201);
    const lost = first.json().data.secret as string;
    await crashBeforeStore(app, u);
    const retry = await createCredential(u, 'cred-crash');
    expect(retry.statusCode).toBe(201);
    expect(retry.headers['cache-control']).toBe('no-store');
    const shown = retry.json().data;
    expect(shown.client_id).toBe(first.json().data.client_id);
    expect(shown.secret).not.toBe(lost);
    expect(await credentials(u)).toHaveLength(1);
    expect((await jobsWith(shown.secret)).statusCode).toBe(200);
    // The never-shown secret is no longer a way in.
    expect((await jobsWith(lost)).statusCode).toBe(401);
    const third = await createCredential(u, 'cred-crash');
    expect(third.headers['idempotent-replayed']).toBe('true');
    expect(third.json().data.secret).toBe(shown.secret);
  });

  it('a credential revoked before the crash-retry stays revoked; the retry makes one live credential', async () => {
    const u = await signUp(app);
    const first = await createCredential(u, 'cred-revoked');
    const id = first.json().data.client_id as string;
    await crashBeforeStore(app, u);
    expect((await app.inject({ method: 'DELETE', url: `/v1/auth/credentials/${id}`, headers: u.auth })).statusCode).toBeLessThan(300);
    const retry = await createCredential(u, 'cred-revoked');
    expect(retry.statusCode).toBe(201);
    expect(retry.json().data.client_id).not.toBe(id);
    const all = await credentials(u);
    expect(all).toHaveLength(2);
    expect(all.filter((c) => c.revoked_at === null)).toHaveLength(1);
    expect((await jobsWith(retry.json().data.secret)).statusCode).toBe(200);
  });

  const sandboxObjects = async (u: User, type: string) =>
    Number(
      (await app.db.query<{ n: string }>("SELECT count(*)::text AS n FROM billing_sandbox_objects WHERE type = $1 AND data->'metadata'->>'qrail_account_id' = $2", [type, u.accountId])).rows[0]?.n,
    );

  it('the retry of a checkout whose run died before answering gets the same sandbox session', async () => {
    const u = await signUp(app);
    const checkout = () => app.inject({ method: 'POST', url: '/v1/billing/processor/checkout-session', headers: { ...u.auth, 'idempotency-key': 'co-crash' }, payload: { amount: '10.00' } });
    const first = await checkout();
    expect(first.statusCode).toBe(200);
    await crashBeforeStore(app, u);
    const retry = await checkout();
    expect(retry.statusCode).toBe(200);
    expect(retry.json().data.session_id).toBe(first.json().data.session_id);
    expect(retry.json().data.url).toBe(first.json().data.url);
    expect(await sandboxObjects(u, 'checkout_session')).toBe(1);
  });

  it('the retry of a setup intent whose run died before answering gets the same sandbox setup intent', async () => {
    const u = await signUp(app);
    const setup = () => app.inject({ method: 'POST', url: '/v1/billing/processor/setup-intent', headers: { ...u.auth, 'idempotency-key': 'seti-crash' }, payload: { payment_method: 'pm_card_visa' } });
    const first = await setup();
    expect(first.statusCode).toBe(200);
    await crashBeforeStore(app, u);
    const retry = await setup();
    expect(retry.statusCode).toBe(200);
    expect(retry.json().data.setup_intent_id).toBe(first.json().data.setup_intent_id);
    expect(retry.json().data.client_secret).toBe(first.json().data.client_secret);
    expect(await sandboxObjects(u, 'setup_intent')).toBe(1);
  });

  it('the sandbox honours processor idempotency keys like Stripe: same key and parameters → same object; other parameters → idempotency_error', async () => {
    const u = await signUp(app);
    const sandbox = app.services.billing.payments.sandbox;
    if (sandbox === undefined) throw new Error('the test app runs on the sandbox processor');
    const customer = await sandbox.createCustomer({ accountId: u.accountId, email: u.email, idempotencyKey: `test-cus:${u.accountId}` });
    expect((await sandbox.createCustomer({ accountId: u.accountId, email: u.email, idempotencyKey: `test-cus:${u.accountId}` })).id).toBe(customer.id);
    const base = {
      customerId: customer.id,
      successUrl: 'https://example.test/ok',
      cancelUrl: 'https://example.test/no',
      metadata: { qrail_account_id: u.accountId },
      idempotencyKey: `test-cs:${u.accountId}`,
    };
    const a = await sandbox.createCheckoutSession({ ...base, amountCents: 1000n });
    expect((await sandbox.createCheckoutSession({ ...base, amountCents: 1000n })).id).toBe(a.id);
    await expect(sandbox.createCheckoutSession({ ...base, amountCents: 2000n })).rejects.toMatchObject({ code: 'PROCESSOR_ERROR', details: { type: 'idempotency_error' } });
    // Keys are not shared across operations either (Stripe: same key, other endpoint → idempotency_error).
    await expect(
      sandbox.createPaymentIntent({ customerId: customer.id, amountCents: 1000n, offSession: false, confirm: false, metadata: {}, idempotencyKey: base.idempotencyKey }),
    ).rejects.toMatchObject({ code: 'PROCESSOR_ERROR', details: { type: 'idempotency_error' } });
    const pi = { customerId: customer.id, offSession: false, confirm: true, paymentMethod: 'pm_card_visa', metadata: {}, idempotencyKey: `test-pi:${u.accountId}` };
    const p1 = await sandbox.createPaymentIntent({ ...pi, amountCents: 1000n });
    expect((await sandbox.createPaymentIntent({ ...pi, amountCents: 1000n })).id).toBe(p1.id);
    await expect(sandbox.createPaymentIntent({ ...pi, amountCents: 5000n })).rejects.toMatchObject({ code: 'PROCESSOR_ERROR', details: { type: 'idempotency_error' } });
    expect(await sandboxObjects(u, 'checkout_session')).toBe(1);
  });
});

describe('Stripe adapter: the processor idempotency key on every create (issue 17, defect 8)', () => {
  let app: App;
  const fake = new FakeStripe();
  beforeAll(async () => {
    await fake.start();
    app = await buildTestApp({
      STRIPE_SECRET_KEY: 'sk_test_qrail_fake_key',
      STRIPE_WEBHOOK_SECRET: 'whsec_qrail_fake_stripe',
      STRIPE_API_HOST: '127.0.0.1',
      STRIPE_API_PORT: String(fake.port),
      STRIPE_API_PROTOCOL: 'http',
      RATE_LIMIT_AUTH_PER_MINUTE: '1000',
    });
  });
  afterAll(async () => {
    await app.close();
    await fake.stop();
  });

  it('a crash-retried run sends the same derived key on customers, setup intents, payment intents, checkout and portal sessions', async () => {
    const u = await signUp(app);
    const calls: Array<[string, string, Record<string, unknown>]> = [
      ['/v1/billing/processor/setup-intent', '/v1/setup_intents', { payment_method: 'pm_card_visa' }],
      ['/v1/billing/processor/payment-intent', '/v1/payment_intents', { amount: '1.00' }],
      ['/v1/billing/processor/checkout-session', '/v1/checkout/sessions', { amount: '1.00' }],
      ['/v1/billing/processor/portal-session', '/v1/billing_portal/sessions', {}],
    ];
    for (const [route, upstream, payload] of calls) {
      const send = () => app.inject({ method: 'POST', url: route, headers: { ...u.auth, 'idempotency-key': `k-${route}` }, payload });
      const seen = () => fake.requests.filter((r) => r.path === upstream).map((r) => r.headers['idempotency-key']);
      const before = seen().length;
      expect((await send()).statusCode, route).toBe(200);
      await crashBeforeStore(app, u);
      expect((await send()).statusCode, route).toBe(200);
      const keys = seen().slice(before);
      expect(keys, route).toHaveLength(2);
      expect(keys[0], route).toMatch(new RegExp(`^[a-z-]+:${u.accountId}:[0-9a-f-]{36}$`));
      expect(keys[1], route).toBe(keys[0]);
    }
    const customers = fake.requests.filter((r) => r.path === '/v1/customers').map((r) => r.headers['idempotency-key']);
    expect(customers[0]).toBe(`customer:${u.accountId}`);
  });
});
