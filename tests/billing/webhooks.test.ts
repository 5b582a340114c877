import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { randomBytes } from 'node:crypto';
import type { App } from '../../src/http/app-types.js';
import { signatureHeader } from '../../src/billing/processor/webhook-signature.js';
import { buildTestApp, signUp } from '../helpers/app.js';
import { expectLedgerInvariants } from '../helpers/ledger.js';

const SECRET = 'whsec_test_webhooks_0123456789';
const now = () => Math.floor(Date.now() / 1000);

describe('processor webhooks and reconcile-checkout (sandbox)', () => {
  let app: App;
  beforeAll(async () => {
    app = await buildTestApp({ SANDBOX_WEBHOOK_SECRET: SECRET });
  });
  afterEach(async () => expectLedgerInvariants(app));
  afterAll(async () => app.close());

  const post = (body: string, signature: string | undefined) =>
    app.inject({
      method: 'POST',
      url: '/v1/billing/processor/webhook',
      headers: { 'content-type': 'application/json', ...(signature === undefined ? {} : { 'stripe-signature': signature }) },
      payload: body,
    });
  const send = (event: object, opts: { t?: number; secret?: string } = {}) => {
    const body = JSON.stringify(event);
    return post(body, signatureHeader(body, opts.secret ?? SECRET, opts.t ?? now()));
  };
  const wallet = async (auth: { authorization: string }) => (await app.inject({ method: 'GET', url: '/v1/billing/wallet', headers: auth })).json().data;
  const evtId = () => `evt_test_${randomBytes(8).toString('hex')}`;
  const checkout = async (auth: { authorization: string }, amount = '10.00') => {
    const r = await app.inject({ method: 'POST', url: '/v1/billing/processor/checkout-session', headers: auth, payload: { amount } });
    expect(r.statusCode).toBe(200);
    return r.json().data as { session_id: string; url: string; amount: string };
  };
  const paidEvent = (sessionId: string, accountId: string, customer: string, cents = 1000) => ({
    id: evtId(),
    object: 'event',
    type: 'checkout.session.completed',
    created: now(),
    data: { object: { id: sessionId, object: 'checkout.session', payment_status: 'paid', status: 'complete', amount_total: cents, customer, metadata: { qrail_account_id: accountId } } },
  });
  const customerOf = async (auth: { authorization: string }) => (await app.inject({ method: 'POST', url: '/v1/billing/processor/customer', headers: auth })).json().data.customer_id as string;

  it('hosted checkout → signed webhook credits once; reconcile afterwards credits nothing', async () => {
    const u = await signUp(app);
    const s = await checkout(u.auth);
    expect(s.url).toBe(`http://qrail.test/v1/billing/processor/sandbox/checkout/${s.session_id}`);
    const page = await app.inject({ method: 'GET', url: `/v1/billing/processor/sandbox/checkout/${s.session_id}` });
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-type']).toContain('text/html');
    expect(page.body).toContain('$10.00');
    const pay = await app.inject({
      method: 'POST',
      url: `/v1/billing/processor/sandbox/checkout/${s.session_id}/pay`,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'card=pm_card_visa',
    });
    expect(pay.statusCode).toBe(303);
    expect(pay.headers.location).toContain(s.session_id);
    expect((await wallet(u.auth)).available).toBe('10.000000');
    const outcomes = await app.db.query<{ type: string; outcome: string }>('SELECT type, outcome FROM billing_processor_events WHERE object_id = $1', [s.session_id]);
    expect(outcomes.rows).toEqual([{ type: 'checkout.session.completed', outcome: 'credited' }]);

    const rec = await app.inject({ method: 'POST', url: '/v1/billing/processor/reconcile-checkout', headers: u.auth, payload: { session_id: s.session_id } });
    expect(rec.statusCode).toBe(200);
    expect(rec.json().data).toMatchObject({ payment_status: 'paid', credited: false, already_credited: true, wallet: { available: '10.000000' } });
  });

  it('reconcile before the webhook credits; the late webhook then credits nothing', async () => {
    const u = await signUp(app);
    const s = await checkout(u.auth, '7.50');
    const unpaid = await app.inject({ method: 'POST', url: '/v1/billing/processor/reconcile-checkout', headers: u.auth, payload: { session_id: s.session_id } });
    expect(unpaid.json().data).toMatchObject({ payment_status: 'unpaid', credited: false, already_credited: false });
    // The payment completes at the processor, but its webhook has not arrived yet.
    await app.services.billing.sandbox?.completeCheckout(s.session_id);
    const rec = await app.inject({ method: 'POST', url: '/v1/billing/processor/reconcile-checkout', headers: u.auth, payload: { session_id: s.session_id } });
    expect(rec.json().data).toMatchObject({ credited: true, already_credited: false, wallet: { available: '7.500000' } });
    const again = await app.inject({ method: 'POST', url: '/v1/billing/processor/reconcile-checkout', headers: u.auth, payload: { session_id: s.session_id } });
    expect(again.json().data).toMatchObject({ credited: false, already_credited: true });
    expect(await app.services.billing.payments.flushSandboxEvents()).toBeGreaterThanOrEqual(1);
    expect((await wallet(u.auth)).available).toBe('7.500000');
    const outcomes = await app.db.query<{ outcome: string }>("SELECT outcome FROM billing_processor_events WHERE object_id = $1 AND type = 'checkout.session.completed'", [s.session_id]);
    expect(outcomes.rows).toEqual([{ outcome: 'already credited' }]);
  });

  it('reconcile of another account’s checkout → 403; unknown → 404', async () => {
    const u = await signUp(app);
    const other = await signUp(app);
    const s = await checkout(u.auth);
    const r = await app.inject({ method: 'POST', url: '/v1/billing/processor/reconcile-checkout', headers: other.auth, payload: { session_id: s.session_id } });
    expect(r.statusCode).toBe(403);
    const n = await app.inject({ method: 'POST', url: '/v1/billing/processor/reconcile-checkout', headers: u.auth, payload: { session_id: 'cs_nope' } });
    expect(n.statusCode).toBe(404);
    expect(n.json().error.code).toBe('CHECKOUT_NOT_FOUND');
  });

  it('duplicated events (sequential and concurrent) apply once', async () => {
    const u = await signUp(app);
    const customer = await customerOf(u.auth);
    const s = await checkout(u.auth);
    const e = paidEvent(s.session_id, u.accountId, customer);
    const first = await send(e);
    expect(first.statusCode).toBe(200);
    expect(first.json().data).toMatchObject({ received: true, duplicate: false, outcome: 'credited' });
    const second = await send(e);
    expect(second.json().data).toMatchObject({ duplicate: true, outcome: 'credited' });
    // The same payment under new event ids (the processor retrying with another id) is still one credit.
    const burst = await Promise.all(Array.from({ length: 5 }, () => send({ ...e, id: evtId() })));
    for (const b of burst) expect(b.statusCode).toBe(200);
    expect(burst.map((b) => b.json().data.outcome)).toEqual(Array(5).fill('already credited'));
    const concurrentSame = paidEvent((await checkout(u.auth, '1.00')).session_id, u.accountId, customer, 100);
    const dup = await Promise.all(Array.from({ length: 5 }, () => send(concurrentSame)));
    expect(dup.filter((d) => d.json().data.duplicate === false)).toHaveLength(1);
    expect((await wallet(u.auth)).available).toBe('11.000000');
  });

  it('stale, future-dated, forged, tampered and unsigned deliveries are rejected and change nothing', async () => {
    const u = await signUp(app);
    const customer = await customerOf(u.auth);
    const s = await checkout(u.auth);
    const e = paidEvent(s.session_id, u.accountId, customer);
    const stale = await send(e, { t: now() - 301 });
    expect(stale.statusCode).toBe(400);
    expect(stale.json().error.code).toBe('WEBHOOK_TIMESTAMP_OUT_OF_TOLERANCE');
    const future = await send(e, { t: now() + 301 });
    expect(future.statusCode).toBe(400);
    expect(future.json().error.code).toBe('WEBHOOK_TIMESTAMP_OUT_OF_TOLERANCE');
    const farFuture = await send(e, { t: now() + 10 * 365 * 86_400 });
    expect(farFuture.json().error.code).toBe('WEBHOOK_TIMESTAMP_OUT_OF_TOLERANCE');
    const forged = await send(e, { secret: 'whsec_attacker' });
    expect(forged.statusCode).toBe(400);
    expect(forged.json().error.code).toBe('WEBHOOK_SIGNATURE_INVALID');
    const body = JSON.stringify(e);
    const tampered = await post(body.replace('"amount_total":1000', '"amount_total":100000'), signatureHeader(body, SECRET, now()));
    expect(tampered.json().error.code).toBe('WEBHOOK_SIGNATURE_INVALID');
    expect((await post(body, undefined)).json().error.code).toBe('WEBHOOK_SIGNATURE_INVALID');
    expect((await post(body, 't=abc,v1=zz')).json().error.code).toBe('WEBHOOK_SIGNATURE_INVALID');
    const notEvent = JSON.stringify({ hello: 'world' });
    expect((await post(notEvent, signatureHeader(notEvent, SECRET, now()))).json().error.code).toBe('WEBHOOK_PAYLOAD_INVALID');
    expect((await wallet(u.auth)).available).toBe('0.000000');
    const seen = await app.db.query('SELECT 1 FROM billing_processor_events WHERE event_id = $1', [e.id]);
    expect(seen.rows).toHaveLength(0);
    // Within tolerance (299 s old) it is accepted.
    const ok = await send(e, { t: now() - 299 });
    expect(ok.statusCode).toBe(200);
    expect((await wallet(u.auth)).available).toBe('10.000000');
  });

  it('an event naming another account than its customer credits nobody', async () => {
    const victim = await signUp(app);
    const attacker = await signUp(app);
    const attackerCustomer = await customerOf(attacker.auth);
    const e = {
      id: evtId(),
      object: 'event',
      type: 'payment_intent.succeeded',
      created: now(),
      data: {
        object: {
          id: `pi_fake_${randomBytes(4).toString('hex')}`,
          object: 'payment_intent',
          amount: 5000,
          amount_received: 5000,
          customer: attackerCustomer,
          metadata: { qrail_account_id: victim.accountId, qrail_purpose: 'topup' },
        },
      },
    };
    const r = await send(e);
    expect(r.json().data.outcome).toMatch(/^ignored/);
    expect((await wallet(victim.auth)).available).toBe('0.000000');
  });

  it('out of order: an older default-payment-method event does not overwrite a newer one', async () => {
    const u = await signUp(app);
    const customer = await customerOf(u.auth);
    const si = (pm: string, created: number) => ({
      id: evtId(),
      object: 'event',
      type: 'setup_intent.succeeded',
      created,
      data: { object: { id: `seti_${randomBytes(4).toString('hex')}`, object: 'setup_intent', customer, payment_method: pm, status: 'succeeded' } },
    });
    const newer = await send(si('pm_card_mastercard', now() - 10));
    expect(newer.json().data.outcome).toBe('default payment method set');
    const older = await send(si('pm_card_visa', now() - 100));
    expect(older.json().data.outcome).toMatch(/older/);
    const profile = (await app.inject({ method: 'GET', url: '/v1/billing/profile', headers: u.auth })).json().data;
    expect(profile.default_payment_method).toBe('pm_card_mastercard');
  });

  it('out of order: a payment_intent.succeeded before anything else about the payment still credits once', async () => {
    const u = await signUp(app);
    const customer = await customerOf(u.auth);
    const piId = `pi_ooo_${randomBytes(4).toString('hex')}`;
    const obj = { id: piId, object: 'payment_intent', amount: 250, amount_received: 250, customer, metadata: { qrail_account_id: u.accountId, qrail_purpose: 'topup' } };
    const failed = {
      id: evtId(),
      object: 'event',
      type: 'payment_intent.payment_failed',
      created: now() - 60,
      data: { object: { ...obj, amount_received: 0, last_payment_error: { code: 'card_declined' } } },
    };
    const succeeded = { id: evtId(), object: 'event', type: 'payment_intent.succeeded', created: now() - 30, data: { object: obj } };
    expect((await send(succeeded)).json().data.outcome).toBe('credited');
    expect((await send(failed)).statusCode).toBe(200);
    expect((await wallet(u.auth)).available).toBe('2.500000');
  });

  it('processor charges respect the $0.50 minimum and whole cents', async () => {
    const u = await signUp(app);
    const low = await app.inject({ method: 'POST', url: '/v1/billing/processor/checkout-session', headers: u.auth, payload: { amount: '0.49' } });
    expect(low.statusCode).toBe(400);
    expect(low.json().error.code).toBe('BELOW_PROCESSOR_MINIMUM');
    const pi = await app.inject({ method: 'POST', url: '/v1/billing/processor/payment-intent', headers: u.auth, payload: { amount: '0.10', payment_method: 'pm_card_visa' } });
    expect(pi.json().error.code).toBe('BELOW_PROCESSOR_MINIMUM');
    expect((await app.inject({ method: 'POST', url: '/v1/billing/processor/checkout-session', headers: u.auth, payload: { amount: '1.005' } })).statusCode).toBe(400);
    expect((await app.inject({ method: 'POST', url: '/v1/billing/processor/checkout-session', headers: u.auth, payload: { amount: 5 } })).statusCode).toBe(400);
    const ok = await app.inject({ method: 'POST', url: '/v1/billing/processor/checkout-session', headers: u.auth, payload: { amount: '0.5' } });
    expect(ok.statusCode).toBe(200);
    expect(ok.json().data.amount).toBe('0.500000');
  });

  it('payment intent with a card credits at once and its webhook does not credit again; a declined card credits nothing', async () => {
    const u = await signUp(app);
    const r = await app.inject({ method: 'POST', url: '/v1/billing/processor/payment-intent', headers: u.auth, payload: { amount: '3.00', payment_method: 'pm_card_visa' } });
    expect(r.statusCode).toBe(200);
    expect(r.json().data).toMatchObject({ status: 'succeeded', credited: true, wallet: { available: '3.000000' } });
    const evs = await app.db.query<{ outcome: string }>('SELECT outcome FROM billing_processor_events WHERE object_id = $1', [r.json().data.payment_intent_id]);
    expect(evs.rows).toEqual([{ outcome: 'already credited' }]);
    const d = await app.inject({ method: 'POST', url: '/v1/billing/processor/payment-intent', headers: u.auth, payload: { amount: '3.00', payment_method: 'pm_card_chargeDeclined' } });
    expect(d.json().data).toMatchObject({ status: 'requires_payment_method', credited: false, failure_code: 'card_declined' });
    expect((await wallet(u.auth)).available).toBe('3.000000');
    const noPm = await app.inject({ method: 'POST', url: '/v1/billing/processor/payment-intent', headers: u.auth, payload: { amount: '3.00' } });
    expect(noPm.json().data).toMatchObject({ status: 'requires_payment_method', credited: false });
    expect(noPm.json().data.client_secret).toMatch(/^pi_sbx_\w+_secret_/);
  });

  it('setup intent and portal save a default card through webhooks', async () => {
    const u = await signUp(app);
    const si = await app.inject({ method: 'POST', url: '/v1/billing/processor/setup-intent', headers: u.auth, payload: { payment_method: 'pm_card_visa' } });
    expect(si.json().data).toMatchObject({ status: 'succeeded', payment_method: 'pm_card_visa' });
    expect((await app.inject({ method: 'GET', url: '/v1/billing/profile', headers: u.auth })).json().data.default_payment_method).toBe('pm_card_visa');
    const portal = (await app.inject({ method: 'POST', url: '/v1/billing/processor/portal-session', headers: u.auth, payload: {} })).json().data;
    expect(portal.url).toMatch(/\/v1\/billing\/processor\/sandbox\/portal\/bps_sbx_/);
    const path = new URL(portal.url).pathname;
    expect((await app.inject({ method: 'GET', url: path })).statusCode).toBe(200);
    const save = await app.inject({ method: 'POST', url: `${path}/payment-method`, headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: 'payment_method=pm_card_mastercard' });
    expect(save.statusCode).toBe(303);
    expect((await app.inject({ method: 'GET', url: '/v1/billing/profile', headers: u.auth })).json().data.default_payment_method).toBe('pm_card_mastercard');
  });
});
