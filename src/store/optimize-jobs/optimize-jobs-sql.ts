/**
 * The optimize jobs' store (migration 1711) on the one queue's SQL (src/store/queue/pg-queue.ts):
 * claim under a lease, heartbeat, terminal states written under the lease check, cancel requests.
 * No money moves, so each terminal write is the row lock and one UPDATE.
 */
import { CANCELED_BEFORE_RUNNING, CANCELED_WHILE_RUNNING, OPTIMIZE_JOB_STATE_MACHINE, type OptimizeJob, type OptimizeJobStatus, type OptimizeJobStore } from '../../optimize-jobs/optimize-job.js';
import { cancelAction } from '../../queue/state-machine.js';
import type { Database, Queryable } from '../db.js';
import { listQuery, pageClauses } from '../list-page.js';
import { claimNext, defineQueueTable, finish, heartbeat, lockItem, lockOwned, openItemsOfAccount, recordTransition, requestCancel } from '../queue/pg-queue.js';

export const OPTIMIZE_QUEUE = defineQueueTable<OptimizeJobStatus>({
  table: 'optimize_jobs',
  events: 'optimize_job_events',
  machine: OPTIMIZE_JOB_STATE_MACHINE,
  columns: (a) => `${a}.*`,
  onClaim: ['started_at = COALESCE(j.started_at, clock_timestamp())'],
  // The progress is only shown while the job runs.
  onFinish: ['finished_at = clock_timestamp()', 'progress = NULL'],
});

async function endCanceled(q: Queryable, row: OptimizeJob, worker: string | null, message: string): Promise<OptimizeJob> {
  return finish<OptimizeJob, OptimizeJobStatus>(q, OPTIMIZE_QUEUE, row.id, row.status, 'canceled', worker, { error_message: message }, 'canceled');
}

export function pgOptimizeJobStore(db: Database): OptimizeJobStore {
  return {
    insert: (j) =>
      db.tx(async (q) => {
        if ((await openItemsOfAccount(q, OPTIMIZE_QUEUE, j.accountId)) >= j.maxOpen) return null;
        const r = await q.query<OptimizeJob>('INSERT INTO optimize_jobs (id, account_id, status, request, traceparent) VALUES ($1, $2, $3, $4, $5) RETURNING *', [
          j.id,
          j.accountId,
          'queued',
          JSON.stringify(j.request),
          j.traceparent,
        ]);
        await recordTransition(q, OPTIMIZE_QUEUE, j.id, null, 'queued', null, 'submitted');
        return r.rows[0]!;
      }),

    async get(accountId, id) {
      const r = await db.query<OptimizeJob>('SELECT * FROM optimize_jobs WHERE id = $1 AND account_id = $2', [id, accountId]);
      return r.rows[0] ?? null;
    },

    list(accountId, lq) {
      // Through optimize_jobs_account_idx in its order, stopped after the page; the status is checked on the rows read.
      const params: unknown[] = [accountId];
      const where = ['j.account_id = $1'];
      if (lq.status !== undefined) {
        params.push(lq.status);
        where.push(`j.status = $${params.length}`);
      }
      const page = pageClauses('j.created_at', 'j.id', { afterMicros: lq.createdAfterMicros, beforeMicros: lq.createdBeforeMicros, position: lq.before, limit: lq.limit }, params);
      return listQuery(
        db,
        `SELECT j.*, (extract(epoch from j.created_at) * 1000000)::bigint::text AS created_us FROM optimize_jobs j WHERE ${[...where, ...page.where].join(' AND ')} ${page.tail}`,
        params,
      );
    },

    async claim(worker, leaseMs) {
      const row = await claimNext<OptimizeJob, OptimizeJobStatus>(db, OPTIMIZE_QUEUE, worker, leaseMs);
      if (row === undefined) return null;
      const { prev, hold_status: _hold, ...job } = row;
      return {
        id: job.id,
        attempts: job.attempts,
        job,
        cancelRequested: job.cancel_requested_at !== null,
        claimableSince: prev === 'queued' ? job.created_at : undefined,
        traceparent: job.traceparent ?? undefined,
      };
    },

    heartbeat: (id, worker, leaseMs) => heartbeat(db, OPTIMIZE_QUEUE, id, worker, leaseMs),

    async saveProgress(id, fraction, phase) {
      await db.query(`UPDATE optimize_jobs SET progress = jsonb_build_object('fraction', $2::float8, 'phase', $3::text, 'at', now()) WHERE id = $1 AND status = 'running'`, [id, fraction, phase]);
    },

    complete: (id, worker, result) =>
      db.tx(async (q) => {
        const row = await lockOwned<OptimizeJob, OptimizeJobStatus>(q, OPTIMIZE_QUEUE, id, worker);
        if (row === undefined) return 'lease_lost';
        if (row.cancel_requested_at !== null) {
          await endCanceled(q, row, worker, CANCELED_WHILE_RUNNING);
          return 'canceled';
        }
        await finish(q, OPTIMIZE_QUEUE, id, 'running', 'completed', worker, { result: JSON.stringify(result) });
        return 'completed';
      }),

    fail: (id, worker, code, message) =>
      db.tx(async (q) => {
        const row = await lockOwned<OptimizeJob, OptimizeJobStatus>(q, OPTIMIZE_QUEUE, id, worker);
        if (row === undefined) return false;
        if (row.cancel_requested_at !== null) await endCanceled(q, row, worker, CANCELED_WHILE_RUNNING);
        else await finish(q, OPTIMIZE_QUEUE, id, 'running', 'failed', worker, { error_code: code, error_message: message }, code);
        return true;
      }),

    cancel: (id, worker, message) =>
      db.tx(async (q) => {
        const row = await lockOwned<OptimizeJob, OptimizeJobStatus>(q, OPTIMIZE_QUEUE, id, worker);
        if (row === undefined) return false;
        await endCanceled(q, row, worker, message);
        return true;
      }),

    requestCancel: (accountId, id) =>
      db.tx(async (q) => {
        const row = await lockItem<OptimizeJob, OptimizeJobStatus>(q, OPTIMIZE_QUEUE, id);
        if (row === undefined || row.account_id !== accountId) return null;
        const reread = async () => (await lockItem<OptimizeJob, OptimizeJobStatus>(q, OPTIMIZE_QUEUE, id)) ?? row;
        switch (cancelAction(OPTIMIZE_JOB_STATE_MACHINE, row.status)) {
          case 'now':
            return { outcome: 'canceled' as const, job: await endCanceled(q, row, null, CANCELED_BEFORE_RUNNING) };
          case 'ask':
            // Recorded once; a repeated request while it still runs answers the same.
            await requestCancel(q, OPTIMIZE_QUEUE, id);
            return { outcome: 'requested' as const, job: await reread() };
          case 'terminal':
            return { outcome: row.status === 'canceled' ? ('already' as const) : ('not_cancelable' as const), job: row };
          case 'too_late':
            return { outcome: 'not_cancelable' as const, job: row };
        }
      }),
  };
}
