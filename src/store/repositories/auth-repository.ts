import { randomUUID } from 'node:crypto';
import type { AttemptCount, AuthRepository, SessionRecord, UserRecord } from '../../auth/session-service.js';
import type { Database } from '../db.js';

interface UserRow {
  id: string;
  account_id: string;
  email: string;
  password_hash: string;
  created_at: Date;
  email_verified_at: Date | null;
  totp_enabled_at: Date | null;
}

interface SessionRow {
  id: string;
  user_id: string;
  account_id: string;
  email: string;
  user_created_at: Date;
  created_at: Date;
  last_used_at: Date;
  idle_expires_at: Date;
  absolute_expires_at: Date;
  revoked_at: Date | null;
}

const toUser = (r: UserRow): UserRecord => ({
  id: r.id,
  accountId: r.account_id,
  email: r.email,
  passwordHash: r.password_hash,
  createdAt: new Date(r.created_at),
  emailVerifiedAt: r.email_verified_at === null ? null : new Date(r.email_verified_at),
  mfaEnabled: r.totp_enabled_at !== null,
});

const USER_COLUMNS = 'id, account_id, email, password_hash, created_at, email_verified_at, totp_enabled_at';

const toSession = (r: SessionRow): SessionRecord => ({
  id: r.id,
  userId: r.user_id,
  accountId: r.account_id,
  email: r.email,
  userCreatedAt: new Date(r.user_created_at),
  createdAt: new Date(r.created_at),
  lastUsedAt: new Date(r.last_used_at),
  idleExpiresAt: new Date(r.idle_expires_at),
  absoluteExpiresAt: new Date(r.absolute_expires_at),
  revokedAt: r.revoked_at === null ? null : new Date(r.revoked_at),
});

const SESSION_SELECT = `SELECT s.id, s.user_id, u.account_id, u.email, u.created_at AS user_created_at, s.created_at, s.last_used_at,
  s.idle_expires_at, s.absolute_expires_at, s.revoked_at
  FROM sessions s JOIN users u ON u.id = s.user_id`;

export function pgAuthRepository(db: Database): AuthRepository {
  return {
    async createUser(email, passwordHash) {
      return db
        .tx(async (q) => {
          const accountId = randomUUID();
          const userId = randomUUID();
          await q.query('INSERT INTO accounts (id) VALUES ($1)', [accountId]);
          const r = await q.query<UserRow>(
            `INSERT INTO users (id, account_id, email, password_hash) VALUES ($1, $2, $3, $4)
           ON CONFLICT ((lower(email))) DO NOTHING
           RETURNING ${USER_COLUMNS}`,
            [userId, accountId, email, passwordHash],
          );
          const row = r.rows[0];
          if (row === undefined) throw new EmailTaken();
          // Every person owns a personal organization: the account registered with them (docs/organizations.md).
          await q.query("INSERT INTO org_members (account_id, user_id, role) VALUES ($1, $2, 'owner')", [accountId, userId]);
          return toUser(row);
        })
        .catch((e: unknown) => {
          if (e instanceof EmailTaken) return null;
          throw e;
        });
    },
    async findUserByEmail(email) {
      const r = await db.query<UserRow>(`SELECT ${USER_COLUMNS} FROM users WHERE lower(email) = lower($1)`, [email]);
      return r.rows[0] === undefined ? null : toUser(r.rows[0]);
    },
    async findUserById(id) {
      const r = await db.query<UserRow>(`SELECT ${USER_COLUMNS} FROM users WHERE id = $1`, [id]);
      return r.rows[0] === undefined ? null : toUser(r.rows[0]);
    },
    async createSession(s) {
      const id = randomUUID();
      await db.query('INSERT INTO sessions (id, user_id, token_hash, idle_expires_at, absolute_expires_at, ip, user_agent) VALUES ($1, $2, $3, $4, $5, $6, $7)', [
        id,
        s.userId,
        s.tokenHash,
        s.idleExpiresAt,
        s.absoluteExpiresAt,
        s.ip,
        s.userAgent,
      ]);
      const r = await db.query<SessionRow>(`${SESSION_SELECT} WHERE s.id = $1`, [id]);
      return toSession(r.rows[0] as SessionRow);
    },
    async findSession(tokenHash) {
      const r = await db.query<SessionRow>(`${SESSION_SELECT} WHERE s.token_hash = $1`, [tokenHash]);
      return r.rows[0] === undefined ? null : toSession(r.rows[0]);
    },
    async findSessionById(id) {
      const r = await db.query<SessionRow>(`${SESSION_SELECT} WHERE s.id = $1`, [id]);
      return r.rows[0] === undefined ? null : toSession(r.rows[0]);
    },
    async touchSession(id, now, idleExpiresAt) {
      await db.query('UPDATE sessions SET last_used_at = $2, idle_expires_at = $3 WHERE id = $1 AND revoked_at IS NULL', [id, now, idleExpiresAt]);
    },
    async revokeSession(id, now) {
      await db.query('UPDATE sessions SET revoked_at = $2 WHERE id = $1 AND revoked_at IS NULL', [id, now]);
    },
    async countAttempt(email, ip, now, expiredBefore) {
      // One statement: each key's row is locked by the upsert, and every caller locks the email
      // row before the address row, so concurrent attempts queue instead of deadlocking.
      const r = await db.query<{ key: string; attempts: number; window_started_at: Date }>(
        `INSERT INTO login_attempts AS a (key, attempts, window_started_at)
         VALUES ('email:' || lower($1), 1, $3::timestamptz), ('ip:' || $2, 1, $3::timestamptz)
         ON CONFLICT (key) DO UPDATE SET
           attempts = CASE WHEN a.window_started_at <= $4::timestamptz THEN 1 ELSE a.attempts + 1 END,
           window_started_at = CASE WHEN a.window_started_at <= $4::timestamptz THEN $3::timestamptz ELSE a.window_started_at END
         RETURNING key, attempts, window_started_at`,
        [email, ip, now, expiredBefore],
      );
      const count = (prefix: string): AttemptCount => {
        const row = r.rows.find((x) => x.key.startsWith(prefix));
        if (row === undefined) throw new Error(`login_attempts upsert returned no ${prefix} row`);
        return { key: row.key, attempts: row.attempts, windowStartedAt: new Date(row.window_started_at) };
      };
      return { email: count('email:'), ip: count('ip:') };
    },
    async refundAttempt(c) {
      // Only within the window that counted it: a window restarted meanwhile owes nothing.
      await db.query(
        `UPDATE login_attempts SET attempts = GREATEST(attempts - 1, 0)
         WHERE (key = $1 AND window_started_at = $2) OR (key = $3 AND window_started_at = $4)`,
        [c.email.key, c.email.windowStartedAt, c.ip.key, c.ip.windowStartedAt],
      );
    },
    async clearAttempts(c, pruneBefore) {
      await db.query('DELETE FROM login_attempts WHERE key = $1', [c.email.key]);
      await db.query('UPDATE login_attempts SET attempts = GREATEST(attempts - 1, 0) WHERE key = $1 AND window_started_at = $2', [c.ip.key, c.ip.windowStartedAt]);
      // Rows of windows long past are dead weight; a successful login is a cheap moment to drop them.
      await db.query('DELETE FROM login_attempts WHERE window_started_at < $1', [pruneBefore]);
    },
  };
}

class EmailTaken extends Error {}
