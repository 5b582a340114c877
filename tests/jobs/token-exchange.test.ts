import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/http/app-types.js';
import { buildTestApp, signUp } from '../helpers/app.js';
import { fundAccount } from '../helpers/ledger.js';

const GRANT = 'urn:ietf:params:oauth:grant-type:token-exchange';
const SESSION_TYPE = 'urn:qrail:params:oauth:token-type:session';

describe('token exchange (RFC 8693): a person’s session for a Jobs access token', () => {
  let app: App;
  beforeAll(async () => {
    app = await buildTestApp();
  });
  afterAll(async () => app.close());

  const exchange = (payload: string | object, form = typeof payload === 'string') =>
    app.inject({ method: 'POST', url: '/v1/oauth/token', headers: { 'content-type': form ? 'application/x-www-form-urlencoded' : 'application/json' }, payload });

  it('issues a token on the session’s account that the Jobs interface accepts, with every scope by default and the scopes asked for', async () => {
    const u = await signUp(app);
    await fundAccount(app, u.accountId, 2_000_000n);
    const r = await exchange(`grant_type=${encodeURIComponent(GRANT)}&subject_token=${u.token}&subject_token_type=${encodeURIComponent(SESSION_TYPE)}`);
    expect(r.statusCode).toBe(200);
    expect(r.headers['cache-control']).toBe('no-store');
    const t = r.json<{ access_token: string; issued_token_type: string; token_type: string; expires_in: number; scope: string }>();
    expect(t).toMatchObject({
      issued_token_type: 'urn:ietf:params:oauth:token-type:access_token',
      token_type: 'Bearer',
      scope: 'jobs:read jobs:write circuits:run execute:simulator execute:hardware billing:read',
    });
    expect(t.expires_in).toBeGreaterThan(0);
    const bal = await app.inject({ method: 'GET', url: '/v1/account/balance', headers: { authorization: `Bearer ${t.access_token}` } });
    expect(bal.statusCode).toBe(200);
    expect(bal.json()).toMatchObject({ account_id: u.accountId });
    const list = await app.inject({ method: 'GET', url: '/v1/jobs', headers: { authorization: `Bearer ${t.access_token}` } });
    expect(list.statusCode).toBe(200);

    const readOnly = await exchange({ grant_type: GRANT, subject_token: u.token, subject_token_type: SESSION_TYPE, scope: 'jobs:read' });
    expect(readOnly.statusCode).toBe(200);
    const submit = await app.inject({
      method: 'POST',
      url: '/v1/jobs',
      headers: { authorization: `Bearer ${readOnly.json().access_token as string}`, 'idempotency-key': 'k-readonly-1' },
      payload: { capability_id: 'circuit.schema', input: {}, idempotency_key: 'k-readonly-1' },
    });
    expect(submit.statusCode).toBe(403);
  });

  it('ends with the session: after sign-out the token is refused', async () => {
    const u = await signUp(app);
    const t = (await exchange({ grant_type: GRANT, subject_token: u.token, subject_token_type: SESSION_TYPE })).json().access_token as string;
    expect((await app.inject({ method: 'GET', url: '/v1/jobs', headers: { authorization: `Bearer ${t}` } })).statusCode).toBe(200);
    expect((await app.inject({ method: 'POST', url: '/v1/auth/logout', headers: u.auth })).statusCode).toBeLessThan(300);
    const after = await app.inject({ method: 'GET', url: '/v1/jobs', headers: { authorization: `Bearer ${t}` } });
    expect(after.statusCode).toBe(401);
    expect(String(after.headers['www-authenticate'])).toContain('error="invalid_token"');
    expect(after.json().error.details.reason).toBe('revoked');
  });

  it('refuses what is not a valid exchange, in RFC 6749 §5.2 shape', async () => {
    const u = await signUp(app);
    const cases: Array<[object, string]> = [
      [{ grant_type: GRANT, subject_token: 'qrs_nope', subject_token_type: SESSION_TYPE }, 'invalid_request'],
      [{ grant_type: GRANT, subject_token: u.token, subject_token_type: 'urn:ietf:params:oauth:token-type:jwt' }, 'invalid_request'],
      [{ grant_type: GRANT, subject_token_type: SESSION_TYPE }, 'invalid_request'],
      [{ grant_type: GRANT, subject_token: u.token, subject_token_type: SESSION_TYPE, scope: 'billing:write' }, 'invalid_scope'],
      [{ grant_type: 'password', username: 'x' }, 'unsupported_grant_type'],
    ];
    for (const [payload, error] of cases) {
      const r = await exchange(payload);
      expect(r.statusCode, JSON.stringify(payload)).toBe(400);
      expect(r.json(), JSON.stringify(payload)).toMatchObject({ error });
      expect(typeof r.json().error_description).toBe('string');
    }
    const meta = (await app.inject({ method: 'GET', url: '/.well-known/oauth-authorization-server' })).json();
    expect(meta.grant_types_supported).toEqual(['client_credentials', GRANT]);
  });
});
