import type { App } from '../../src/http/app-types.js';
import type { Queryable } from '../../src/store/db.js';

/** Every node of an EXPLAIN (FORMAT JSON) plan, depth first. */
export function planNodes(plan: Record<string, unknown>): Array<Record<string, unknown>> {
  const kids = (plan['Plans'] as Array<Record<string, unknown>> | undefined) ?? [];
  return [plan, ...kids.flatMap(planNodes)];
}

export async function explain(q: Queryable, sql: string, params: unknown[], analyze: boolean): Promise<Array<Record<string, unknown>>> {
  const r = await q.query<{ 'QUERY PLAN': unknown }>(`EXPLAIN (${analyze ? 'ANALYZE, ' : ''}FORMAT JSON) ${sql}`, params);
  const raw = r.rows[0]?.['QUERY PLAN'];
  const doc = (typeof raw === 'string' ? JSON.parse(raw) : raw) as Array<{ Plan: Record<string, unknown> }>;
  return planNodes((doc[0] as { Plan: Record<string, unknown> }).Plan);
}

class Rollback extends Error {}

/** Runs fn in a transaction that is always rolled back (EXPLAIN ANALYZE executes the statement). */
export async function inRolledBackTx<T>(app: App, fn: (q: Queryable) => Promise<T>): Promise<T> {
  let out: T | undefined;
  await app.db
    .tx(async (q) => {
      out = await fn(q);
      throw new Rollback();
    })
    .catch((e: unknown) => {
      if (!(e instanceof Rollback)) throw e;
    });
  return out as T;
}
