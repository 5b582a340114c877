import type { Database, Queryable } from '../db.js';
import type { Actor, AuditEvent, Org, OrgInvitation, OrgMember, OrgMembership, OrgRepository } from '../../orgs/org-ports.js';
import type { OrgRole } from '../../orgs/roles.js';
import { enqueueMail } from '../mail/mail-outbox-store.js';
import { captureHold, lockWallet, placeHold } from '../billing/ledger-sql.js';

const count = async (q: Queryable, sql: string, params: unknown[]): Promise<number> => Number((await q.query<{ n: string }>(sql, params)).rows[0]?.n ?? 0);

type Row = Record<string, unknown>;

const date = (v: unknown): Date => new Date(v as string);
const dateOrNull = (v: unknown): Date | null => (v === null || v === undefined ? null : new Date(v as string));
const bigOrNull = (v: unknown): bigint | null => (typeof v === 'string' || typeof v === 'number' || typeof v === 'bigint' ? BigInt(v) : null);

const toOrg = (r: Row): Org => ({
  id: r['id'] as string,
  name: (r['name'] as string | null) ?? 'Personal',
  personal: r['personal'] as boolean,
  createdAt: date(r['created_at']),
  closedAt: dateOrNull(r['closed_at']),
});
const toMembership = (r: Row): OrgMembership => ({ ...toOrg(r), role: r['role'] as OrgRole });
const toMember = (r: Row): OrgMember => ({
  userId: r['user_id'] as string,
  email: r['email'] as string,
  role: r['role'] as OrgRole,
  dailyLimitMicros: bigOrNull(r['daily_limit_micros']),
  monthlyLimitMicros: bigOrNull(r['monthly_limit_micros']),
  joinedAt: date(r['created_at']),
});
const toInvitation = (r: Row): OrgInvitation => ({
  id: r['id'] as string,
  orgId: r['account_id'] as string,
  email: r['email'] as string,
  role: r['role'] as OrgRole,
  invitedBy: r['invited_by'] as string,
  createdAt: date(r['created_at']),
  expiresAt: date(r['expires_at']),
  acceptedAt: dateOrNull(r['accepted_at']),
});

const MEMBERSHIP = `SELECT a.id, a.name, a.personal, a.created_at, a.closed_at, m.role
  FROM org_members m JOIN accounts a ON a.id = m.account_id`;
const MEMBER = `SELECT m.user_id, u.email, m.role, m.daily_limit_micros::text AS daily_limit_micros,
  m.monthly_limit_micros::text AS monthly_limit_micros, m.created_at
  FROM org_members m JOIN users u ON u.id = m.user_id`;

export async function recordAudit(q: Queryable, orgId: string, actor: Actor, action: string, target: string | null, details: Record<string, unknown>): Promise<void> {
  await q.query('INSERT INTO org_audit_events (account_id, actor_kind, actor_id, action, target, request_id, details) VALUES ($1, $2, $3, $4, $5, $6, $7)', [
    orgId,
    actor.kind,
    actor.id,
    action,
    target,
    actor.requestId,
    JSON.stringify(details),
  ]);
  // Membership changes are also webhook events of the organization, in the same transaction.
  if (['member.invited', 'member.joined', 'member.role_changed', 'member.removed'].includes(action)) {
    await q.query('SELECT webhook_emit($1, $2, $3)', [orgId, `org.${action}`, JSON.stringify({ org_id: orgId, target, actor: { kind: actor.kind, id: actor.id }, details })]);
  }
}

const owners = async (q: Queryable, orgId: string): Promise<number> =>
  Number((await q.query<{ n: string }>("SELECT count(*)::text AS n FROM org_members WHERE account_id = $1 AND role = 'owner'", [orgId])).rows[0]?.n ?? 0);

export function pgOrgRepository(db: Database): OrgRepository {
  return {
    async membership(userId, orgId) {
      const r = await db.query<Row>(`${MEMBERSHIP} WHERE m.user_id = $1 AND m.account_id = $2 AND a.closed_at IS NULL`, [userId, orgId], { name: 'org_membership' });
      return r.rows[0] === undefined ? null : toMembership(r.rows[0]);
    },
    async create({ id, name, ownerId, actor }) {
      return db.tx(async (q) => {
        await q.query('INSERT INTO accounts (id, name, personal) VALUES ($1, $2, false)', [id, name]);
        await q.query("INSERT INTO org_members (account_id, user_id, role) VALUES ($1, $2, 'owner')", [id, ownerId]);
        await recordAudit(q, id, actor, 'org.created', id, { name });
        const r = await q.query<Row>(`${MEMBERSHIP} WHERE m.user_id = $1 AND m.account_id = $2`, [ownerId, id]);
        return toMembership(r.rows[0] as Row);
      });
    },
    async listFor(userId) {
      const r = await db.query<Row>(`${MEMBERSHIP} WHERE m.user_id = $1 AND a.closed_at IS NULL ORDER BY a.personal DESC, a.created_at, a.id`, [userId]);
      return r.rows.map(toMembership);
    },
    async rename(orgId, name, actor) {
      return db.tx(async (q) => {
        const r = await q.query<Row>('UPDATE accounts SET name = $2 WHERE id = $1 AND closed_at IS NULL RETURNING id, name, personal, created_at, closed_at', [orgId, name]);
        if (r.rows[0] === undefined) return null;
        await recordAudit(q, orgId, actor, 'org.renamed', orgId, { name });
        return toOrg(r.rows[0]);
      });
    },
    async members(orgId) {
      const r = await db.query<Row>(`${MEMBER} WHERE m.account_id = $1 ORDER BY m.created_at, m.user_id`, [orgId]);
      return r.rows.map(toMember);
    },
    async invite(i, mail) {
      return db.tx(async (q) => {
        const member = await q.query(`${MEMBER} WHERE m.account_id = $1 AND lower(u.email) = lower($2)`, [i.orgId, i.email]);
        if (member.rows.length > 0) return { kind: 'already_member' as const };
        const r = await q.query<Row>(
          `INSERT INTO org_invitations (id, account_id, email, role, invited_by, expires_at) VALUES ($1, $2, $3, $4, $5, $6)
           RETURNING id, account_id, email, role, invited_by, created_at, expires_at, accepted_at`,
          [i.id, i.orgId, i.email, i.role, i.invitedBy, i.expiresAt],
        );
        const user = await q.query<{ id: string }>('SELECT id FROM users WHERE lower(email) = lower($1)', [i.email]);
        await enqueueMail(q, user.rows[0]?.id ?? null, { ...mail, to: i.email });
        await recordAudit(q, i.orgId, i.actor, 'member.invited', i.email, { invitation_id: i.id, role: i.role });
        return { kind: 'ok' as const, invitation: toInvitation(r.rows[0] as Row) };
      });
    },
    async invitations(orgId) {
      const r = await db.query<Row>(
        `SELECT id, account_id, email, role, invited_by, created_at, expires_at, accepted_at FROM org_invitations
         WHERE account_id = $1 AND revoked_at IS NULL ORDER BY created_at DESC, id LIMIT 500`,
        [orgId],
      );
      return r.rows.map(toInvitation);
    },
    async accept(orgId, invitationId, userId, now, actor) {
      return db.tx(async (q) => {
        const inv = await q.query<Row>(
          `SELECT i.email, i.role FROM org_invitations i JOIN accounts a ON a.id = i.account_id
           WHERE i.id = $1 AND i.account_id = $2 AND i.accepted_at IS NULL AND i.revoked_at IS NULL AND i.expires_at > $3 AND a.closed_at IS NULL
           FOR UPDATE OF i`,
          [invitationId, orgId, now],
        );
        const row = inv.rows[0];
        if (row === undefined) return { kind: 'not_usable' as const };
        const user = await q.query<{ email: string; email_verified_at: unknown }>('SELECT email, email_verified_at FROM users WHERE id = $1', [userId]);
        const u = user.rows[0];
        if (u === undefined || u.email_verified_at === null || u.email.toLowerCase() !== String(row['email']).toLowerCase()) return { kind: 'email_mismatch' as const };
        const added = await q.query('INSERT INTO org_members (account_id, user_id, role) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING', [orgId, userId, row['role']]);
        if (added.rowCount === 0) return { kind: 'already_member' as const };
        await q.query('UPDATE org_invitations SET accepted_at = $2, accepted_by = $3 WHERE id = $1', [invitationId, now, userId]);
        await recordAudit(q, orgId, actor, 'member.joined', userId, { invitation_id: invitationId, role: row['role'] });
        const m = await q.query<Row>(`${MEMBERSHIP} WHERE m.user_id = $1 AND m.account_id = $2`, [userId, orgId]);
        return { kind: 'ok' as const, membership: toMembership(m.rows[0] as Row) };
      });
    },
    async changeMember(orgId, userId, change, allowedScopes, actor) {
      return db.tx(async (q) => {
        // The organization's owners are counted under one lock, so two demotions cannot both pass.
        await q.query('SELECT id FROM accounts WHERE id = $1 FOR UPDATE', [orgId]);
        const cur = await q.query<Row>(`${MEMBER} WHERE m.account_id = $1 AND m.user_id = $2`, [orgId, userId]);
        const before = cur.rows[0];
        if (before === undefined) return { kind: 'not_member' as const };
        if (change.role !== undefined && before['role'] === 'owner' && change.role !== 'owner' && (await owners(q, orgId)) <= 1) return { kind: 'last_owner' as const };
        const sets: string[] = [];
        const params: unknown[] = [orgId, userId];
        const set = (col: string, v: unknown) => {
          params.push(v);
          sets.push(`${col} = $${params.length}`);
        };
        if (change.role !== undefined) set('role', change.role);
        if (change.dailyLimitMicros !== undefined) set('daily_limit_micros', change.dailyLimitMicros === null ? null : change.dailyLimitMicros.toString());
        if (change.monthlyLimitMicros !== undefined) set('monthly_limit_micros', change.monthlyLimitMicros === null ? null : change.monthlyLimitMicros.toString());
        if (sets.length > 0) await q.query(`UPDATE org_members SET ${sets.join(', ')} WHERE account_id = $1 AND user_id = $2`, params);
        let credentialsCut = 0;
        if (allowedScopes !== undefined) {
          const cut = await q.query(
            `UPDATE agent_credentials SET scopes = ARRAY(SELECT s FROM unnest(scopes) s WHERE s = ANY($3::text[]))
             WHERE account_id = $1 AND created_by = $2 AND revoked_at IS NULL AND NOT (scopes <@ $3::text[])`,
            [orgId, userId, [...allowedScopes]],
          );
          credentialsCut = cut.rowCount;
        }
        const details: Record<string, unknown> = {};
        if (change.role !== undefined) details['role'] = { from: before['role'], to: change.role };
        if (change.dailyLimitMicros !== undefined) details['daily_limit_micros'] = change.dailyLimitMicros?.toString() ?? null;
        if (change.monthlyLimitMicros !== undefined) details['monthly_limit_micros'] = change.monthlyLimitMicros?.toString() ?? null;
        if (credentialsCut > 0) details['credentials_cut'] = credentialsCut;
        await recordAudit(q, orgId, actor, change.role !== undefined ? 'member.role_changed' : 'member.budget_changed', userId, details);
        const after = await q.query<Row>(`${MEMBER} WHERE m.account_id = $1 AND m.user_id = $2`, [orgId, userId]);
        return { kind: 'ok' as const, member: toMember(after.rows[0] as Row), credentialsCut };
      });
    },
    async removeMember(orgId, userId, now, actor) {
      return db.tx(async (q) => {
        await q.query('SELECT id FROM accounts WHERE id = $1 FOR UPDATE', [orgId]);
        const cur = await q.query<{ role: string }>('SELECT role FROM org_members WHERE account_id = $1 AND user_id = $2', [orgId, userId]);
        const role = cur.rows[0]?.role;
        if (role === undefined) return { kind: 'not_member' as const };
        if (role === 'owner' && (await owners(q, orgId)) <= 1) return { kind: 'last_owner' as const };
        await q.query('DELETE FROM org_members WHERE account_id = $1 AND user_id = $2', [orgId, userId]);
        const revoked = await q.query('UPDATE agent_credentials SET revoked_at = $3 WHERE account_id = $1 AND created_by = $2 AND revoked_at IS NULL', [orgId, userId, now]);
        await recordAudit(q, orgId, actor, 'member.removed', userId, { role, credentials_revoked: revoked.rowCount });
        return { kind: 'ok' as const, credentialsRevoked: revoked.rowCount };
      });
    },
    async audit(orgId, f) {
      const where = ['account_id = $1'];
      const params: unknown[] = [orgId];
      const add = (sql: string, v: unknown) => {
        params.push(v);
        where.push(sql.replace('?', `$${params.length}`));
      };
      if (f.action !== undefined) add('action = ?', f.action);
      if (f.actorId !== undefined) add('actor_id = ?', f.actorId);
      if (f.since !== undefined) add('at >= ?', f.since);
      if (f.until !== undefined) add('at < ?', f.until);
      if (f.before !== undefined) add('id < ?', f.before.toString());
      params.push(f.limit);
      const r = await db.query<Row>(
        `SELECT id::text AS id, at, actor_kind, actor_id, action, target, request_id, details FROM org_audit_events
         WHERE ${where.join(' AND ')} ORDER BY org_audit_events.id DESC LIMIT $${params.length}`,
        params,
      );
      return r.rows.map((r): AuditEvent => ({
        id: BigInt(r['id'] as string),
        at: date(r['at']),
        actor: { kind: r['actor_kind'] as string, id: (r['actor_id'] as string | null) ?? null },
        action: r['action'] as string,
        target: (r['target'] as string | null) ?? null,
        requestId: (r['request_id'] as string | null) ?? null,
        details: (typeof r['details'] === 'string' ? JSON.parse(r['details']) : r['details']) as Record<string, unknown>,
      }));
    },
    async close(orgId, acceptForfeiture, now, actor) {
      return db.tx(async (q) => {
        // As an account's closure (src/store/accounts/closure-repository.ts): the wallet's lock first,
        // so no hold or credit lands between the checks and the settlement.
        const wallet = await lockWallet(q, orgId);
        const openHolds = await count(q, "SELECT count(*)::text AS n FROM billing_holds WHERE account_id = $1 AND status = 'pending'", [orgId]);
        const runningJobs =
          (await count(q, "SELECT count(*)::text AS n FROM jobs WHERE account_id = $1 AND status NOT IN ('completed', 'failed')", [orgId])) +
          (await count(q, "SELECT count(*)::text AS n FROM execution_jobs WHERE account_id = $1 AND status IN ('queued', 'running')", [orgId]));
        if (openHolds > 0 || runningJobs > 0) return { kind: 'busy' as const, openHolds, runningJobs };
        const available = BigInt(wallet.available_micros);
        if (available > 0n && !acceptForfeiture) return { kind: 'unsettled' as const, availableMicros: available };
        await q.query(
          'UPDATE billing_wallets SET daily_limit_micros = NULL, monthly_limit_micros = NULL, per_job_max_micros = NULL, ar_enabled = false, ar_requested_at = NULL WHERE account_id = $1',
          [orgId],
        );
        if (available > 0n) {
          // Forfeiture through the ledger's own functions, as an account's: available → held → platform revenue.
          const description = 'Organization closed: available balance forfeited';
          const hold = await placeHold(q, {
            accountId: orgId,
            kind: 'job',
            refId: `org-close:${orgId}`,
            amountMicros: available,
            description,
            product: 'org_close',
            expiresAt: new Date(now.getTime() + 3_600_000),
            now,
          });
          await captureHold(q, { holdId: hold.holdId, amountMicros: available, description, accountId: orgId });
        }
        const credentials = (await q.query('UPDATE agent_credentials SET revoked_at = $2 WHERE account_id = $1 AND revoked_at IS NULL', [orgId, now])).rowCount;
        await q.query('UPDATE org_invitations SET revoked_at = $2 WHERE account_id = $1 AND accepted_at IS NULL AND revoked_at IS NULL', [orgId, now]);
        await q.query('UPDATE accounts SET closed_at = $2 WHERE id = $1', [orgId, now]);
        await recordAudit(q, orgId, actor, 'org.closed', orgId, { forfeited_micros: available.toString(), credentials_revoked: credentials });
        return { kind: 'closed' as const, forfeitedMicros: available, closedAt: now, credentialsRevoked: credentials };
      });
    },
  };
}
