import { randomUUID } from 'node:crypto';
import type { AccountRepository, AccountUser, ActiveCredential, SessionListItem, TokenPurpose } from '../../auth/account-ports.js';
import type { MailContent } from '../../mail/mail.js';
import type { Database, Queryable } from '../db.js';
import { pageClauses } from '../list-page.js';

interface UserRow {
  id: string;
  account_id: string;
  email: string;
  email_verified_at: Date | null;
  totp_secret: string | null;
  totp_pending_secret: string | null;
  totp_enabled_at: Date | null;
  closed_at: Date | null;
}

const d = (v: Date | null): Date | null => (v === null ? null : new Date(v));

const toUser = (r: UserRow): AccountUser => ({
  id: r.id,
  accountId: r.account_id,
  email: r.email,
  emailVerifiedAt: d(r.email_verified_at),
  totpSecret: r.totp_secret,
  totpPendingSecret: r.totp_pending_secret,
  totpEnabledAt: d(r.totp_enabled_at),
  closedAt: d(r.closed_at),
});

/** The mail of a change, addressed to the user's stored email, written on the change's transaction. */
export async function mailUser(q: Queryable, userId: string, m: MailContent): Promise<void> {
  await q.query(
    `INSERT INTO mail_outbox (id, user_id, to_address, template, subject, text_body, html_body)
     SELECT $1, id, email, $3, $4, $5, $6 FROM users WHERE id = $2`,
    [randomUUID(), userId, m.template, m.subject, m.text, m.html],
  );
}

async function revokeSessions(q: Queryable, userId: string, now: Date, keep: string | null): Promise<number> {
  const r = await q.query('UPDATE sessions SET revoked_at = $2 WHERE user_id = $1 AND revoked_at IS NULL AND ($3::uuid IS NULL OR id <> $3::uuid)', [userId, now, keep]);
  return r.rowCount;
}

/** The machine credentials in force of the user's account, oldest first. */
async function activeCredentials(q: Queryable, userId: string, now: Date): Promise<ActiveCredential[]> {
  const r = await q.query<{ id: string; name: string; secret_hint: string; scopes: string[]; created_at: Date; last_used_at: Date | null }>(
    `SELECT c.id, c.name, c.secret_hint, c.scopes, c.created_at, c.last_used_at FROM agent_credentials c JOIN users u ON u.account_id = c.account_id
     WHERE u.id = $1 AND c.revoked_at IS NULL AND (c.expires_at IS NULL OR c.expires_at > $2) ORDER BY c.created_at, c.id`,
    [userId, now],
  );
  return r.rows.map((c) => ({
    id: c.id,
    name: c.name,
    hint: c.secret_hint,
    scopes: c.scopes,
    createdAt: new Date(c.created_at),
    lastUsedAt: c.last_used_at === null ? null : new Date(c.last_used_at),
  }));
}

/** Spends an unused, unexpired token of this purpose; its user, or null. */
async function consumeToken(q: Queryable, tokenHash: string, purpose: TokenPurpose, now: Date): Promise<string | null> {
  const r = await q.query<{ user_id: string }>('UPDATE account_tokens SET used_at = $2 WHERE token_hash = $1 AND purpose = $3 AND used_at IS NULL AND expires_at > $2 RETURNING user_id', [
    tokenHash,
    now,
    purpose,
  ]);
  return r.rows[0]?.user_id ?? null;
}

export function pgAccountRepository(db: Database): AccountRepository {
  return {
    async findUser(id) {
      const r = await db.query<UserRow>('SELECT id, account_id, email, email_verified_at, totp_secret, totp_pending_secret, totp_enabled_at, closed_at FROM users WHERE id = $1', [id]);
      return r.rows[0] === undefined ? null : toUser(r.rows[0]);
    },
    async accountEmailVerified(accountId) {
      // An organization is verified when each of its open owners is (a personal one: its person).
      const r = await db.query<{ verified: boolean | null }>(
        `SELECT bool_and(u.email_verified_at IS NOT NULL) AS verified FROM org_members m JOIN users u ON u.id = m.user_id
         WHERE m.account_id = $1 AND m.role = 'owner' AND u.closed_at IS NULL`,
        [accountId],
      );
      return r.rows[0]?.verified === true;
    },
    async issueToken(t, mail) {
      await db.tx(async (q) => {
        await q.query('INSERT INTO account_tokens (id, user_id, purpose, token_hash, expires_at) VALUES ($1, $2, $3, $4, $5)', [randomUUID(), t.userId, t.purpose, t.tokenHash, t.expiresAt]);
        await mailUser(q, t.userId, mail);
      });
    },
    async issueResetByEmail(email, t, mail) {
      await db.tx(async (q) => {
        await q.query(
          `INSERT INTO account_tokens (id, user_id, purpose, token_hash, expires_at)
           SELECT $1, id, 'password_reset', $3, $4 FROM users WHERE lower(email) = lower($2) AND closed_at IS NULL`,
          [randomUUID(), email, t.tokenHash, t.expiresAt],
        );
        await q.query(
          `INSERT INTO mail_outbox (id, user_id, to_address, template, subject, text_body, html_body)
           SELECT $1, id, email, $3, $4, $5, $6 FROM users WHERE lower(email) = lower($2) AND closed_at IS NULL`,
          [randomUUID(), email, mail.template, mail.subject, mail.text, mail.html],
        );
      });
    },
    async verifyEmail(tokenHash, now) {
      return db.tx(async (q) => {
        const userId = await consumeToken(q, tokenHash, 'verify_email', now);
        if (userId === null) return null;
        await q.query('UPDATE users SET email_verified_at = COALESCE(email_verified_at, $2) WHERE id = $1', [userId, now]);
        return userId;
      });
    },
    async resetPassword(tokenHash, passwordHash, now, keepCredentials, mail) {
      return db.tx(async (q) => {
        const userId = await consumeToken(q, tokenHash, 'password_reset', now);
        if (userId === null) return null;
        await q.query('UPDATE users SET password_hash = $2, password_changed_at = $3 WHERE id = $1 AND closed_at IS NULL', [userId, passwordHash, now]);
        // Other reset links mailed earlier die with this one.
        await q.query(`UPDATE account_tokens SET used_at = $2 WHERE user_id = $1 AND purpose = 'password_reset' AND used_at IS NULL`, [userId, now]);
        await revokeSessions(q, userId, now, null);
        const credentials = await activeCredentials(q, userId, now);
        // A reset is how a taken-over account is recovered: the intruder's keys go with the password (issue #34).
        let credentialsRevoked = 0;
        if (!keepCredentials && credentials.length > 0) {
          const r = await q.query('UPDATE agent_credentials SET revoked_at = $2 WHERE id = ANY($1::uuid[]) AND revoked_at IS NULL', [credentials.map((c) => c.id), now]);
          credentialsRevoked = r.rowCount;
        }
        await mailUser(q, userId, mail(credentials));
        return { userId, credentialsRevoked };
      });
    },
    async resetLinkCredentials(tokenHash, now) {
      const r = await db.query<{ user_id: string }>(`SELECT user_id FROM account_tokens WHERE token_hash = $1 AND purpose = 'password_reset' AND used_at IS NULL AND expires_at > $2`, [
        tokenHash,
        now,
      ]);
      const userId = r.rows[0]?.user_id;
      return userId === undefined ? null : activeCredentials(db, userId, now);
    },
    async changePassword(userId, passwordHash, keepSessionId, now, mail) {
      await db.tx(async (q) => {
        await q.query('UPDATE users SET password_hash = $2, password_changed_at = $3 WHERE id = $1', [userId, passwordHash, now]);
        await revokeSessions(q, userId, now, keepSessionId);
        await mailUser(q, userId, mail);
      });
    },
    async countAttempts(keys, now, expiredBefore) {
      // One upsert per key in a fixed (sorted) order, so concurrent callers lock rows alike.
      const out = [];
      for (const key of [...keys].sort()) {
        const r = await db.query<{ key: string; attempts: number; window_started_at: Date }>(
          `INSERT INTO login_attempts AS a (key, attempts, window_started_at) VALUES ($1, 1, $2::timestamptz)
           ON CONFLICT (key) DO UPDATE SET
             attempts = CASE WHEN a.window_started_at <= $3::timestamptz THEN 1 ELSE a.attempts + 1 END,
             window_started_at = CASE WHEN a.window_started_at <= $3::timestamptz THEN $2::timestamptz ELSE a.window_started_at END
           RETURNING key, attempts, window_started_at`,
          [key, now, expiredBefore],
        );
        const row = r.rows[0];
        if (row !== undefined) out.push({ key: row.key, attempts: row.attempts, windowStartedAt: new Date(row.window_started_at) });
      }
      return out;
    },
    async clearAttempts(keys) {
      for (const key of keys) await db.query('DELETE FROM login_attempts WHERE key = $1', [key]);
    },
    async listSessions(userId, now, page) {
      const params: unknown[] = [userId, now];
      const { where, tail } = pageClauses('created_at', 'id', { limit: page.limit, position: page.before }, params);
      const r = await db.query<{ id: string; created_at: Date; last_used_at: Date; ip: string | null; user_agent: string | null; expires_at: Date; created_us: string }>(
        `SELECT id, created_at, last_used_at, ip, user_agent, LEAST(idle_expires_at, absolute_expires_at) AS expires_at,
           (extract(epoch from created_at) * 1000000)::bigint AS created_us FROM sessions
         WHERE user_id = $1 AND revoked_at IS NULL AND idle_expires_at > $2 AND absolute_expires_at > $2 ${where.map((w) => `AND ${w}`).join(' ')} ${tail}`,
        params,
      );
      return r.rows.map((s): SessionListItem => ({
        id: s.id,
        createdAt: new Date(s.created_at),
        lastUsedAt: new Date(s.last_used_at),
        ip: s.ip,
        userAgent: s.user_agent,
        expiresAt: new Date(s.expires_at),
        createdAtMicros: BigInt(s.created_us),
      }));
    },
    async revokeSession(userId, sessionId, now) {
      const r = await db.query('UPDATE sessions SET revoked_at = $3 WHERE id = $1 AND user_id = $2 AND revoked_at IS NULL', [sessionId, userId, now]);
      return r.rowCount > 0;
    },
    async revokeAll(userId, accountId, includeCredentials, now) {
      return db.tx(async (q) => {
        const sessions = await revokeSessions(q, userId, now, null);
        const credentials = includeCredentials ? (await q.query('UPDATE agent_credentials SET revoked_at = $2 WHERE account_id = $1 AND revoked_at IS NULL', [accountId, now])).rowCount : 0;
        return { sessions, credentials };
      });
    },
    async setPendingTotp(userId, secret) {
      await db.query('UPDATE users SET totp_pending_secret = $2 WHERE id = $1 AND totp_enabled_at IS NULL', [userId, secret]);
    },
    async enableTotp(userId, step, recoveryHashes, now, mail) {
      return db.tx(async (q) => {
        const r = await q.query(
          `UPDATE users SET totp_secret = totp_pending_secret, totp_pending_secret = NULL, totp_enabled_at = $2, totp_last_step = $3
           WHERE id = $1 AND totp_enabled_at IS NULL AND totp_pending_secret IS NOT NULL`,
          [userId, now, step.toString()],
        );
        if (r.rowCount === 0) return false;
        await q.query('DELETE FROM recovery_codes WHERE user_id = $1', [userId]);
        for (const h of recoveryHashes) await q.query('INSERT INTO recovery_codes (user_id, code_hash) VALUES ($1, $2)', [userId, h]);
        await mailUser(q, userId, mail);
        return true;
      });
    },
    async disableTotp(userId, _now, mail) {
      await db.tx(async (q) => {
        await q.query('UPDATE users SET totp_secret = NULL, totp_pending_secret = NULL, totp_enabled_at = NULL, totp_last_step = NULL WHERE id = $1', [userId]);
        await q.query('DELETE FROM recovery_codes WHERE user_id = $1', [userId]);
        await mailUser(q, userId, mail);
      });
    },
    async useTotpStep(userId, step) {
      const r = await db.query('UPDATE users SET totp_last_step = $2 WHERE id = $1 AND (totp_last_step IS NULL OR totp_last_step < $2::bigint)', [userId, step.toString()]);
      return r.rowCount > 0;
    },
    async useRecoveryCode(userId, codeHash, now) {
      const r = await db.query('UPDATE recovery_codes SET used_at = $3 WHERE user_id = $1 AND code_hash = $2 AND used_at IS NULL', [userId, codeHash, now]);
      return r.rowCount > 0;
    },
    async createChallenge(c) {
      await db.query('INSERT INTO mfa_challenges (id, user_id, expires_at) VALUES ($1, $2, $3)', [c.id, c.userId, c.expiresAt]);
    },
    async findChallenge(id, now) {
      const r = await db.query<{ user_id: string }>('SELECT user_id FROM mfa_challenges WHERE id = $1 AND used_at IS NULL AND expires_at > $2', [id, now]);
      return r.rows[0]?.user_id ?? null;
    },
    async useChallenge(id, now) {
      const r = await db.query('UPDATE mfa_challenges SET used_at = $2 WHERE id = $1 AND used_at IS NULL AND expires_at > $2', [id, now]);
      return r.rowCount > 0;
    },
  };
}
