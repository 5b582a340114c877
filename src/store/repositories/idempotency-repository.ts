import type { Idempotency, KeyOutcome } from '../../idempotency/idempotency.js';
import type { Queryable } from '../db.js';

/**
 * The Idempotency port (src/idempotency/idempotency.ts) over the one table and its functions
 * (migration 0500), and the header's run effects (migration 0021).
 */

interface ClaimRow {
  outcome: 'new' | 'replay' | 'reused' | 'in_flight';
  ref: string | null;
  run_token: string | null;
  status_code: number | null;
  response: string | null;
  route: string | null;
}

function toOutcome(r: ClaimRow | undefined): KeyOutcome {
  if (r === undefined) throw new Error('no row from an idempotency function');
  switch (r.outcome) {
    case 'new':
      return { kind: 'new', runToken: r.run_token };
    case 'replay':
      return { kind: 'replay', ref: r.ref, statusCode: r.status_code, response: r.response };
    case 'reused':
      return { kind: 'reused', ref: r.ref, route: r.route };
    case 'in_flight':
      return { kind: 'in_flight' };
  }
}

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
    [runToken, kind, objectId],
    { name: 'idem_effect_claim' },
  );
  return r.rows[0]?.object_id ?? objectId;
}

/** Points the run's effect at another object (the first one is gone or unusable). */
export async function replaceEffect(q: Queryable, runToken: string, kind: EffectKind, objectId: string): Promise<void> {
  await q.query('UPDATE idempotency_effects SET object_id = $3 WHERE run_token = $1 AND kind = $2', [runToken, kind, objectId], { name: 'idem_effect_replace' });
}

export function idempotencyRepository(db: Queryable): Idempotency {
  return {
    async reserve(k) {
      const r = await db.query<ClaimRow>(
        'SELECT outcome, ref::text, run_token::text, status_code, response, route FROM idempotency_claim($1, $2, $3, $4, $5, $6, false)',
        [k.owner, k.scope, k.keyHash, k.requestHash, k.route, k.leaseSeconds],
        { name: 'idem_reserve' },
      );
      return toOutcome(r.rows[0]);
    },
    async lookup(k) {
      const r = await db.query<ClaimRow>(
        'SELECT outcome, ref::text, NULL AS run_token, status_code, response, route FROM idempotency_lookup($1, $2, $3, $4)',
        [k.owner, k.scope, k.keyHash, k.requestHash],
        { name: 'idem_lookup' },
      );
      return toOutcome(r.rows[0]);
    },
    async finish(k, answer) {
      const r = await db.query<{ ok: boolean }>(
        'SELECT idempotency_finish($1, $2, $3, $4, $5, $6) AS ok',
        [k.owner, k.scope, k.keyHash, k.runToken, answer?.statusCode ?? null, answer?.response ?? null],
        { name: 'idem_finish' },
      );
      return r.rows[0]?.ok === true;
    },
    async purge() {
      return (await db.query<{ n: number }>('SELECT idempotency_purge(1000) AS n')).rows[0]?.n ?? 0;
    },
  };
}
