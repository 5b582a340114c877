/**
 * GET /v1/jobs as SQL (migration 0600): each filter has an index read newest first that stops
 * after the page. With a tag, the page is read from job_tags_list_idx (more tags are checked on
 * job_tags' primary key); with an idempotency key, from the key's row; otherwise from jobs by
 * status, capability or the account alone. Further filters are checked on the rows found.
 */
import type { ListQuery } from '../../jobs/ports.js';
import { pageClauses } from '../list-page.js';
import { JOB } from './job-rows.js';

export function jobListSql(accountId: string, lq: ListQuery): { sql: string; params: unknown[] } {
  const params: unknown[] = [accountId];
  const p = (v: unknown) => {
    params.push(v);
    return `$${params.length}`;
  };
  const where: string[] = [];
  let from = 'jobs j';
  // Which columns the order and the keyset run on: those of the index the page is read from.
  let createdAt = 'j.created_at';
  let id = 'j.id';
  const [first, ...moreTags] = lq.tags ?? [];
  if (lq.idempotencyKey !== undefined) {
    // From the key's primary key to the job's (migrations 0205, 0501): at most one job.
    from = 'idempotency_keys k JOIN jobs j ON j.id = k.ref';
    where.push(`k.owner = $1::text AND k.scope = 'jobs' AND k.key_hash = idempotency_hash(${p(lq.idempotencyKey)}::text)`);
  } else if (first !== undefined) {
    from = 'job_tags t JOIN jobs j ON j.id = t.job_id';
    where.push(`t.account_id = $1 AND t.key = ${p(first.key)} AND t.value = ${p(first.value)}`);
    createdAt = 't.created_at';
    id = 't.job_id';
  } else {
    where.push('j.account_id = $1');
  }
  if (lq.idempotencyKey !== undefined && first !== undefined) where.push(`EXISTS (SELECT 1 FROM job_tags x WHERE x.job_id = j.id AND x.key = ${p(first.key)} AND x.value = ${p(first.value)})`);
  for (const t of moreTags) where.push(`EXISTS (SELECT 1 FROM job_tags x WHERE x.job_id = j.id AND x.key = ${p(t.key)} AND x.value = ${p(t.value)})`);
  if (lq.status !== undefined) where.push(`j.status = ${p(lq.status)}`);
  if (lq.capabilityId !== undefined) where.push(`j.capability_id = ${p(lq.capabilityId)}`);
  // An idempotency key names at most one job: nothing to order.
  const page = pageClauses(createdAt, id, { afterMicros: lq.createdAfterMicros, beforeMicros: lq.createdBeforeMicros, position: lq.before, limit: lq.limit }, params, lq.idempotencyKey !== undefined);
  return { sql: `SELECT ${JOB} FROM ${from} WHERE ${[...where, ...page.where].join(' AND ')} ${page.tail}`, params };
}
