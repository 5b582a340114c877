import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/http/app-types.js';
import { buildTestApp } from '../helpers/app.js';

function expectMeta(body: { meta: { version: string; request_id: string; processing_time_ms: number } }) {
  expect(body.meta.version).toMatch(/^\d+\.\d+\.\d+$/);
  expect(typeof body.meta.request_id).toBe('string');
  expect(body.meta.request_id.length).toBeGreaterThan(0);
  expect(body.meta.processing_time_ms).toBeGreaterThanOrEqual(0);
}

describe('response envelope', () => {
  let app: App;
  beforeAll(async () => {
    app = await buildTestApp({ BODY_LIMIT_BYTES: '2048' });
    app.get('/v1/test/boom', async () => {
      throw new Error('secret internal detail: password=hunter2');
    });
    await app.ready();
  });
  afterAll(async () => app.close());

  it('wraps success as {status: ok, data, meta}', async () => {
    const r = await app.inject({ method: 'GET', url: '/v1/auth/diagnostics' });
    expect(r.statusCode).toBe(200);
    const b = r.json();
    expect(b.status).toBe('ok');
    expect(b.data.token_present).toBe(false);
    expect(Object.keys(b).sort()).toEqual(['data', 'meta', 'status']);
    expectMeta(b);
  });

  it('echoes an incoming X-Request-Id as meta.request_id and header', async () => {
    const r = await app.inject({ method: 'GET', url: '/v1/auth/diagnostics', headers: { 'x-request-id': 'trace-abc.123' } });
    expect(r.json().meta.request_id).toBe('trace-abc.123');
    expect(r.headers['x-request-id']).toBe('trace-abc.123');
  });

  it('replaces an unsafe X-Request-Id with a generated one', async () => {
    const r = await app.inject({ method: 'GET', url: '/v1/auth/diagnostics', headers: { 'x-request-id': 'bad id\twith spaces' } });
    expect(r.json().meta.request_id).not.toContain(' ');
  });

  it('400 VALIDATION_FAILED lists every problem with its JSON path', async () => {
    const r = await app.inject({ method: 'POST', url: '/v1/auth/register', payload: { email: 'not-an-email', password: 'x', extra: 1 } });
    expect(r.statusCode).toBe(400);
    const b = r.json();
    expect(b.status).toBe('error');
    expect(b.error.code).toBe('VALIDATION_FAILED');
    const paths = b.error.details.map((d: { path: string }) => d.path).sort();
    expect(paths).toEqual(['/email', '/extra', '/password']);
    expectMeta(b);
  });

  it('400 MALFORMED_JSON for broken JSON', async () => {
    const r = await app.inject({ method: 'POST', url: '/v1/auth/login', headers: { 'content-type': 'application/json' }, payload: '{"email": ' });
    expect(r.statusCode).toBe(400);
    expect(r.json().error.code).toBe('MALFORMED_JSON');
  });

  it('404 NOT_FOUND for an unknown route, as an envelope', async () => {
    const r = await app.inject({ method: 'GET', url: '/v1/nothing/here' });
    expect(r.statusCode).toBe(404);
    expect(r.json().status).toBe('error');
    expect(r.json().error.code).toBe('NOT_FOUND');
    expectMeta(r.json());
  });

  it('404, not 405, for a known path with a trailing slash', async () => {
    const r = await app.inject({ method: 'GET', url: '/v1/auth/diagnostics/' });
    expect(r.statusCode).toBe(404);
    expect(r.json().error.code).toBe('NOT_FOUND');
    expect(r.headers['allow']).toBeUndefined();
  });

  it('400 BAD_REQUEST envelope for a URL the router rejects (broken percent-encoding, over-long path parameter)', async () => {
    const bad = await app.inject({ method: 'GET', url: '/v1/auth/me%zz', headers: { 'x-request-id': 'bad-url-1' } });
    expect(bad.statusCode).toBe(400);
    expect(bad.headers['content-type']).toContain('application/json');
    expect(bad.json()).toMatchObject({ status: 'error', error: { code: 'BAD_REQUEST' } });
    expectMeta(bad.json());
    expect(bad.json().meta.request_id).toBe('bad-url-1');
    expect(bad.headers['x-request-id']).toBe('bad-url-1');
    expect(bad.body).not.toContain('FST_ERR');

    // Fastify's router refuses path parameters over 100 characters before any route runs.
    const long = await app.inject({ method: 'GET', url: `/v1/execute/provider-two/${'x'.repeat(150)}` });
    expect(long.statusCode).toBe(400);
    expect(long.json()).toMatchObject({ status: 'error', error: { code: 'BAD_REQUEST' } });
    expectMeta(long.json());
    expect(long.body).not.toContain('FST_ERR');
  });

  it('405 METHOD_NOT_ALLOWED with an Allow header', async () => {
    const r = await app.inject({ method: 'PUT', url: '/v1/auth/login', payload: {} });
    expect(r.statusCode).toBe(405);
    expect(r.json().error.code).toBe('METHOD_NOT_ALLOWED');
    expect(r.headers['allow']).toBe('POST');
  });

  it('413 PAYLOAD_TOO_LARGE above the body limit', async () => {
    const r = await app.inject({ method: 'POST', url: '/v1/auth/login', payload: { email: 'a@b.co', password: 'x'.repeat(5000) } });
    expect(r.statusCode).toBe(413);
    expect(r.json().error.code).toBe('PAYLOAD_TOO_LARGE');
  });

  it('415 UNSUPPORTED_MEDIA_TYPE for a non-JSON body', async () => {
    const r = await app.inject({ method: 'POST', url: '/v1/auth/login', headers: { 'content-type': 'text/plain' }, payload: 'hello' });
    expect(r.statusCode).toBe(415);
    expect(r.json().error.code).toBe('UNSUPPORTED_MEDIA_TYPE');
  });

  it('500 INTERNAL_ERROR leaks no internals', async () => {
    const r = await app.inject({ method: 'GET', url: '/v1/test/boom' });
    expect(r.statusCode).toBe(500);
    expect(r.json().error.code).toBe('INTERNAL_ERROR');
    expect(r.body).not.toContain('hunter2');
    expect(r.body).not.toContain('secret internal');
    expect(r.body).not.toMatch(/at .*\.ts:\d+/);
  });

  it('503 SERVICE_DRAINING while shutting down; readiness reports draining', async () => {
    app.draining = true;
    try {
      const r = await app.inject({ method: 'GET', url: '/v1/auth/diagnostics' });
      expect(r.statusCode).toBe(503);
      expect(r.json().error.code).toBe('SERVICE_DRAINING');
      expect(r.headers['connection']).toBe('close');
      const ready = await app.inject({ method: 'GET', url: '/readyz' });
      expect(ready.statusCode).toBe(503);
    } finally {
      app.draining = false;
    }
    expect((await app.inject({ method: 'GET', url: '/readyz' })).statusCode).toBe(200);
  });
});

describe('rate limiting', () => {
  let app: App;
  beforeAll(async () => {
    app = await buildTestApp({ RATE_LIMIT_PER_MINUTE: '3' });
  });
  afterAll(async () => app.close());

  it('429 RATE_LIMITED with Retry-After and RateLimit headers after the limit', async () => {
    const statuses: number[] = [];
    let last;
    for (let i = 0; i < 5; i++) {
      last = await app.inject({ method: 'GET', url: '/v1/auth/diagnostics' });
      statuses.push(last.statusCode);
    }
    expect(statuses).toEqual([200, 200, 200, 429, 429]);
    expect(last?.json().error.code).toBe('RATE_LIMITED');
    expect(Number(last?.headers['retry-after'])).toBeGreaterThan(0);
    expect(last?.headers['ratelimit-limit']).toBe('3');
    expect(last?.headers['ratelimit-remaining']).toBe('0');
  });
});
