import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/http/app-types.js';
import { buildTestApp, signUp } from '../helpers/app.js';
import { waitFor } from '../helpers/wait-for.js';

const OPERATOR = 'operator-token-for-the-dev-outbox-0123';

describe('the development outbox (no SMTP_URL)', () => {
  let app: App;
  const logged: string[] = [];
  beforeAll(async () => {
    app = await buildTestApp({ QRAIL_OPERATOR_TOKEN: OPERATOR, MAIL_POLL_MS: '50', LOG_LEVEL: 'info' }, { logDestination: { write: (l: string) => void logged.push(l) } });
    app.services.mailOutbox.start();
  });
  afterAll(async () => app.close());

  const list = (query = '') => app.inject({ method: 'GET', url: `/v1/auth/operator/mail-outbox${query}`, headers: { authorization: `Bearer ${OPERATOR}` } });

  it('keeps sent messages with their links, listed for the operator a page at a time; the gate is off by default', async () => {
    expect(app.services.accounts.requireVerifiedEmail).toBe(false);
    const a = await signUp(app);
    const b = await signUp(app);
    const mine = await waitFor(async () => {
      const items = (await list('?limit=100')).json().data.items as Array<Record<string, unknown>>;
      const m = items.find((i) => i['to'] === b.email);
      return m !== undefined && m['status'] === 'sent' ? m : undefined;
    });
    expect(mine).toMatchObject({ template: 'verify_email', transport: 'dev', attempts: 1, last_error: null });
    expect(String(mine['text'])).toMatch(/http:\/\/qrail\.test\/v1\/auth\/email\/verify\?token=qrv_/);
    expect(String(mine['html'])).toContain('<a href="http://qrail.test/v1/auth/email/verify?token=qrv_');

    const first = (await list('?limit=1')).json().data;
    expect(first.items).toHaveLength(1);
    expect(first.has_more).toBe(true);
    const second = (await list(`?limit=1&cursor=${first.next_cursor}`)).json().data;
    expect(second.items[0].id).not.toBe(first.items[0].id);
    expect([first.items[0].to, second.items[0].to]).toEqual([b.email, a.email]);
    // The gate is off without SMTP: an unverified account can top up.
    const topup = await app.inject({ method: 'POST', url: '/v1/billing/processor/payment-intent', headers: a.auth, payload: { amount: '1.00', payment_method: 'pm_card_visa' } });
    expect(topup.statusCode).toBe(200);
  });

  it('logs each message without its secrets: tokens of links and the recipient redacted', async () => {
    const c = await signUp(app);
    await app.inject({ method: 'POST', url: '/v1/auth/password/forgot', payload: { email: c.email } });
    const lines = await waitFor(() => {
      const mine = logged.filter((l) => l.includes('dev outbox'));
      return mine.some((l) => l.includes('password_reset')) ? mine : undefined;
    });
    const outbox = (await list('?limit=100')).json().data.items as Array<{ to: string; text: string }>;
    const tokens = outbox.flatMap((m) => [...m.text.matchAll(/qr[vp]_[A-Za-z0-9_-]+/g)].map((x) => x[0]));
    expect(tokens.length).toBeGreaterThanOrEqual(2);
    const all = logged.join('\n');
    for (const t of tokens) expect(all).not.toContain(t);
    for (const m of outbox) expect(all).not.toContain(m.to);
    const reset = JSON.parse(lines.find((l) => l.includes('password_reset')) ?? '{}') as { links: string[]; to: string };
    expect(reset.links.some((l) => /token=qrp_\[redacted\]/.test(l))).toBe(true);
    expect(reset.to).toMatch(/^.…@example\.com$/);
  });

  it('the listing needs the operator token', async () => {
    const r = await app.inject({ method: 'GET', url: '/v1/auth/operator/mail-outbox' });
    expect(r.statusCode).toBe(403);
    expect(r.json().error.code).toBe('OPERATOR_FORBIDDEN');
  });
});
