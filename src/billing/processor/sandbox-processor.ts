import { createHash, randomBytes } from 'node:crypto';
import { fail } from '../../errors/app-error.js';
import { BILLING_ERRORS } from '../error-codes.js';
import type { SandboxStore } from '../ports.js';
import type { CheckoutSessionView, Metadata, PaymentIntentView, PaymentProcessor, SetupIntentView } from './processor.js';

export interface SandboxEvent {
  readonly id: string;
  readonly object: 'event';
  readonly type: string;
  readonly created: number;
  readonly livemode: false;
  readonly data: { readonly object: Record<string, unknown> };
  readonly delivered?: boolean;
}

interface StoredPI {
  id: string;
  object: 'payment_intent';
  amount: number;
  amount_received: number;
  currency: 'usd';
  customer: string | null;
  status: string;
  payment_method: string | null;
  client_secret: string;
  metadata: Metadata;
  last_payment_error: { code: string; message: string } | null;
  created: number;
}
interface StoredSession {
  id: string;
  object: 'checkout.session';
  url: string;
  status: string;
  payment_status: string;
  amount_total: number;
  currency: 'usd';
  customer: string;
  payment_intent: string | null;
  metadata: Metadata;
  success_url: string;
  cancel_url: string;
  expires_at: number;
  created: number;
}

/**
 * Test cards, as Stripe's test mode names them. Any other `pm_…` attached through a setup
 * intent succeeds too.
 */
export const SANDBOX_CARDS: Readonly<Record<string, { ok: true } | { ok: false; code: string; message: string }>> = {
  pm_card_visa: { ok: true },
  pm_card_mastercard: { ok: true },
  pm_card_chargeDeclined: { ok: false, code: 'card_declined', message: 'Your card was declined.' },
  pm_card_chargeDeclinedInsufficientFunds: { ok: false, code: 'card_declined', message: 'Your card has insufficient funds.' },
  pm_card_authenticationRequired: { ok: false, code: 'authentication_required', message: 'This payment requires authentication; the customer must be on session.' },
};

const rid = (prefix: string) => `${prefix}_sbx_${randomBytes(12).toString('hex')}`;

/** An idempotency key's record. `pi` without `params`: written before keys were checked on every create. */
interface StoredKey {
  id?: string;
  pi?: string;
  params?: string;
}

// Stripe compares a retried request's parameters with the first one's; so does the sandbox.
function fingerprint(operation: string, params: Record<string, unknown>): string {
  const norm = (v: unknown): unknown => {
    if (typeof v === 'bigint') return v.toString();
    if (v === null || typeof v !== 'object') return v;
    const o = v as Record<string, unknown>;
    return Object.fromEntries(
      Object.keys(o)
        .filter((k) => o[k] !== undefined)
        .sort()
        .map((k) => [k, norm(o[k])]),
    );
  };
  const { idempotencyKey: _key, ...rest } = params;
  return createHash('sha256')
    .update(`${operation}\n${JSON.stringify(norm(rest))}`)
    .digest('hex');
}

/**
 * The embedded processor: customers, setup and payment intents, checkout sessions with a
 * hosted page that completes the payment, portal sessions, and events signed like Stripe's.
 * It never moves real money.
 */
export class SandboxProcessor implements PaymentProcessor {
  readonly name = 'sandbox' as const;

  constructor(
    private readonly store: SandboxStore,
    private readonly baseUrl: string,
    readonly webhookSecret: string,
    private readonly nowSeconds: () => number = () => Math.floor(Date.now() / 1000),
  ) {}

  /**
   * Stripe's idempotent requests: the key names the object before it is made (so a crash between
   * the two leaves the retry making that same id); the same key with other parameters is
   * refused like Stripe's `idempotency_error`. No key: a new id each time.
   */
  private async claim(prefix: string, operation: string, params: Record<string, unknown> & { idempotencyKey?: string | undefined }): Promise<string> {
    const key = params.idempotencyKey;
    const id = rid(prefix);
    if (key === undefined) return id;
    const fp = fingerprint(operation, params);
    if (await this.store.insert(`idem:${key}`, 'idempotency', { id, params: fp } satisfies StoredKey)) return id;
    const prior = await this.store.get<StoredKey>(`idem:${key}`);
    const priorId = prior?.id ?? prior?.pi;
    if (prior === null || priorId === undefined) return id;
    if (prior.params !== undefined && prior.params !== fp) {
      throw fail(BILLING_ERRORS.PROCESSOR_ERROR, 'The processor refused the request: this idempotency key was used with other parameters.', {
        processor: 'sandbox',
        type: 'idempotency_error',
        code: 'idempotency_key_in_use',
      });
    }
    return priorId;
  }

  private async emit(type: string, object: Record<string, unknown>): Promise<SandboxEvent> {
    const e: SandboxEvent = { id: rid('evt'), object: 'event', type, created: this.nowSeconds(), livemode: false, data: { object }, delivered: false };
    await this.store.put(e.id, 'event', e);
    return e;
  }

  async undeliveredEvents(): Promise<SandboxEvent[]> {
    const all = await this.store.list<SandboxEvent>('event', { delivered: false });
    return all.sort((a, b) => a.created - b.created);
  }

  async markDelivered(e: SandboxEvent): Promise<void> {
    await this.store.put(e.id, 'event', { ...e, delivered: true });
  }

  async createCustomer(i: { accountId: string; email: string; idempotencyKey?: string }): Promise<{ id: string }> {
    const id = await this.claim('cus', 'customers.create', i);
    if ((await this.store.get(id)) !== null) return { id };
    await this.store.put(id, 'customer', { id, object: 'customer', email: i.email, metadata: { qrail_account_id: i.accountId }, created: this.nowSeconds() });
    return { id };
  }

  async createSetupIntent(i: { customerId: string; paymentMethod?: string; metadata: Metadata; idempotencyKey?: string }): Promise<SetupIntentView> {
    const id = await this.claim('seti', 'setup_intents.create', i);
    const prior = await this.store.get<{ client_secret: string; status: string; payment_method: string | null }>(id);
    if (prior !== null) return { id, clientSecret: prior.client_secret, status: prior.status, paymentMethod: prior.payment_method, customerId: i.customerId };
    const pm = i.paymentMethod ?? null;
    const status = pm === null ? 'requires_payment_method' : 'succeeded';
    const obj = {
      id,
      object: 'setup_intent',
      customer: i.customerId,
      status,
      payment_method: pm,
      client_secret: `${id}_secret_${randomBytes(8).toString('hex')}`,
      metadata: i.metadata,
      created: this.nowSeconds(),
    };
    await this.store.put(id, 'setup_intent', obj);
    if (pm !== null) {
      await this.store.put(`attached:${i.customerId}:${pm}`, 'attachment', { customer: i.customerId, payment_method: pm });
      await this.emit('setup_intent.succeeded', obj);
    }
    return { id, clientSecret: obj.client_secret, status, paymentMethod: pm, customerId: i.customerId };
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
    const id = await this.claim('pi', 'payment_intents.create', i);
    const prior = await this.store.get<StoredPI>(id);
    if (prior !== null) return piView(prior);
    const pm = i.paymentMethod ?? null;
    let status = 'requires_payment_method';
    let error: StoredPI['last_payment_error'] = null;
    if (i.confirm && pm !== null) {
      const card =
        SANDBOX_CARDS[pm] ??
        ((await this.store.get(`attached:${i.customerId}:${pm}`)) !== null ? { ok: true as const } : { ok: false as const, code: 'resource_missing', message: `No such payment method: ${pm}` });
      if (card.ok) status = 'succeeded';
      else error = { code: card.code, message: card.message };
    }
    const pi: StoredPI = {
      id,
      object: 'payment_intent',
      amount: Number(i.amountCents),
      amount_received: status === 'succeeded' ? Number(i.amountCents) : 0,
      currency: 'usd',
      customer: i.customerId,
      status,
      payment_method: pm,
      client_secret: `${id}_secret_${randomBytes(8).toString('hex')}`,
      metadata: i.metadata,
      last_payment_error: error,
      created: this.nowSeconds(),
    };
    await this.store.put(id, 'payment_intent', pi);
    if (status === 'succeeded') await this.emit('payment_intent.succeeded', { ...pi });
    else if (error !== null) await this.emit('payment_intent.payment_failed', { ...pi });
    return piView(pi);
  }

  async createCheckoutSession(i: { customerId: string; amountCents: bigint; successUrl: string; cancelUrl: string; metadata: Metadata; idempotencyKey: string }): Promise<CheckoutSessionView> {
    const id = await this.claim('cs', 'checkout.sessions.create', i);
    const prior = await this.store.get<StoredSession>(id);
    if (prior !== null) return sessionView(prior);
    const s: StoredSession = {
      id,
      object: 'checkout.session',
      url: `${this.baseUrl}/v1/billing/processor/sandbox/checkout/${id}`,
      status: 'open',
      payment_status: 'unpaid',
      amount_total: Number(i.amountCents),
      currency: 'usd',
      customer: i.customerId,
      payment_intent: null,
      metadata: i.metadata,
      success_url: i.successUrl,
      cancel_url: i.cancelUrl,
      expires_at: this.nowSeconds() + 86_400,
      created: this.nowSeconds(),
    };
    await this.store.put(id, 'checkout_session', s);
    return sessionView(s);
  }

  async retrieveCheckoutSession(id: string): Promise<CheckoutSessionView | null> {
    const s = await this.store.get<StoredSession>(id);
    return s === null || s.object !== 'checkout.session' ? null : sessionView(s);
  }

  /**
   * The hosted page's "Pay" button: completes the session with a test card and emits
   * `checkout.session.completed` (and `payment_intent.succeeded`) like Stripe. A decline
   * leaves the session open. Completing twice changes nothing.
   */
  async completeCheckout(id: string, card = 'pm_card_visa'): Promise<{ session: CheckoutSessionView; successUrl: string; cancelUrl: string; declined: string | null } | null> {
    const s = await this.store.get<StoredSession>(id);
    if (s === null || s.object !== 'checkout.session') return null;
    if (s.status !== 'open') return { session: sessionView(s), successUrl: s.success_url, cancelUrl: s.cancel_url, declined: null };
    const c = SANDBOX_CARDS[card] ?? SANDBOX_CARDS['pm_card_visa'];
    if (c !== undefined && !c.ok) return { session: sessionView(s), successUrl: s.success_url, cancelUrl: s.cancel_url, declined: c.message };
    const pi = await this.createPaymentIntent({
      customerId: s.customer,
      amountCents: BigInt(s.amount_total),
      paymentMethod: card,
      offSession: false,
      confirm: true,
      metadata: { ...s.metadata, qrail_purpose: 'checkout' },
      idempotencyKey: `checkout:${id}`,
    });
    const done: StoredSession = { ...s, status: 'complete', payment_status: 'paid', payment_intent: pi.id };
    await this.store.put(id, 'checkout_session', done);
    await this.emit('checkout.session.completed', { ...done });
    return { session: sessionView(done), successUrl: s.success_url, cancelUrl: s.cancel_url, declined: null };
  }

  async createPortalSession(i: { customerId: string; returnUrl: string; idempotencyKey?: string }): Promise<{ id: string; url: string }> {
    const id = await this.claim('bps', 'billing_portal.sessions.create', i);
    if ((await this.store.get(id)) === null)
      await this.store.put(id, 'portal_session', { id, object: 'billing_portal.session', customer: i.customerId, return_url: i.returnUrl, created: this.nowSeconds() });
    return { id, url: `${this.baseUrl}/v1/billing/processor/sandbox/portal/${id}` };
  }

  async portalSession(id: string): Promise<{ id: string; customer: string; return_url: string } | null> {
    return this.store.get(id);
  }

  /** The portal's "make default" action: attaches the card and emits `customer.updated`. */
  async portalSetDefault(portalId: string, paymentMethod: string): Promise<boolean> {
    const p = await this.portalSession(portalId);
    if (p === null) return false;
    await this.store.put(`attached:${p.customer}:${paymentMethod}`, 'attachment', { customer: p.customer, payment_method: paymentMethod });
    await this.emit('customer.updated', { id: p.customer, object: 'customer', invoice_settings: { default_payment_method: paymentMethod } });
    return true;
  }
}

function piView(p: StoredPI): PaymentIntentView {
  return {
    id: p.id,
    status: p.status,
    amountCents: BigInt(p.amount),
    customerId: p.customer,
    clientSecret: p.client_secret,
    failureCode: p.last_payment_error?.code ?? null,
    failureMessage: p.last_payment_error?.message ?? null,
    metadata: p.metadata,
  };
}

function sessionView(s: StoredSession): CheckoutSessionView {
  return {
    id: s.id,
    url: s.url,
    status: s.status,
    paymentStatus: s.payment_status,
    amountTotalCents: BigInt(s.amount_total),
    customerId: s.customer,
    paymentIntentId: s.payment_intent,
    metadata: s.metadata,
    expiresAt: new Date(s.expires_at * 1000),
  };
}
