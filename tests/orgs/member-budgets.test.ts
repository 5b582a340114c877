import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import type { App } from '../../src/http/app-types.js';
import { ledgerCheck } from '../../src/billing/operator.js';
import { sqlBillingPorts } from '../../src/store/billing/sql-billing-ports.js';
import { buildTestApp, signUp, verifyEmail, createOrg } from '../helpers/app.js';
import { expectLedgerInvariants, fundAccount } from '../helpers/ledger.js';

type User = Awaited<ReturnType<typeof signUp>>;
type Reply = Awaited<ReturnType<App['inject']>>;

const DRIVER = process.env['DATABASE_URL'] === undefined ? 'PGlite' : 'PostgreSQL';

/**
 * Per-member budgets (issue #39 item 4): a member's daily and monthly limits are checked by the
 * ledger's hold (migration 1810) beside the organization's own spend controls, under the wallet's
 * lock. On PostgreSQL the parallel requests really race for that lock through the pool; on PGlite
 * they are serialised by its one connection. Either way neither limit may be passed, and the
 * ledger check (`qrail ledger check`) stays clean.
 */
describe(`per-member budgets (${DRIVER})`, () => {
  let app: App;
  let owner: User;
  let orgId: string;

  const verify = (u: User) => verifyEmail(app, u);
  const inOrg = (u: User) => ({ ...u.auth, 'qrail-org': orgId });

  async function join(role: 'developer' | 'admin'): Promise<User> {
    const u = await signUp(app);
    await verify(u);
    const inv = await app.inject({ method: 'POST', url: `/v1/orgs/${orgId}/invitations`, headers: { ...owner.auth, 'idempotency-key': randomUUID() }, payload: { email: u.email, role } });
    expect(inv.statusCode, inv.body).toBe(201);
    const ok = await app.inject({ method: 'POST', url: `/v1/orgs/${orgId}/invitations/${inv.json().data.invitation_id as string}/accept`, headers: u.auth });
    expect(ok.statusCode, ok.body).toBe(200);
    return u;
  }

  const setLimits = (u: User, spend_limits: Record<string, string | null>) =>
    app.inject({ method: 'PATCH', url: `/v1/orgs/${orgId}/members/${u.userId}`, headers: owner.auth, payload: { spend_limits } });
  const orgControls = (payload: Record<string, string | null>) => app.inject({ method: 'PATCH', url: '/v1/billing/spend-controls', headers: inOrg(owner), payload });

  /** A hardware hold of $0.60 (provider-two p2-ion-11: $0.30 a task + 10 × $0.03) placed by the member, quote and hold. */
  async function hold(u: User): Promise<Reply> {
    const q = await app.inject({ method: 'POST', url: '/v1/billing/hardware/quote', headers: inOrg(u), payload: { provider: 'provider-two', device: 'p2-ion-11', shots: 10 } });
    expect(q.statusCode, q.body).toBe(200);
    expect(q.json().data.total).toBe('0.600000');
    return app.inject({ method: 'POST', url: '/v1/billing/hardware/hold', headers: { ...inOrg(u), 'idempotency-key': randomUUID() }, payload: { quote_id: q.json().data.quote_id } });
  }

  const expectLedgerClean = async () => {
    const check = await ledgerCheck(sqlBillingPorts(app.db));
    expect(check.problems).toEqual([]);
    expect(check.ok).toBe(true);
    await expectLedgerInvariants(app);
  };

  beforeAll(async () => {
    app = await buildTestApp();
    owner = await signUp(app);
    await verify(owner);
    orgId = await createOrg(app, { ...owner.auth, 'idempotency-key': randomUUID() }, 'Budget Lab');
    await fundAccount(app, orgId, 100_000_000n);
  });
  afterAll(async () => app.close());

  it('limits are set as decimal strings, listed with the members, cleared by null, and daily ≤ monthly', async () => {
    const dev = await join('developer');
    const set = await setLimits(dev, { daily_usd: '1.5', monthly_usd: '20.00' });
    expect(set.statusCode, set.body).toBe(200);
    expect(set.json().data.member).toMatchObject({ user_id: dev.userId, role: 'developer', spend_limits: { daily_usd: '1.500000', monthly_usd: '20.000000' } });
    const list = await app.inject({ method: 'GET', url: `/v1/orgs/${orgId}/members`, headers: inOrg(dev) });
    const listed = (list.json().data.members as Array<{ user_id: string; spend_limits: unknown }>).find((m) => m.user_id === dev.userId);
    expect(listed?.spend_limits).toEqual({ daily_usd: '1.500000', monthly_usd: '20.000000' });
    const upside = await setLimits(dev, { daily_usd: '30.00' });
    expect(upside.statusCode).toBe(400);
    expect(upside.json().error.details[0]).toMatchObject({ path: '/spend_limits/daily_usd' });
    const cleared = await setLimits(dev, { daily_usd: null });
    expect(cleared.json().data.member.spend_limits).toEqual({ daily_usd: null, monthly_usd: '20.000000' });
    // Only the members permission sets budgets: a developer cannot raise their own.
    const self = await app.inject({ method: 'PATCH', url: `/v1/orgs/${orgId}/members/${dev.userId}`, headers: inOrg(dev), payload: { spend_limits: { monthly_usd: null } } });
    expect(self.json().error).toMatchObject({ code: 'ORG_ROLE_FORBIDDEN', details: { role: 'developer', permission: 'members' } });
    const audit = await app.inject({ method: 'GET', url: `/v1/orgs/${orgId}/audit?action=member.budget_changed`, headers: owner.auth });
    expect((audit.json().data.events as Array<{ target: string }>).map((e) => e.target)).toContain(dev.userId);
  });

  it('members spending at once never pass their own daily limit nor the organization’s', async () => {
    const devs = [await join('developer'), await join('developer'), await join('developer')];
    // Each member may hold 3 × $0.60 a day; the organization 7 × $0.60 in all.
    for (const d of devs) expect((await setLimits(d, { daily_usd: '1.80' })).statusCode).toBe(200);
    expect((await orgControls({ daily_limit: '4.20' })).statusCode).toBe(200);
    const byMember = await Promise.all(devs.map((d) => Promise.all(Array.from({ length: 5 }, () => hold(d)))));
    const accepted = byMember.map((replies) => replies.filter((r) => r.statusCode === 201).length);
    for (const n of accepted) expect(n).toBeLessThanOrEqual(3);
    expect(accepted.reduce((a, b) => a + b, 0)).toBe(7);
    const refusals = byMember.flat().filter((r) => r.statusCode !== 201);
    expect(refusals).toHaveLength(8);
    for (const r of refusals) {
      expect(r.statusCode).toBe(409);
      const e = r.json().error as { code: string; details: { limit: string } };
      expect([
        ['ORG_MEMBER_BUDGET_EXCEEDED', 'member_daily'],
        ['SPEND_LIMIT_DAILY', 'daily_limit'],
      ]).toContainEqual([e.code, e.details.limit]);
    }
    // What the database holds agrees: per member and in all, within the limits.
    const rows = await app.db.query<{ member_id: string; n: string; total: string }>(
      `SELECT member_id, count(*)::text AS n, sum(amount_micros)::text AS total FROM billing_holds WHERE account_id = $1 AND status = 'pending' GROUP BY member_id`,
      [orgId],
    );
    for (const r of rows.rows) expect(BigInt(r.total)).toBeLessThanOrEqual(1_800_000n);
    expect(rows.rows.reduce((a, r) => a + BigInt(r.total), 0n)).toBe(4_200_000n);
    expect(new Set(rows.rows.map((r) => r.member_id))).toEqual(new Set(devs.map((d, i) => (accepted[i] ?? 0) > 0 && d.userId).filter((x) => x !== false)));
    await expectLedgerClean();
  });

  it('one member sending many requests at once stops exactly at their monthly limit, naming it', async () => {
    expect((await orgControls({ daily_limit: null })).statusCode).toBe(200);
    const dev = await join('developer');
    expect((await setLimits(dev, { monthly_usd: '3.00' })).statusCode).toBe(200);
    const replies = await Promise.all(Array.from({ length: 10 }, () => hold(dev)));
    expect(replies.filter((r) => r.statusCode === 201)).toHaveLength(5);
    const refused = replies.filter((r) => r.statusCode !== 201);
    expect(refused).toHaveLength(5);
    for (const r of refused) {
      expect(r.json().error).toMatchObject({ code: 'ORG_MEMBER_BUDGET_EXCEEDED', details: { limit: 'member_monthly', user_id: dev.userId, limit_value: '3.000000', amount: '0.600000' } });
    }
    // Released money no longer counts: the member may hold again.
    const held = replies.find((r) => r.statusCode === 201)?.json().data.job_id as string;
    const rel = await app.inject({ method: 'POST', url: `/v1/billing/hardware/hold/${held}/release`, headers: { ...inOrg(dev), 'idempotency-key': randomUUID() } });
    expect(rel.statusCode, rel.body).toBe(200);
    expect((await hold(dev)).statusCode).toBe(201);
    expect((await hold(dev)).json().error.code).toBe('ORG_MEMBER_BUDGET_EXCEEDED');
    await expectLedgerClean();
  });

  it('a job reserved through a member’s credential counts against that member’s budget', async () => {
    const dev = await join('developer');
    const c = await app.inject({ method: 'POST', url: '/v1/auth/credentials', headers: inOrg(dev), payload: { name: 'agent', scopes: ['jobs:write', 'jobs:read'] } });
    expect(c.statusCode, c.body).toBe(201);
    const key = { authorization: `Bearer ${c.json().data.secret as string}` };
    const submit = () =>
      app.inject({
        method: 'POST',
        url: '/v1/jobs',
        headers: key,
        payload: {
          capability_id: 'circuit.analyze',
          request: { circuit: { schema: '0.2', num_qubits: 1, num_clbits: 0, gates: [{ op: 'h', qubits: [0] }], measurements: [] } },
          idempotency_key: randomUUID(),
          max_total_price: '0.01',
        },
      });
    expect((await setLimits(dev, { daily_usd: '0' })).statusCode).toBe(200);
    const refused = await submit();
    expect(refused.statusCode, refused.body).toBe(409);
    expect(refused.json()).toMatchObject({ error: { code: 'ORG_MEMBER_BUDGET_EXCEEDED', details: { limit: 'member_daily', user_id: dev.userId, limit_value: '0.000000' } } });
    expect((await setLimits(dev, { daily_usd: null })).statusCode).toBe(200);
    const ok = await submit();
    expect(ok.statusCode, ok.body).toBe(202);
    const h = await app.db.query<{ submitted_by: string; member_id: string }>(`SELECT h.submitted_by, h.member_id FROM billing_holds h JOIN jobs j ON j.hold_id = h.id WHERE j.id = $1`, [
      ok.json().job_id ?? ok.json().id,
    ]);
    expect(h.rows[0]).toEqual({ submitted_by: `credential:${c.json().data.credential_id as string}`, member_id: dev.userId });
    await expectLedgerClean();
  });
});
