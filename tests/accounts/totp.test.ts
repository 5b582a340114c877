import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { base32Decode, base32Encode } from '../../src/auth/base32.js';
import { hotp, matchTotp, totp, type TotpAlgorithm } from '../../src/auth/totp.js';
import type { App } from '../../src/http/app-types.js';
import { PASSWORD, buildTestApp, signUp } from '../helpers/app.js';

const ascii = (s: string) => new TextEncoder().encode(s);

describe('TOTP (RFC 6238) and HOTP (RFC 4226)', () => {
  it('matches the HOTP values of RFC 4226 Appendix D', () => {
    const key = ascii('12345678901234567890');
    const expected = ['755224', '287082', '359152', '969429', '338314', '254676', '287922', '162583', '399871', '520489'];
    expect(expected.map((_, i) => hotp(key, BigInt(i)))).toEqual(expected);
  });

  it('matches every TOTP value of RFC 6238 Appendix B (SHA-1, SHA-256, SHA-512; 8 digits)', () => {
    const keys: Record<TotpAlgorithm, Uint8Array> = {
      sha1: ascii('12345678901234567890'),
      sha256: ascii('12345678901234567890123456789012'),
      sha512: ascii('1234567890123456789012345678901234567890123456789012345678901234'),
    };
    const table: Array<[number, string, TotpAlgorithm]> = [
      [59, '94287082', 'sha1'],
      [59, '46119246', 'sha256'],
      [59, '90693936', 'sha512'],
      [1111111109, '07081804', 'sha1'],
      [1111111109, '68084774', 'sha256'],
      [1111111109, '25091201', 'sha512'],
      [1111111111, '14050471', 'sha1'],
      [1111111111, '67062674', 'sha256'],
      [1111111111, '99943326', 'sha512'],
      [1234567890, '89005924', 'sha1'],
      [1234567890, '91819424', 'sha256'],
      [1234567890, '93441116', 'sha512'],
      [2000000000, '69279037', 'sha1'],
      [2000000000, '90698825', 'sha256'],
      [2000000000, '38618901', 'sha512'],
      [20000000000, '65353130', 'sha1'],
      [20000000000, '77737706', 'sha256'],
      [20000000000, '47863826', 'sha512'],
    ];
    for (const [t, code, algorithm] of table) expect(totp(keys[algorithm], t * 1000, { digits: 8, algorithm }), `${algorithm} T=${t}`).toBe(code);
  });

  it('accepts one step of drift either way, not two; base32 round-trips (RFC 4648 vector)', () => {
    const key = ascii('12345678901234567890');
    const now = 1_700_000_000_000;
    expect(matchTotp(key, totp(key, now - 30_000), now)).not.toBeNull();
    expect(matchTotp(key, totp(key, now + 30_000), now)).not.toBeNull();
    expect(matchTotp(key, totp(key, now + 60_000), now)).toBeNull();
    expect(matchTotp(key, 'abcdef', now)).toBeNull();
    expect(base32Encode(ascii('foobar'))).toBe('MZXW6YTBOI');
    expect(base32Decode('MZXW6YTBOI')).toEqual(ascii('foobar'));
  });
});

describe('two-factor sign-in', () => {
  let app: App;
  beforeAll(async () => {
    app = await buildTestApp({ RATE_LIMIT_AUTH_PER_MINUTE: '10000' });
  });
  afterAll(async () => app.close());

  const code = (secret: string, offsetMs = 0) => totp(base32Decode(secret), Date.now() + offsetMs);
  const login = (email: string) => app.inject({ method: 'POST', url: '/v1/auth/login', payload: { email, password: PASSWORD } });
  const enrol = async (u: { auth: { authorization: string } }) => {
    const e = await app.inject({ method: 'POST', url: '/v1/auth/mfa/totp', headers: u.auth });
    expect(e.statusCode).toBe(200);
    const secret = e.json().data.secret as string;
    expect(e.json().data.otpauth_uri).toMatch(new RegExp(`^otpauth://totp/qrail:.+\\?secret=${secret}&issuer=qrail&algorithm=SHA1&digits=6&period=30$`));
    const c = await app.inject({ method: 'POST', url: '/v1/auth/mfa/totp/confirm', headers: u.auth, payload: { code: code(secret) } });
    expect(c.statusCode).toBe(200);
    return { secret, recovery: c.json().data.recovery_codes as string[] };
  };

  it('enrol and confirm; login then needs a code (once per step) or a recovery code (once); disable needs a code', async () => {
    const u = await signUp(app);
    const wrongFirst = await app.inject({ method: 'POST', url: '/v1/auth/mfa/totp/confirm', headers: u.auth, payload: { code: '000000' } });
    expect(wrongFirst.json().error.code).toBe('MFA_NOT_ENABLED');
    const { secret, recovery } = await enrol(u);
    expect(recovery).toHaveLength(10);
    expect(new Set(recovery).size).toBe(10);
    const stored = await app.db.query<{ code_hash: string }>('SELECT code_hash FROM recovery_codes WHERE user_id = $1', [u.userId]);
    expect(stored.rows).toHaveLength(10);
    for (const r of stored.rows) expect(recovery).not.toContain(r.code_hash);
    expect((await app.inject({ method: 'POST', url: '/v1/auth/mfa/totp', headers: u.auth })).json().error.code).toBe('MFA_ALREADY_ENABLED');

    const first = await login(u.email);
    expect(first.statusCode).toBe(401);
    const err = first.json().error;
    expect(err.code).toBe('MFA_REQUIRED');
    expect(err.details).toMatchObject({ mfa_required: true, methods: ['totp', 'recovery_code'] });
    expect(first.json()).not.toHaveProperty('data');
    const challenge = err.details.challenge_id as string;
    // The code that confirmed the enrolment was used: its step cannot be replayed.
    const replay = await app.inject({ method: 'POST', url: '/v1/auth/login/mfa', payload: { challenge_id: challenge, code: code(secret) } });
    expect(replay.json().error.code).toBe('MFA_CODE_INVALID');
    const ok = await app.inject({ method: 'POST', url: '/v1/auth/login/mfa', payload: { challenge_id: challenge, code: code(secret, 30_000) } });
    expect(ok.statusCode).toBe(200);
    expect(ok.json().data.token).toMatch(/^qrs_/);
    const used = await app.inject({ method: 'POST', url: '/v1/auth/login/mfa', payload: { challenge_id: challenge, recovery_code: recovery[0] } });
    expect(used.json().error.code).toBe('MFA_CHALLENGE_INVALID');

    const second = (await login(u.email)).json().error.details.challenge_id as string;
    const byRecovery = await app.inject({ method: 'POST', url: '/v1/auth/login/mfa', payload: { challenge_id: second, recovery_code: (recovery[1] ?? '').toUpperCase() } });
    expect(byRecovery.statusCode).toBe(200);
    const third = (await login(u.email)).json().error.details.challenge_id as string;
    const spent = await app.inject({ method: 'POST', url: '/v1/auth/login/mfa', payload: { challenge_id: third, recovery_code: recovery[1] } });
    expect(spent.json().error.code).toBe('MFA_CODE_INVALID');

    const session = { authorization: `Bearer ${byRecovery.json().data.token}` };
    const noCode = await app.inject({ method: 'POST', url: '/v1/auth/mfa/totp/disable', headers: session, payload: { code: '123456' } });
    expect(noCode.statusCode).toBe(401);
    const off = await app.inject({ method: 'POST', url: '/v1/auth/mfa/totp/disable', headers: session, payload: { recovery_code: recovery[2] } });
    expect(off.json().data).toEqual({ enabled: false });
    expect((await login(u.email)).statusCode).toBe(200);
  });

  it('wrong codes are throttled per user like passwords', async () => {
    const u = await signUp(app);
    const { secret } = await enrol(u);
    const challenge = (await login(u.email)).json().error.details.challenge_id as string;
    const statuses: number[] = [];
    for (let i = 0; i < 6; i += 1) statuses.push((await app.inject({ method: 'POST', url: '/v1/auth/login/mfa', payload: { challenge_id: challenge, code: '000000' } })).statusCode);
    expect(statuses).toEqual([401, 401, 401, 401, 401, 429]);
    const throttled = await app.inject({ method: 'POST', url: '/v1/auth/login/mfa', payload: { challenge_id: challenge, code: code(secret, 30_000) } });
    expect(throttled.statusCode).toBe(429);
    expect(throttled.json().error.code).toBe('MFA_THROTTLED');
    expect(Number(throttled.headers['retry-after'])).toBeGreaterThan(0);
  });
});
