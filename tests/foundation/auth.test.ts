import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/http/app-types.js';
import { PASSWORD, buildTestApp, signUp, uniqueEmail } from '../helpers/app.js';

describe('bearer sessions', () => {
  let app: App;
  beforeAll(async () => {
    app = await buildTestApp({ LOGIN_MAX_FAILURES: '3' });
  });
  afterAll(async () => app.close());

  it('register → login → me → logout → me is 401', async () => {
    const email = uniqueEmail();
    const reg = await app.inject({ method: 'POST', url: '/v1/auth/register', payload: { email, password: PASSWORD } });
    expect(reg.statusCode).toBe(201);
    expect(reg.json().data.email).toBe(email);
    expect(reg.body).not.toContain(PASSWORD);

    const login = await app.inject({ method: 'POST', url: '/v1/auth/login', payload: { email, password: PASSWORD } });
    expect(login.statusCode).toBe(200);
    const token: string = login.json().data.token;
    expect(token).toMatch(/^qrs_[A-Za-z0-9_-]{43}$/);

    const me = await app.inject({ method: 'GET', url: '/v1/auth/me', headers: { authorization: `Bearer ${token}` } });
    expect(me.statusCode).toBe(200);
    expect(me.json().data.user.email).toBe(email);
    expect(me.json().data.user.account_id).toBe(reg.json().data.account_id);

    const out = await app.inject({ method: 'POST', url: '/v1/auth/logout', headers: { authorization: `Bearer ${token}` } });
    expect(out.statusCode).toBe(200);
    const after = await app.inject({ method: 'GET', url: '/v1/auth/me', headers: { authorization: `Bearer ${token}` } });
    expect(after.statusCode).toBe(401);
    expect(after.json().error.code).toBe('UNAUTHENTICATED');
    expect(after.json().error.details.reason).toBe('revoked');
    expect(after.headers['www-authenticate']).toContain('error="invalid_token"');

    const diag = await app.inject({ method: 'GET', url: '/v1/auth/diagnostics', headers: { authorization: `Bearer ${token}` } });
    expect(diag.json().data.token_state).toBe('revoked');
    expect(diag.body).not.toContain(token);
  });

  it('stores only a hash of the token', async () => {
    const u = await signUp(app);
    const rows = await app.db.query<{ token_hash: string }>('SELECT token_hash FROM sessions');
    expect(rows.rows.length).toBeGreaterThan(0);
    for (const r of rows.rows) expect(r.token_hash).not.toContain(u.token.slice(4));
    const hashes = await app.db.query<{ password_hash: string }>('SELECT password_hash FROM users WHERE email = $1', [u.email]);
    expect(hashes.rows[0]?.password_hash).toMatch(/^\$argon2id\$v=19\$m=(\d+),t=(\d+),p=1\$/);
    const m = /m=(\d+),t=(\d+)/.exec(hashes.rows[0]?.password_hash ?? '');
    expect(Number(m?.[1])).toBeGreaterThanOrEqual(19 * 1024);
    expect(Number(m?.[2])).toBeGreaterThanOrEqual(2);
  });

  it('me without a token → 401 with WWW-Authenticate', async () => {
    const r = await app.inject({ method: 'GET', url: '/v1/auth/me' });
    expect(r.statusCode).toBe(401);
    expect(r.json().error.details.reason).toBe('missing');
    expect(r.headers['www-authenticate']).toBe('Bearer realm="qrail"');
  });

  it('malformed token → 401 malformed; diagnostics says malformed', async () => {
    const r = await app.inject({ method: 'GET', url: '/v1/auth/me', headers: { authorization: 'Bearer nope' } });
    expect(r.statusCode).toBe(401);
    expect(r.json().error.details.reason).toBe('malformed');
    const d = await app.inject({ method: 'GET', url: '/v1/auth/diagnostics', headers: { authorization: 'Basic abc' } });
    expect(d.json().data).toMatchObject({ token_present: true, token_state: 'malformed', valid: false });
  });

  it('expired session (idle and absolute) → 401 expired', async () => {
    const idle = await signUp(app);
    await app.db.query("UPDATE sessions SET idle_expires_at = now() - interval '1 second' WHERE user_id = $1", [idle.userId]);
    const r = await app.inject({ method: 'GET', url: '/v1/auth/me', headers: idle.auth });
    expect(r.statusCode).toBe(401);
    expect(r.json().error.details.reason).toBe('expired');
    const d = await app.inject({ method: 'GET', url: '/v1/auth/diagnostics', headers: idle.auth });
    expect(d.json().data).toMatchObject({ token_state: 'expired', expired_by: 'idle' });
    expect(Date.parse(d.json().data.expires_at)).toBeLessThan(Date.now());

    const abs = await signUp(app);
    await app.db.query("UPDATE sessions SET absolute_expires_at = now() - interval '1 second' WHERE user_id = $1", [abs.userId]);
    const d2 = await app.inject({ method: 'GET', url: '/v1/auth/diagnostics', headers: abs.auth });
    expect(d2.json().data).toMatchObject({ token_state: 'expired', expired_by: 'absolute' });
  });

  it('diagnostics of a valid token gives its expiry, never the secret', async () => {
    const u = await signUp(app);
    const d = await app.inject({ method: 'GET', url: '/v1/auth/diagnostics', headers: u.auth });
    expect(d.json().data).toMatchObject({ token_present: true, token_state: 'valid', valid: true });
    expect(Date.parse(d.json().data.expires_at)).toBeGreaterThan(Date.now());
    expect(d.body).not.toContain(u.token);
  });

  it('wrong password → 401 INVALID_CREDENTIALS; unknown email the same', async () => {
    const u = await signUp(app);
    const r = await app.inject({ method: 'POST', url: '/v1/auth/login', payload: { email: u.email, password: 'wrong password!' } });
    expect(r.statusCode).toBe(401);
    expect(r.json().error.code).toBe('INVALID_CREDENTIALS');
    const r2 = await app.inject({ method: 'POST', url: '/v1/auth/login', payload: { email: uniqueEmail('ghost'), password: 'whatever123' } });
    expect(r2.json().error.code).toBe('INVALID_CREDENTIALS');
    expect(r2.json().error.message).toBe(r.json().error.message);
  });

  it('duplicate email → 409 EMAIL_TAKEN (case-insensitive), no second account', async () => {
    const email = uniqueEmail('dup');
    expect((await app.inject({ method: 'POST', url: '/v1/auth/register', payload: { email, password: PASSWORD } })).statusCode).toBe(201);
    const before = await app.db.query<{ n: number }>('SELECT count(*)::int AS n FROM accounts');
    const r = await app.inject({ method: 'POST', url: '/v1/auth/register', payload: { email: email.toUpperCase(), password: PASSWORD } });
    expect(r.statusCode).toBe(409);
    expect(r.json().error.code).toBe('EMAIL_TAKEN');
    const after = await app.db.query<{ n: number }>('SELECT count(*)::int AS n FROM accounts');
    expect(after.rows[0]?.n).toBe(before.rows[0]?.n);
  });

  it('bad email, short and over-long password → 400 with paths', async () => {
    const bad = await app.inject({ method: 'POST', url: '/v1/auth/register', payload: { email: 'nope', password: PASSWORD } });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().error.details).toContainEqual(expect.objectContaining({ path: '/email', code: 'BAD_FORMAT' }));
    const short = await app.inject({ method: 'POST', url: '/v1/auth/register', payload: { email: uniqueEmail(), password: 'short' } });
    expect(short.json().error.details).toContainEqual(expect.objectContaining({ path: '/password', code: 'TOO_SHORT' }));
    const long = await app.inject({ method: 'POST', url: '/v1/auth/register', payload: { email: uniqueEmail(), password: 'x'.repeat(129) } });
    expect(long.json().error.details).toContainEqual(expect.objectContaining({ path: '/password', code: 'TOO_LONG' }));
    const missing = await app.inject({ method: 'POST', url: '/v1/auth/login', payload: {} });
    expect(
      missing
        .json()
        .error.details.map((d: { path: string }) => d.path)
        .sort(),
    ).toEqual(['/email', '/password']);
  });

  it('throttles logins per email after repeated failures, even with the right password', async () => {
    const u = await signUp(app);
    for (let i = 0; i < 3; i++) {
      const r = await app.inject({ method: 'POST', url: '/v1/auth/login', payload: { email: u.email, password: 'wrong password!' } });
      expect(r.statusCode).toBe(401);
    }
    const blocked = await app.inject({ method: 'POST', url: '/v1/auth/login', payload: { email: u.email, password: PASSWORD } });
    expect(blocked.statusCode).toBe(429);
    expect(blocked.json().error.code).toBe('LOGIN_THROTTLED');
    expect(Number(blocked.headers['retry-after'])).toBeGreaterThan(0);
  });

  it('throttles logins per client address across emails', async () => {
    const ipApp = await buildTestApp({ LOGIN_MAX_FAILURES: '1' });
    try {
      const codes: number[] = [];
      for (let i = 0; i < 5; i++) {
        const r = await ipApp.inject({ method: 'POST', url: '/v1/auth/login', payload: { email: uniqueEmail('spray'), password: 'guess12345' }, remoteAddress: '203.0.113.9' });
        codes.push(r.statusCode);
      }
      expect(codes).toEqual([401, 401, 401, 401, 429]);
    } finally {
      await ipApp.close();
    }
  });
});
