import { randomUUID } from 'node:crypto';
import type { Queryable } from '../db.js';

/** How long a key is remembered; after that the same key starts a new request. */
export const IDEMPOTENCY_RETENTION_HOURS = 24;

export type BeginOutcome =
  | { readonly kind: 'reserved'; readonly runToken: string }
  | { readonly kind: 'in_flight' }
  | { readonly kind: 'reused'; readonly route: string }
  | { readonly kind: 'replay'; readonly statusCode: number; readonly response: string };

export interface BeginInput {
  readonly owner: string;
  readonly keyHash: string;
  readonly requestHash: string;
  readonly route: string;
  readonly leaseSeconds: number;
}

interface KeyRow {
  state: 'in_progress' | 'done' | 'failed';
  request_hash: string;
  route: string;
  status_code: number | null;
  response: string | null;
}

// One statement reserves the key: a new key, one past retention, a failed run, or a lapsed lease
// of the same request. Concurrent callers serialise on the primary key; only one gets a row back.
// The run token survives a takeover of the same request (see the migration's header).
const RESERVE = `
INSERT INTO idempotency_keys AS k (owner, key_hash, request_hash, route, state, run_token, locked_until, created_at)
VALUES ($1, $2, $3, $4, 'in_progress', $5, now() + ($6::integer * interval '1 second'), now())
ON CONFLICT (owner, key_hash) DO UPDATE SET
  run_token = CASE WHEN k.request_hash = EXCLUDED.request_hash AND k.created_at > now() - interval '${IDEMPOTENCY_RETENTION_HOURS} hours' THEN k.run_token ELSE EXCLUDED.run_token END,
  created_at = CASE WHEN k.request_hash = EXCLUDED.request_hash AND k.created_at > now() - interval '${IDEMPOTENCY_RETENTION_HOURS} hours' THEN k.created_at ELSE now() END,
  request_hash = EXCLUDED.request_hash, route = EXCLUDED.route, state = 'in_progress',
  locked_until = EXCLUDED.locked_until, status_code = NULL, response = NULL
WHERE k.created_at <= now() - interval '${IDEMPOTENCY_RETENTION_HOURS} hours'
   OR k.state = 'failed'
   OR (k.state = 'in_progress' AND k.locked_until <= now() AND k.request_hash = EXCLUDED.request_hash)
RETURNING run_token::text AS run_token`;

const PURGE = `
DELETE FROM idempotency_keys WHERE ctid IN (
  SELECT ctid FROM idempotency_keys WHERE created_at < now() - interval '${IDEMPOTENCY_RETENTION_HOURS} hours' LIMIT 1000)`;

// An effect is recorded after its key was first used, so it is older than retention only once its
// key is too: a retry can no longer inherit its run token.
const PURGE_EFFECTS = `
DELETE FROM idempotency_effects WHERE ctid IN (
  SELECT ctid FROM idempotency_effects WHERE created_at < now() - interval '${IDEMPOTENCY_RETENTION_HOURS} hours' LIMIT 1000)`;

/** What an idempotent run created, by kind (migration 0021). */
export type EffectKind = 'hardware_hold' | 'agent_credential';

/** The object this run already created of this kind, or null. Call it inside the effect's transaction. */
export async function findEffect(q: Queryable, runToken: string, kind: EffectKind): Promise<string | null> {
  const r = await q.query<{ object_id: string }>('SELECT object_id FROM idempotency_effects WHERE run_token = $1 AND kind = $2 FOR UPDATE', [runToken, kind], { name: 'idem_effect_find' });
  return r.rows[0]?.object_id ?? null;
}

/**
 * Records `objectId` as this run's object of this kind, in the transaction that creates it, unless
 * the run already has one: returns the object the run owns (locked until commit), `objectId` when new.
 */
export async function claimEffect(q: Queryable, runToken: string, kind: EffectKind, objectId: string): Promise<string> {
  const r = await q.query<{ object_id: string }>(
    `INSERT INTO idempotency_effects AS e (run_token, kind, object_id) VALUES ($1, $2, $3)
     ON CONFLICT (run_token, kind) DO UPDATE SET object_id = e.object_id RETURNING object_id`,
    [runToken, kind, objectId], { name: 'idem_effect_claim' },
  );
  return r.rows[0]?.object_id ?? objectId;
}

/** Points the run's effect at another object (the first one is gone or unusable). */
export async function replaceEffect(q: Queryable, runToken: string, kind: EffectKind, objectId: string): Promise<void> {
  await q.query('UPDATE idempotency_effects SET object_id = $3 WHERE run_token = $1 AND kind = $2', [runToken, kind, objectId], { name: 'idem_effect_replace' });
}

export interface IdempotencyRepository {
  begin(i: BeginInput): Promise<BeginOutcome>;
  /** Stores the response of the run holding `runToken`; false when another run stored first. */
  complete(owner: string, keyHash: string, runToken: string, statusCode: number, response: string): Promise<boolean>;
  /** The run ended in a 5xx: nothing is stored and the key may be retried at once. */
  fail(owner: string, keyHash: string, runToken: string): Promise<void>;
  /** Deletes up to 1,000 rows past retention; returns how many. */
  purge(): Promise<number>;
}

export function idempotencyRepository(db: Queryable): IdempotencyRepository {
  return {
    async begin(i) {
      // A row can vanish between the two statements only by the purge; the second pass then inserts.
      for (let attempt = 0; attempt < 3; attempt += 1) {
        const r = await db.query<{ run_token: string }>(RESERVE, [i.owner, i.keyHash, i.requestHash, i.route, randomUUID(), i.leaseSeconds], { name: 'idem_reserve' });
        const reserved = r.rows[0];
        if (reserved !== undefined) return { kind: 'reserved', runToken: reserved.run_token };
        const prior = (await db.query<KeyRow>(
          'SELECT state, request_hash, route, status_code, response FROM idempotency_keys WHERE owner = $1 AND key_hash = $2',
          [i.owner, i.keyHash], { name: 'idem_read' },
        )).rows[0];
        if (prior === undefined) continue;
        if (prior.request_hash !== i.requestHash) return { kind: 'reused', route: prior.route };
        if (prior.state === 'done' && prior.status_code !== null && prior.response !== null) {
          return { kind: 'replay', statusCode: prior.status_code, response: prior.response };
        }
        return { kind: 'in_flight' };
      }
      return { kind: 'in_flight' };
    },
    async complete(owner, keyHash, runToken, statusCode, response) {
      const r = await db.query(
        "UPDATE idempotency_keys SET state = 'done', status_code = $4, response = $5 WHERE owner = $1 AND key_hash = $2 AND run_token = $3 AND state = 'in_progress'",
        [owner, keyHash, runToken, statusCode, response], { name: 'idem_complete' },
      );
      return r.rowCount === 1;
    },
    async fail(owner, keyHash, runToken) {
      await db.query(
        "UPDATE idempotency_keys SET state = 'failed', locked_until = now() WHERE owner = $1 AND key_hash = $2 AND run_token = $3 AND state = 'in_progress'",
        [owner, keyHash, runToken], { name: 'idem_fail' },
      );
    },
    async purge() {
      await db.query(PURGE_EFFECTS);
      return (await db.query(PURGE)).rowCount;
    },
  };
}
