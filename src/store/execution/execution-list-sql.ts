/**
 * GET /v1/execute/jobs as SQL (migration 0600): newest first through one index per filter
 * (account alone, status, provider, device), each read in order and stopped after the page.
 * A device names its provider, so device is probed before provider; further filters are checked
 * on the rows found.
 */
import type { ExecutionEvent } from '../../execution/execution-job.js';
import type { ExecutionListQuery, ListedExecutionJob } from '../../execution/ports.js';
import type { Database, Queryable } from '../db.js';
import { listQuery, pageClauses } from '../list-page.js';

/** The statement (tests EXPLAIN it). */
export function executionListSql(accountId: string, lq: ExecutionListQuery): { sql: string; params: unknown[] } {
  const params: unknown[] = [accountId];
  const where = ['j.account_id = $1'];
  const eq = (col: string, v: string | undefined) => {
    if (v === undefined) return;
    params.push(v);
    where.push(`j.${col} = $${params.length}`);
  };
  eq('device', lq.device);
  eq('provider', lq.provider);
  eq('status', lq.status);
  const page = pageClauses('j.created_at', 'j.id', { afterMicros: lq.createdAfterMicros, beforeMicros: lq.createdBeforeMicros, position: lq.before, limit: lq.limit }, params);
  return { sql: `SELECT j.*, (extract(epoch from j.created_at) * 1000000)::bigint::text AS created_us FROM execution_jobs j WHERE ${[...where, ...page.where].join(' AND ')} ${page.tail}`, params };
}

export function listExecutionJobs(db: Database, accountId: string, lq: ExecutionListQuery): Promise<ListedExecutionJob[]> {
  const { sql, params } = executionListSql(accountId, lq);
  return listQuery<ListedExecutionJob>(db, sql, params);
}

export async function eventsOf(q: Queryable, ids: readonly string[]): Promise<Map<string, ExecutionEvent[]>> {
  const out = new Map<string, ExecutionEvent[]>();
  if (ids.length === 0) return out;
  const r = await q.query<ExecutionEvent & { job_id: string }>('SELECT job_id, from_status, to_status, at, note FROM execution_job_events WHERE job_id = ANY($1::uuid[]) ORDER BY id', [ids]);
  for (const { job_id, ...e } of r.rows) out.set(job_id, [...(out.get(job_id) ?? []), e]);
  return out;
}
