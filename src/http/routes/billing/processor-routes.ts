import { Type } from 'typebox';
import type { App } from '../../app-types.js';
import { errors, okResponse } from '../../envelope-schemas.js';
import { REQUEST_BODY } from '../../openapi/finish-document.js';
import { principalOf } from '../../plugins/auth.js';
import { verifiedEmail } from '../../plugins/verified-email.js';
import { ChargeIn, CheckoutView, CustomerView, PaymentIntentView, PaymentMethodId, PortalView, ProcessorEventSchema, ReconcileView, SetupIntentView, WebhookView } from './schemas.js';

const tags = ['billing-processor'];
const Url = Type.String({ format: 'uri', maxLength: 2048 });

/** The seven processor endpoints of spec §4.2 (webhook in its own scope, see below). */
export default async function processorRoutes(app: App): Promise<void> {
  const payments = app.services.billing.payments;
  // onRequest, so that a missing session is a 401 before the body is validated.
  const auth = { onRequest: app.requireSession };
  // Top-ups need a confirmed email (issue #26).
  const verified = { onRequest: [app.requireSession, verifiedEmail(app)] };
  // Every POST here creates a processor object or moves money: Idempotency-Key is honoured.
  const idem = { idempotent: 'account' as const };

  // The sandbox posts its signed events to our own webhook endpoint, through the full HTTP path.
  payments.deliverer = async (body, signature) => {
    const r = await app.inject({ method: 'POST', url: '/v1/billing/processor/webhook', headers: { 'content-type': 'application/json', 'stripe-signature': signature }, payload: body });
    if (r.statusCode >= 300) throw new Error(`webhook delivery answered ${r.statusCode}`);
  };

  app.post(
    '/v1/billing/processor/customer',
    {
      ...auth,
      config: { idempotent: 'account' as const },
      schema: {
        tags,
        operationId: 'createProcessorCustomer',
        summary: 'Create (or return) the account’s processor customer',
        response: { 200: okResponse(CustomerView, 'The processor customer of the account'), ...errors(502) },
      },
    },
    async (req) => payments.customer(principalOf(req.principal).accountId),
  );

  app.post(
    '/v1/billing/processor/setup-intent',
    {
      ...auth,
      config: idem,
      schema: {
        tags,
        operationId: 'createSetupIntent',
        summary: 'Start saving a payment method for off-session charges (auto-recharge)',
        body: Type.Optional(Type.Object({ payment_method: Type.Optional(PaymentMethodId) }, { additionalProperties: false })),
        response: { 200: okResponse(SetupIntentView, 'The setup intent (confirm it with client_secret on the processor’s client)'), ...errors(502) },
      },
    },
    async (req) => payments.setupIntent(principalOf(req.principal).accountId, req.body ?? {}, req.idempotency?.runToken),
  );

  app.post(
    '/v1/billing/processor/payment-intent',
    {
      ...verified,
      config: idem,
      schema: {
        tags,
        operationId: 'createPaymentIntent',
        summary: 'Top up by a payment intent (credited when it succeeds; minimum 0.50)',
        body: Type.Object({ amount: ChargeIn, payment_method: Type.Optional(PaymentMethodId) }, { additionalProperties: false }),
        response: { 200: okResponse(PaymentIntentView, 'The payment intent; credited tells whether the wallet has the money'), ...errors(403, 502) },
      },
    },
    async (req) => payments.paymentIntent(principalOf(req.principal).accountId, req.body, req.idempotency?.runToken),
  );

  app.post(
    '/v1/billing/processor/checkout-session',
    {
      ...verified,
      config: idem,
      schema: {
        tags,
        operationId: 'createCheckoutSession',
        summary: 'Top up through a hosted checkout page (minimum 0.50)',
        body: Type.Object({ amount: ChargeIn, success_url: Type.Optional(Url), cancel_url: Type.Optional(Url) }, { additionalProperties: false }),
        response: { 200: okResponse(CheckoutView, 'The checkout session: send the customer to url'), ...errors(403, 502) },
      },
    },
    async (req) => payments.checkoutSession(principalOf(req.principal).accountId, req.body, req.idempotency?.runToken),
  );

  app.post(
    '/v1/billing/processor/portal-session',
    {
      ...auth,
      config: idem,
      schema: {
        tags,
        operationId: 'createPortalSession',
        summary: 'A hosted portal page to manage payment methods',
        body: Type.Optional(Type.Object({ return_url: Type.Optional(Url) }, { additionalProperties: false })),
        response: { 200: okResponse(PortalView, 'The portal session: send the customer to url'), ...errors(502) },
      },
    },
    async (req) => payments.portalSession(principalOf(req.principal).accountId, req.body ?? {}, req.idempotency?.runToken),
  );

  app.post(
    '/v1/billing/processor/reconcile-checkout',
    {
      ...auth,
      config: idem,
      schema: {
        tags,
        operationId: 'reconcileCheckout',
        summary: 'Credit a paid checkout that no webhook has credited yet — never twice',
        body: Type.Object({ session_id: Type.String({ minLength: 1, maxLength: 255, pattern: '^cs_[A-Za-z0-9_]+$' }) }, { additionalProperties: false }),
        // 403 another account's checkout; 404 unknown checkout.
        response: { 200: okResponse(ReconcileView, 'The checkout and whether this call credited it'), ...errors(403, 404, 502) },
      },
    },
    async (req) => payments.reconcileCheckout(principalOf(req.principal).accountId, req.body.session_id),
  );

  // The webhook needs the exact bytes that were signed: a scope with a raw-body parser only.
  await app.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', { parseAs: 'buffer' }, (_req, body, done) => done(null, body));
    scope.post(
      '/v1/billing/processor/webhook',
      {
        config: { rateLimit: false, anyContentType: true },
        schema: {
          tags,
          operationId: 'receiveProcessorWebhook',
          security: [{ processorSignature: [] }],
          summary: 'Inbound processor events; verified with Stripe-Signature (t=…,v1=… HMAC-SHA256, ±300 s), deduped by event id',
          headers: Type.Object({ 'stripe-signature': Type.Optional(Type.String({ maxLength: 4096 })) }),
          // The exact bytes are verified before they are parsed: documented, not validated by the edge.
          [REQUEST_BODY]: { required: true, content: { 'application/json': { schema: ProcessorEventSchema } } },
          response: { 200: okResponse(WebhookView, 'The event was applied (or was a duplicate)') },
        },
      },
      async (req) => {
        const raw = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
        const sig = req.headers['stripe-signature'];
        return payments.handleWebhook(raw, Array.isArray(sig) ? sig[0] : sig);
      },
    );
  });
}
