import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/http/app-types.js';
import { buildTestApp, signUp } from '../helpers/app.js';
import { fundAccount } from '../helpers/ledger.js';

const GRANT = 'urn:ietf:params:oauth:grant-type:token-exchange';
const SESSION_TYPE = 'urn:qrail:params:oauth:token-type:session';

/**
 * Issue #34 item 2: the verification gate is the account's, not the session's. With the gate on,
 * an unverified account's exchanged Jobs token, its machine credential (made before the gate was
 * turned on) and that credential's OAuth access token are refused like the session.
 */
describe('the email-verification gate holds for every principal of an unverified account', () => {
  let app: App;
  beforeAll(async () => {
    app = await buildTestApp({ REQUIRE_EMAIL_VERIFICATION: 'true' });
  });
  afterAll(async () => app.close());

  const quote = async (auth: { authorization: string }) => {
    const q = await app.inject({ method: 'POST', url: '/v1/billing/hardware/quote', headers: auth, payload: { device: 'p2-ion-11', shots: 100 } });
    expect(q.statusCode).toBe(200);
    return q.json().data.quote_id as string;
  };
  const hold = (auth: { authorization: string }, quoteId: string) => app.inject({ method: 'POST', url: '/v1/billing/hardware/hold', headers: auth, payload: { quote_id: quoteId } });

  it('a session, its exchanged Jobs token, a machine credential and its OAuth token all get 403 EMAIL_NOT_VERIFIED on a hold', async () => {
    expect(app.services.accounts.requireVerifiedEmail).toBe(true);
    const u = await signUp(app);
    await fundAccount(app, u.accountId, 10_000_000n);

    const bySession = await hold(u.auth, await quote(u.auth));
    expect(bySession.statusCode).toBe(403);
    expect(bySession.json().error.code).toBe('EMAIL_NOT_VERIFIED');

    const x = await app.inject({ method: 'POST', url: '/v1/oauth/token', payload: { grant_type: GRANT, subject_token: u.token, subject_token_type: SESSION_TYPE } });
    expect(x.statusCode).toBe(200);
    const exchanged = { authorization: `Bearer ${x.json().access_token as string}` };
    const byExchanged = await hold(exchanged, await quote(exchanged));
    expect(byExchanged.statusCode).toBe(403);
    expect(byExchanged.json().error.code).toBe('EMAIL_NOT_VERIFIED');

    // A credential made while the gate was off (created here through the service, as the gated route refuses it).
    const { credential, secret } = await app.services.credentials.create(u.accountId, u.userId, { name: 'old', scopes: ['execute:hardware'], expiresAt: null });
    const byCredential = await hold({ authorization: `Bearer ${secret}` }, await quote({ authorization: `Bearer ${secret}` }));
    expect(byCredential.statusCode).toBe(403);
    expect(byCredential.json().error.code).toBe('EMAIL_NOT_VERIFIED');

    const basic = Buffer.from(`${credential.id}:${secret}`).toString('base64');
    const t = await app.inject({
      method: 'POST',
      url: '/v1/oauth/token',
      headers: { authorization: `Basic ${basic}`, 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'grant_type=client_credentials',
    });
    expect(t.statusCode).toBe(200);
    const oauth = { authorization: `Bearer ${t.json().access_token as string}` };
    const byOauth = await hold(oauth, await quote(oauth));
    expect(byOauth.statusCode).toBe(403);
    expect(byOauth.json().error.code).toBe('EMAIL_NOT_VERIFIED');

    // No money moved: the whole balance is still available.
    const w = await app.inject({ method: 'GET', url: '/v1/billing/wallet', headers: u.auth });
    expect(w.json().data).toMatchObject({ available: '10.000000', held: '0.000000' });

    // Once the email is confirmed, the exchanged token holds (the gate is lifted for every principal).
    await app.db.query('UPDATE users SET email_verified_at = now() WHERE id = $1', [u.userId]);
    const after = await hold(exchanged, await quote(exchanged));
    expect(after.statusCode).toBe(201);
  });
});
