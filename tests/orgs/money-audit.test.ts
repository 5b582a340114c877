import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import type { App } from '../../src/http/app-types.js';
import { buildTestApp, signUp, verifyEmail, createOrg } from '../helpers/app.js';
import { ghz3 } from '../helpers/circuits.js';
import { expectLedgerInvariants, fundAccount } from '../helpers/ledger.js';

type User = Awaited<ReturnType<typeof signUp>>;
type Event = { action: string; actor: { kind: string; id: string | null }; target: string | null; request_id: string | null; details: Record<string, unknown> };

/**
 * The audit log of a team organization records its money movements (every ledger transfer, in
 * the transfer's transaction, with the spend's submitter as actor), its settings changes and its
 * credential events, with the request's id (issue #39 item 5).
 */
describe('money and settings in the audit log', () => {
  let app: App;
  let owner: User;
  let dev: User;
  let orgId: string;

  const verify = (u: User) => verifyEmail(app, u);
  const inOrg = (u: User) => ({ ...u.auth, 'qrail-org': orgId });
  const events = async (action?: string): Promise<Event[]> => {
    const r = await app.inject({ method: 'GET', url: `/v1/orgs/${orgId}/audit?limit=200${action === undefined ? '' : `&action=${action}`}`, headers: owner.auth });
    expect(r.statusCode, r.body).toBe(200);
    return r.json().data.events as Event[];
  };

  beforeAll(async () => {
    app = await buildTestApp();
    owner = await signUp(app);
    await verify(owner);
    orgId = await createOrg(app, { ...owner.auth, 'idempotency-key': randomUUID() }, 'Audited');
    dev = await signUp(app);
    await verify(dev);
    const inv = await app.inject({
      method: 'POST',
      url: `/v1/orgs/${orgId}/invitations`,
      headers: { ...owner.auth, 'idempotency-key': randomUUID() },
      payload: { email: dev.email, role: 'developer' },
    });
    await app.inject({ method: 'POST', url: `/v1/orgs/${orgId}/invitations/${inv.json().data.invitation_id as string}/accept`, headers: dev.auth });
    await fundAccount(app, orgId, 5_000_000n);
  });
  afterAll(async () => app.close());

  it('a hold and its release are recorded with the member who placed it and the request’s id; a grant by the system', async () => {
    const q = await app.inject({ method: 'POST', url: '/v1/billing/hardware/quote', headers: inOrg(dev), payload: { provider: 'provider-two', device: 'p2-ion-11', shots: 10 } });
    const h = await app.inject({ method: 'POST', url: '/v1/billing/hardware/hold', headers: { ...inOrg(dev), 'idempotency-key': randomUUID() }, payload: { quote_id: q.json().data.quote_id } });
    expect(h.statusCode, h.body).toBe(201);
    const holdId = h.json().data.hold_id as string;
    const rel = await app.inject({ method: 'POST', url: `/v1/billing/hardware/hold/${h.json().data.job_id as string}/release`, headers: { ...inOrg(dev), 'idempotency-key': randomUUID() } });
    expect(rel.statusCode).toBe(200);

    const [hold] = await events('money.hold');
    expect(hold).toMatchObject({ actor: { kind: 'person', id: dev.userId }, target: holdId, request_id: h.headers['x-request-id'], details: { hold_id: holdId, amount: '0.600000' } });
    const [release] = await events('money.release');
    expect(release).toMatchObject({ actor: { kind: 'person', id: dev.userId }, target: holdId, details: { amount: '0.600000' } });
    const [grant] = await events('money.grant');
    expect(grant).toMatchObject({ actor: { kind: 'system', id: null }, details: { amount: '5.000000' } });
    await expectLedgerInvariants(app);
  });

  it('a job charged through a member’s credential names the credential; the credential’s creation is recorded too', async () => {
    const c = await app.inject({ method: 'POST', url: '/v1/auth/credentials', headers: inOrg(dev), payload: { name: 'agent', scopes: ['jobs:write', 'jobs:read'] } });
    const credentialId = c.json().data.credential_id as string;
    const created = (await events('credential.created')).find((e) => e.target === credentialId);
    expect(created).toMatchObject({ actor: { kind: 'person', id: dev.userId }, request_id: c.headers['x-request-id'] });
    const job = await app.inject({
      method: 'POST',
      url: '/v1/jobs',
      headers: { authorization: `Bearer ${c.json().data.secret as string}` },
      payload: { capability_id: 'circuit.analyze', request: { circuit: ghz3 }, idempotency_key: randomUUID(), max_total_price: '0.01' },
    });
    expect(job.statusCode, job.body).toBe(202);
    expect(await app.services.jobsWorker.runOnce()).toMatchObject({ status: 'completed' });
    const byCredential = (await events()).filter((e) => e.action.startsWith('money.') && e.actor.id === credentialId).map((e) => e.action);
    expect(byCredential).toContain('money.hold');
    expect(byCredential).toContain('money.capture');
    await expectLedgerInvariants(app);
  });

  it('spend-control and auto-recharge changes are recorded with their fields, actor and request id', async () => {
    const r = await app.inject({ method: 'PATCH', url: '/v1/billing/spend-controls', headers: inOrg(owner), payload: { daily_limit: '3.00', per_job_max: null } });
    expect(r.statusCode, r.body).toBe(200);
    const [changed] = await events('billing.spend_controls_changed');
    expect(changed).toMatchObject({ actor: { kind: 'person', id: owner.userId }, request_id: r.headers['x-request-id'], details: { changes: { daily_limit: '3.00', per_job_max: null } } });
    const ar = await app.inject({ method: 'PATCH', url: '/v1/billing/spend-controls', headers: inOrg(owner), payload: { auto_recharge: { enabled: false } } });
    expect(ar.statusCode, ar.body).toBe(200);
    expect((await events('billing.auto_recharge_changed'))[0]).toMatchObject({ details: { changes: { auto_recharge: { enabled: false } } } });
  });

  it('a personal organization’s money movements stay in its ledger only', async () => {
    await fundAccount(app, owner.accountId, 1_000_000n);
    const r = await app.db.query<{ n: string }>(`SELECT count(*)::text AS n FROM org_audit_events WHERE account_id = $1 AND action LIKE 'money.%'`, [owner.accountId]);
    expect(r.rows[0]?.n).toBe('0');
  });
});
