import { canTransition } from '../../queue/state-machine.js';
import type { Queryable } from '../db.js';
import type { QueueTable } from './pg-queue.js';

/**
 * Every stored transition of a queue table against its state machine — including those the SQL
 * functions write themselves (jobs_submit, jobs_complete), which the TypeScript checks do not
 * see: each move is one the machine allows, and each starts where the item's previous one
 * ended. Returns one line per violation; empty = consistent.
 */
export async function checkTransitions<S extends string>(q: Queryable, t: QueueTable<S>): Promise<string[]> {
  const problems: string[] = [];
  const m = t.machine;
  const pairs = await q.query<{ from_status: S | null; to_status: S; n: number }>(`SELECT from_status, to_status, count(*)::int AS n FROM ${t.events} GROUP BY from_status, to_status`);
  for (const p of pairs.rows) {
    if (!canTransition(m, p.from_status, p.to_status)) problems.push(`${m.name}: ${p.n} stored transition(s) ${p.from_status ?? '(new)'} → ${p.to_status}, which the state machine does not allow`);
  }
  const breaks = await q.query<{ job_id: string; from_status: string | null; prev: string | null }>(
    `SELECT job_id, from_status, prev FROM (
       SELECT job_id, from_status, lag(to_status) OVER (PARTITION BY job_id ORDER BY id) AS prev FROM ${t.events}) x
      WHERE from_status IS DISTINCT FROM prev LIMIT 100`,
  );
  for (const b of breaks.rows) problems.push(`${m.name} ${b.job_id}: a transition from ${b.from_status ?? '(new)'} follows one to ${b.prev ?? '(none)'}`);
  return problems;
}
