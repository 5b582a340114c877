import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/http/app-types.js';
import { buildTestApp, signUp } from '../helpers/app.js';

/**
 * Issue #34 item 3: a password reset is how an owner takes a compromised account back, so it
 * revokes the account's machine credentials (and their OAuth tokens) unless the owner explicitly
 * keeps them. The reset page lists them; the mails say so and name what was revoked.
 */
describe('a password reset revokes machine credentials by default', () => {
  let app: App;
  beforeAll(async () => {
    app = await buildTestApp({ RATE_LIMIT_AUTH_PER_MINUTE: '10000' });
  });
  afterAll(async () => app.close());

  type User = Awaited<ReturnType<typeof signUp>>;
  const mails = async (u: User, template: string) =>
    (await app.db.query<{ text_body: string; html_body: string }>('SELECT text_body, html_body FROM mail_outbox WHERE user_id = $1 AND template = $2 ORDER BY created_at', [u.userId, template])).rows;

  /** A credential, its OAuth token, and a reset link for the user. */
  async function setUp(u: User, name: string) {
    const c = await app.inject({ method: 'POST', url: '/v1/auth/credentials', headers: u.auth, payload: { name, scopes: ['jobs:read'] } });
    expect(c.statusCode).toBe(201);
    const { client_id, secret } = c.json().data as { client_id: string; secret: string };
    const basic = Buffer.from(`${client_id}:${secret}`).toString('base64');
    const t = await app.inject({
      method: 'POST',
      url: '/v1/oauth/token',
      headers: { authorization: `Basic ${basic}`, 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'grant_type=client_credentials',
    });
    expect(t.statusCode).toBe(200);
    expect((await app.inject({ method: 'POST', url: '/v1/auth/password/forgot', payload: { email: u.email } })).statusCode).toBe(202);
    const resetMail = (await mails(u, 'password_reset')).at(-1);
    const token = /token=(qrp_[A-Za-z0-9_-]+)/.exec(resetMail?.text_body ?? '')?.[1];
    expect(token).toBeDefined();
    return { secret, accessToken: t.json().access_token as string, token: token ?? '', resetMail: resetMail?.text_body ?? '' };
  }
  const balance = (bearer: string) => app.inject({ method: 'GET', url: '/v1/account/balance', headers: { authorization: `Bearer ${bearer}` } });

  it('lists the credentials on the page, revokes them (and their tokens) unless kept, and mails what was revoked', async () => {
    const u = await signUp(app);
    const s = await setUp(u, 'intruder-key');
    expect(s.resetMail).toMatch(/machine credentials/i);

    const form = await app.inject({ method: 'GET', url: `/v1/auth/password/reset?token=${s.token}` });
    expect(form.statusCode).toBe(200);
    expect(form.body).toContain('intruder-key');
    expect(form.body).toContain(`…${s.secret.slice(-4)}`);
    // The keep choice is a checkbox, unchecked by default.
    expect(form.body).toMatch(/<input id="k" type="checkbox"(?![^>]*checked)[^>]*>/);

    const reset = await app.inject({ method: 'POST', url: '/v1/auth/password/reset', payload: { token: s.token, password: 'a brand new passphrase' } });
    expect(reset.statusCode).toBe(200);
    expect(reset.json().data).toMatchObject({ password_changed: true, sessions_ended: true, credentials_revoked: 1 });
    for (const bearer of [s.secret, s.accessToken]) expect((await balance(bearer)).statusCode).toBe(401);
    const changed = (await mails(u, 'password_changed')).at(-1)?.text_body ?? '';
    expect(changed).toContain('intruder-key');
    expect(changed).toMatch(/revoked/i);
  });

  it('keep_credentials: true keeps them working, and the mail says they were kept', async () => {
    const u = await signUp(app);
    const s = await setUp(u, 'my-ci-key');
    const reset = await app.inject({ method: 'POST', url: '/v1/auth/password/reset', payload: { token: s.token, password: 'a brand new passphrase', keep_credentials: true } });
    expect(reset.statusCode).toBe(200);
    expect(reset.json().data).toMatchObject({ credentials_revoked: 0 });
    for (const bearer of [s.secret, s.accessToken]) expect((await balance(bearer)).statusCode).toBe(200);
    const changed = (await mails(u, 'password_changed')).at(-1)?.text_body ?? '';
    expect(changed).toContain('my-ci-key');
    expect(changed).toMatch(/kept/i);
  });

  it('keep_credentials must be a boolean', async () => {
    const u = await signUp(app);
    const s = await setUp(u, 'k');
    const r = await app.inject({ method: 'POST', url: '/v1/auth/password/reset', payload: { token: s.token, password: 'a brand new passphrase', keep_credentials: 'yes' } });
    expect(r.statusCode).toBe(400);
    expect(r.json().error.details[0].path).toBe('/keep_credentials');
  });
});
