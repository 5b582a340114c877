import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/http/app-types.js';
import { buildTestApp } from '../helpers/app.js';

const OPERATOR = 'operator-token-for-the-rate-limit-test-01';

/**
 * Issue #34 item 5: operator endpoints were exempt from rate limiting, so an address could try
 * operator tokens without end (150 wrong tokens → 150 × 403). Failed operator authentication is
 * limited per address (RATE_LIMIT_AUTH_PER_MINUTE); past it every operator call from that address,
 * the right token included, is 429 until the window ends, so a guess that lands tells nothing.
 */
describe('operator endpoints are rate limited', () => {
  let app: App;
  beforeAll(async () => {
    app = await buildTestApp({ QRAIL_OPERATOR_TOKEN: OPERATOR, RATE_LIMIT_AUTH_PER_MINUTE: '10' });
  });
  afterAll(async () => app.close());

  const check = (token: string, remoteAddress: string) => app.inject({ method: 'GET', url: '/v1/billing/operator/ledger-check', remoteAddress, headers: { authorization: `Bearer ${token}` } });

  it('wrong operator tokens get 403 up to the limit, then 429 with Retry-After; the right token from that address too', async () => {
    const codes: number[] = [];
    for (let i = 0; i < 150; i += 1) codes.push((await check(`wrong-token-${i}`, '203.0.113.7')).statusCode);
    expect(codes.slice(0, 10)).toEqual(Array(10).fill(403));
    expect(codes.slice(10)).toEqual(Array(140).fill(429));
    const limited = await check('wrong-again', '203.0.113.7');
    expect(limited.json().error.code).toBe('RATE_LIMITED');
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
    // The right token does not get through from the address that was guessing.
    expect((await check(OPERATOR, '203.0.113.7')).statusCode).toBe(429);
    // Other addresses (and the other operator routes) are not affected.
    expect((await check(OPERATOR, '198.51.100.9')).statusCode).toBe(200);
    const outbox = await app.inject({ method: 'GET', url: '/v1/auth/operator/mail-outbox', remoteAddress: '203.0.113.7', headers: { authorization: `Bearer ${OPERATOR}` } });
    expect(outbox.statusCode).toBe(429);
  });

  it('every operator route counts failures: a wrong token on the credit grant and the mail outbox are limited alike', async () => {
    const codes: number[] = [];
    for (let i = 0; i < 12; i += 1) {
      const r =
        i % 2 === 0
          ? await app.inject({
              method: 'POST',
              url: '/v1/billing/operator/credit-grant',
              remoteAddress: '192.0.2.44',
              headers: { authorization: 'Bearer nope' },
              payload: { email: 'a@example.com', amount: '1.00' },
            })
          : await app.inject({ method: 'GET', url: '/v1/auth/operator/mail-outbox', remoteAddress: '192.0.2.44', headers: { authorization: 'Bearer nope' } });
      codes.push(r.statusCode);
    }
    expect(codes.slice(0, 10)).toEqual(Array(10).fill(403));
    expect(codes.slice(10)).toEqual([429, 429]);
  });
});

describe('operator endpoints take the general per-address limit too', () => {
  let app: App;
  beforeAll(async () => {
    app = await buildTestApp({ QRAIL_OPERATOR_TOKEN: OPERATOR, RATE_LIMIT_PER_MINUTE: '5' });
  });
  afterAll(async () => app.close());

  it('the right token past RATE_LIMIT_PER_MINUTE is 429', async () => {
    const codes: number[] = [];
    for (let i = 0; i < 7; i += 1) {
      codes.push((await app.inject({ method: 'GET', url: '/v1/billing/operator/ledger-check', remoteAddress: '198.51.100.20', headers: { authorization: `Bearer ${OPERATOR}` } })).statusCode);
    }
    expect(codes).toEqual([200, 200, 200, 200, 200, 429, 429]);
  });
});
