import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/http/app-types.js';
import { buildTestApp, signUp } from '../helpers/app.js';

/**
 * Issue #34 item 4: every HTML page outside the console and /docs (the mailed links' pages, the
 * sandbox processor's hosted pages) is served with a Content-Security-Policy that forbids framing
 * and foreign script, X-Frame-Options, Referrer-Policy (the reset page's URL carries its token) and
 * Cache-Control: no-store. The pages' inline script and style carry the policy's nonce.
 */
describe('security headers of the HTML pages', () => {
  let app: App;
  let u: Awaited<ReturnType<typeof signUp>>;
  let checkoutId = '';
  let portalId = '';
  beforeAll(async () => {
    app = await buildTestApp({ RATE_LIMIT_AUTH_PER_MINUTE: '10000' });
    u = await signUp(app);
    const c = await app.inject({ method: 'POST', url: '/v1/billing/processor/checkout-session', headers: u.auth, payload: { amount: '5.00' } });
    expect(c.statusCode).toBe(200);
    checkoutId = c.json().data.session_id as string;
    const p = await app.inject({ method: 'POST', url: '/v1/billing/processor/portal-session', headers: u.auth, payload: { return_url: 'http://qrail.test/console/' } });
    expect(p.statusCode).toBe(200);
    portalId = new URL(p.json().data.url as string).pathname.split('/').at(-1) ?? '';
  });
  afterAll(async () => app.close());

  const resetToken = async () => {
    await app.inject({ method: 'POST', url: '/v1/auth/password/forgot', payload: { email: u.email } });
    const r = await app.db.query<{ text_body: string }>(`SELECT text_body FROM mail_outbox WHERE user_id = $1 AND template = 'password_reset' ORDER BY created_at DESC LIMIT 1`, [u.userId]);
    return /token=(qrp_[A-Za-z0-9_-]+)/.exec(r.rows[0]?.text_body ?? '')?.[1] ?? '';
  };
  const verifyToken = async () => {
    const r = await app.db.query<{ text_body: string }>(`SELECT text_body FROM mail_outbox WHERE user_id = $1 AND template = 'verify_email' ORDER BY created_at DESC LIMIT 1`, [u.userId]);
    return /token=(qrv_[A-Za-z0-9_-]+)/.exec(r.rows[0]?.text_body ?? '')?.[1] ?? '';
  };
  const form = { 'content-type': 'application/x-www-form-urlencoded' };

  /** Every HTML page, by its route, with the requests that reach each of its HTML answers. */
  const pages: Record<string, Array<{ status: number; send: () => Promise<LightMyRequestResponse> }>> = {
    'GET /v1/auth/email/verify': [
      { status: 200, send: async () => app.inject({ method: 'GET', url: `/v1/auth/email/verify?token=${await verifyToken()}` }) },
      { status: 400, send: () => app.inject({ method: 'GET', url: '/v1/auth/email/verify?token=qrv_unknown' }) },
    ],
    'GET /v1/auth/password/reset': [
      { status: 200, send: async () => app.inject({ method: 'GET', url: `/v1/auth/password/reset?token=${await resetToken()}` }) },
      { status: 400, send: () => app.inject({ method: 'GET', url: '/v1/auth/password/reset?token=qrp_unknown' }) },
    ],
    'GET /v1/billing/processor/sandbox/checkout/{id}': [
      { status: 200, send: () => app.inject({ method: 'GET', url: `/v1/billing/processor/sandbox/checkout/${checkoutId}` }) },
      { status: 404, send: () => app.inject({ method: 'GET', url: '/v1/billing/processor/sandbox/checkout/cs_none' }) },
    ],
    'POST /v1/billing/processor/sandbox/checkout/{id}/pay': [
      { status: 402, send: () => app.inject({ method: 'POST', url: `/v1/billing/processor/sandbox/checkout/${checkoutId}/pay`, headers: form, payload: 'card=pm_card_chargeDeclined' }) },
      { status: 404, send: () => app.inject({ method: 'POST', url: '/v1/billing/processor/sandbox/checkout/cs_none/pay', headers: form, payload: 'card=pm_card_visa' }) },
    ],
    'GET /v1/billing/processor/sandbox/portal/{id}': [
      { status: 200, send: () => app.inject({ method: 'GET', url: `/v1/billing/processor/sandbox/portal/${portalId}` }) },
      { status: 404, send: () => app.inject({ method: 'GET', url: '/v1/billing/processor/sandbox/portal/bps_none' }) },
    ],
    'POST /v1/billing/processor/sandbox/portal/{id}/payment-method': [
      { status: 404, send: () => app.inject({ method: 'POST', url: '/v1/billing/processor/sandbox/portal/bps_none/payment-method', headers: form, payload: 'payment_method=pm_card_visa' }) },
    ],
    'GET /v1/billing/processor/sandbox/return': [
      { status: 200, send: () => app.inject({ method: 'GET', url: '/v1/billing/processor/sandbox/return?checkout=cs_1' }) },
      { status: 200, send: () => app.inject({ method: 'GET', url: '/v1/billing/processor/sandbox/return?cancelled=1' }) },
    ],
  };

  it('the table covers every operation the OpenAPI document answers with text/html', () => {
    const doc = app.swagger() as { paths: Record<string, Record<string, { responses?: Record<string, { content?: Record<string, unknown> }> }>> };
    const html: string[] = [];
    for (const [path, ops] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(ops)) {
        if (Object.values(op.responses ?? {}).some((r) => r.content?.['text/html'] !== undefined)) html.push(`${method.toUpperCase()} ${path}`);
      }
    }
    expect(html.sort()).toEqual(Object.keys(pages).sort());
  });

  it.each(Object.keys(pages))('%s: CSP with frame-ancestors none, X-Frame-Options, Referrer-Policy, no-store, nosniff on every HTML answer', async (key) => {
    for (const p of pages[key] ?? []) {
      const r = await p.send();
      expect(r.statusCode, `${key} → ${r.body.slice(0, 200)}`).toBe(p.status);
      expect(r.headers['content-type']).toMatch(/^text\/html/);
      const csp = String(r.headers['content-security-policy'] ?? '');
      expect(csp).toContain("default-src 'none'");
      expect(csp).toContain("frame-ancestors 'none'");
      expect(csp).toContain("base-uri 'none'");
      expect(csp).not.toContain('unsafe-inline');
      expect(r.headers['x-frame-options']).toBe('DENY');
      expect(r.headers['referrer-policy']).toBe('no-referrer');
      expect(r.headers['cache-control']).toBe('no-store');
      expect(r.headers['x-content-type-options']).toBe('nosniff');
      // Inline script and style run only with the answer's nonce.
      const nonce = /'nonce-([A-Za-z0-9+/=]+)'/.exec(csp)?.[1];
      expect(nonce).toBeDefined();
      for (const tag of r.body.match(/<(script|style)\b[^>]*>/g) ?? []) expect(tag).toContain(`nonce="${nonce ?? ''}"`);
    }
  });

  it('the reset form posts only to its own origin and its script carries the nonce', async () => {
    const r = await app.inject({ method: 'GET', url: `/v1/auth/password/reset?token=${await resetToken()}` });
    expect(r.body).toMatch(/<script nonce="[^"]+">/);
    const csp = String(r.headers['content-security-policy']);
    expect(csp).toContain("connect-src 'self'");
    expect(csp).toContain("form-action 'self'");
  });

  it('GET /v1/auth/me and the account export are not stored by caches', async () => {
    for (const url of ['/v1/auth/me', '/v1/auth/account/export']) {
      const r = await app.inject({ method: 'GET', url, headers: u.auth });
      expect(r.statusCode).toBe(200);
      expect(r.headers['cache-control'], url).toBe('no-store');
    }
  });
});
