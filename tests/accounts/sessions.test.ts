import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/http/app-types.js';
import { PASSWORD, buildTestApp, signUp } from '../helpers/app.js';

describe('sessions a person can see and end', () => {
  let app: App;
  beforeAll(async () => {
    app = await buildTestApp();
  });
  afterAll(async () => app.close());

  const login = async (email: string, userAgent: string, ip: string) => {
    const r = await app.inject({ method: 'POST', url: '/v1/auth/login', payload: { email, password: PASSWORD }, headers: { 'user-agent': userAgent }, remoteAddress: ip });
    expect(r.statusCode).toBe(200);
    return { id: r.json().data.session_id as string, auth: { authorization: `Bearer ${r.json().data.token}` } };
  };

  it('lists the active sessions with address, user agent and the current flag; ends one by id', async () => {
    const u = await signUp(app);
    const laptop = await login(u.email, 'laptop-browser/1.0', '10.1.1.1');
    const phone = await login(u.email, 'phone-app/2.0', '10.2.2.2');
    const list = await app.inject({ method: 'GET', url: '/v1/auth/sessions', headers: laptop.auth });
    expect(list.statusCode).toBe(200);
    const items = list.json().data.items as Array<Record<string, unknown>>;
    expect(items).toHaveLength(3);
    expect(list.json().data.has_more).toBe(false);
    const mine = items.find((s) => s['session_id'] === laptop.id);
    expect(mine).toMatchObject({ ip: '10.1.1.1', user_agent: 'laptop-browser/1.0', current: true });
    expect(items.find((s) => s['session_id'] === phone.id)).toMatchObject({ ip: '10.2.2.2', user_agent: 'phone-app/2.0', current: false });
    for (const s of items) expect(Date.parse(String(s['last_used_at']))).toBeGreaterThanOrEqual(Date.parse(String(s['created_at'])));
    const first = (await app.inject({ method: 'GET', url: '/v1/auth/sessions?limit=2', headers: laptop.auth })).json().data;
    expect(first.items).toHaveLength(2);
    expect(first.has_more).toBe(true);
    const rest = (await app.inject({ method: 'GET', url: `/v1/auth/sessions?limit=2&cursor=${first.next_cursor}`, headers: laptop.auth })).json().data;
    expect(rest).toMatchObject({ has_more: false, next_cursor: null });
    expect([...first.items, ...rest.items].map((s: { session_id: string }) => s.session_id)).toEqual(items.map((s) => s['session_id']));

    const del = await app.inject({ method: 'DELETE', url: `/v1/auth/sessions/${phone.id}`, headers: laptop.auth });
    expect(del.statusCode).toBe(200);
    expect(del.json().data).toEqual({ revoked: true, session_id: phone.id });
    expect((await app.inject({ method: 'GET', url: '/v1/auth/me', headers: phone.auth })).statusCode).toBe(401);
    expect((await app.inject({ method: 'GET', url: '/v1/auth/me', headers: laptop.auth })).statusCode).toBe(200);
    const again = await app.inject({ method: 'DELETE', url: `/v1/auth/sessions/${phone.id}`, headers: laptop.auth });
    expect(again.statusCode).toBe(404);
    expect(again.json().error.code).toBe('SESSION_NOT_FOUND');
  });

  it('another user’s session cannot be ended or seen', async () => {
    const a = await signUp(app);
    const b = await signUp(app);
    const bList = await app.inject({ method: 'GET', url: '/v1/auth/sessions', headers: b.auth });
    const bSession = bList.json().data.items[0].session_id as string;
    expect((await app.inject({ method: 'GET', url: '/v1/auth/sessions', headers: a.auth })).json().data.items.map((s: { session_id: string }) => s.session_id)).not.toContain(bSession);
    expect((await app.inject({ method: 'DELETE', url: `/v1/auth/sessions/${bSession}`, headers: a.auth })).statusCode).toBe(404);
    expect((await app.inject({ method: 'GET', url: '/v1/auth/me', headers: b.auth })).statusCode).toBe(200);
  });

  it('sign out everywhere leaves machine credentials working unless include_credentials', async () => {
    const u = await signUp(app);
    const other = await login(u.email, 'other/1', '10.3.3.3');
    const cred = await app.inject({ method: 'POST', url: '/v1/auth/credentials', headers: u.auth, payload: { name: 'agent', scopes: ['jobs:read'] } });
    expect(cred.statusCode).toBe(201);
    const agent = { authorization: `Bearer ${cred.json().data.secret}` };
    const r = await app.inject({ method: 'POST', url: '/v1/auth/sessions/revoke-all', headers: u.auth, payload: {} });
    expect(r.json().data).toEqual({ sessions_revoked: 2, credentials_revoked: 0 });
    expect((await app.inject({ method: 'GET', url: '/v1/auth/me', headers: u.auth })).statusCode).toBe(401);
    expect((await app.inject({ method: 'GET', url: '/v1/auth/me', headers: other.auth })).statusCode).toBe(401);
    expect((await app.inject({ method: 'GET', url: '/v1/account/balance', headers: agent })).statusCode).toBe(200);

    const again = await login(u.email, 'again/1', '10.4.4.4');
    const all = await app.inject({ method: 'POST', url: '/v1/auth/sessions/revoke-all', headers: again.auth, payload: { include_credentials: true } });
    expect(all.json().data).toEqual({ sessions_revoked: 1, credentials_revoked: 1 });
    expect((await app.inject({ method: 'GET', url: '/v1/account/balance', headers: agent })).statusCode).toBe(401);
  });
});
