import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/http/app-types.js';
import { PASSWORD, buildTestApp, signUp } from '../helpers/app.js';
import { waitFor } from '../helpers/wait-for.js';

/**
 * Issue #17 defect 6: the per-email failure count must be taken atomically before the slow
 * password check, so a burst of concurrent guesses cannot all be checked against the hash.
 */
// The count lives in the database on both drivers; with Redis configured (CI sets
// QRAIL_TEST_REDIS_URL) only the request rate limits move there, and the throttle must hold the same.
const REDIS = process.env['QRAIL_TEST_REDIS_URL'];
const variants = [{ name: 'database store', env: {} }, ...(REDIS === undefined ? [] : [{ name: 'with REDIS_URL', env: { REDIS_URL: REDIS } }])];

describe.each(variants)('login throttle under concurrency ($name)', ({ env }) => {
  let app: App;
  beforeAll(async () => {
    // The per-address request limit is not what is under test (and with Redis it outlives the run).
    app = await buildTestApp({ LOGIN_MAX_FAILURES: '5', LOGIN_THROTTLE_WINDOW_SECONDS: '900', RATE_LIMIT_AUTH_PER_MINUTE: '100000', ...env });
  });
  afterAll(async () => {
    await app.close();
  });

  const login = (email: string, password: string, remoteAddress = '198.51.100.7') => app.inject({ method: 'POST', url: '/v1/auth/login', payload: { email, password }, remoteAddress });

  it('25 concurrent wrong passwords for one email: at most 5 are checked (401), the rest 429 with Retry-After', async () => {
    const u = await signUp(app);
    // Distinct addresses so only the per-email limit is in play.
    const answers = await Promise.all(Array.from({ length: 25 }, (_, i) => login(u.email, `wrong password ${i}`, `198.51.100.${i + 1}`)));
    const codes = answers.map((r) => r.statusCode);
    expect(codes.filter((c) => c === 401)).toHaveLength(5);
    expect(codes.filter((c) => c === 429)).toHaveLength(20);
    for (const r of answers.filter((a) => a.statusCode === 429)) {
      expect(r.json().error.code).toBe('LOGIN_THROTTLED');
      const retry = Number(r.headers['retry-after']);
      expect(retry).toBeGreaterThan(0);
      expect(retry).toBeLessThanOrEqual(900);
    }
    // The right password during the lock-out is refused too.
    const right = await login(u.email, PASSWORD);
    expect(right.statusCode).toBe(429);
    expect(right.json().error.code).toBe('LOGIN_THROTTLED');
  });

  it('25 concurrent guesses for 25 emails from one address: exactly 4 × the limit are checked', async () => {
    const answers = await Promise.all(Array.from({ length: 25 }, (_, i) => login(`spray.${i}.${Date.now()}@example.com`, `guess number ${i}`, '203.0.113.77')));
    const codes = answers.map((r) => r.statusCode);
    expect(codes.filter((c) => c === 401)).toHaveLength(20);
    expect(codes.filter((c) => c === 429)).toHaveLength(5);
  });

  it('a successful login clears the email count and does not use up the address allowance', async () => {
    const u = await signUp(app);
    for (let i = 0; i < 4; i++) expect((await login(u.email, 'wrong password!', '192.0.2.50')).statusCode).toBe(401);
    expect((await login(u.email, PASSWORD, '192.0.2.50')).statusCode).toBe(200);
    // The count restarted: four more failures still reach the hash.
    for (let i = 0; i < 4; i++) expect((await login(u.email, 'wrong password!', '192.0.2.51')).statusCode).toBe(401);
    // Many successful logins from one address (an office behind NAT) never lock it.
    for (let i = 0; i < 21; i++) expect((await login(u.email, PASSWORD, '192.0.2.52')).statusCode).toBe(200);
  });

  it('the lock-out ends when the window passes, and then the right password works', async () => {
    const short = await buildTestApp({ LOGIN_MAX_FAILURES: '2', LOGIN_THROTTLE_WINDOW_SECONDS: '1', RATE_LIMIT_AUTH_PER_MINUTE: '100000', ...env });
    try {
      const u = await signUp(short);
      const at = (password: string) => short.inject({ method: 'POST', url: '/v1/auth/login', payload: { email: u.email, password }, remoteAddress: '192.0.2.90' });
      await Promise.all([at('wrong password 1'), at('wrong password 2'), at('wrong password 3')]);
      const locked = await at(PASSWORD);
      expect(locked.statusCode).toBe(429);
      expect(locked.headers['retry-after']).toBe('1');
      // Poll until the window is over (the behaviour under test is time); refused attempts meanwhile do not extend it.
      const status = await waitFor(
        async () => {
          const s = (await at(PASSWORD)).statusCode;
          return s !== 429 && s;
        },
        { intervalMs: 50, timeoutMs: 10_000, what: 'the end of the lock-out' },
      );
      expect(status).toBe(200);
    } finally {
      await short.close();
    }
  });
});
