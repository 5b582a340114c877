import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/http/app-types.js';
import { buildTestApp, signUp } from '../helpers/app.js';
import { mismatch, parseGuide, parsePattern, substitute } from '../helpers/api-guide.js';
import { openapiDocument, ResponseChecker } from '../helpers/openapi.js';
import { newAgent } from '../jobs/helpers.js';

/**
 * Real answers against the OpenAPI document: every request of docs/api-guide.md (register →
 * circuits → coupling → execution → billing → Account Jobs → media, successes and errors) and the
 * edge's own answers (401, 404, 413, 415, 429, 503), each checked for a declared status, its
 * required headers and its body against the declared schema (Ajv, strict, formats).
 */
const GUIDE = fileURLToPath(new URL('../../docs/api-guide.md', import.meta.url));
const ESPEAK = spawnSync('espeak-ng', ['--version']).status === 0;

type Answer = { statusCode: number; headers: Record<string, unknown>; body: string };

describe('real answers match the OpenAPI document', () => {
  let app: App;
  let checker: ResponseChecker;
  const problems: string[] = [];
  const seen = new Set<string>();

  const check = (method: string, url: string, r: Answer) => {
    seen.add(`${method} ${checker.operation(method, url)?.path ?? url} ${r.statusCode}`);
    problems.push(...checker.check(method, url, r.statusCode, r.headers, r.body));
  };

  beforeAll(async () => {
    app = await buildTestApp({ RATE_LIMIT_AUTH_PER_MINUTE: '1000', BODY_LIMIT_BYTES: '65536' });
    checker = new ResponseChecker(await openapiDocument(app));
  });
  afterAll(async () => app.close());

  it('every answer of the API guide, in order', async () => {
    const vars = new Map<string, string>();
    const requestProblems: string[] = [];
    let replayed = 0;
    for (const e of parseGuide(readFileSync(GUIDE, 'utf8'))) {
      if (!ESPEAK && (e.path.startsWith('/v1/tts') || e.path.startsWith('/v1/media/'))) continue;
      await app.services.executionWorker.drain();
      await app.services.jobsWorker.drain();
      const url = substitute(e.path, vars);
      const headers = Object.fromEntries(Object.entries(e.headers).map(([k, v]) => [k, substitute(v, vars)]));
      const payload = e.body === '' ? undefined : substitute(e.body, vars);
      if (payload !== undefined && headers['content-type'] === undefined) headers['content-type'] = 'application/json';
      const r = await app.inject({ method: e.method as 'GET', url, headers, ...(payload === undefined ? {} : { payload }) });
      // The guide's captures carry ids from one answer to the next requests.
      if (e.expectBody !== '') {
        try {
          mismatch(parsePattern(e.expectBody), JSON.parse(r.body), '', vars);
        } catch {
          // not JSON (pages, redirects): nothing to capture
        }
      }
      check(e.method, url, r);
      // What a validating proxy checks on the way in: every request the guide shows succeeding conforms to its request schema.
      if (payload !== undefined && r.statusCode < 300 && headers['content-type'] === 'application/json') requestProblems.push(...checker.checkRequest(e.method, url, payload));
      replayed++;
    }
    expect(replayed).toBeGreaterThan(40);
    expect(problems).toEqual([]);
    expect(requestProblems).toEqual([]);
  }, 180_000);

  it('the edge’s answers: 401, 403, 404, 405-free paths, 413, 415, 429 and 503, on both interfaces', async () => {
    problems.length = 0;
    const user = await signUp(app);
    const agent = await newAgent(app, { fundMicros: 1_000_000n });
    const send = async (method: string, url: string, opts: { headers?: Record<string, string>; payload?: string | object } = {}) => {
      const r = await app.inject({ method: method as 'GET', url, ...(opts.headers === undefined ? {} : { headers: opts.headers }), ...(opts.payload === undefined ? {} : { payload: opts.payload }) });
      check(method, url, r);
      return r;
    };
    expect((await send('GET', '/v1/billing/wallet')).statusCode).toBe(401);
    expect((await send('GET', '/v1/jobs')).statusCode).toBe(401);
    expect((await send('GET', '/v1/jobs', { headers: user.auth })).statusCode).toBe(401);
    expect((await send('GET', '/v1/jobs/00000000-0000-4000-8000-000000000000', { headers: agent.auth })).statusCode).toBe(404);
    expect((await send('GET', '/v1/execute/provider-one/00000000-0000-4000-8000-000000000000', { headers: user.auth })).statusCode).toBe(404);
    expect((await send('GET', '/v1/billing/operator/ledger-check')).statusCode).toBe(403);
    expect((await send('GET', '/v1/jobs?limit=0', { headers: agent.auth })).statusCode).toBe(400);
    expect((await send('GET', '/v1/jobs?cursor=nope', { headers: agent.auth })).statusCode).toBe(400);
    expect((await send('POST', '/v1/jobs', { headers: agent.auth, payload: { capability_id: 'nope', request: {}, idempotency_key: 'k-1', max_total_price: '0.01' } })).statusCode).toBe(400);
    const big = JSON.stringify({ circuit: { format: 'qasm2', source: 'x'.repeat(70_000) } });
    expect((await send('POST', '/v1/circuits/validate', { headers: { 'content-type': 'application/json' }, payload: big })).statusCode).toBe(413);
    expect((await send('POST', '/v1/jobs', { headers: { ...agent.auth, 'content-type': 'application/json' }, payload: big })).statusCode).toBe(413);
    expect((await send('POST', '/v1/circuits/validate', { headers: { 'content-type': 'text/plain' }, payload: 'h q[0];' })).statusCode).toBe(415);
    // The token endpoint refuses another media type as RFC 6749 §5.2 (400 invalid_request), checked against its document (issue #34).
    expect((await send('POST', '/v1/oauth/token', { headers: { 'content-type': 'text/plain' }, payload: 'x' })).statusCode).toBe(400);
    expect((await send('POST', '/v1/oauth/token', { headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: 'grant_type=password' })).statusCode).toBe(400);
    expect(
      (await send('POST', '/v1/oauth/token', { headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: 'grant_type=client_credentials&client_id=x&client_secret=y' })).statusCode,
    ).toBe(401);
    expect((await send('POST', '/v1/auth/login', { payload: { email: user.email, password: 'wrong password!' } })).statusCode).toBe(401);
    expect((await send('POST', '/v1/auth/register', { payload: { email: user.email, password: 'another passphrase' } })).statusCode).toBe(409);
    expect((await send('GET', '/readyz')).statusCode).toBe(200);
    expect((await send('GET', '/.well-known/jwks.json')).statusCode).toBe(200);
    expect((await send('GET', '/.well-known/oauth-authorization-server')).statusCode).toBe(200);
    expect((await send('GET', '/v1/auth/credentials', { headers: user.auth })).statusCode).toBe(200);
    expect((await send('GET', '/v1/billing/summary', { headers: user.auth })).statusCode).toBe(200);
    expect((await send('GET', '/v1/billing/profile', { headers: user.auth })).statusCode).toBe(200);
    expect((await send('GET', '/v1/billing/jobs', { headers: user.auth })).statusCode).toBe(200);
    expect((await send('GET', '/v1/billing/recovery-status', { headers: user.auth })).statusCode).toBe(200);
    expect((await send('GET', '/v1/billing/auto-recharge/attempts', { headers: user.auth })).statusCode).toBe(200);
    expect((await send('POST', '/v1/billing/processor/customer', { headers: user.auth })).statusCode).toBe(200);
    expect((await send('GET', '/v1/circuits/example')).statusCode).toBe(200);
    expect((await send('GET', '/v1/circuits/example?name=nope')).statusCode).toBe(404);
    expect((await send('GET', '/v1/catalog')).statusCode).toBe(200);
    expect((await send('GET', '/v1/auth/diagnostics', { headers: { authorization: 'Bearer qrs_nope' } })).statusCode).toBe(200);
    // Draining: every platform and Jobs request gets 503 with Retry-After; probes still answer.
    app.draining = true;
    try {
      expect((await send('GET', '/v1/billing/wallet', { headers: user.auth })).statusCode).toBe(503);
      expect((await send('POST', '/v1/jobs', { headers: agent.auth, payload: { capability_id: 'circuit.simulate', request: {}, idempotency_key: 'k-2', max_total_price: '0.01' } })).statusCode).toBe(
        503,
      );
      expect((await send('GET', '/readyz')).statusCode).toBe(503);
    } finally {
      app.draining = false;
    }
    expect(problems).toEqual([]);
  }, 120_000);

  it('rate limits answer 429 as documented on both interfaces', async () => {
    const limited = await buildTestApp({ RATE_LIMIT_PER_MINUTE: '2', RATE_LIMIT_AUTH_PER_MINUTE: '2' });
    try {
      const c = new ResponseChecker(await openapiDocument(limited));
      const out: string[] = [];
      for (const url of ['/v1/circuits/example', '/v1/catalog']) {
        let last = 0;
        for (let i = 0; i < 4; i++) {
          const r = await limited.inject({ method: 'GET', url });
          out.push(...c.check('GET', url, r.statusCode, r.headers, r.body));
          last = r.statusCode;
        }
        expect(last, url).toBe(429);
      }
      expect(out).toEqual([]);
    } finally {
      await limited.close();
    }
  });
});
