import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/http/app-types.js';
import { buildTestApp, signUp, verifyEmail, createOrg } from '../helpers/app.js';

type User = Awaited<ReturnType<typeof signUp>>;
interface Event {
  action: string;
  target: string | null;
  request_id: string | null;
  actor: { kind: string; id: string | null };
  details: Record<string, unknown>;
}

/**
 * Settings and credential changes write their audit event in the change's own transaction: the
 * log holds the event exactly when the change committed. A change refused inside the transaction
 * leaves no event; an event that cannot be written undoes the change (forced here by a CHECK
 * constraint that refuses one action, dropped after each test).
 */
describe('audit events in the transaction of the change', () => {
  let app: App;
  let owner: User;
  let orgId: string;
  let inOrg: Record<string, string>;

  beforeAll(async () => {
    app = await buildTestApp();
    owner = await signUp(app);
    await verifyEmail(app, owner);
    orgId = await createOrg(app, owner.auth, 'Audit Lab');
    inOrg = { ...owner.auth, 'qrail-org': orgId };
  });
  afterEach(async () => {
    await app.db.query('ALTER TABLE org_audit_events DROP CONSTRAINT IF EXISTS test_refuse_action');
  });
  afterAll(async () => app.close());

  const events = async (action: string): Promise<Event[]> => {
    const r = await app.inject({ method: 'GET', url: `/v1/orgs/${orgId}/audit?action=${action}&limit=200`, headers: owner.auth });
    expect(r.statusCode, r.body).toBe(200);
    return r.json().data.events as Event[];
  };
  // Makes the audit insert of one action fail, as a full disk or a broken constraint would.
  const refuseAuditOf = async (action: string) => app.db.query(`ALTER TABLE org_audit_events ADD CONSTRAINT test_refuse_action CHECK (action <> '${action}') NOT VALID`);
  const patch = async (payload: Record<string, unknown>) => app.inject({ method: 'PATCH', url: '/v1/billing/spend-controls', headers: inOrg, payload });
  const controls = async () => (await app.inject({ method: 'GET', url: '/v1/billing/spend-controls', headers: inOrg })).json().data;

  it('a committed spend-controls change has its event, with the actor and the request id; a change refused in the transaction has none', async () => {
    const ok = await patch({ monthly_limit: '2.00' });
    expect(ok.statusCode, ok.body).toBe(200);
    const [event] = await events('billing.spend_controls_changed');
    expect(event).toMatchObject({ target: orgId, request_id: ok.headers['x-request-id'], actor: { kind: 'person', id: owner.userId }, details: { changes: { monthly_limit: '2.00' } } });

    // Refused after the wallet is locked (daily above monthly), and auto-recharge without a payment method.
    const above = await patch({ daily_limit: '5.00' });
    expect(above.statusCode).toBe(400);
    const noCard = await patch({ auto_recharge: { enabled: true, threshold: '1.00', recharge_to: '5.00' } });
    expect(noCard.statusCode).toBe(400);
    expect(await events('billing.spend_controls_changed')).toHaveLength(1);
    expect(await events('billing.auto_recharge_changed')).toHaveLength(0);
    expect((await controls()).daily_limit).toBeNull();
  });

  it('when the event cannot be written the spend-controls change is undone', async () => {
    const before = await controls();
    await refuseAuditOf('billing.spend_controls_changed');
    const r = await patch({ daily_limit: '1.00' });
    expect(r.statusCode).toBe(500);
    expect(await controls()).toEqual(before);
    expect(before.daily_limit).not.toBe('1.000000');
  });

  it('credential create and revoke: committed with their event, undone when it cannot be written', async () => {
    const ids = async () =>
      ((await app.inject({ method: 'GET', url: '/v1/auth/credentials', headers: inOrg })).json().data.credentials as Array<{ credential_id: string; status: string }>).map(
        (c) => `${c.credential_id}:${c.status}`,
      );
    const create = async () => app.inject({ method: 'POST', url: '/v1/auth/credentials', headers: inOrg, payload: { name: 'agent', scopes: ['jobs:read'] } });

    const made = await create();
    expect(made.statusCode, made.body).toBe(201);
    const id = made.json().data.credential_id as string;
    expect((await events('credential.created')).map((e) => [e.target, e.request_id])).toEqual([[id, made.headers['x-request-id']]]);

    const listed = await ids();
    await refuseAuditOf('credential.created');
    expect((await create()).statusCode).toBe(500);
    expect(await ids()).toEqual(listed);
    await app.db.query('ALTER TABLE org_audit_events DROP CONSTRAINT test_refuse_action');

    await refuseAuditOf('credential.revoked');
    const failed = await app.inject({ method: 'DELETE', url: `/v1/auth/credentials/${id}`, headers: inOrg });
    expect(failed.statusCode).toBe(500);
    expect(await ids()).toEqual(listed);
    const key = { authorization: `Bearer ${made.json().data.secret as string}` };
    expect((await app.inject({ method: 'GET', url: '/v1/account/balance', headers: key })).statusCode).toBe(200);
    await app.db.query('ALTER TABLE org_audit_events DROP CONSTRAINT test_refuse_action');

    const revoked = await app.inject({ method: 'DELETE', url: `/v1/auth/credentials/${id}`, headers: inOrg });
    expect(revoked.statusCode, revoked.body).toBe(200);
    expect((await events('credential.revoked')).map((e) => [e.target, e.request_id])).toEqual([[id, revoked.headers['x-request-id']]]);
    expect((await app.inject({ method: 'GET', url: '/v1/account/balance', headers: key })).statusCode).toBe(401);
    // A credential of another account is not found and writes nothing.
    const missing = await app.inject({ method: 'DELETE', url: `/v1/auth/credentials/${crypto.randomUUID()}`, headers: inOrg });
    expect(missing.statusCode).toBe(404);
    expect(await events('credential.revoked')).toHaveLength(1);
  });
});
