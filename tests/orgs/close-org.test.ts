import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import type { App } from '../../src/http/app-types.js';
import { ledgerCheck } from '../../src/billing/operator.js';
import { sqlBillingPorts } from '../../src/store/billing/sql-billing-ports.js';
import { buildTestApp, signUp, verifyEmail, createOrg } from '../helpers/app.js';
import { expectLedgerInvariants, fundAccount } from '../helpers/ledger.js';

type User = Awaited<ReturnType<typeof signUp>>;

/**
 * Closing an organization (issue #39 item 7) follows the account-closure rules: the owner only,
 * refused while holds are open or jobs unfinished, the available balance forfeited through the
 * ledger when accepted, the organization's credentials revoked; the personal one closes with the person.
 */
describe('closing an organization', () => {
  let app: App;
  let owner: User;
  let admin: User;
  let orgId: string;

  const verify = (u: User) => verifyEmail(app, u);
  const inOrg = (u: User) => ({ ...u.auth, 'qrail-org': orgId });
  const close = (u: User, payload: Record<string, unknown>, org = orgId) => app.inject({ method: 'POST', url: `/v1/orgs/${org}/close`, headers: u.auth, payload });

  beforeAll(async () => {
    app = await buildTestApp();
    owner = await signUp(app);
    await verify(owner);
    orgId = await createOrg(app, { ...owner.auth, 'idempotency-key': randomUUID() }, 'Short Lived');
    admin = await signUp(app);
    await verify(admin);
    const inv = await app.inject({ method: 'POST', url: `/v1/orgs/${orgId}/invitations`, headers: { ...owner.auth, 'idempotency-key': randomUUID() }, payload: { email: admin.email, role: 'admin' } });
    const ok = await app.inject({ method: 'POST', url: `/v1/orgs/${orgId}/invitations/${inv.json().data.invitation_id as string}/accept`, headers: admin.auth });
    expect(ok.statusCode, ok.body).toBe(200);
    await fundAccount(app, orgId, 2_000_000n);
  });
  afterAll(async () => app.close());

  it('is the owner’s alone, needs the name typed again, and never closes a personal organization', async () => {
    const byAdmin = await close(admin, { name: 'Short Lived', accept_forfeiture: true });
    expect(byAdmin.statusCode).toBe(403);
    expect(byAdmin.json().error).toMatchObject({ code: 'ORG_ROLE_FORBIDDEN', details: { role: 'admin', permission: 'close' } });
    const wrongName = await close(owner, { name: 'Something Else', accept_forfeiture: true });
    expect(wrongName.statusCode).toBe(400);
    expect(wrongName.json().error.details[0]).toMatchObject({ path: '/name' });
    const personal = await close(owner, { name: 'Personal', accept_forfeiture: true }, owner.accountId);
    expect(personal.statusCode).toBe(409);
    expect(personal.json().error.code).toBe('ORG_PERSONAL');
  });

  it('is refused while a hold is open, then without accepting the forfeiture; then settles the balance through the ledger', async () => {
    const q = await app.inject({ method: 'POST', url: '/v1/billing/hardware/quote', headers: inOrg(admin), payload: { provider: 'provider-two', device: 'p2-ion-11', shots: 10 } });
    const held = await app.inject({ method: 'POST', url: '/v1/billing/hardware/hold', headers: { ...inOrg(admin), 'idempotency-key': randomUUID() }, payload: { quote_id: q.json().data.quote_id } });
    expect(held.statusCode, held.body).toBe(201);
    const busy = await close(owner, { name: 'Short Lived', accept_forfeiture: true });
    expect(busy.statusCode).toBe(409);
    expect(busy.json().error).toMatchObject({ code: 'ACCOUNT_BUSY', details: { open_holds: 1, running_jobs: 0 } });
    const rel = await app.inject({ method: 'POST', url: `/v1/billing/hardware/hold/${held.json().data.job_id as string}/release`, headers: { ...inOrg(admin), 'idempotency-key': randomUUID() } });
    expect(rel.statusCode, rel.body).toBe(200);

    const unsettled = await close(owner, { name: 'Short Lived' });
    expect(unsettled.statusCode).toBe(409);
    expect(unsettled.json().error).toMatchObject({ code: 'BALANCE_NOT_SETTLED', details: { available: '2.000000', rule: 'forfeit' } });

    const cred = await app.inject({ method: 'POST', url: '/v1/auth/credentials', headers: inOrg(admin), payload: { name: 'bot', scopes: ['billing:read'] } });
    expect(cred.statusCode, cred.body).toBe(201);
    const key = { authorization: `Bearer ${cred.json().data.secret as string}` };
    expect((await app.inject({ method: 'GET', url: '/v1/billing/wallet', headers: key })).statusCode).toBe(200);

    const closed = await close(owner, { name: 'Short Lived', accept_forfeiture: true });
    expect(closed.statusCode, closed.body).toBe(200);
    expect(closed.json().data).toMatchObject({ closed: true, forfeited: '2.000000', credentials_revoked: 1 });

    // Gone for everyone: not listed, not addressable, its credentials refused.
    const orgs = (await app.inject({ method: 'GET', url: '/v1/orgs', headers: admin.auth })).json().data.orgs as Array<{ org_id: string }>;
    expect(orgs.map((o) => o.org_id)).not.toContain(orgId);
    expect((await app.inject({ method: 'GET', url: '/v1/billing/wallet', headers: inOrg(owner) })).json().error.code).toBe('ORG_NOT_FOUND');
    expect((await app.inject({ method: 'GET', url: '/v1/billing/wallet', headers: key })).statusCode).toBe(401);
    expect((await close(owner, { name: 'Short Lived', accept_forfeiture: true })).json().error.code).toBe('ORG_NOT_FOUND');

    // The balance left through the ledger (available → held → platform revenue), recorded in the audit log.
    const w = await app.db.query<{ a: string; h: string }>('SELECT available_micros::text AS a, held_micros::text AS h FROM billing_wallets WHERE account_id = $1', [orgId]);
    expect(w.rows[0]).toEqual({ a: '0', h: '0' });
    const audit = await app.db.query<{ actor_id: string; details: unknown }>(`SELECT actor_id, details FROM org_audit_events WHERE account_id = $1 AND action = 'org.closed'`, [orgId]);
    expect(audit.rows).toHaveLength(1);
    expect(audit.rows[0]?.actor_id).toBe(owner.userId);
    const check = await ledgerCheck(sqlBillingPorts(app.db));
    expect(check.problems).toEqual([]);
    await expectLedgerInvariants(app);
  });
});
