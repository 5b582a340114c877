import { fail } from '../errors/app-error.js';
import { unsafeTextDetails } from '../errors/unsafe-text.js';
import { HTTP_ERRORS } from '../errors/http-error-codes.js';
import type { BillingConfig } from './billing-config.js';
import { BILLING_ERRORS } from './error-codes.js';
import { MICROS_PER_CENT, centsToMicros, formatMicros, parseUsd } from './money.js';
import { PROCESSOR_MAXIMUM_CENTS, PROCESSOR_MINIMUM_CENTS, type PaymentProcessor } from './processor/processor.js';
import type { SandboxProcessor } from './processor/sandbox-processor.js';
import { signatureHeader, verifySignature } from './processor/webhook-signature.js';
import type { BillingPorts, BillingTx } from './ports.js';
import type { AttemptOutcome } from './records.js';
import { walletView } from './views.js';

export interface ProcessorEvent {
  readonly id: string;
  readonly type: string;
  readonly created: number;
  readonly data: { readonly object: Record<string, unknown> };
}

/** Posts a signed event body to this service's own webhook endpoint (set by the route plugin). */
export type WebhookDeliverer = (rawBody: string, signature: string) => Promise<void>;

/** A member of a parsed event object, own properties only: `toString` or `constructor` are never found on the prototype. */
const own = (o: unknown, k: string): unknown => (o !== null && typeof o === 'object' && Object.hasOwn(o, k) ? (o as Record<string, unknown>)[k] : undefined);
/** An amount in cents, already checked by parseEvent to be absent or a non-negative safe integer. */
const cents = (o: Record<string, unknown>, ...keys: string[]): bigint => {
  for (const k of keys) {
    const v = own(o, k);
    if (typeof v === 'number') return BigInt(v);
  }
  return 0n;
};
const str = (v: unknown): string | null => (typeof v === 'string' && v !== '' ? v : null);
const idOf = (v: unknown): string | null => str(v) ?? (v !== null && typeof v === 'object' ? str((v as { id?: unknown }).id) : null);
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A processor charge amount: whole cents, at least $0.50, at most the maximum. */
export function chargeCents(amount: string, path = '/amount'): bigint {
  let micros: bigint;
  try {
    micros = parseUsd(amount);
  } catch {
    throw fail(BILLING_ERRORS.INVALID_AMOUNT, 'The amount must be a USD decimal string such as "10.00".', [{ in: 'body', path, code: 'INVALID_AMOUNT', message: 'is not a USD amount' }]);
  }
  if (micros % MICROS_PER_CENT !== 0n) {
    throw fail(BILLING_ERRORS.INVALID_AMOUNT, 'Processor charges are in whole cents.', [{ in: 'body', path, code: 'INVALID_AMOUNT', message: 'has more than two decimals' }]);
  }
  const cents = micros / MICROS_PER_CENT;
  if (cents < PROCESSOR_MINIMUM_CENTS) {
    throw fail(BILLING_ERRORS.BELOW_PROCESSOR_MINIMUM, `Processor charges must be at least 0.50; got ${formatMicros(micros)}.`, [
      { in: 'body', path, code: 'BELOW_PROCESSOR_MINIMUM', message: 'is below 0.50' },
    ]);
  }
  if (cents > PROCESSOR_MAXIMUM_CENTS) {
    throw fail(BILLING_ERRORS.INVALID_AMOUNT, `A single charge is at most ${formatMicros(centsToMicros(PROCESSOR_MAXIMUM_CENTS))}.`, [
      { in: 'body', path, code: 'INVALID_AMOUNT', message: 'is too large' },
    ]);
  }
  return cents;
}

/** Processor surfaces: customers, intents, checkout, portal, webhooks and reconciliation. */
export class Payments {
  deliverer: WebhookDeliverer | undefined;
  /** Auto-recharge attempt outcomes learnt from webhooks, applied in the webhook's transaction. */
  onPaymentOutcome: (tx: BillingTx, accountId: string, attemptId: string, o: AttemptOutcome) => Promise<void> = async () => undefined;

  constructor(
    private readonly ports: BillingPorts,
    readonly processor: PaymentProcessor,
    private readonly settings: BillingConfig,
  ) {}

  private get auto(): BillingTx {
    return this.ports.uow.autocommit;
  }

  get sandbox(): SandboxProcessor | undefined {
    return this.processor.name === 'sandbox' ? (this.processor as SandboxProcessor) : undefined;
  }

  /** The account's processor customer, created on first use. */
  async ensureCustomer(accountId: string): Promise<{ customerId: string; created: boolean }> {
    const w = await this.ports.ledger.readWallet(this.auto, accountId);
    if (w?.processor_customer_id) return { customerId: w.processor_customer_id, created: false };
    const email = await this.ports.accounts.emailOf(this.auto, accountId);
    const c = await this.processor.createCustomer({ accountId, email: email ?? '', idempotencyKey: `customer:${accountId}` });
    const effective = await this.ports.wallets.saveCustomer(this.auto, accountId, c.id);
    return { customerId: effective, created: effective === c.id };
  }

  async customer(accountId: string) {
    const { customerId, created } = await this.ensureCustomer(accountId);
    return { customer_id: customerId, created, processor: this.processor.name };
  }

  async setupIntent(accountId: string, i: { payment_method?: string }, runKey?: string) {
    const { customerId } = await this.ensureCustomer(accountId);
    const si = await this.processor.createSetupIntent({
      customerId,
      ...(i.payment_method ? { paymentMethod: i.payment_method } : {}),
      metadata: { qrail_account_id: accountId },
      ...(runKey === undefined ? {} : { idempotencyKey: `setup:${accountId}:${runKey}` }),
    });
    await this.flushSandboxEvents();
    return { setup_intent_id: si.id, client_secret: si.clientSecret, status: si.status, payment_method: si.paymentMethod, customer_id: customerId, processor: this.processor.name };
  }

  /** `runKey`: the Idempotency-Key run of the request, so a retried run reuses the processor's object. */
  async paymentIntent(accountId: string, i: { amount: string; payment_method?: string }, runKey?: string) {
    const cents = chargeCents(i.amount);
    const { customerId } = await this.ensureCustomer(accountId);
    const pi = await this.processor.createPaymentIntent({
      customerId,
      amountCents: cents,
      ...(i.payment_method ? { paymentMethod: i.payment_method } : {}),
      offSession: false,
      confirm: i.payment_method !== undefined,
      metadata: { qrail_account_id: accountId, qrail_purpose: 'topup' },
      idempotencyKey: runKey === undefined ? `topup:${accountId}:${Date.now()}:${Math.random()}` : `topup:${accountId}:${runKey}`,
    });
    let credited = false;
    await this.ports.uow.run(async (tx) => {
      await this.ports.payments.recordPayment(tx, { id: pi.id, accountId, kind: 'payment_intent', purpose: 'topup', amountMicros: centsToMicros(cents), status: pi.status });
      if (pi.status === 'succeeded') {
        credited = (await this.ports.ledger.creditPayment(tx, { accountId, amountMicros: centsToMicros(pi.amountCents), externalRef: `payment_intent:${pi.id}`, description: `top-up ${pi.id}` }))
          .credited;
      }
    });
    await this.flushSandboxEvents();
    return {
      payment_intent_id: pi.id,
      client_secret: pi.clientSecret,
      status: pi.status,
      amount: formatMicros(centsToMicros(cents)),
      currency: 'USD' as const,
      credited,
      failure_code: pi.failureCode,
      failure_message: pi.failureMessage,
      wallet: walletView(await this.ports.ledger.wallet(this.auto, accountId)),
    };
  }

  async checkoutSession(accountId: string, i: { amount: string; success_url?: string; cancel_url?: string }, runKey?: string) {
    const cents = chargeCents(i.amount);
    const { customerId } = await this.ensureCustomer(accountId);
    const base = this.settings.publicBaseUrl;
    const s = await this.processor.createCheckoutSession({
      customerId,
      amountCents: cents,
      successUrl: i.success_url ?? `${base}/v1/billing/processor/sandbox/return?checkout={CHECKOUT_SESSION_ID}`,
      cancelUrl: i.cancel_url ?? `${base}/v1/billing/processor/sandbox/return?cancelled=1`,
      metadata: { qrail_account_id: accountId, qrail_purpose: 'checkout' },
      idempotencyKey: runKey === undefined ? `checkout:${accountId}:${Date.now()}:${Math.random()}` : `checkout:${accountId}:${runKey}`,
    });
    await this.ports.payments.recordPayment(this.auto, { id: s.id, accountId, kind: 'checkout_session', purpose: 'checkout', amountMicros: centsToMicros(cents), status: s.status });
    return {
      session_id: s.id,
      url: s.url,
      status: s.status,
      payment_status: s.paymentStatus,
      amount: formatMicros(centsToMicros(cents)),
      currency: 'USD' as const,
      expires_at: s.expiresAt?.toISOString() ?? null,
      processor: this.processor.name,
    };
  }

  async portalSession(accountId: string, i: { return_url?: string }, runKey?: string) {
    const { customerId } = await this.ensureCustomer(accountId);
    const p = await this.processor.createPortalSession({
      customerId,
      returnUrl: i.return_url ?? `${this.settings.publicBaseUrl}/v1/billing/profile`,
      ...(runKey === undefined ? {} : { idempotencyKey: `portal:${accountId}:${runKey}` }),
    });
    return { portal_session_id: p.id, url: p.url, processor: this.processor.name };
  }

  /**
   * Credits a paid checkout that no webhook has credited yet. The credit's external
   * reference `checkout:<session id>` is unique in the ledger, so webhook and reconcile
   * (in any order, even concurrently) credit once.
   */
  async reconcileCheckout(accountId: string, sessionId: string) {
    const row = await this.ports.payments.findPayment(this.auto, sessionId);
    if (row === null || row.kind !== 'checkout_session') throw fail(BILLING_ERRORS.CHECKOUT_NOT_FOUND, `No checkout session ${sessionId}.`);
    if (row.account_id !== accountId) throw fail(HTTP_ERRORS.FORBIDDEN, 'This checkout session belongs to another account.');
    const s = await this.processor.retrieveCheckoutSession(sessionId);
    if (s === null) throw fail(BILLING_ERRORS.CHECKOUT_NOT_FOUND, `The processor has no checkout session ${sessionId}.`);
    let credited = false;
    if (s.paymentStatus === 'paid') {
      credited = await this.ports.uow.run(async (tx) => {
        const r = await this.ports.ledger.creditPayment(tx, { accountId, amountMicros: centsToMicros(s.amountTotalCents), externalRef: `checkout:${s.id}`, description: `checkout ${s.id}` });
        await this.ports.payments.setPaymentStatus(tx, s.id, 'paid');
        return r.credited;
      });
    }
    return {
      session_id: s.id,
      status: s.status,
      payment_status: s.paymentStatus,
      amount: formatMicros(centsToMicros(s.amountTotalCents)),
      credited,
      already_credited: s.paymentStatus === 'paid' && !credited,
      wallet: walletView(await this.ports.ledger.wallet(this.auto, accountId)),
    };
  }

  /** Verifies, dedupes by event id and applies one webhook event — all in one transaction. */
  async handleWebhook(raw: Uint8Array, signature: string | undefined, nowSeconds = Math.floor(Date.now() / 1000)) {
    const secret = this.processor.webhookSecret;
    if (secret === undefined) throw fail(HTTP_ERRORS.FEATURE_UNAVAILABLE, 'Webhooks are not configured: set STRIPE_WEBHOOK_SECRET.');
    verifySignature(raw, signature, secret, nowSeconds);
    const event = parseEvent(raw);
    const objectId = idOf(event.data.object);
    return this.ports.uow.run(async (tx) => {
      const fresh = await this.ports.payments.claimEvent(tx, { id: event.id, type: event.type, objectId, created: new Date(event.created * 1000) });
      if (!fresh) return { received: true, event_id: event.id, type: event.type, duplicate: true, outcome: (await this.ports.payments.eventOutcome(tx, event.id)) ?? 'processing' };
      const outcome = await this.apply(tx, event);
      await this.ports.payments.setEventOutcome(tx, event.id, outcome);
      return { received: true, event_id: event.id, type: event.type, duplicate: false, outcome };
    });
  }

  /** Which account an object's money belongs to: our own record first, else metadata matching the customer. */
  private async accountFor(tx: BillingTx, objectId: string | null, o: Record<string, unknown>): Promise<string | null> {
    if (objectId !== null) {
      const row = await this.ports.payments.findPayment(tx, objectId);
      if (row !== null) return row.account_id;
    }
    const meta = (o['metadata'] ?? {}) as Record<string, unknown>;
    const claimed = str(meta['qrail_account_id']);
    const customer = idOf(o['customer']);
    if (claimed === null || customer === null || !UUID.test(claimed)) return null;
    return (await this.ports.wallets.accountByCustomer(tx, customer)) === claimed ? claimed : null;
  }

  private async apply(tx: BillingTx, e: ProcessorEvent): Promise<string> {
    const { ledger, payments, wallets } = this.ports;
    const o = e.data.object;
    const id = idOf(o);
    const meta = (o['metadata'] ?? {}) as Record<string, unknown>;
    switch (e.type) {
      case 'checkout.session.completed':
      case 'checkout.session.async_payment_succeeded': {
        if (o['payment_status'] !== 'paid') return 'ignored: not paid yet';
        const accountId = await this.accountFor(tx, id, o);
        if (accountId === null || id === null) return 'ignored: unknown checkout session';
        const r = await ledger.creditPayment(tx, { accountId, amountMicros: centsToMicros(cents(o, 'amount_total')), externalRef: `checkout:${id}`, description: `checkout ${id}` });
        await payments.setPaymentStatus(tx, id, 'paid');
        return r.credited ? 'credited' : 'already credited';
      }
      case 'payment_intent.succeeded': {
        const purpose = str(meta['qrail_purpose']);
        if (purpose === 'checkout') return 'ignored: credited through its checkout session';
        if (purpose !== 'topup' && purpose !== 'auto_recharge') return 'ignored: not a qrail payment';
        const accountId = await this.accountFor(tx, id, o);
        if (accountId === null || id === null) return 'ignored: unknown payment intent';
        const received = cents(o, 'amount_received', 'amount');
        const r = await ledger.creditPayment(tx, {
          accountId,
          amountMicros: centsToMicros(received),
          externalRef: `payment_intent:${id}`,
          description: `${purpose === 'auto_recharge' ? 'auto-recharge' : 'top-up'} ${id}`,
        });
        await payments.setPaymentStatus(tx, id, 'succeeded');
        const attempt = str(meta['qrail_attempt_id']);
        if (purpose === 'auto_recharge' && attempt !== null) await this.onPaymentOutcome(tx, accountId, attempt, { status: 'succeeded', paymentIntentId: id });
        return r.credited ? 'credited' : 'already credited';
      }
      case 'payment_intent.payment_failed': {
        const accountId = await this.accountFor(tx, id, o);
        if (accountId === null || id === null) return 'ignored: unknown payment intent';
        const err = (o['last_payment_error'] ?? {}) as Record<string, unknown>;
        const attempt = str(meta['qrail_attempt_id']);
        if (str(meta['qrail_purpose']) === 'auto_recharge' && attempt !== null) {
          await this.onPaymentOutcome(tx, accountId, attempt, { status: 'failed', paymentIntentId: id, code: str(err['code']) ?? 'payment_failed', message: str(err['message']) });
        }
        // A late failure never overwrites a success (out-of-order delivery).
        await payments.markPaymentFailed(tx, id);
        return 'recorded failure';
      }
      case 'setup_intent.succeeded': {
        const customer = idOf(o['customer']);
        const pm = idOf(o['payment_method']);
        const accountId = customer === null ? null : await wallets.accountByCustomer(tx, customer);
        if (accountId === null || pm === null) return 'ignored: unknown customer';
        return (await wallets.setDefaultPaymentMethod(tx, accountId, pm, new Date(e.created * 1000))) ? 'default payment method set' : 'ignored: older than the current default';
      }
      case 'customer.updated': {
        const pm = idOf(((o['invoice_settings'] ?? {}) as Record<string, unknown>)['default_payment_method']);
        const accountId = id === null ? null : await wallets.accountByCustomer(tx, id);
        if (accountId === null || pm === null) return 'ignored';
        return (await wallets.setDefaultPaymentMethod(tx, accountId, pm, new Date(e.created * 1000))) ? 'default payment method set' : 'ignored: older than the current default';
      }
      default:
        return 'ignored: event type not used';
    }
  }

  /** Sandbox only: posts every undelivered sandbox event, signed, to the webhook endpoint. */
  async flushSandboxEvents(): Promise<number> {
    const sb = this.sandbox;
    if (sb === undefined || this.deliverer === undefined || !this.settings.sandboxAutoDeliver) return 0;
    let n = 0;
    for (const e of await sb.undeliveredEvents()) {
      const { delivered: _d, ...event } = e;
      const body = JSON.stringify(event);
      try {
        await this.deliverer(body, signatureHeader(body, sb.webhookSecret, Math.floor(Date.now() / 1000)));
        await sb.markDelivered(e);
        n += 1;
      } catch {
        // Left undelivered; the next flush retries (reconcile-checkout covers the gap meanwhile).
      }
    }
    return n;
  }
}

/** Amount members of event objects that reach the ledger. */
const AMOUNT_FIELDS = ['amount', 'amount_total', 'amount_received'] as const;
/** Year 5138: anything later is not a real event time (and would not fit a timestamp column). */
const MAX_EVENT_SECONDS = 1e11;
/** $10 billion: far above any charge we create, far below what a bigint micro-USD column holds. */
const MAX_EVENT_CENTS = 1e12;

function parseEvent(raw: Uint8Array): ProcessorEvent {
  let v: unknown;
  try {
    v = JSON.parse(Buffer.from(raw).toString('utf8'));
  } catch {
    throw fail(BILLING_ERRORS.WEBHOOK_PAYLOAD_INVALID, 'The webhook body is not JSON.');
  }
  // Signed does not mean storable: text the database refuses, or absurd nesting, is a 400 too.
  const unsafe = unsafeTextDetails(v, 'body');
  if (unsafe.length > 0) throw fail(BILLING_ERRORS.WEBHOOK_PAYLOAD_INVALID, 'The webhook body contains text that cannot be stored or is nested too deeply.', unsafe);
  const id = own(v, 'id');
  const type = own(v, 'type');
  const created = own(v, 'created');
  const object = own(own(v, 'data'), 'object');
  if (
    typeof id !== 'string' ||
    id === '' ||
    id.length > 255 ||
    typeof type !== 'string' ||
    type === '' ||
    type.length > 255 ||
    typeof created !== 'number' ||
    !Number.isSafeInteger(created) ||
    created < 0 ||
    created > MAX_EVENT_SECONDS ||
    object === null ||
    typeof object !== 'object' ||
    Array.isArray(object)
  ) {
    throw fail(BILLING_ERRORS.WEBHOOK_PAYLOAD_INVALID, 'The webhook body is not an event with id, type, created (Unix seconds) and data.object.');
  }
  const badAmounts = AMOUNT_FIELDS.filter((k) => {
    const a = own(object, k);
    return a !== undefined && a !== null && !(typeof a === 'number' && Number.isSafeInteger(a) && a >= 0 && a <= MAX_EVENT_CENTS);
  });
  if (badAmounts.length > 0) {
    throw fail(
      BILLING_ERRORS.WEBHOOK_PAYLOAD_INVALID,
      'Event amounts must be non-negative integers (cents).',
      badAmounts.map((k) => ({ in: 'body', path: `/data/object/${k}`, code: 'WRONG_TYPE', message: 'must be an integer number of cents from 0 to 1000000000000' })),
    );
  }
  return { id, type, created, data: { object: object as Record<string, unknown> } };
}
