import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/http/app-types.js';
import { buildTestApp } from '../helpers/app.js';

interface Operation {
  readonly method: string;
  readonly path: string;
  readonly security?: readonly Record<string, unknown>[];
  readonly hasBody: boolean;
  readonly tags: readonly string[];
}

/** Jobs interface routes answer `{error, request_id}`; platform routes the envelope. */
const isJobsPath = (p: string) => /^\/v1\/(jobs|account|catalog)(\/|$)/.test(p);

function expectUnauthorized(r: { statusCode: number; headers: Record<string, unknown>; json: () => any }, path: string): void {
  expect(r.statusCode, path).toBe(401);
  expect(r.headers['www-authenticate'], path).toMatch(/^Bearer realm="qrail(-jobs)?"/);
  const b = r.json();
  expect(b.error.code, path).toBe('UNAUTHENTICATED');
  // A 401 says why the token failed (details.reason), never which body fields were wrong.
  expect(Array.isArray(b.error.details), `${path}: no validation details`).toBe(false);
  if (isJobsPath(path)) {
    expect(b.status, path).toBeUndefined();
    expect(typeof b.request_id, path).toBe('string');
  } else {
    expect(b.status, path).toBe('error');
    expect(typeof b.meta.request_id, path).toBe('string');
  }
}

describe('authentication comes before body validation', () => {
  let app: App;
  let ops: Operation[];
  beforeAll(async () => {
    app = await buildTestApp();
    const doc = (await app.inject({ method: 'GET', url: '/openapi.json' })).json();
    ops = [];
    for (const [path, item] of Object.entries(doc.paths as Record<string, Record<string, any>>)) {
      for (const [method, op] of Object.entries(item)) {
        ops.push({ method: method.toUpperCase(), path, security: op.security, hasBody: op.requestBody !== undefined, tags: op.tags ?? [] });
      }
    }
  });
  afterAll(async () => app.close());

  it('every operation that requires a bearer token answers 401 + WWW-Authenticate to a garbage request, in its interface shape', async () => {
    // `security: []` marks a public operation and `[{session: []}, {}]` an optional session; operator
    // routes (403) and the webhook (its signature, 400) check their own secrets, not a bearer token.
    const bearer = new Set(['session', 'jobsToken', 'jobsOAuth']);
    const required = ops.filter((o) => o.security !== undefined && o.security.length > 0 && o.security.every((s) => Object.keys(s).some((k) => bearer.has(k))));
    expect(required.length).toBeGreaterThan(30);
    for (const o of required) {
      const url = o.path.replace(/\{[^}]+\}/g, 'not-a-uuid') + (o.method === 'GET' ? '?limit=not-a-number&unknown=1' : '');
      const r = await app.inject({ method: o.method as 'GET', url, ...(o.hasBody || o.method !== 'GET' ? { payload: { unexpected: [1, 2, 3] } } : {}) });
      expectUnauthorized(r, o.path);
    }
  });

  it('no operation the document calls public (`security: []`) answers 401 to a caller without a token', async () => {
    const open = ops.filter((o) => o.security !== undefined && o.security.length === 0);
    expect(open.length).toBeGreaterThan(5);
    const refused: string[] = [];
    for (const o of open) {
      const url = o.path.replace(/\{[^}]+\}/g, 'not-a-uuid');
      const r = await app.inject({ method: o.method as 'GET', url, ...(o.method === 'GET' ? {} : { payload: {} }) });
      if (r.statusCode === 401) refused.push(`${o.method} ${o.path}`);
    }
    expect(refused).toEqual([]);
  });

  it('an anonymous credentials request with 120,000 scopes is refused at once with 401, not validated', async () => {
    const scopes = Array.from({ length: 120_000 }, () => 'a');
    const r = await app.inject({ method: 'POST', url: '/v1/auth/credentials', payload: { name: 'x', scopes } });
    expectUnauthorized(r, '/v1/auth/credentials');
  });

  it('an invalid token is refused before the body on platform and Jobs routes alike', async () => {
    const headers = { authorization: 'Bearer qrs_not_a_real_session_token' };
    const cred = await app.inject({ method: 'POST', url: '/v1/auth/credentials', headers, payload: { scopes: 'nope' } });
    expectUnauthorized(cred, '/v1/auth/credentials');
    expect(cred.headers['www-authenticate']).toContain('error="invalid_token"');
    const jobs = await app.inject({ method: 'POST', url: '/v1/jobs', headers: { authorization: 'Bearer qrj_nope' }, payload: { nope: true } });
    expectUnauthorized(jobs, '/v1/jobs');
  });

  it('operator routes refuse a missing operator token before looking at the body', async () => {
    const r = await app.inject({ method: 'POST', url: '/v1/billing/operator/credit-grant', payload: { email: 'not-an-email', amount: 'x', extra: 1 } });
    expect(r.statusCode).toBe(403);
    expect(r.json().error.code).toBe('OPERATOR_FORBIDDEN');
  });

  it('execution capabilities stay open to anonymous callers', async () => {
    const r = await app.inject({ method: 'GET', url: '/v1/execute/capabilities' });
    expect(r.statusCode).toBe(200);
    const d = await app.inject({ method: 'GET', url: '/v1/execute/provider-two/devices' });
    expect(d.statusCode).toBe(200);
  });
});
