import { Type } from 'typebox';
import type { App } from '../../app-types.js';
import { formatMicros, centsToMicros } from '../../../billing/money.js';
import { htmlPage, noBody } from '../../envelope-schemas.js';
import { REQUEST_BODY } from '../../openapi/finish-document.js';
import { escapeHtml, sendPage } from '../../html-page.js';
import type { FastifyReply } from 'fastify';

const esc = escapeHtml;
const NOTE = '<p class="note">qrail sandbox processor — no real money moves.</p>';
// The forms post here, then the answer redirects to the caller's success or return URL, any origin
// (as a processor's hosted page does); browsers check that redirect against form-action as well.
const SANDBOX_FORMS = { formAction: "'self' https: http:" };
const page = (reply: FastifyReply, status: number, title: string, body: string) => sendPage(reply, status, title, `${body}${NOTE}`, SANDBOX_FORMS);

/**
 * Hosted pages of the embedded sandbox processor: checkout (completes the payment and
 * fires the signed webhooks) and portal (sets the default card). 404 with another processor.
 */
export default async function sandboxRoutes(app: App): Promise<void> {
  const billing = app.services.billing;
  // HTML pages: their success bodies are not enveloped, their errors are (platform routes).
  const raw = { surface: 'page' as const };
  const tags = ['billing-sandbox'];
  const page404 = htmlPage('No such sandbox page (or the processor is not the sandbox)');
  // A form post from the page itself: the card (or payment method) chosen.
  const form = (field: string, values: string[]) => ({
    required: false,
    content: { 'application/x-www-form-urlencoded': { schema: { type: 'object', additionalProperties: false, properties: { [field]: { type: 'string', maxLength: 203, examples: values } } } } },
  });
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_req, body, done) => {
    done(null, Object.fromEntries(new URLSearchParams(String(body))));
  });

  const notFound = (reply: FastifyReply) => page(reply, 404, 'Not found', '<p>No such sandbox page (or the processor is not the sandbox).</p>');

  app.get(
    '/v1/billing/processor/sandbox/checkout/:id',
    {
      config: raw,
      schema: {
        tags,
        operationId: 'getSandboxCheckoutPage',
        summary: 'Sandbox hosted checkout page',
        params: Type.Object({ id: Type.String({ maxLength: 128 }) }),
        response: { 200: htmlPage('The checkout page with its Pay button'), 404: page404 },
      },
    },
    async (req, reply) => {
      const sb = billing.sandbox;
      const s = sb === undefined ? null : await sb.retrieveCheckoutSession(req.params.id);
      if (s === null) return notFound(reply);
      const amount = formatMicros(centsToMicros(s.amountTotalCents)).slice(0, -4);
      const body =
        s.paymentStatus === 'paid'
          ? `<p>This checkout is paid: <strong>$${amount}</strong>.</p>`
          : `<p>Add <strong>$${amount}</strong> to your qrail balance.</p>
<form method="post" action="/v1/billing/processor/sandbox/checkout/${esc(s.id)}/pay">
<label>Test card <select name="card"><option value="pm_card_visa">Visa (succeeds)</option><option value="pm_card_chargeDeclined">Declined card</option></select></label>
<p><button type="submit">Pay $${amount}</button></p></form>`;
      return page(reply, 200, 'qrail checkout (sandbox)', body);
    },
  );

  app.post(
    '/v1/billing/processor/sandbox/checkout/:id/pay',
    {
      config: raw,
      schema: {
        tags,
        operationId: 'paySandboxCheckout',
        summary: 'Sandbox: pay a checkout (fires checkout.session.completed); redirects to success_url',
        params: Type.Object({ id: Type.String({ maxLength: 128 }) }),
        [REQUEST_BODY]: form('card', ['pm_card_visa', 'pm_card_chargeDeclined']),
        response: { 303: noBody('Paid: on to success_url (Location)'), 402: htmlPage('The card was declined'), 404: page404 },
      },
    },
    async (req, reply) => {
      const sb = billing.sandbox;
      const body = (req.body ?? {}) as { card?: unknown };
      const card = typeof body.card === 'string' ? body.card : 'pm_card_visa';
      const r = sb === undefined ? null : await sb.completeCheckout(req.params.id, card);
      if (r === null) return notFound(reply);
      if (r.declined !== null) return page(reply, 402, 'Payment declined', `<p>${esc(r.declined)}</p><p><a href="${esc(r.session.url ?? '')}">Try again</a></p>`);
      await billing.payments.flushSandboxEvents();
      return reply.redirect(r.successUrl.replace('{CHECKOUT_SESSION_ID}', encodeURIComponent(r.session.id)), 303);
    },
  );

  app.get(
    '/v1/billing/processor/sandbox/portal/:id',
    {
      config: raw,
      schema: {
        tags,
        operationId: 'getSandboxPortalPage',
        summary: 'Sandbox hosted portal page',
        params: Type.Object({ id: Type.String({ maxLength: 128 }) }),
        response: { 200: htmlPage('The portal page'), 404: page404 },
      },
    },
    async (req, reply) => {
      const sb = billing.sandbox;
      const p = sb === undefined ? null : await sb.portalSession(req.params.id);
      if (p === null) return notFound(reply);
      return page(
        reply,
        200,
        'qrail billing portal (sandbox)',
        `
<form method="post" action="/v1/billing/processor/sandbox/portal/${esc(p.id)}/payment-method">
<label>Default card <select name="payment_method"><option value="pm_card_visa">Visa</option><option value="pm_card_mastercard">Mastercard</option><option value="pm_card_chargeDeclined">Declined card</option></select></label>
<p><button type="submit">Save</button></p></form><p><a href="${esc(p.return_url)}">Back</a></p>`,
      );
    },
  );

  app.post(
    '/v1/billing/processor/sandbox/portal/:id/payment-method',
    {
      config: raw,
      schema: {
        tags,
        operationId: 'setSandboxPaymentMethod',
        summary: 'Sandbox: set the default card (fires customer.updated); redirects to return_url',
        params: Type.Object({ id: Type.String({ maxLength: 128 }) }),
        [REQUEST_BODY]: form('payment_method', ['pm_card_visa', 'pm_card_mastercard', 'pm_card_chargeDeclined']),
        response: { 303: noBody('Saved: on to return_url (Location)'), 404: page404 },
      },
    },
    async (req, reply) => {
      const sb = billing.sandbox;
      const body = (req.body ?? {}) as { payment_method?: unknown };
      const pm = typeof body.payment_method === 'string' && /^pm_[A-Za-z0-9_]{1,200}$/.test(body.payment_method) ? body.payment_method : 'pm_card_visa';
      const id = req.params.id;
      if (sb === undefined || !(await sb.portalSetDefault(id, pm))) return notFound(reply);
      await billing.payments.flushSandboxEvents();
      const p = await sb.portalSession(id);
      return reply.redirect(p?.return_url ?? '/', 303);
    },
  );

  app.get(
    '/v1/billing/processor/sandbox/return',
    {
      config: raw,
      schema: {
        tags,
        operationId: 'getSandboxReturnPage',
        summary: 'Default landing page after a sandbox checkout',
        querystring: Type.Object({ checkout: Type.Optional(Type.String({ maxLength: 128 })), cancelled: Type.Optional(Type.String({ maxLength: 8 })) }),
        response: { 200: htmlPage('A page saying the payment was received (or cancelled)') },
      },
    },
    async (req, reply) => {
      const q = req.query;
      const msg =
        q.cancelled !== undefined
          ? 'Checkout cancelled.'
          : `Payment received${q.checkout ? ` (${esc(q.checkout)})` : ''}. Your balance is credited by the webhook; POST /v1/billing/processor/reconcile-checkout makes sure.`;
      return page(reply, 200, 'qrail', `<p>${msg}</p>`);
    },
  );
}
