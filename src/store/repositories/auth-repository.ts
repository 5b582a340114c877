import { randomUUID } from 'node:crypto';
import type { AuthRepository, SessionRecord, UserRecord } from '../../auth/session-service.js';
import type { Database } from '../db.js';

interface UserRow {
  id: string;
  account_id: string;
  email: string;
  password_hash: string;
  created_at: Date;
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
});

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
      return db.tx(async (q) => {
        const accountId = randomUUID();
        const userId = randomUUID();
        await q.query('INSERT INTO accounts (id) VALUES ($1)', [accountId]);
        const r = await q.query<UserRow>(
          `INSERT INTO users (id, account_id, email, password_hash) VALUES ($1, $2, $3, $4)
           ON CONFLICT ((lower(email))) DO NOTHING
           RETURNING id, account_id, email, password_hash, created_at`,
          [userId, accountId, email, passwordHash],
        );
        const row = r.rows[0];
        if (row === undefined) throw new EmailTaken();
        return toUser(row);
      }).catch((e: unknown) => {
        if (e instanceof EmailTaken) return null;
        throw e;
      });
    },
    async findUserByEmail(email) {
      const r = await db.query<UserRow>('SELECT id, account_id, email, password_hash, created_at FROM users WHERE lower(email) = lower($1)', [email]);
      return r.rows[0] === undefined ? null : toUser(r.rows[0]);
    },
    async findUserById(id) {
      const r = await db.query<UserRow>('SELECT id, account_id, email, password_hash, created_at FROM users WHERE id = $1', [id]);
      return r.rows[0] === undefined ? null : toUser(r.rows[0]);
    },
    async createSession(s) {
      const id = randomUUID();
      await db.query(
        'INSERT INTO sessions (id, user_id, token_hash, idle_expires_at, absolute_expires_at) VALUES ($1, $2, $3, $4, $5)',
        [id, s.userId, s.tokenHash, s.idleExpiresAt, s.absoluteExpiresAt],
      );
      const r = await db.query<SessionRow>(`${SESSION_SELECT} WHERE s.id = $1`, [id]);
      return toSession(r.rows[0] as SessionRow);
    },
    async findSession(tokenHash) {
      const r = await db.query<SessionRow>(`${SESSION_SELECT} WHERE s.token_hash = $1`, [tokenHash]);
      return r.rows[0] === undefined ? null : toSession(r.rows[0]);
    },
    async touchSession(id, now, idleExpiresAt) {
      await db.query('UPDATE sessions SET last_used_at = $2, idle_expires_at = $3 WHERE id = $1 AND revoked_at IS NULL', [id, now, idleExpiresAt]);
    },
    async revokeSession(id, now) {
      await db.query('UPDATE sessions SET revoked_at = $2 WHERE id = $1 AND revoked_at IS NULL', [id, now]);
    },
    async recentFailures(email, ip, since) {
      const r = await db.query<{ by_email: number; by_ip: number }>(
        `SELECT (SELECT count(*)::int FROM login_failures WHERE lower(email) = lower($1) AND at > $3) AS by_email,
                (SELECT count(*)::int FROM login_failures WHERE ip = $2 AND at > $3) AS by_ip`,
        [email, ip, since],
      );
      const row = r.rows[0];
      return { byEmail: row?.by_email ?? 0, byIp: row?.by_ip ?? 0 };
    },
    async recordFailure(email, ip) {
      await db.query('INSERT INTO login_failures (email, ip) VALUES ($1, $2)', [email, ip]);
    },
    async clearFailures(email) {
      await db.query('DELETE FROM login_failures WHERE lower(email) = lower($1)', [email]);
    },
  };
}

class EmailTaken extends Error {}
