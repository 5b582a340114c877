import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/http/app-types.js';
import { buildTestApp, signUp } from '../helpers/app.js';
import { bell } from '../helpers/circuits.js';

/**
 * Responses are compressed (gzip and brotli, as the client accepts) above a small threshold:
 * the OpenAPI document and the reference page's bundle shrink by a large factor and decode to the
 * same bytes; small answers, the envelope and idempotent replays are unchanged.
 */

type Res = { statusCode: number; headers: Record<string, unknown>; rawPayload: Buffer; body: string };

const decode = (r: Res): Buffer => {
  const enc = r.headers['content-encoding'];
  if (enc === 'br') return brotliDecompressSync(r.rawPayload);
  if (enc === 'gzip') return gunzipSync(r.rawPayload);
  return r.rawPayload;
};

describe('response compression', () => {
  let app: App;
  beforeAll(async () => {
    app = await buildTestApp();
  });
  afterAll(async () => app.close());

  const get = async (url: string, encoding?: string, headers: Record<string, string> = {}): Promise<Res> =>
    await app.inject({ method: 'GET', url, headers: { ...headers, ...(encoding === undefined ? {} : { 'accept-encoding': encoding }) } });

  it('/openapi.json in brotli and gzip: the same document, many times smaller', async () => {
    const plain = await get('/openapi.json');
    expect(plain.statusCode).toBe(200);
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.rawPayload.length).toBeGreaterThan(200_000);
    for (const [accept, enc] of [
      ['br', 'br'],
      ['gzip', 'gzip'],
      ['gzip, deflate, br', 'br'],
    ] as const) {
      const r = await get('/openapi.json', accept);
      expect(r.statusCode, accept).toBe(200);
      expect(r.headers['content-encoding'], accept).toBe(enc);
      expect(String(r.headers['vary']), accept).toMatch(/accept-encoding/i);
      expect(decode(r).equals(plain.rawPayload), accept).toBe(true);
      expect(r.rawPayload.length * 8, accept).toBeLessThan(plain.rawPayload.length);
    }
  });

  it('the reference page’s static bundle and its document are compressed too', async () => {
    const page = await get('/docs/', 'gzip');
    expect(page.statusCode).toBe(200);
    const html = decode(page).toString('utf8');
    const bundle = /src="\.?\/?([^"]*swagger-ui-bundle\.js)"/.exec(html)?.[1];
    expect(bundle).toBeDefined();
    const url = `/docs/${bundle!.replace(/^\.?\/?(docs\/)?/, '')}`;
    const plain = await get(url);
    expect(plain.statusCode).toBe(200);
    const r = await get(url, 'br');
    expect(r.headers['content-encoding']).toBe('br');
    expect(decode(r).equals(plain.rawPayload)).toBe(true);
    expect(r.rawPayload.length * 3).toBeLessThan(plain.rawPayload.length);
    const doc = await get('/docs/json', 'gzip');
    expect(doc.headers['content-encoding']).toBe('gzip');
  });

  it('the reference page carries qrail’s title and logo', async () => {
    const html = decode(await get('/docs/', 'gzip')).toString('utf8');
    expect(html).toMatch(/<title>qrail API reference<\/title>/);
    const icon = /<link rel="icon" type="image\/svg\+xml" href="([^"]+)"/.exec(html)?.[1];
    expect(icon).toBeDefined();
    const svg = await get(icon!.startsWith('/') ? icon! : `/docs/${icon!.replace(/^\.\//, '')}`);
    expect(svg.statusCode).toBe(200);
    expect(svg.body).toMatch(/^<svg[^>]*xmlns="http:\/\/www\.w3\.org\/2000\/svg"/);
    expect(svg.body).toMatch(/qrail/);
  });

  it('small answers stay as they are; a compressed API answer keeps its envelope', async () => {
    const health = await get('/healthz', 'gzip, br');
    expect(health.statusCode).toBe(200);
    expect(health.headers['content-encoding']).toBeUndefined();
    const schema = await get('/v1/circuits/schema', 'gzip');
    expect(schema.statusCode).toBe(200);
    expect(schema.headers['content-encoding']).toBe('gzip');
    const body = JSON.parse(decode(schema).toString('utf8'));
    expect(body).toMatchObject({ status: 'ok', data: expect.any(Object), meta: { request_id: schema.headers['x-request-id'] } });
  });

  it('an idempotent request replays the same answer when it was sent compressed', async () => {
    const s = await signUp(app);
    const headers = { ...s.auth, 'idempotency-key': 'compress-replay-1', 'accept-encoding': 'gzip', 'content-type': 'application/json' };
    const payload = { client_token: 'compress-replay-1', shots: 100, seed: 7, circuit: bell };
    const first = (await app.inject({ method: 'POST', url: '/v1/execute/provider-one', headers, payload })) as unknown as Res;
    expect(first.statusCode).toBe(200);
    // Large enough to be compressed: the stored answer must still be the plain one.
    expect(first.headers['content-encoding']).toBe('gzip');
    const again = (await app.inject({ method: 'POST', url: '/v1/execute/provider-one', headers, payload })) as unknown as Res;
    expect(again.statusCode).toBe(200);
    expect(again.headers['idempotent-replayed']).toBe('true');
    const plain = (await app.inject({ method: 'POST', url: '/v1/execute/provider-one', headers: { ...headers, 'accept-encoding': 'identity' }, payload })) as unknown as Res;
    expect(plain.headers['idempotent-replayed']).toBe('true');
    expect(JSON.parse(plain.body).data).toEqual(JSON.parse(decode(first).toString('utf8')).data);
    expect(JSON.parse(decode(again).toString('utf8')).data).toEqual(JSON.parse(decode(first).toString('utf8')).data);
  });
});
