import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/http/app-types.js';
import { ORG_ROLES, roleAllows, routePermission, type OrgRole } from '../../src/orgs/roles.js';
import { buildTestApp, signUp, verifyEmail } from '../helpers/app.js';
import { openapiDocument, operations } from '../helpers/openapi.js';

type User = Awaited<ReturnType<typeof signUp>>;

const OPERATOR = 'op-token-for-organization-tests-0123456789';

/**
 * Organizations (issue #39): a team shares a wallet; people act in one with `Qrail-Org`; the one
 * role table decides what each role may call (the matrix below is generated from it, over every
 * session route of the live OpenAPI document); invitations go through the mail outbox; removing
 * a member ends their access and their credentials; the audit log records all of it.
 */
describe('organizations', () => {
  let app: App;
  let owner: User;
  let orgId: string;
  const members = new Map<OrgRole, User>();

  const verify = (u: User) => verifyEmail(app, u);
  const invitationLink = async (email: string) => {
    const r = await app.db.query<{ text_body: string }>(`SELECT text_body FROM mail_outbox WHERE to_address = $1 AND template = 'org_invitation' ORDER BY created_at DESC LIMIT 1`, [email]);
    return /\/console\/orgs\/([0-9a-f-]{36})\/invitations\/([0-9a-f-]{36})/.exec(r.rows[0]?.text_body ?? '');
  };
  const inOrg = (u: User, org = orgId) => ({ ...u.auth, 'qrail-org': org });

  /** Invites a fresh, verified person with this role and accepts with their session. */
  async function join(role: OrgRole): Promise<User> {
    const u = await signUp(app);
    await verify(u);
    const inv = await app.inject({ method: 'POST', url: `/v1/orgs/${orgId}/invitations`, headers: owner.auth, payload: { email: u.email, role } });
    expect(inv.statusCode, inv.body).toBe(201);
    const link = await invitationLink(u.email);
    expect(link?.[1]).toBe(orgId);
    expect(link?.[2]).toBe(inv.json().data.invitation_id);
    const ok = await app.inject({ method: 'POST', url: `/v1/orgs/${orgId}/invitations/${link?.[2] ?? ''}/accept`, headers: u.auth });
    expect(ok.statusCode, ok.body).toBe(200);
    expect(ok.json().data).toMatchObject({ org_id: orgId, role, personal: false });
    return u;
  }

  beforeAll(async () => {
    app = await buildTestApp({ QRAIL_OPERATOR_TOKEN: OPERATOR, WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' });
    owner = await signUp(app);
    await verify(owner);
    const r = await app.inject({ method: 'POST', url: '/v1/orgs', headers: owner.auth, payload: { name: 'Quantum Lab' } });
    expect(r.statusCode, r.body).toBe(201);
    orgId = r.json().data.org_id;
    // The organization's webhook endpoint (a setting: owner, admin) hears about its members.
    const hook = await app.inject({
      method: 'POST',
      url: '/v1/webhooks/endpoints',
      headers: inOrg(owner),
      payload: { url: 'http://127.0.0.1:9/hook', event_types: ['org.member.joined', 'org.member.removed'] },
    });
    expect(hook.statusCode, hook.body).toBe(201);
    for (const role of ORG_ROLES) members.set(role, role === 'owner' ? owner : await join(role));
  });
  afterAll(async () => app.close());

  it('every person has a personal organization, listed first, and the new one with their role', async () => {
    const r = await app.inject({ method: 'GET', url: '/v1/orgs', headers: owner.auth });
    expect(r.statusCode).toBe(200);
    const orgs = r.json().data.orgs as Array<{ org_id: string; personal: boolean; role: string; name: string }>;
    expect(orgs.map((o) => [o.personal, o.role])).toEqual([
      [true, 'owner'],
      [false, 'owner'],
    ]);
    expect(orgs[0]?.org_id).toBe(owner.accountId);
    expect(orgs[1]).toMatchObject({ org_id: orgId, name: 'Quantum Lab' });
    const dev = members.get('developer') as User;
    const devOrgs = (await app.inject({ method: 'GET', url: '/v1/orgs', headers: dev.auth })).json().data.orgs as Array<{ org_id: string; role: string }>;
    expect(devOrgs.map((o) => [o.org_id, o.role])).toEqual([
      [dev.accountId, 'owner'],
      [orgId, 'developer'],
    ]);
  });

  it('acting in the organization reads its wallet, not the person’s own', async () => {
    const dev = members.get('developer') as User;
    const own = await app.inject({ method: 'GET', url: '/v1/auth/me', headers: dev.auth });
    expect(own.json().data.user.account_id).toBe(dev.accountId);
    const grant = await app.inject({
      method: 'POST',
      url: '/v1/billing/operator/credit-grant',
      headers: { authorization: `Bearer ${OPERATOR}` },
      payload: { email: dev.email, amount: '5.00', idempotency_key: 'org-test' },
    });
    expect(grant.statusCode, grant.body).toBe(200);
    const available = async (headers: Record<string, string>) => (await app.inject({ method: 'GET', url: '/v1/billing/wallet', headers })).json().data.available as string;
    expect(await available(dev.auth)).toBe('5.000000');
    expect(await available(inOrg(dev))).toBe('0.000000');
    const stranger = await signUp(app);
    const refused = await app.inject({ method: 'GET', url: '/v1/billing/wallet', headers: inOrg(stranger) });
    expect(refused.statusCode).toBe(404);
    expect(refused.json().error.code).toBe('ORG_NOT_FOUND');
    const garbage = await app.inject({ method: 'GET', url: '/v1/billing/wallet', headers: { ...stranger.auth, 'qrail-org': 'not-a-uuid' } });
    expect(garbage.json().error.code).toBe('ORG_NOT_FOUND');
  });

  it('applies the role table to every session route of the API: refused exactly where the role lacks the permission', async () => {
    const UUID = '00000000-0000-4000-8000-000000000001';
    const ops = operations(await openapiDocument(app)).filter((o) => (o.op['security'] as Array<Record<string, string[]>> | undefined)?.some((s) => 'session' in s));
    const checked: string[] = [];
    for (const o of ops) {
      const url = o.path.replace(/\{([a-z_]+)\}/g, ':$1');
      const permission = routePermission(o.method, url);
      // Routes a person uses as themself (logout, sessions, password) are every role's: not called here.
      if (permission === 'self' || permission === 'personal') continue;
      for (const role of ORG_ROLES) {
        const u = members.get(role) as User;
        const path = o.path.replace('{org_id}', orgId).replace(/\{[a-z_]+\}/g, UUID);
        const method = o.method.toUpperCase() as 'GET';
        const r = await app.inject({ method, url: path, headers: inOrg(u), ...(method === 'GET' || method === 'DELETE' ? {} : { payload: {} }) });
        const refused = r.statusCode === 403 && r.json().error?.code === 'ORG_ROLE_FORBIDDEN';
        expect(refused, `${role} ${method} ${o.path}: ${r.statusCode} ${r.body.slice(0, 160)}`).toBe(!roleAllows(role, permission));
        if (refused) expect(r.json().error.details).toEqual({ role, permission });
      }
      checked.push(`${o.method} ${o.path}`);
    }
    expect(checked.length).toBeGreaterThan(60);
  });

  it('closing or exporting the person’s own account is refused while acting in a team organization', async () => {
    const r = await app.inject({ method: 'GET', url: '/v1/auth/account/export', headers: inOrg(owner) });
    expect(r.statusCode).toBe(409);
    expect(r.json().error.code).toBe('ORG_PERSONAL');
    expect((await app.inject({ method: 'GET', url: '/v1/auth/account/export', headers: owner.auth })).statusCode).toBe(200);
  });

  it('invitations: another address, an unverified one, a second use and a personal organization are refused', async () => {
    const invited = await signUp(app);
    const other = await signUp(app);
    await verify(other);
    const inv = await app.inject({ method: 'POST', url: `/v1/orgs/${orgId}/invitations`, headers: owner.auth, payload: { email: invited.email, role: 'viewer' } });
    const id = inv.json().data.invitation_id as string;
    const accept = (u: User) => app.inject({ method: 'POST', url: `/v1/orgs/${orgId}/invitations/${id}/accept`, headers: u.auth });
    expect((await accept(other)).json().error.code).toBe('ORG_INVITATION_EMAIL_MISMATCH');
    expect((await accept(invited)).json().error.code).toBe('ORG_INVITATION_EMAIL_MISMATCH');
    await verify(invited);
    expect((await accept(invited)).statusCode).toBe(200);
    const again = await accept(invited);
    expect(again.statusCode).toBe(404);
    expect(again.json().error.code).toBe('ORG_INVITATION_NOT_USABLE');
    const member = await app.inject({ method: 'POST', url: `/v1/orgs/${orgId}/invitations`, headers: owner.auth, payload: { email: invited.email, role: 'viewer' } });
    expect(member.json().error.code).toBe('ORG_ALREADY_MEMBER');
    const personal = await app.inject({ method: 'POST', url: `/v1/orgs/${owner.accountId}/invitations`, headers: owner.auth, payload: { email: other.email, role: 'viewer' } });
    expect(personal.statusCode).toBe(409);
    expect(personal.json().error.code).toBe('ORG_PERSONAL');
    const admin = members.get('admin') as User;
    const ownerByAdmin = await app.inject({ method: 'POST', url: `/v1/orgs/${orgId}/invitations`, headers: admin.auth, payload: { email: other.email, role: 'owner' } });
    expect(ownerByAdmin.json().error.code).toBe('ORG_OWNER_ONLY');
  });

  it('a credential’s scopes are cut to its creator’s role, cut again when the role drops, and revoked when the member leaves', async () => {
    const u = await join('developer');
    const billing = members.get('billing') as User;
    const beyond = await app.inject({ method: 'POST', url: '/v1/auth/credentials', headers: inOrg(billing), payload: { name: 'b', scopes: ['billing:read', 'execute:simulator'] } });
    expect(beyond.statusCode).toBe(403);
    expect(beyond.json().error).toMatchObject({ code: 'ORG_SCOPE_BEYOND_ROLE', details: { role: 'billing', allowed_scopes: ['jobs:read', 'billing:read'] } });

    const c = await app.inject({ method: 'POST', url: '/v1/auth/credentials', headers: inOrg(u), payload: { name: 'agent', scopes: ['execute:simulator', 'billing:read'] } });
    expect(c.statusCode, c.body).toBe(201);
    expect(c.json().data.created_by).toBe(u.userId);
    const key = { authorization: `Bearer ${c.json().data.secret as string}` };
    const wallet = async () => app.inject({ method: 'GET', url: '/v1/billing/wallet', headers: key });
    const runs = async () => app.inject({ method: 'GET', url: '/v1/execute/jobs', headers: key });
    expect((await wallet()).statusCode).toBe(200);
    expect((await runs()).statusCode).toBe(200);
    // A credential acts in its own organization only.
    const elsewhere = await app.inject({ method: 'GET', url: '/v1/billing/wallet', headers: { ...key, 'qrail-org': u.accountId } });
    expect(elsewhere.json().error.code).toBe('ORG_HEADER_MISMATCH');
    // Each member sees their own credentials; an admin sees everyone's.
    const listOf = async (who: User) =>
      ((await app.inject({ method: 'GET', url: '/v1/auth/credentials', headers: inOrg(who) })).json().data.credentials as Array<{ credential_id: string }>).map((x) => x.credential_id);
    expect(await listOf(members.get('developer') as User)).not.toContain(c.json().data.credential_id);
    expect(await listOf(members.get('admin') as User)).toContain(c.json().data.credential_id);

    const demote = await app.inject({ method: 'PATCH', url: `/v1/orgs/${orgId}/members/${u.userId}`, headers: owner.auth, payload: { role: 'viewer' } });
    expect(demote.statusCode, demote.body).toBe(200);
    expect(demote.json().data).toMatchObject({ member: { role: 'viewer' }, credentials_cut: 1 });
    expect((await wallet()).statusCode).toBe(200);
    expect((await runs()).json().error.code).toBe('INSUFFICIENT_SCOPE');

    const removed = await app.inject({ method: 'DELETE', url: `/v1/orgs/${orgId}/members/${u.userId}`, headers: owner.auth });
    expect(removed.json().data).toEqual({ removed: true, credentials_revoked: 1 });
    expect((await wallet()).statusCode).toBe(401);
    const gone = await app.inject({ method: 'GET', url: '/v1/billing/wallet', headers: inOrg(u) });
    expect(gone.json().error.code).toBe('ORG_NOT_FOUND');
  });

  it('an organization always keeps an owner, and only an owner changes one', async () => {
    const last = await app.inject({ method: 'PATCH', url: `/v1/orgs/${orgId}/members/${owner.userId}`, headers: owner.auth, payload: { role: 'admin' } });
    expect(last.statusCode).toBe(409);
    expect(last.json().error.code).toBe('ORG_LAST_OWNER');
    expect((await app.inject({ method: 'DELETE', url: `/v1/orgs/${orgId}/members/${owner.userId}`, headers: owner.auth })).json().error.code).toBe('ORG_LAST_OWNER');
    const admin = members.get('admin') as User;
    const byAdmin = await app.inject({ method: 'PATCH', url: `/v1/orgs/${orgId}/members/${owner.userId}`, headers: admin.auth, payload: { role: 'viewer' } });
    expect(byAdmin.json().error.code).toBe('ORG_OWNER_ONLY');
  });

  it('membership changes are webhook events of the organization', async () => {
    const r = await app.inject({ method: 'GET', url: '/v1/webhooks/events?limit=100', headers: inOrg(owner) });
    expect(r.statusCode).toBe(200);
    const events = r.json().data.events as Array<{ type: string; account_id: string; data: { org_id: string; target: string; actor: { kind: string } } }>;
    const joined = events.filter((e) => e.type === 'org.member.joined');
    expect(joined.length).toBeGreaterThanOrEqual(ORG_ROLES.length - 1);
    expect(new Set(joined.map((e) => e.data.target))).toContain((members.get('viewer') as User).userId);
    expect(events.every((e) => e.account_id === orgId && e.data.org_id === orgId)).toBe(true);
    expect(events.some((e) => e.type === 'org.member.removed')).toBe(true);
    // The person's own organization heard nothing of it.
    const own = await app.inject({ method: 'GET', url: '/v1/webhooks/events?limit=100', headers: owner.auth });
    expect((own.json().data.events as Array<{ type: string }>).filter((e) => e.type.startsWith('org.'))).toEqual([]);
  });

  it('the audit log records who did what, newest first, in keyset pages and as CSV', async () => {
    const all = await app.inject({ method: 'GET', url: `/v1/orgs/${orgId}/audit?limit=200`, headers: owner.auth });
    expect(all.statusCode).toBe(200);
    const events = all.json().data.events as Array<{ event_id: string; action: string; actor: { kind: string; id: string }; request_id: string | null }>;
    const actions = new Set(events.map((e) => e.action));
    for (const a of ['org.created', 'member.invited', 'member.joined', 'member.role_changed', 'member.removed', 'credential.created']) expect(actions, a).toContain(a);
    const ids = events.map((e) => BigInt(e.event_id));
    expect([...ids].sort((a, b) => (a > b ? -1 : 1))).toEqual(ids);
    expect(events.find((e) => e.action === 'org.created')).toMatchObject({ actor: { kind: 'person', id: owner.userId } });
    expect(events.every((e) => typeof e.request_id === 'string')).toBe(true);

    const first = await app.inject({ method: 'GET', url: `/v1/orgs/${orgId}/audit?limit=3`, headers: owner.auth });
    const cursor = first.json().data.next_cursor as string;
    const second = await app.inject({ method: 'GET', url: `/v1/orgs/${orgId}/audit?limit=3&cursor=${cursor}`, headers: owner.auth });
    expect([...first.json().data.events, ...second.json().data.events].map((e: { event_id: string }) => e.event_id)).toEqual(events.slice(0, 6).map((e) => e.event_id));
    const joined = await app.inject({ method: 'GET', url: `/v1/orgs/${orgId}/audit?action=member.joined`, headers: owner.auth });
    expect((joined.json().data.events as Array<{ action: string }>).every((e) => e.action === 'member.joined')).toBe(true);

    const csv = await app.inject({ method: 'GET', url: `/v1/orgs/${orgId}/audit?limit=200&format=csv`, headers: owner.auth });
    expect(csv.statusCode).toBe(200);
    expect(csv.headers['content-type']).toMatch(/^text\/csv/);
    const lines = csv.body.trimEnd().split('\n');
    expect(lines[0]).toBe('event_id,at,actor_kind,actor_id,action,target,request_id,details');
    expect(lines.length).toBe(events.length + 1);
    expect(lines[1]?.split(',')[0]).toBe(events[0]?.event_id);
  });
});
