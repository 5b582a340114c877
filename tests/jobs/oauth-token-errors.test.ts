import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LightMyRequestResponse } from 'fastify';
import type { App } from '../../src/http/app-types.js';
import { buildTestApp } from '../helpers/app.js';

/**
 * Issue #34 item 7: every refusal of the OAuth token endpoint is an RFC 6749 §5.2 error
 * (`{"error", "error_description"}`, 400, or 401 `invalid_client`), including what the edge
 * refuses before the handler runs: broken or empty JSON, another media type, a body too large or
 * too deep, forbidden characters. OAuth clients parse only that shape.
 */
const JSON_TYPE = { 'content-type': 'application/json' };
const FORM = { 'content-type': 'application/x-www-form-urlencoded' };
// RFC 6749 §5.2: error_description is printable ASCII without `"` and `\`.
const DESCRIPTION = /^[\x20-\x21\x23-\x5B\x5D-\x7E]+$/;

function expectOAuthError(r: LightMyRequestResponse, status: number, error: string): void {
  expect(r.statusCode, r.body).toBe(status);
  expect(r.headers['content-type']).toMatch(/^application\/json/);
  const body = r.json<Record<string, unknown>>();
  expect(Object.keys(body).sort()).toEqual(['error', 'error_description']);
  expect(body['error']).toBe(error);
  expect(body['error_description']).toMatch(DESCRIPTION);
  expect(r.headers['cache-control']).toBe('no-store');
}

describe('the token endpoint answers every refusal as RFC 6749 §5.2', () => {
  let app: App;
  beforeAll(async () => {
    app = await buildTestApp({ BODY_LIMIT_BYTES: '4096' });
  });
  afterAll(async () => app.close());

  const token = (headers: Record<string, string>, payload?: string) => app.inject({ method: 'POST', url: '/v1/oauth/token', headers, ...(payload === undefined ? {} : { payload }) });

  it.each([
    ['malformed JSON', JSON_TYPE, '{"grant_type":'],
    ['an empty JSON body', JSON_TYPE, ''],
    ['JSON that is not an object', JSON_TYPE, '"client_credentials"'],
    ['JSON nested too deep', JSON_TYPE, `${'['.repeat(100)}${']'.repeat(100)}`],
    ['a NUL character', JSON_TYPE, '{"grant_type":"client_credentials\\u0000"}'],
    ['another media type', { 'content-type': 'text/plain' }, 'grant_type=client_credentials'],
    ['XML', { 'content-type': 'application/xml' }, '<grant_type>client_credentials</grant_type>'],
    ['a body over BODY_LIMIT_BYTES (JSON)', JSON_TYPE, JSON.stringify({ grant_type: 'client_credentials', scope: 'x'.repeat(5000) })],
    ['a body over BODY_LIMIT_BYTES (form)', FORM, `grant_type=client_credentials&scope=${'x'.repeat(5000)}`],
    ['an empty form body', FORM, ''],
    ['no body and no content type', {}, undefined],
    ['a form without grant_type', FORM, 'client_id=abc'],
  ])('%s → 400 invalid_request', async (_, headers, payload) => {
    expectOAuthError(await token(headers, payload), 400, 'invalid_request');
  });

  it('form-encoded and JSON grants are refused in the same shape: unsupported grant, unknown client', async () => {
    expectOAuthError(await token(FORM, 'grant_type=password&username=a&password=b'), 400, 'unsupported_grant_type');
    expectOAuthError(await token(JSON_TYPE, JSON.stringify({ grant_type: 'password' })), 400, 'unsupported_grant_type');
    const basic = `Basic ${Buffer.from('00000000-0000-4000-8000-000000000000:qrj_nope').toString('base64')}`;
    const unknown = await token({ ...FORM, authorization: basic }, 'grant_type=client_credentials');
    expectOAuthError(unknown, 401, 'invalid_client');
    expect(unknown.headers['www-authenticate']).toMatch(/^Basic /);
    expectOAuthError(await token(FORM, 'grant_type=client_credentials'), 401, 'invalid_client');
  });
});

describe('the token endpoint’s rate limit answers in the OAuth shape too', () => {
  let app: App;
  beforeAll(async () => {
    app = await buildTestApp({ RATE_LIMIT_AUTH_PER_MINUTE: '1' });
  });
  afterAll(async () => app.close());

  it('past the limit: 429 with Retry-After and an OAuth error body', async () => {
    let last: LightMyRequestResponse | undefined;
    for (let i = 0; i < 11; i += 1) last = await app.inject({ method: 'POST', url: '/v1/oauth/token', remoteAddress: '203.0.113.50', headers: FORM, payload: 'grant_type=client_credentials' });
    if (last === undefined) throw new Error('no answer');
    expect(last.statusCode).toBe(429);
    expect(Number(last.headers['retry-after'])).toBeGreaterThan(0);
    expect(Object.keys(last.json()).sort()).toEqual(['error', 'error_description']);
    expect(last.json().error).toBe('temporarily_unavailable');
  });
});
