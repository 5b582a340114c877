import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/http/app-types.js';
import { PASSWORD, buildTestApp, signUp } from '../helpers/app.js';
import { expectLedgerInvariants, fundAccount, getWallet, placeHold, releaseHold } from '../helpers/ledger.js';
import { ResponseChecker, openapiDocument } from '../helpers/openapi.js';
import { key, newAgent, submit, withTestCapabilities } from '../jobs/helpers.js';

describe('export and closing', () => {
  let app: App;
  beforeAll(async () => {
    app = await buildTestApp({ RATE_LIMIT_AUTH_PER_MINUTE: '10000' });
  });
  afterAll(async () => app.close());

  it('export: jobs with their receipts, holds and ledger as documented (checked against the OpenAPI document)', async () => {
    withTestCapabilities(app);
    const a = await newAgent(app, { fundMicros: 1_000_000n });
    const r = await submit(app, a, { capability_id: 'test.echo', request: { text: 'hello' }, idempotency_key: key(), max_total_price: '0.5' });
    expect(r.statusCode).toBe(202);
    expect((await app.services.jobsWorker.runOnce())?.status).toBe('completed');
    const exp = await app.inject({ method: 'GET', url: '/v1/auth/account/export', headers: a.session });
    expect(exp.statusCode).toBe(200);
    const checker = new ResponseChecker(await openapiDocument(app));
    expect(checker.check('GET', '/v1/auth/account/export', exp.statusCode, exp.headers, exp.body)).toEqual([]);
    const d = exp.json().data;
    expect(d.jobs).toHaveLength(1);
    expect(d.jobs[0]).toMatchObject({ job_id: r.json().job_id, status: 'completed', quoted_price: '0.001050' });
    expect(d.jobs[0].receipt).toMatchObject({ receipt_reference: d.jobs[0].receipt_reference });
    expect(d.holds.map((h: { status: string }) => h.status)).toEqual(['captured']);
    expect(d.ledger.transfers.map((t: { kind: string }) => t.kind).sort()).toEqual(['capture', 'grant', 'hold']);
  });

  it('export holds profile, credentials metadata, holds and ledger, never a secret or hash', async () => {
    const u = await signUp(app);
    await fundAccount(app, u.accountId, 3_000_000n);
    const cred = await app.inject({ method: 'POST', url: '/v1/auth/credentials', headers: u.auth, payload: { name: 'exporter', scopes: ['jobs:read'] } });
    const secret = cred.json().data.secret as string;
    const r = await app.inject({ method: 'GET', url: '/v1/auth/account/export', headers: u.auth });
    expect(r.statusCode).toBe(200);
    const d = r.json().data;
    expect(d.profile).toMatchObject({ user_id: u.userId, account_id: u.accountId, email: u.email, two_factor_enabled: false });
    expect(d.wallet).toEqual({ available: '3.000000', held: '0.000000' });
    expect(d.credentials).toHaveLength(1);
    expect(d.credentials[0]).toMatchObject({ name: 'exporter', scopes: ['jobs:read'], secret_hint: secret.slice(-4) });
    expect(d.ledger.transfers.map((t: { kind: string }) => t.kind)).toEqual(['grant']);
    expect(d.ledger.entries).toMatchObject([{ amount: '3.000000' }]);
    expect(d.sessions).toHaveLength(1);
    const text = r.body;
    expect(text).not.toContain(secret);
    for (const field of ['secret_hash', 'password_hash', 'token_hash', 'totp_secret']) expect(text).not.toContain(field);
  });

  it('refuses while a hold is open, states the forfeiture up front, then closes: ledger kept and clean, everything revoked, email erased', async () => {
    const u = await signUp(app);
    await fundAccount(app, u.accountId, 5_250_000n);
    const cred = await app.inject({ method: 'POST', url: '/v1/auth/credentials', headers: u.auth, payload: { name: 'agent', scopes: ['jobs:read'] } });
    const agent = { authorization: `Bearer ${cred.json().data.secret}` };
    const hold = await app.db.tx((q) =>
      placeHold(q, { accountId: u.accountId, kind: 'job', refId: `test-${u.accountId}`, amountMicros: 250_000n, description: 'open hold', expiresAt: new Date(Date.now() + 3_600_000) }),
    );

    const close = (body: Record<string, unknown>) => app.inject({ method: 'POST', url: '/v1/auth/account/close', headers: u.auth, payload: { password: PASSWORD, ...body } });
    const wrong = await app.inject({ method: 'POST', url: '/v1/auth/account/close', headers: u.auth, payload: { password: 'not the password' } });
    expect(wrong.json().error.code).toBe('CURRENT_PASSWORD_WRONG');
    const busy = await close({ accept_forfeiture: true });
    expect(busy.statusCode).toBe(409);
    expect(busy.json().error.code).toBe('ACCOUNT_BUSY');
    expect(busy.json().error.details).toEqual({ open_holds: 1, running_jobs: 0 });

    await app.db.tx((q) => releaseHold(q, { holdId: hold.holdId, reason: 'test' }));
    const unsettled = await close({});
    expect(unsettled.statusCode).toBe(409);
    expect(unsettled.json().error.code).toBe('BALANCE_NOT_SETTLED');
    expect(unsettled.json().error.details).toEqual({ available: '5.250000', rule: 'forfeit' });

    const transfersBefore = await app.db.query<{ n: string }>('SELECT count(*)::text AS n FROM ledger_transfers WHERE account_id = $1', [u.accountId]);
    const closed = await close({ accept_forfeiture: true });
    expect(closed.statusCode).toBe(200);
    expect(closed.json().data).toMatchObject({ closed: true, forfeited: '5.250000', credentials_revoked: 1, sessions_revoked: 1 });

    expect(await app.db.tx((q) => getWallet(q, u.accountId))).toMatchObject({ availableMicros: 0n, heldMicros: 0n });
    const transfers = await app.db.query<{ kind: string; description: string }>('SELECT kind, description FROM ledger_transfers WHERE account_id = $1 ORDER BY created_at, kind', [u.accountId]);
    // Money history is never deleted: the grant, the test hold and its release, and the settlement (hold + capture).
    expect(transfers.rows.length).toBe(Number(transfersBefore.rows[0]?.n) + 2);
    expect(
      transfers.rows
        .filter((t) => t.description === 'Account closed: available balance forfeited')
        .map((t) => t.kind)
        .sort(),
    ).toEqual(['capture', 'hold']);
    await expectLedgerInvariants(app);

    expect((await app.inject({ method: 'GET', url: '/v1/auth/me', headers: u.auth })).statusCode).toBe(401);
    expect((await app.inject({ method: 'GET', url: '/v1/account/balance', headers: agent })).statusCode).toBe(401);
    expect((await app.inject({ method: 'POST', url: '/v1/auth/login', payload: { email: u.email, password: PASSWORD } })).statusCode).toBe(401);
    const user = await app.db.query<{ email: string; closed_at: Date | null }>('SELECT email, closed_at FROM users WHERE id = $1', [u.userId]);
    expect(user.rows[0]?.email).toBe(`closed+${u.userId}@closed.invalid`);
    expect(user.rows[0]?.closed_at).not.toBeNull();
    const sessions = await app.db.query<{ ip: string | null }>('SELECT ip FROM sessions WHERE user_id = $1', [u.userId]);
    expect(sessions.rows.every((s) => s.ip === null)).toBe(true);
    const mails = await app.db.query<{ to_address: string; template: string }>('SELECT to_address, template FROM mail_outbox WHERE user_id = $1 ORDER BY created_at', [u.userId]);
    expect(mails.rows).toEqual([
      { to_address: 'erased@closed.invalid', template: 'verify_email' },
      { to_address: u.email, template: 'account_closed' },
    ]);
    // The email can be registered again: a new, separate account.
    expect((await app.inject({ method: 'POST', url: '/v1/auth/register', payload: { email: u.email, password: PASSWORD } })).statusCode).toBe(201);
  });
});
