import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import Stripe from 'stripe';
import type { App } from '../../src/http/app-types.js';
import { signatureHeader, verifySignature } from '../../src/billing/processor/webhook-signature.js';
import { buildTestApp, signUp } from '../helpers/app.js';
import { expectLedgerInvariants } from '../helpers/ledger.js';
import { FakeStripe } from './fake-stripe.js';

const KEY = 'sk_test_qrail_fake_key';
const WHSEC = 'whsec_qrail_fake_stripe';

describe('stripe adapter (official SDK against a local fake API)', () => {
  let app: App;
  const fake = new FakeStripe();
  const stripe = new Stripe(KEY);
  beforeAll(async () => {
    await fake.start();
    app = await buildTestApp({ STRIPE_SECRET_KEY: KEY, STRIPE_WEBHOOK_SECRET: WHSEC, STRIPE_API_HOST: '127.0.0.1', STRIPE_API_PORT: String(fake.port), STRIPE_API_PROTOCOL: 'http' });
  });
  afterEach(async () => expectLedgerInvariants(app));
  afterAll(async () => {
    await app.close();
    await fake.stop();
  });

  const webhook = (event: object, header?: string) => {
    const payload = JSON.stringify(event);
    return app.inject({
      method: 'POST',
      url: '/v1/billing/processor/webhook',
      headers: { 'content-type': 'application/json', 'stripe-signature': header ?? stripe.webhooks.generateTestHeaderString({ payload, secret: WHSEC }) },
      payload,
    });
  };
  const wallet = async (auth: { authorization: string }) => (await app.inject({ method: 'GET', url: '/v1/billing/wallet', headers: auth })).json().data;

  it('selects stripe from the environment and talks to the configured host with the secret key', async () => {
    const u = await signUp(app);
    expect((await app.inject({ method: 'GET', url: '/v1/billing/profile', headers: u.auth })).json().data.processor).toBe('stripe');
    const c = await app.inject({ method: 'POST', url: '/v1/billing/processor/customer', headers: u.auth });
    expect(c.statusCode).toBe(200);
    expect(c.json().data).toMatchObject({ customer_id: expect.stringMatching(/^cus_fake_/), created: true, processor: 'stripe' });
    const req = fake.requests.find((r) => r.path === '/v1/customers');
    expect(req?.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(req?.form.get('email')).toBe(u.email);
    expect(req?.form.get('metadata[qrail_account_id]')).toBe(u.accountId);
    const again = await app.inject({ method: 'POST', url: '/v1/billing/processor/customer', headers: u.auth });
    expect(again.json().data).toMatchObject({ customer_id: c.json().data.customer_id, created: false });
    const portal = await app.inject({ method: 'POST', url: '/v1/billing/processor/portal-session', headers: u.auth, payload: {} });
    expect(portal.json().data.url).toMatch(/^https:\/\/billing\.fake\/bps_fake_/);
    const si = await app.inject({ method: 'POST', url: '/v1/billing/processor/setup-intent', headers: u.auth, payload: {} });
    expect(si.json().data).toMatchObject({ status: 'requires_payment_method', client_secret: expect.stringMatching(/_secret$/) });
  });

  it('checkout: webhook (signed by stripe.webhooks.generateTestHeaderString) then reconcile → one credit', async () => {
    const u = await signUp(app);
    const s = (await app.inject({ method: 'POST', url: '/v1/billing/processor/checkout-session', headers: u.auth, payload: { amount: '12.34' } })).json().data;
    expect(s.url).toBe(`https://checkout.fake/${s.session_id}`);
    const sent = fake.requests.filter((r) => r.path === '/v1/checkout/sessions').at(-1);
    expect(sent?.form.get('line_items[0][price_data][unit_amount]')).toBe('1234');
    expect(sent?.form.get('line_items[0][price_data][currency]')).toBe('usd');
    expect(sent?.headers['idempotency-key']).toBeTruthy();
    const paid = fake.pay(s.session_id);
    const r = await webhook({ id: 'evt_stripe_1', object: 'event', type: 'checkout.session.completed', created: Math.floor(Date.now() / 1000), data: { object: paid } });
    expect(r.statusCode).toBe(200);
    expect(r.json().data.outcome).toBe('credited');
    const rec = await app.inject({ method: 'POST', url: '/v1/billing/processor/reconcile-checkout', headers: u.auth, payload: { session_id: s.session_id } });
    expect(rec.json().data).toMatchObject({ payment_status: 'paid', credited: false, already_credited: true });
    expect((await wallet(u.auth)).available).toBe('12.340000');
  });

  it('checkout: reconcile then webhook → one credit', async () => {
    const u = await signUp(app);
    const s = (await app.inject({ method: 'POST', url: '/v1/billing/processor/checkout-session', headers: u.auth, payload: { amount: '5.00' } })).json().data;
    const paid = fake.pay(s.session_id);
    const rec = await app.inject({ method: 'POST', url: '/v1/billing/processor/reconcile-checkout', headers: u.auth, payload: { session_id: s.session_id } });
    expect(rec.json().data).toMatchObject({ credited: true });
    const r = await webhook({ id: 'evt_stripe_2', object: 'event', type: 'checkout.session.completed', created: Math.floor(Date.now() / 1000), data: { object: paid } });
    expect(r.json().data.outcome).toBe('already credited');
    expect((await wallet(u.auth)).available).toBe('5.000000');
  });

  it('stale and forged Stripe-signed webhooks are refused', async () => {
    const ev = { id: 'evt_stripe_3', object: 'event', type: 'customer.created', created: 1, data: { object: { id: 'cus_x' } } };
    const payload = JSON.stringify(ev);
    const stale = await webhook(ev, stripe.webhooks.generateTestHeaderString({ payload, secret: WHSEC, timestamp: Math.floor(Date.now() / 1000) - 400 }));
    expect(stale.json().error.code).toBe('WEBHOOK_TIMESTAMP_OUT_OF_TOLERANCE');
    const future = await webhook(ev, stripe.webhooks.generateTestHeaderString({ payload, secret: WHSEC, timestamp: Math.floor(Date.now() / 1000) + 400 }));
    expect(future.json().error.code).toBe('WEBHOOK_TIMESTAMP_OUT_OF_TOLERANCE');
    const forged = await webhook(ev, stripe.webhooks.generateTestHeaderString({ payload, secret: 'whsec_other' }));
    expect(forged.json().error.code).toBe('WEBHOOK_SIGNATURE_INVALID');
  });

  it('our signer and Stripe’s verifier agree (and the reverse)', () => {
    const payload = JSON.stringify({ id: 'evt_x', object: 'event' });
    const t = Math.floor(Date.now() / 1000);
    expect(stripe.webhooks.constructEvent(payload, signatureHeader(payload, WHSEC, t), WHSEC).id).toBe('evt_x');
    expect(verifySignature(Buffer.from(payload), stripe.webhooks.generateTestHeaderString({ payload, secret: WHSEC, timestamp: t }), WHSEC, t)).toBe(t);
  });

  it('auto-recharge charges off-session through Stripe; a card error is a recorded failure', async () => {
    const u = await signUp(app);
    const p = await app.inject({
      method: 'PATCH',
      url: '/v1/billing/spend-controls',
      headers: u.auth,
      payload: { auto_recharge: { enabled: true, threshold: '2.00', recharge_to: '10.00', payment_method: 'pm_card_chargeDeclined' } },
    });
    expect(p.statusCode).toBe(200);
    const fail = (await app.inject({ method: 'POST', url: '/v1/billing/auto-recharge/test', headers: u.auth })).json().data;
    expect(fail.attempt).toMatchObject({ status: 'failed', failure_code: 'card_declined', amount: '10.000000' });
    const sent = fake.requests.filter((r) => r.path === '/v1/payment_intents').at(-1);
    expect(sent?.form.get('off_session')).toBe('true');
    expect(sent?.form.get('confirm')).toBe('true');
    expect(sent?.form.get('amount')).toBe('1000');
    expect(sent?.form.get('metadata[qrail_purpose]')).toBe('auto_recharge');
    await app.inject({ method: 'PATCH', url: '/v1/billing/spend-controls', headers: u.auth, payload: { auto_recharge: { payment_method: 'pm_card_visa' } } });
    const ok = (await app.inject({ method: 'POST', url: '/v1/billing/auto-recharge/test', headers: u.auth })).json().data;
    expect(ok.attempt).toMatchObject({ status: 'succeeded', amount: '10.000000' });
    expect(ok.wallet.available).toBe('10.000000');
    // Stripe's own payment_intent.succeeded webhook for it credits nothing more.
    const piId = ok.attempt.payment_intent_id as string;
    const r = await webhook({
      id: 'evt_stripe_pi',
      object: 'event',
      type: 'payment_intent.succeeded',
      created: Math.floor(Date.now() / 1000),
      data: {
        object: {
          id: piId,
          object: 'payment_intent',
          amount: 1000,
          amount_received: 1000,
          metadata: { qrail_account_id: u.accountId, qrail_purpose: 'auto_recharge', qrail_attempt_id: ok.attempt.attempt_id },
        },
      },
    });
    expect(r.json().data.outcome).toBe('already credited');
    expect((await wallet(u.auth)).available).toBe('10.000000');
  });
});
