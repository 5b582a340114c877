import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/http/app-types.js';
import { PASSWORD, buildTestApp, signUp, uniqueEmail } from '../helpers/app.js';
import { linkIn, startSmtpReceiver } from './smtp-receiver.js';
import { waitFor } from '../helpers/wait-for.js';

/**
 * Issue #26 over a real SMTP exchange: the app sends through nodemailer to a local `smtp-server`,
 * and the test follows the links it receives, as a person would.
 */
describe('verification, reset and change over SMTP', () => {
  let app: App;
  let smtp: Awaited<ReturnType<typeof startSmtpReceiver>>;
  beforeAll(async () => {
    smtp = await startSmtpReceiver();
    app = await buildTestApp({ SMTP_URL: smtp.url, MAIL_FROM: 'qrail <no-reply@qrail.test>', MAIL_POLL_MS: '50', RATE_LIMIT_AUTH_PER_MINUTE: '10000' });
    app.services.mailOutbox.start();
  });
  afterAll(async () => {
    await app.close();
    await smtp.close();
  });

  it('registration mails a single-use link; until it is opened, top-ups and credentials answer 403 EMAIL_NOT_VERIFIED', async () => {
    expect(app.services.accounts.requireVerifiedEmail).toBe(true);
    const u = await signUp(app);
    const mail = await smtp.waitForMail(u.email, /Confirm your email address/);
    expect(mail.from).toBe('no-reply@qrail.test');
    expect(mail.body).toContain('Content-Type: text/html');
    expect(mail.body).toContain('Content-Type: text/plain');

    const topup = await app.inject({ method: 'POST', url: '/v1/billing/processor/payment-intent', headers: u.auth, payload: { amount: '5.00', payment_method: 'pm_card_visa' } });
    expect(topup.statusCode).toBe(403);
    expect(topup.json().error.code).toBe('EMAIL_NOT_VERIFIED');
    expect(topup.json().error.message).toContain('POST /v1/auth/email/verification');
    const cred = await app.inject({ method: 'POST', url: '/v1/auth/credentials', headers: u.auth, payload: { name: 'agent' } });
    expect(cred.json().error.code).toBe('EMAIL_NOT_VERIFIED');
    // Signing in and looking still work.
    expect((await app.inject({ method: 'GET', url: '/v1/billing/wallet', headers: u.auth })).statusCode).toBe(200);

    const link = linkIn(mail, '/v1/auth/email/verify');
    expect(link.origin).toBe('http://qrail.test');
    const page = await app.inject({ method: 'GET', url: `${link.pathname}${link.search}` });
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('Email confirmed');
    // Single use.
    const again = await app.inject({ method: 'POST', url: '/v1/auth/email/verify', payload: { token: link.searchParams.get('token') } });
    expect(again.statusCode).toBe(400);
    expect(again.json().error.code).toBe('ACCOUNT_TOKEN_INVALID');

    const ok = await app.inject({ method: 'POST', url: '/v1/billing/processor/payment-intent', headers: u.auth, payload: { amount: '5.00', payment_method: 'pm_card_visa' } });
    expect(ok.statusCode).toBe(200);
    const resend = await app.inject({ method: 'POST', url: '/v1/auth/email/verification', headers: u.auth });
    expect(resend.json().data).toEqual({ email_verified: true, sent: false });
  });

  it('resending the verification link is throttled', async () => {
    const u = await signUp(app);
    const codes: number[] = [];
    for (let i = 0; i < 7; i += 1) codes.push((await app.inject({ method: 'POST', url: '/v1/auth/email/verification', headers: u.auth })).statusCode);
    expect(codes.slice(0, 5)).toEqual([200, 200, 200, 200, 200]);
    expect(codes.slice(5)).toEqual([429, 429]);
  });

  it('forgot → mailed link → reset sets the password, ends every session, and the owner is told', async () => {
    const u = await signUp(app);
    const second = await app.inject({ method: 'POST', url: '/v1/auth/login', payload: { email: u.email, password: PASSWORD } });
    const secondAuth = { authorization: `Bearer ${second.json().data.token}` };
    const forgot = await app.inject({ method: 'POST', url: '/v1/auth/password/forgot', payload: { email: u.email.toUpperCase() } });
    expect(forgot.statusCode).toBe(202);
    const mail = await smtp.waitForMail(u.email, /Reset your qrail password/);
    const link = linkIn(mail, '/v1/auth/password/reset');
    const form = await app.inject({ method: 'GET', url: `${link.pathname}${link.search}` });
    expect(form.statusCode).toBe(200);
    expect(form.body).toContain('Choose a new password');

    const token = link.searchParams.get('token');
    const short = await app.inject({ method: 'POST', url: '/v1/auth/password/reset', payload: { token, password: 'short' } });
    expect(short.statusCode).toBe(400);
    const reset = await app.inject({ method: 'POST', url: '/v1/auth/password/reset', payload: { token, password: 'a brand new passphrase' } });
    expect(reset.statusCode).toBe(200);
    expect(reset.json().data).toEqual({ password_changed: true, sessions_ended: true, credentials_revoked: 0 });
    for (const auth of [u.auth, secondAuth]) {
      const me = await app.inject({ method: 'GET', url: '/v1/auth/me', headers: auth });
      expect(me.statusCode).toBe(401);
      expect(me.json().error.details.reason).toBe('revoked');
    }
    const reused = await app.inject({ method: 'POST', url: '/v1/auth/password/reset', payload: { token, password: 'yet another passphrase' } });
    expect(reused.json().error.code).toBe('ACCOUNT_TOKEN_INVALID');
    expect((await app.inject({ method: 'POST', url: '/v1/auth/login', payload: { email: u.email, password: PASSWORD } })).statusCode).toBe(401);
    expect((await app.inject({ method: 'POST', url: '/v1/auth/login', payload: { email: u.email, password: 'a brand new passphrase' } })).statusCode).toBe(200);
    await smtp.waitForMail(u.email, /password of your qrail account was reset/);
  });

  it('change needs the current password, keeps this session, ends the others, and mails the owner', async () => {
    const u = await signUp(app);
    const other = await app.inject({ method: 'POST', url: '/v1/auth/login', payload: { email: u.email, password: PASSWORD } });
    const otherAuth = { authorization: `Bearer ${other.json().data.token}` };
    const wrong = await app.inject({ method: 'POST', url: '/v1/auth/password', headers: u.auth, payload: { current_password: 'not it at all', new_password: 'changed passphrase' } });
    expect(wrong.statusCode).toBe(403);
    expect(wrong.json().error.code).toBe('CURRENT_PASSWORD_WRONG');
    const weak = await app.inject({ method: 'POST', url: '/v1/auth/password', headers: u.auth, payload: { current_password: PASSWORD, new_password: 'short' } });
    expect(weak.statusCode).toBe(400);
    const ok = await app.inject({ method: 'POST', url: '/v1/auth/password', headers: u.auth, payload: { current_password: PASSWORD, new_password: 'changed passphrase' } });
    expect(ok.statusCode).toBe(200);
    expect((await app.inject({ method: 'GET', url: '/v1/auth/me', headers: u.auth })).statusCode).toBe(200);
    expect((await app.inject({ method: 'GET', url: '/v1/auth/me', headers: otherAuth })).statusCode).toBe(401);
    const mail = await smtp.waitForMail(u.email, /password of your qrail account was changed/);
    expect(mail.body).toContain('Every other session was signed out');
    // A sent SMTP message's body is not kept: it may hold a single-use link.
    // (The relay has it before the worker records it as sent: wait for that record.)
    const row = await waitFor(async () => {
      const r = await app.db.query<{ text_body: string; status: string }>("SELECT text_body, status FROM mail_outbox WHERE template = 'password_changed' AND to_address = $1", [u.email]);
      return r.rows[0]?.status === 'sent' ? r.rows : undefined;
    });
    expect(row).toEqual([{ text_body: '', status: 'sent' }]);
  });

  it('forgot answers the same for known and unknown emails: status, body and similar timing', async () => {
    const known = await signUp(app);
    const ask = async (email: string) => {
      const t0 = process.hrtime.bigint();
      const r = await app.inject({ method: 'POST', url: '/v1/auth/password/forgot', payload: { email }, remoteAddress: `10.9.${Math.floor(Math.random() * 250)}.1` });
      return { status: r.statusCode, data: r.json().data, ms: Number(process.hrtime.bigint() - t0) / 1e6 };
    };
    const knownRuns = [];
    const unknownRuns = [];
    for (let i = 0; i < 4; i += 1) {
      knownRuns.push(await ask(known.email));
      unknownRuns.push(await ask(uniqueEmail('nobody')));
    }
    for (const r of [...knownRuns, ...unknownRuns]) {
      expect(r.status).toBe(202);
      expect(r.data).toEqual(knownRuns[0]?.data);
    }
    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;
    const k = median(knownRuns.map((r) => r.ms));
    const u = median(unknownRuns.map((r) => r.ms));
    // The same statements run either way; a loose ratio keeps a loaded machine from failing it, and a
    // gap of a few milliseconds (one slow PostgreSQL round trip among four) is noise, not a leak: the
    // leaks this guards against (hashing, sending mail inline for a known email) cost tens of ms.
    const gap = Math.abs(k - u);
    const ratio = Math.max(k, u) / Math.max(1, Math.min(k, u));
    expect(ratio < 3 || gap < 15, `known ${k.toFixed(1)} ms, unknown ${u.toFixed(1)} ms`).toBe(true);
    // Only the known email got mail, and the throttle counts both alike (5 per email per hour).
    await smtp.waitForMail(known.email, /Reset your qrail password/);
    const fifth = await ask(known.email);
    const sixth = await ask(known.email);
    const unknownEmail = uniqueEmail('nobody');
    for (let i = 0; i < 5; i += 1) await ask(unknownEmail);
    const unknownSixth = await ask(unknownEmail);
    expect([fifth.status, sixth.status, unknownSixth.status]).toEqual([202, 429, 429]);
  });
});
