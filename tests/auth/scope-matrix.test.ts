import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CREDENTIAL_SCOPES, type CredentialScope } from '../../src/auth/credentials.js';
import type { App } from '../../src/http/app-types.js';
import { PLATFORM_ROUTE_ACCESS } from '../../src/http/route-access.js';
import { buildTestApp, signUp } from '../helpers/app.js';
import { bell } from '../helpers/circuits.js';
import { openapiDocument, operations } from '../helpers/openapi.js';

/**
 * One credential model (issue #21 item 4): every platform route's declared access
 * (src/http/route-access.ts) is what a machine credential meets — 403 naming the scope without
 * it, through with it — while a person's session passes everywhere and bad tokens stay 401.
 */
describe('credential scopes on the platform interface', () => {
  let app: App;
  let owner: Awaited<ReturnType<typeof signUp>>;
  const creds = new Map<string, string>();

  /** A credential of the owner's account holding exactly these scopes (one per distinct set). */
  async function credential(scopes: readonly CredentialScope[]): Promise<string> {
    const key = [...scopes].sort().join(' ');
    const hit = creds.get(key);
    if (hit !== undefined) return hit;
    const r = await app.inject({ method: 'POST', url: '/v1/auth/credentials', headers: owner.auth, payload: { name: `c-${creds.size}`, scopes } });
    expect(r.statusCode).toBe(201);
    creds.set(key, r.json().data.secret as string);
    return r.json().data.secret as string;
  }

  const UUID = '00000000-0000-4000-8000-000000000001';
  const call = (key: string, authorization: string) => {
    const [method, path] = key.split(' ') as [string, string];
    const url = path.replace(/:[a-z_]+/g, UUID);
    const body = method === 'GET' || method === 'DELETE' ? undefined : {};
    return app.inject({ method: method as 'GET', url, headers: { authorization }, ...(body === undefined ? {} : { payload: body }) });
  };

  beforeAll(async () => {
    app = await buildTestApp();
    owner = await signUp(app);
  });
  afterAll(async () => {
    await app.close();
  });

  it('declares an access for routes that exist, and the OpenAPI security of every bearer route is derived from it', async () => {
    const registered = new Set(app.qrailRoutes.map((r) => `${r.method} ${r.url}`));
    expect(Object.keys(PLATFORM_ROUTE_ACCESS).filter((k) => !registered.has(k))).toEqual([]);
    const ops = operations(await openapiDocument(app));
    for (const o of ops) {
      const key = `${o.method.toUpperCase()} ${o.path.replace(/\{([a-z_]+)\}/g, ':$1')}`;
      const access = PLATFORM_ROUTE_ACCESS[key];
      const security = o.op['security'] as Array<Record<string, string[]>>;
      if (access === undefined) {
        // Undeclared bearer routes are a person's: no machine scheme in their security.
        if (!o.path.startsWith('/v1/jobs') && o.path !== '/v1/account/balance')
          expect(
            security.flatMap((s) => Object.keys(s)),
            key,
          ).not.toContain('jobsToken');
        continue;
      }
      const scopes = security.filter((s) => s['jobsToken'] !== undefined).flatMap((s) => s['jobsToken'] ?? []);
      expect(scopes, key).toEqual('scopes' in access ? [...access.scopes] : []);
      expect(security, key).toContainEqual({ session: [] });
      expect(
        security.some((s) => Object.keys(s).length === 0),
        key,
      ).toBe(access.anonymous === true);
    }
  });

  const scoped = Object.entries(PLATFORM_ROUTE_ACCESS).filter(([, a]) => 'scopes' in a) as Array<[string, { scopes: readonly CredentialScope[] }]>;
  const personal = Object.entries(PLATFORM_ROUTE_ACCESS).filter(([, a]) => 'person' in a);

  it('refuses a credential without the declared scope with 403 INSUFFICIENT_SCOPE naming it, on every scoped route', async () => {
    for (const [key, access] of scoped) {
      const others = CREDENTIAL_SCOPES.filter((s) => !access.scopes.includes(s));
      const r = await call(key, `Bearer ${await credential(others)}`);
      expect(r.statusCode, key).toBe(403);
      const e = r.json();
      expect(e.status, key).toBe('error');
      expect(e.error.code, key).toBe('INSUFFICIENT_SCOPE');
      for (const s of access.scopes) expect(e.error.message, key).toContain(s);
      expect(e.error.details.required_scopes, key).toEqual([...access.scopes]);
      expect(r.headers['www-authenticate'], key).toBe(`Bearer realm="qrail", error="insufficient_scope", scope="${access.scopes.join(' ')}"`);
    }
  });

  it('lets a credential holding any one of the declared scopes through (no 401, no 403), on every scoped route', async () => {
    for (const [key, access] of scoped) {
      for (const s of access.scopes) {
        const r = await call(key, `Bearer ${await credential([s])}`);
        expect([401, 403], `${key} with ${s}: ${r.body.slice(0, 200)}`).not.toContain(r.statusCode);
      }
    }
  });

  it('keeps person-only routes for a session: a credential with every scope gets 403 SESSION_REQUIRED', async () => {
    const all = await credential(CREDENTIAL_SCOPES);
    for (const [key] of personal) {
      const r = await call(key, `Bearer ${all}`);
      expect(r.statusCode, key).toBe(403);
      expect(r.json().error.code, key).toBe('SESSION_REQUIRED');
      expect(r.headers['www-authenticate'], key).toMatch(/^Bearer realm="qrail", error="insufficient_scope"/);
    }
  });

  it('lets a person’s session through every declared route (it holds every scope)', async () => {
    // Logging out ends the session it is called with: last, on a session of its own.
    const keys = Object.keys(PLATFORM_ROUTE_ACCESS).filter((k) => k !== 'POST /v1/auth/logout');
    for (const key of keys) {
      const r = await call(key, owner.auth.authorization);
      expect([401, 403], `${key}: ${r.body.slice(0, 200)}`).not.toContain(r.statusCode);
    }
    const other = await signUp(app);
    expect((await call('POST /v1/auth/logout', other.auth.authorization)).statusCode).toBe(200);
  });

  it('a jobs-only credential on /v1/circuits/analyze is 403 insufficient_scope, not 400 or 401; with circuits:run it analyzes', async () => {
    const jobsOnly = await credential(['jobs:read', 'jobs:write']);
    const denied = await app.inject({ method: 'POST', url: '/v1/circuits/analyze', headers: { authorization: `Bearer ${jobsOnly}` }, payload: { circuit: bell } });
    expect(denied.statusCode).toBe(403);
    expect(denied.json().error).toMatchObject({ code: 'INSUFFICIENT_SCOPE', details: { required_scope: 'circuits:run', granted_scopes: ['jobs:read', 'jobs:write'] } });
    expect(denied.json().error.message).toContain('circuits:run');
    // Refused before the body is read: a broken body changes nothing.
    const broken = await app.inject({ method: 'POST', url: '/v1/circuits/analyze', headers: { authorization: `Bearer ${jobsOnly}`, 'content-type': 'application/json' }, payload: '{"circuit":' });
    expect(broken.statusCode).toBe(403);
    const ok = await app.inject({ method: 'POST', url: '/v1/circuits/analyze', headers: { authorization: `Bearer ${await credential(['circuits:run'])}` }, payload: { circuit: bell } });
    expect(ok.statusCode).toBe(200);
    expect(ok.json().data.num_qubits).toBe(2);
  });

  it('access tokens carry the scopes (narrowed by `scope`), also those of an exchanged session', async () => {
    const full = await app.inject({ method: 'POST', url: '/v1/auth/credentials', headers: owner.auth, payload: { name: 'tokens', scopes: ['jobs:read', 'circuits:run', 'billing:read'] } });
    const c = full.json().data as { client_id: string; secret: string };
    const token = async (scope?: string) => {
      const r = await app.inject({
        method: 'POST',
        url: '/v1/oauth/token',
        payload: { grant_type: 'client_credentials', client_id: c.client_id, client_secret: c.secret, ...(scope === undefined ? {} : { scope }) },
      });
      expect(r.statusCode).toBe(200);
      return r.json<{ access_token: string; scope: string }>();
    };
    const all = await token();
    expect(all.scope).toBe('jobs:read circuits:run billing:read');
    const wallet = await app.inject({ method: 'GET', url: '/v1/billing/wallet', headers: { authorization: `Bearer ${all.access_token}` } });
    expect(wallet.statusCode).toBe(200);
    expect(wallet.json().data.available).toBe('0.000000');
    const narrow = await token('circuits:run');
    expect(narrow.scope).toBe('circuits:run');
    const refused = await app.inject({ method: 'GET', url: '/v1/billing/wallet', headers: { authorization: `Bearer ${narrow.access_token}` } });
    expect(refused.statusCode).toBe(403);
    expect(refused.json().error).toMatchObject({ code: 'INSUFFICIENT_SCOPE', details: { required_scopes: ['billing:read'], granted_scopes: ['circuits:run'] } });
    const beyond = await app.inject({
      method: 'POST',
      url: '/v1/oauth/token',
      payload: { grant_type: 'client_credentials', client_id: c.client_id, client_secret: c.secret, scope: 'execute:hardware' },
    });
    expect(beyond.statusCode).toBe(400);
    expect(beyond.json().error).toBe('invalid_scope');

    const x = await app.inject({
      method: 'POST',
      url: '/v1/oauth/token',
      payload: {
        grant_type: 'urn:ietf:params:oauth:grant-type:token-exchange',
        subject_token: owner.token,
        subject_token_type: 'urn:qrail:params:oauth:token-type:session',
        scope: 'execute:simulator',
      },
    });
    expect(x.statusCode).toBe(200);
    const run = await app.inject({
      method: 'POST',
      url: '/v1/execute/provider-one',
      headers: { authorization: `Bearer ${x.json().access_token as string}` },
      payload: { circuit: bell, shots: 10, seed: 1, client_token: 'exchanged-1' },
    });
    expect(run.statusCode).toBe(200);
    expect(run.json().data.status).toBe('completed');
    const billing = await app.inject({ method: 'GET', url: '/v1/billing/summary', headers: { authorization: `Bearer ${x.json().access_token as string}` } });
    expect(billing.statusCode).toBe(403);
    expect(billing.json().error.code).toBe('INSUFFICIENT_SCOPE');
  });

  it('credential creation accepts the new scopes and names an unknown one', async () => {
    const ok = await app.inject({
      method: 'POST',
      url: '/v1/auth/credentials',
      headers: owner.auth,
      payload: { name: 'hw', scopes: ['execute:hardware', 'circuits:run', 'execute:simulator', 'billing:read'] },
    });
    expect(ok.statusCode).toBe(201);
    // Stored in the canonical order, whatever the order asked.
    expect(ok.json().data.scopes).toEqual(['circuits:run', 'execute:simulator', 'execute:hardware', 'billing:read']);
    for (const bad of ['billing:write', 'execute:everything']) {
      const r = await app.inject({ method: 'POST', url: '/v1/auth/credentials', headers: owner.auth, payload: { name: 'bad', scopes: ['jobs:read', bad] } });
      expect(r.statusCode).toBe(400);
      expect(r.json().error.code).toBe('VALIDATION_FAILED');
      const problem = (r.json().error.details as Array<{ path: string; message: string }>).find((d) => d.path === '/scopes/1');
      expect(problem?.message).toContain('execute:hardware');
    }
    const meta = await app.inject({ method: 'GET', url: '/.well-known/oauth-authorization-server' });
    expect(meta.json().scopes_supported).toEqual([...CREDENTIAL_SCOPES]);
  });

  it('bad tokens stay 401 on required routes and are ignored where anonymous callers are served', async () => {
    const revoked = await app.inject({ method: 'POST', url: '/v1/auth/credentials', headers: owner.auth, payload: { name: 'gone', scopes: ['billing:read', 'circuits:run'] } });
    const { credential_id: id, secret } = revoked.json().data as { credential_id: string; secret: string };
    await app.inject({ method: 'DELETE', url: `/v1/auth/credentials/${id}`, headers: owner.auth });
    for (const token of ['garbage', `qrj_${'A'.repeat(43)}`, secret, 'eyJhbGciOiJFUzI1NiJ9.e30.c2ln']) {
      const r = await app.inject({ method: 'GET', url: '/v1/billing/wallet', headers: { authorization: `Bearer ${token}` } });
      expect(r.statusCode, token).toBe(401);
      expect(r.json().error.code).toBe('UNAUTHENTICATED');
      expect(r.headers['www-authenticate']).toBe('Bearer realm="qrail", error="invalid_token"');
      const anon = await app.inject({ method: 'POST', url: '/v1/circuits/analyze', headers: { authorization: `Bearer ${token}` }, payload: { circuit: bell } });
      expect(anon.statusCode, token).toBe(200);
    }
    expect((await app.inject({ method: 'GET', url: '/v1/billing/wallet', headers: { authorization: `Bearer ${secret}` } })).json().error.details.reason).toBe('revoked');
    // A platform session is still another audience on the Account Jobs interface.
    const jobs = await app.inject({ method: 'GET', url: '/v1/jobs', headers: owner.auth });
    expect(jobs.statusCode).toBe(401);
  });
});
