import type { CredentialRecord, CredentialsRepository, CredentialScope } from '../../auth/credentials.js';
import type { SigningKey, SigningKeyStore } from '../../auth/jwt.js';
import type { Database, Queryable } from '../db.js';
import { claimEffect, replaceEffect } from './idempotency-repository.js';
import { recordAudit } from '../orgs/org-repository.js';

interface CredentialRow {
  id: string;
  account_id: string;
  created_by: string | null;
  name: string;
  scopes: string[];
  secret_hint: string;
  created_at: Date;
  expires_at: Date | null;
  revoked_at: Date | null;
  last_used_at: Date | null;
}

const COLUMNS = 'id, account_id, created_by, name, scopes, secret_hint, created_at, expires_at, revoked_at, last_used_at';
const date = (d: Date | null): Date | null => (d === null ? null : new Date(d));

const toRecord = (r: CredentialRow): CredentialRecord => ({
  id: r.id,
  accountId: r.account_id,
  createdBy: r.created_by,
  name: r.name,
  scopes: r.scopes as CredentialScope[],
  secretHint: r.secret_hint,
  createdAt: new Date(r.created_at),
  expiresAt: date(r.expires_at),
  revokedAt: date(r.revoked_at),
  lastUsedAt: date(r.last_used_at),
});

export function pgCredentialsRepository(db: Database): CredentialsRepository {
  const one = async (sql: string, params: unknown[]): Promise<CredentialRecord | null> => {
    const r = await db.query<CredentialRow>(sql, params);
    return r.rows[0] === undefined ? null : toRecord(r.rows[0]);
  };
  return {
    async create(c) {
      // The audit event goes with the credential: both commit or neither does.
      const audited = async (q: Queryable, rec: CredentialRecord): Promise<CredentialRecord> => {
        if (c.actor !== undefined) await recordAudit(q, rec.accountId, c.actor, 'credential.created', rec.id, { name: rec.name, scopes: [...rec.scopes] });
        return rec;
      };
      const insert = async (q: Queryable): Promise<CredentialRecord> => {
        const r = await q.query<CredentialRow>(
          `INSERT INTO agent_credentials (id, account_id, created_by, name, scopes, secret_hash, secret_hint, expires_at)
           VALUES ($1, $2, $3, $4, $5::text[], $6, $7, $8) RETURNING ${COLUMNS}`,
          [c.id, c.accountId, c.createdBy, c.name, c.scopes, c.secretHash, c.secretHint, c.expiresAt],
        );
        if (r.rows[0] === undefined) throw new Error('credential insert returned nothing');
        return audited(q, toRecord(r.rows[0]));
      };
      const runToken = c.runToken;
      if (runToken === undefined) return c.actor === undefined ? insert(db) : db.tx(insert);
      // The retry of a run that created its credential and died before answering: that
      // credential's secret was never shown, so it gets the new one (decision in
      // docs/decisions/foundation-idempotency-crash-windows.md). A credential revoked meanwhile
      // stays revoked and the run makes a new one: still one live credential per request.
      return db.tx(async (q) => {
        const owned = await claimEffect(q, runToken, 'agent_credential', c.id);
        if (owned === c.id) return insert(q);
        const rotated = await q.query<CredentialRow>(
          `UPDATE agent_credentials SET secret_hash = $3, secret_hint = $4
            WHERE id = $1 AND account_id = $2 AND revoked_at IS NULL RETURNING ${COLUMNS}`,
          [owned, c.accountId, c.secretHash, c.secretHint],
        );
        if (rotated.rows[0] !== undefined) return audited(q, toRecord(rotated.rows[0]));
        await replaceEffect(q, runToken, 'agent_credential', c.id);
        return insert(q);
      });
    },
    async list(accountId) {
      const r = await db.query<CredentialRow>(`SELECT ${COLUMNS} FROM agent_credentials WHERE account_id = $1 ORDER BY created_at DESC, id`, [accountId]);
      return r.rows.map(toRecord);
    },
    findByHash: (hash) => one(`SELECT ${COLUMNS} FROM agent_credentials WHERE secret_hash = $1`, [hash]),
    findById: (id) => one(`SELECT ${COLUMNS} FROM agent_credentials WHERE id = $1`, [id]),
    async revoke(accountId, id, now, actor) {
      const sql = `UPDATE agent_credentials SET revoked_at = COALESCE(revoked_at, $3) WHERE id = $2 AND account_id = $1 RETURNING ${COLUMNS}`;
      if (actor === undefined) return one(sql, [accountId, id, now]);
      return db.tx(async (q) => {
        const r = await q.query<CredentialRow>(sql, [accountId, id, now]);
        if (r.rows[0] === undefined) return null;
        const rec = toRecord(r.rows[0]);
        await recordAudit(q, accountId, actor, 'credential.revoked', id, { name: rec.name });
        return rec;
      });
    },
    async touch(id, now) {
      await db.query('UPDATE agent_credentials SET last_used_at = $2 WHERE id = $1', [id, now]);
    },
    async accountExists(accountId) {
      const r = await db.query('SELECT 1 FROM accounts WHERE id = $1', [accountId]);
      return r.rows.length > 0;
    },
  };
}

interface KeyRow {
  kid: string;
  alg: 'ES256';
  private_jwk: SigningKey['privateJwk'];
  public_jwk: SigningKey['publicJwk'];
}

export function pgSigningKeyStore(db: Database): SigningKeyStore {
  return {
    async load() {
      const r = await db.query<KeyRow>('SELECT kid, alg, private_jwk, public_jwk FROM jobs_signing_keys WHERE retired_at IS NULL ORDER BY created_at, kid');
      return r.rows.map((k) => ({ kid: k.kid, alg: k.alg, privateJwk: k.private_jwk, publicJwk: k.public_jwk }));
    },
    async insertIfAbsent(k) {
      // Two processes racing at first start may both insert; both keys are then published and valid.
      await db.query('INSERT INTO jobs_signing_keys (kid, alg, private_jwk, public_jwk) VALUES ($1, $2, $3::jsonb, $4::jsonb) ON CONFLICT (kid) DO NOTHING', [
        k.kid,
        k.alg,
        JSON.stringify(k.privateJwk),
        JSON.stringify(k.publicJwk),
      ]);
    },
  };
}
