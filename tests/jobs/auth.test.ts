import { createServer, type Server } from 'node:http';
import { randomUUID } from 'node:crypto';
import { SignJWT, exportJWK, generateKeyPair } from 'jose';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { JobsTokens } from '../../src/auth/jwt.js';
import type { App } from '../../src/http/app-types.js';
import { pgSigningKeyStore } from '../../src/store/repositories/credentials-repository.js';
import { buildTestApp, signUp } from '../helpers/app.js';
import { expectAllInvariants, key, newAgent, type Agent } from './helpers.js';

const ISS = 'http://qrail.test';
const AUD = 'http://qrail.test/v1/jobs';

function expect401(r: { statusCode: number; headers: Record<string, unknown>; json: () => any }, reason: string, invalidToken = true) {
  expect(r.statusCode).toBe(401);
  const h = String(r.headers['www-authenticate']);
  expect(h).toMatch(/^Bearer realm="qrail-jobs"/);
  if (invalidToken) expect(h).toContain('error="invalid_token"');
  else expect(h).toBe('Bearer realm="qrail-jobs"');
  const b = r.json();
  expect(b.error.code).toBe('UNAUTHENTICATED');
  expect(b.error.details.reason).toBe(reason);
  expect(typeof b.request_id).toBe('string');
  expect(b.status).toBeUndefined(); // plain JSON, no platform envelope
}

async function token(app: App, a: Agent, scope?: string) {
  const r = await app.inject({
    method: 'POST',
    url: '/v1/oauth/token',
    headers: { authorization: `Basic ${Buffer.from(`${a.credentialId}:${a.secret}`).toString('base64')}`, 'content-type': 'application/x-www-form-urlencoded' },
    payload: `grant_type=client_credentials${scope === undefined ? '' : `&scope=${encodeURIComponent(scope)}`}`,
  });
  return r;
}

describe('agent credentials and Jobs tokens', () => {
  let app: App;
  let a: Agent;
  beforeAll(async () => {
    app = await buildTestApp({ JOBS_AUTH_CACHE_MS: '0' });
    a = await newAgent(app);
  });
  afterEach(async () => expectAllInvariants(app));
  afterAll(async () => app.close());

  it('owners create (secret once, hashed), list and revoke credentials with their session', async () => {
    const u = await signUp(app);
    const c = await app.inject({
      method: 'POST',
      url: '/v1/auth/credentials',
      headers: u.auth,
      payload: { name: 'ci bot', scopes: ['jobs:read'], expires_at: new Date(Date.now() + 86400e3).toISOString() },
    });
    expect(c.statusCode).toBe(201);
    const d = c.json().data;
    expect(d.secret).toMatch(/^qrj_[A-Za-z0-9_-]{43}$/);
    expect(d).toMatchObject({ name: 'ci bot', scopes: ['jobs:read'], status: 'active', secret_hint: d.secret.slice(-4), client_id: d.credential_id });
    const stored = await app.db.query<{ secret_hash: string }>('SELECT secret_hash FROM agent_credentials WHERE id = $1', [d.credential_id]);
    expect(stored.rows[0]?.secret_hash).toMatch(/^[0-9a-f]{64}$/);
    expect(stored.rows[0]?.secret_hash).not.toContain(d.secret.slice(4));

    const list = await app.inject({ method: 'GET', url: '/v1/auth/credentials', headers: u.auth });
    expect(list.json().data.credentials).toHaveLength(1);
    expect(list.body).not.toContain(d.secret);

    // Another account cannot revoke it.
    const other = await signUp(app);
    const foreign = await app.inject({ method: 'DELETE', url: `/v1/auth/credentials/${d.credential_id}`, headers: other.auth });
    expect(foreign.statusCode).toBe(404);
    expect(foreign.json().error.code).toBe('CREDENTIAL_NOT_FOUND');

    const del = await app.inject({ method: 'DELETE', url: `/v1/auth/credentials/${d.credential_id}`, headers: u.auth });
    expect(del.statusCode).toBe(200);
    expect(del.json().data.credential.status).toBe('revoked');
    expect401(await app.inject({ method: 'GET', url: '/v1/account/balance', headers: { authorization: `Bearer ${d.secret}` } }), 'revoked');
  });

  it('credential endpoints need a session; bad bodies are 400 with paths', async () => {
    expect((await app.inject({ method: 'GET', url: '/v1/auth/credentials' })).statusCode).toBe(401);
    const u = await signUp(app);
    const bad = await app.inject({ method: 'POST', url: '/v1/auth/credentials', headers: u.auth, payload: { name: '', scopes: ['jobs:admin'], extra: 1 } });
    expect(bad.statusCode).toBe(400);
    const paths = bad.json().error.details.map((x: { path: string }) => x.path);
    expect(paths).toEqual(expect.arrayContaining(['/name', '/scopes/0', '/extra']));
    const past = await app.inject({ method: 'POST', url: '/v1/auth/credentials', headers: u.auth, payload: { name: 'x', scopes: ['jobs:read'], expires_at: '2001-01-01T00:00:00Z' } });
    expect(past.statusCode).toBe(400);
  });

  it('client-credentials grant issues an RFC 9068 JWT for the Jobs audience that the Jobs interface accepts', async () => {
    const r = await token(app, a);
    expect(r.statusCode).toBe(200);
    expect(r.headers['cache-control']).toBe('no-store');
    const t = r.json();
    expect(t).toMatchObject({ token_type: 'Bearer', scope: 'jobs:read jobs:write' });
    expect(t.expires_in).toBeGreaterThan(0);
    expect(t.expires_in).toBeLessThanOrEqual(900);
    const [h, p] = t.access_token
      .split('.')
      .slice(0, 2)
      .map((s: string) => JSON.parse(Buffer.from(s, 'base64url').toString()));
    expect(h).toMatchObject({ typ: 'at+jwt', alg: 'ES256' });
    expect(p).toMatchObject({ iss: ISS, aud: AUD, sub: a.credentialId, client_id: a.credentialId, account_id: a.accountId });
    expect(typeof p.jti).toBe('string');
    const bal = await app.inject({ method: 'GET', url: '/v1/account/balance', headers: { authorization: `Bearer ${t.access_token}` } });
    expect(bal.statusCode).toBe(200);
    expect(bal.json().account_id).toBe(a.accountId);
    // The JWKS publishes the key that verifies it.
    const jwks = (await app.inject({ method: 'GET', url: '/.well-known/jwks.json' })).json();
    expect(jwks.keys.map((k: { kid: string }) => k.kid)).toContain(h.kid);
    expect(JSON.stringify(jwks)).not.toContain('"d"');
    const meta = (await app.inject({ method: 'GET', url: '/.well-known/oauth-authorization-server' })).json();
    expect(meta).toMatchObject({ issuer: ISS, grant_types_supported: ['client_credentials', 'urn:ietf:params:oauth:grant-type:token-exchange'] });

    // client_secret_post works too; a narrower scope can be asked for.
    const post = await app.inject({ method: 'POST', url: '/v1/oauth/token', payload: { grant_type: 'client_credentials', client_id: a.credentialId, client_secret: a.secret, scope: 'jobs:read' } });
    expect(post.json().scope).toBe('jobs:read');
    const ro = post.json().access_token;
    const denied = await app.inject({ method: 'POST', url: '/v1/jobs', headers: { authorization: `Bearer ${ro}` }, payload: {} });
    expect(denied.statusCode).toBe(403);
    expect(denied.json().error.code).toBe('INSUFFICIENT_SCOPE');
    expect(denied.headers['www-authenticate']).toBe('Bearer realm="qrail-jobs", error="insufficient_scope", scope="jobs:write"');
  });

  it('token endpoint errors follow RFC 6749 §5.2', async () => {
    const wrong = await app.inject({ method: 'POST', url: '/v1/oauth/token', payload: { grant_type: 'client_credentials', client_id: a.credentialId, client_secret: `qrj_${'A'.repeat(43)}` } });
    expect(wrong.statusCode).toBe(401);
    expect(wrong.json().error).toBe('invalid_client');
    expect(wrong.headers['www-authenticate']).toContain('Basic');
    const mismatched = await app.inject({ method: 'POST', url: '/v1/oauth/token', payload: { grant_type: 'client_credentials', client_id: randomUUID(), client_secret: a.secret } });
    expect(mismatched.json().error).toBe('invalid_client');
    const grant = await app.inject({ method: 'POST', url: '/v1/oauth/token', payload: { grant_type: 'password' } });
    expect(grant.statusCode).toBe(400);
    expect(grant.json().error).toBe('unsupported_grant_type');
    const scope = await token(app, a, 'jobs:admin');
    expect(scope.statusCode).toBe(400);
    expect(scope.json().error).toBe('invalid_scope');
  });

  it('every 401 carries WWW-Authenticate; invalid_token whenever a token was sent', async () => {
    const get = (authorization?: string) => app.inject({ method: 'GET', url: '/v1/jobs', headers: authorization === undefined ? {} : { authorization } });
    expect401(await get(), 'missing', false);
    expect401(await get('Basic Zm9vOmJhcg=='), 'malformed');
    expect401(await get('Bearer not-a-token'), 'malformed');
    expect401(await get(`Bearer qrj_${'x'.repeat(5)}`), 'malformed');
    expect401(await get(`Bearer qrj_${'B'.repeat(43)}`), 'unknown');
    // A platform session token is not a Jobs token.
    const u = await signUp(app);
    const r = await get(u.auth.authorization);
    expect401(r, 'wrong_audience');
    // Every Jobs operation and the submit body check come after authentication.
    expect401(await app.inject({ method: 'POST', url: '/v1/jobs', payload: { nonsense: true } }), 'missing', false);
    expect401(await app.inject({ method: 'GET', url: `/v1/jobs/${randomUUID()}` }), 'missing', false);
    expect401(await app.inject({ method: 'GET', url: '/v1/account/balance' }), 'missing', false);
  });

  it('expired, revoked, wrong-audience, tampered and foreign-issuer JWTs are invalid_token', async () => {
    const b = await newAgent(app, { fundMicros: 0n });
    const cred = (await app.services.credentials.checkSecret(b.secret)).credential;
    if (cred === undefined) throw new Error('no credential');
    const store = pgSigningKeyStore(app.db);
    const past = new JobsTokens({ issuer: ISS, audience: AUD, ttlSeconds: 60 }, store, app.services.credentials, randomUUID, () => new Date(Date.now() - 3600e3));
    const expired = (await past.issue(cred)).accessToken;
    expect401(await app.inject({ method: 'GET', url: '/v1/jobs', headers: { authorization: `Bearer ${expired}` } }), 'expired');

    const otherAud = new JobsTokens({ issuer: ISS, audience: 'https://subscriptions.example', ttlSeconds: 60 }, store, app.services.credentials, randomUUID);
    const sub = (await otherAud.issue(cred)).accessToken;
    expect401(await app.inject({ method: 'GET', url: '/v1/jobs', headers: { authorization: `Bearer ${sub}` } }), 'wrong_audience');

    const good = (await token(app, b)).json().access_token as string;
    const [h, p, s] = good.split('.');
    const claims = JSON.parse(Buffer.from(p as string, 'base64url').toString());
    const forged = `${h}.${Buffer.from(JSON.stringify({ ...claims, account_id: a.accountId })).toString('base64url')}.${s}`;
    expect401(await app.inject({ method: 'GET', url: '/v1/jobs', headers: { authorization: `Bearer ${forged}` } }), 'bad_signature');

    const { privateKey } = await generateKeyPair('ES256');
    const foreign = await new SignJWT({ client_id: b.credentialId, scope: 'jobs:read' })
      .setProtectedHeader({ alg: 'ES256', typ: 'at+jwt' })
      .setIssuer('https://evil.example')
      .setAudience(AUD)
      .setSubject('x')
      .setExpirationTime('5m')
      .sign(privateKey);
    expect401(await app.inject({ method: 'GET', url: '/v1/jobs', headers: { authorization: `Bearer ${foreign}` } }), 'wrong_issuer');

    expect((await app.inject({ method: 'GET', url: '/v1/jobs', headers: { authorization: `Bearer ${good}` } })).statusCode).toBe(200);
    await app.inject({ method: 'DELETE', url: `/v1/auth/credentials/${b.credentialId}`, headers: b.session });
    expect401(await app.inject({ method: 'GET', url: '/v1/jobs', headers: { authorization: `Bearer ${good}` } }), 'revoked');
    expect((await token(app, b)).statusCode).toBe(401);
  });

  it('an expired credential is refused (secret and token grant)', async () => {
    const b = await newAgent(app, { fundMicros: 0n });
    await app.db.query("UPDATE agent_credentials SET expires_at = now() - interval '1 second' WHERE id = $1", [b.credentialId]);
    expect401(await app.inject({ method: 'GET', url: '/v1/account/balance', headers: b.auth }), 'expired');
    expect((await token(app, b)).json().error).toBe('invalid_client');
  });

  it('403 for a missing scope on each operation', async () => {
    const ro = await newAgent(app, { scopes: ['jobs:read'], fundMicros: 0n });
    const wo = await newAgent(app, { scopes: ['jobs:write'], fundMicros: 0n });
    const submit = await app.inject({ method: 'POST', url: '/v1/jobs', headers: ro.auth, payload: { capability_id: 'circuit.analyze', request: {}, idempotency_key: key(), max_total_price: '1' } });
    expect(submit.statusCode).toBe(403);
    expect(submit.json().error.code).toBe('INSUFFICIENT_SCOPE');
    for (const url of ['/v1/jobs', `/v1/jobs/${randomUUID()}`, '/v1/account/balance']) {
      const r = await app.inject({ method: 'GET', url, headers: wo.auth });
      expect(r.statusCode).toBe(403);
      expect(r.json().error.code).toBe('INSUFFICIENT_SCOPE');
      expect(r.headers['www-authenticate']).toContain('scope="jobs:read"');
    }
  });
});

describe('a trusted external issuer (JOBS_JWT_ISSUER + JOBS_JWKS_URL)', () => {
  let server: Server;
  let app: App;
  let sign: (claims: Record<string, unknown>, aud?: string) => Promise<string>;
  beforeAll(async () => {
    const { privateKey, publicKey } = await generateKeyPair('RS256');
    const jwk = { ...(await exportJWK(publicKey)), kid: 'idp-1', alg: 'RS256', use: 'sig' };
    server = createServer((_req, res) => {
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ keys: [jwk] }));
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const port = (server.address() as { port: number }).port;
    sign = (claims, aud = AUD) =>
      new SignJWT(claims)
        .setProtectedHeader({ alg: 'RS256', kid: 'idp-1', typ: 'at+jwt' })
        .setIssuer('https://idp.example')
        .setAudience(aud)
        .setSubject('agent-7')
        .setIssuedAt()
        .setExpirationTime('5m')
        .sign(privateKey);
    app = await buildTestApp({ JOBS_JWT_ISSUER: 'https://idp.example', JOBS_JWKS_URL: `http://127.0.0.1:${port}/jwks.json` });
  });
  afterAll(async () => {
    await app.close();
    await new Promise((r) => server.close(r));
  });

  it('accepts its tokens for the account they name, refuses other audiences and unknown accounts', async () => {
    const u = await signUp(app);
    const ok = await sign({ account_id: u.accountId, scope: 'jobs:read' });
    const r = await app.inject({ method: 'GET', url: '/v1/account/balance', headers: { authorization: `Bearer ${ok}` } });
    expect(r.statusCode).toBe(200);
    expect(r.json().account_id).toBe(u.accountId);
    const w = await app.inject({ method: 'POST', url: '/v1/jobs', headers: { authorization: `Bearer ${ok}` }, payload: {} });
    expect(w.statusCode).toBe(403);
    expect401(
      await app.inject({ method: 'GET', url: '/v1/jobs', headers: { authorization: `Bearer ${await sign({ account_id: u.accountId, scope: 'jobs:read' }, 'https://billing.example')}` } }),
      'wrong_audience',
    );
    expect401(await app.inject({ method: 'GET', url: '/v1/jobs', headers: { authorization: `Bearer ${await sign({ account_id: randomUUID(), scope: 'jobs:read' })}` } }), 'no_account');
  });
});
