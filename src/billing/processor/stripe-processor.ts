import Stripe from 'stripe';
import { fail } from '../../errors/app-error.js';
import { BILLING_ERRORS } from '../error-codes.js';
import type { CheckoutSessionView, Metadata, PaymentIntentView, PaymentProcessor, SetupIntentView } from './processor.js';

export interface StripeSettings {
  readonly secretKey: string;
  readonly webhookSecret: string | undefined;
  /** For tests against a local fake: host, port and protocol of the API. */
  readonly host?: string;
  readonly port?: number;
  readonly protocol?: 'http' | 'https';
}

type StripeClient = InstanceType<typeof Stripe>;

const num = (v: unknown): bigint => BigInt(typeof v === 'number' || typeof v === 'string' || typeof v === 'bigint' ? v : 0);
const str = (v: unknown, fallback: string): string => (typeof v === 'string' ? v : fallback);
const idOf = (v: unknown): string | null => (typeof v === 'string' ? v : v !== null && typeof v === 'object' && 'id' in v ? String(v.id) : null);

/** Stripe through its official SDK; keys from the environment (see docs/billing.md). */
export class StripeProcessor implements PaymentProcessor {
  readonly name = 'stripe' as const;
  readonly webhookSecret: string | undefined;
  private readonly stripe: StripeClient;

  constructor(s: StripeSettings) {
    this.webhookSecret = s.webhookSecret;
    const opts: Record<string, unknown> = { maxNetworkRetries: 1, timeout: 20_000, appInfo: { name: 'qrail' } };
    if (s.host !== undefined) opts['host'] = s.host;
    if (s.port !== undefined) opts['port'] = s.port;
    if (s.protocol !== undefined) opts['protocol'] = s.protocol;
    this.stripe = new Stripe(s.secretKey, opts);
  }

  private async call<T>(what: string, fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (e) {
      const se = e as { type?: string; code?: string; message?: string; statusCode?: number };
      throw fail(BILLING_ERRORS.PROCESSOR_ERROR, `The processor failed to ${what}.`, { processor: 'stripe', type: se.type, code: se.code, status: se.statusCode });
    }
  }

  async createCustomer(i: { accountId: string; email: string; idempotencyKey: string }): Promise<{ id: string }> {
    const c = await this.call('create a customer', () => this.stripe.customers.create({ email: i.email, metadata: { qrail_account_id: i.accountId } }, { idempotencyKey: i.idempotencyKey }));
    return { id: c.id };
  }

  async createSetupIntent(i: { customerId: string; paymentMethod?: string; metadata: Metadata; idempotencyKey?: string }): Promise<SetupIntentView> {
    const params: Record<string, unknown> = { customer: i.customerId, usage: 'off_session', metadata: { ...i.metadata } };
    if (i.paymentMethod !== undefined) {
      params['payment_method'] = i.paymentMethod;
      params['confirm'] = true;
    }
    const si = await this.call('create a setup intent', () => this.stripe.setupIntents.create(params as never, keyed(i.idempotencyKey)));
    return { id: si.id, clientSecret: si.client_secret ?? null, status: si.status, paymentMethod: idOf(si.payment_method), customerId: i.customerId };
  }

  async createPaymentIntent(i: {
    customerId: string;
    amountCents: bigint;
    paymentMethod?: string;
    offSession: boolean;
    confirm: boolean;
    metadata: Metadata;
    idempotencyKey: string;
  }): Promise<PaymentIntentView> {
    const params: Record<string, unknown> = { amount: Number(i.amountCents), currency: 'usd', customer: i.customerId, metadata: { ...i.metadata } };
    if (i.paymentMethod !== undefined) params['payment_method'] = i.paymentMethod;
    if (i.confirm) params['confirm'] = true;
    if (i.offSession) params['off_session'] = true;
    try {
      const pi = await this.stripe.paymentIntents.create(params as never, { idempotencyKey: i.idempotencyKey });
      return piView(pi as unknown as Record<string, unknown>);
    } catch (e) {
      // An off-session decline is a StripeCardError carrying the payment intent: an outcome, not a fault.
      const se = e as { type?: string; code?: string; message?: string; raw?: { payment_intent?: Record<string, unknown> } };
      if (se.type === 'StripeCardError') {
        const pi = se.raw?.payment_intent;
        return {
          id: typeof pi?.['id'] === 'string' ? pi['id'] : '',
          status: typeof pi?.['status'] === 'string' ? pi['status'] : 'requires_payment_method',
          amountCents: i.amountCents,
          customerId: i.customerId,
          clientSecret: null,
          failureCode: se.code ?? 'card_declined',
          failureMessage: se.message ?? 'declined',
          metadata: i.metadata,
        };
      }
      const ae = e as { code?: string; statusCode?: number };
      throw fail(BILLING_ERRORS.PROCESSOR_ERROR, 'The processor failed to create a payment intent.', { processor: 'stripe', type: se.type, code: ae.code, status: ae.statusCode });
    }
  }

  async createCheckoutSession(i: { customerId: string; amountCents: bigint; successUrl: string; cancelUrl: string; metadata: Metadata; idempotencyKey: string }): Promise<CheckoutSessionView> {
    const cs = await this.call('create a checkout session', () =>
      this.stripe.checkout.sessions.create(
        {
          mode: 'payment',
          customer: i.customerId,
          success_url: i.successUrl,
          cancel_url: i.cancelUrl,
          line_items: [{ quantity: 1, price_data: { currency: 'usd', unit_amount: Number(i.amountCents), product_data: { name: 'qrail account credit' } } }],
          metadata: { ...i.metadata },
          payment_intent_data: { metadata: { ...i.metadata, qrail_purpose: 'checkout' }, setup_future_usage: 'off_session' },
        },
        { idempotencyKey: i.idempotencyKey },
      ),
    );
    return sessionView(cs as unknown as Record<string, unknown>);
  }

  async retrieveCheckoutSession(id: string): Promise<CheckoutSessionView | null> {
    try {
      const cs = await this.stripe.checkout.sessions.retrieve(id);
      return sessionView(cs as unknown as Record<string, unknown>);
    } catch (e) {
      if ((e as { statusCode?: number }).statusCode === 404) return null;
      throw fail(BILLING_ERRORS.PROCESSOR_ERROR, 'The processor failed to read the checkout session.', { processor: 'stripe', status: (e as { statusCode?: number }).statusCode });
    }
  }

  async createPortalSession(i: { customerId: string; returnUrl: string; idempotencyKey?: string }): Promise<{ id: string; url: string }> {
    const p = await this.call('create a portal session', () => this.stripe.billingPortal.sessions.create({ customer: i.customerId, return_url: i.returnUrl }, keyed(i.idempotencyKey)));
    return { id: p.id, url: p.url };
  }
}

const keyed = (idempotencyKey: string | undefined) => (idempotencyKey === undefined ? {} : { idempotencyKey });

function piView(pi: Record<string, unknown>): PaymentIntentView {
  const err = pi['last_payment_error'] as { code?: string; message?: string } | null | undefined;
  return {
    id: String(pi['id']),
    status: String(pi['status']),
    amountCents: num(pi['amount']),
    customerId: idOf(pi['customer']),
    clientSecret: typeof pi['client_secret'] === 'string' ? pi['client_secret'] : null,
    failureCode: err?.code ?? null,
    failureMessage: err?.message ?? null,
    metadata: (pi['metadata'] ?? {}) as Metadata,
  };
}

function sessionView(cs: Record<string, unknown>): CheckoutSessionView {
  return {
    id: String(cs['id']),
    url: typeof cs['url'] === 'string' ? cs['url'] : null,
    status: str(cs['status'], 'open'),
    paymentStatus: str(cs['payment_status'], 'unpaid'),
    amountTotalCents: num(cs['amount_total']),
    customerId: idOf(cs['customer']),
    paymentIntentId: idOf(cs['payment_intent']),
    metadata: (cs['metadata'] ?? {}) as Metadata,
    expiresAt: typeof cs['expires_at'] === 'number' ? new Date(cs['expires_at'] * 1000) : null,
  };
}
