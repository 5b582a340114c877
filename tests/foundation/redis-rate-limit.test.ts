import { afterAll, describe, expect, it } from 'vitest';
import { RedisRateLimitStore } from '../../src/http/plugins/rate-limit-store.js';
import type { App } from '../../src/http/app-types.js';
import { buildTestApp } from '../helpers/app.js';

// CI sets QRAIL_TEST_REDIS_URL (Redis runs on the CI machine); elsewhere this file is skipped.
const url = process.env['QRAIL_TEST_REDIS_URL'];

describe.skipIf(url === undefined)('rate limits shared through Redis', () => {
  const apps: App[] = [];
  afterAll(async () => {
    for (const a of apps) await a.close();
  });

  it('counts atomically in one window per key', async () => {
    const store = new RedisRateLimitStore(url as string);
    const key = `test:${Date.now()}:${Math.random()}`;
    const hits = await Promise.all(Array.from({ length: 10 }, () => store.hit(key, 60_000)));
    // peek reads the window without counting (the operator guard checks failures before comparing the token).
    const peeked = await store.peek(key);
    const none = await store.peek(`${key}:none`);
    await store.close();
    expect(hits.map((h) => h.count).sort((x, y) => x - y)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    for (const h of hits) expect(h.resetMs).toBeGreaterThan(0);
    expect(peeked.count).toBe(10);
    expect(peeked.resetMs).toBeGreaterThan(0);
    expect(none).toEqual({ count: 0, resetMs: 0 });
  });

  it('two app instances share one window', async () => {
    // A generous Redis timeout: on a loaded machine the breaker must not open (and count locally) mid-test.
    const env = { REDIS_URL: url as string, RATE_LIMIT_PER_MINUTE: '4', REDIS_TIMEOUT_MS: '5000' };
    const a = await buildTestApp(env);
    const b = await buildTestApp(env);
    apps.push(a, b);
    // A fresh client address per run, so earlier runs' windows do not interfere.
    const octet = () => Math.floor(Math.random() * 254) + 1;
    const ip = `10.${octet()}.${octet()}.${octet()}`;
    const codes: number[] = [];
    for (let i = 0; i < 3; i++) {
      codes.push((await a.inject({ method: 'GET', url: '/v1/auth/diagnostics', remoteAddress: ip })).statusCode);
      codes.push((await b.inject({ method: 'GET', url: '/v1/auth/diagnostics', remoteAddress: ip })).statusCode);
    }
    expect(codes).toEqual([200, 200, 200, 200, 429, 429]);
  });
});
