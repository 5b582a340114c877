import type { JobRecord, JobStatus } from '../../jobs/job.js';
import type { Claim, JobsRepository } from '../../jobs/ports.js';
import { ledgerError, type LedgerRefusal } from '../billing/ledger-error.js';
import { getWallet, releaseIfPending } from '../billing/ledger-sql.js';
import type { Database, Queryable } from '../db.js';
import { JOB, toJob, transitionsOf, type JobRow } from './job-rows.js';
import { jobSubmitter, type SubmitterOptions } from './jobs-submission.js';

/**
 * The worker's claim ($1 worker id, $2 lease in ms): two ordered probes, one per partial index,
 * each stopping at its first unlocked row. With an OR in one WHERE the planner ORs two bitmap
 * scans and sorts every queued job per claim (120 ms a claim at a backlog of 130,000). A job
 * whose lease expired comes first: it is work already started (a result_saved one only needs
 * its capture), so recovering it is not delayed behind a backlog; the queued probe runs only
 * when there is none.
 */
export const CLAIM_JOB_SQL = `WITH expired AS (
     SELECT id, status AS prev FROM jobs
      WHERE status IN ('running', 'result_saved') AND lease_expires_at < clock_timestamp()
      ORDER BY lease_expires_at LIMIT 1 FOR UPDATE SKIP LOCKED),
   queued AS (
     SELECT id, status AS prev FROM jobs
      WHERE status = 'queued' AND NOT EXISTS (SELECT 1 FROM expired)
      ORDER BY created_at LIMIT 1 FOR UPDATE SKIP LOCKED),
   c AS (SELECT id, prev FROM expired UNION ALL SELECT id, prev FROM queued),
   u AS (
     UPDATE jobs j SET lease_owner = $1, lease_expires_at = clock_timestamp() + $2::int * interval '1 millisecond',
            status = CASE WHEN c.prev = 'result_saved' THEN 'result_saved' ELSE 'running' END,
            attempts = CASE WHEN c.prev = 'result_saved' THEN j.attempts ELSE j.attempts + 1 END,
            updated_at = clock_timestamp()
       FROM c WHERE j.id = c.id
     RETURNING j.*, c.prev),
   t AS (
     INSERT INTO job_transitions (job_id, from_status, to_status, worker)
     SELECT id, prev, 'running', $1 FROM u WHERE prev = 'queued')
   SELECT u.*, (extract(epoch from u.created_at) * 1000000)::bigint AS created_us, h.status AS hold_status
     FROM u LEFT JOIN billing_holds h ON h.id = u.hold_id`;

async function lockJob(q: Queryable, id: string): Promise<JobRow | undefined> {
  return (await q.query<JobRow>(`SELECT ${JOB} FROM jobs j WHERE j.id = $1 FOR UPDATE`, [id])).rows[0];
}

async function transition(q: Queryable, id: string, from: JobStatus | null, to: JobStatus, worker: string | null, note: string | null = null): Promise<void> {
  await q.query('INSERT INTO job_transitions (job_id, from_status, to_status, worker, note) VALUES ($1, $2, $3, $4, $5)', [id, from, to, worker, note]);
}

/** Submissions' group commit when the caller does not say (JOBS_SUBMIT_BATCH_MAX, JOBS_SUBMIT_IN_FLIGHT). */
export const DEFAULT_SUBMITTER: SubmitterOptions = { maxBatch: 16, maxInFlight: 2 };

export function pgJobsRepository(db: Database, submitter: SubmitterOptions = DEFAULT_SUBMITTER): JobsRepository {
  const failLocked = async (q: Queryable, j: JobRow, worker: string | null, code: string, message: string): Promise<JobRecord> => {
    if (j.hold_id !== null) {
      // Released if pending; one already released or expired stays so; a captured one is a bug.
      const refused = await releaseIfPending(q, j.hold_id, `job ${j.id} failed: ${code}`);
      if (refused?.code === 'HOLD_NOT_PENDING') throw new Error(`job ${j.id} cannot fail: its hold was captured`);
    }
    const r = await q.query<JobRow>(
      `UPDATE jobs j SET status = 'failed', error_code = $2, error_message = $3, lease_owner = NULL, lease_expires_at = NULL, updated_at = clock_timestamp()
        WHERE j.id = $1 RETURNING ${JOB}`,
      [j.id, code, message],
    );
    await transition(q, j.id, j.status, 'failed', worker, code);
    return toJob(r.rows[0] as JobRow);
  };

  /** The hold lapsed before the charge (jobs_complete moved nothing): the job fails, nothing charged, no result given. */
  const failLapsed = (jobId: string, worker: string): Promise<JobRecord | null> =>
    db.tx(async (q) => {
      const j = await lockJob(q, jobId);
      if (j === undefined) return null;
      if (j.status === 'completed') return toJob(j);
      if (j.status !== 'result_saved' || j.lease_owner !== worker || j.hold_id === null) return null;
      return failLocked(q, j, worker, 'HOLD_EXPIRED', 'The reservation expired before the job could be charged; nothing was charged and the result is withheld.');
    });

  return {
    submit: jobSubmitter(db, submitter),

    async get(accountId, id) {
      const r = await db.query<JobRow>(`SELECT ${JOB} FROM jobs j WHERE j.id = $1 AND j.account_id = $2`, [id, accountId]);
      const row = r.rows[0];
      if (row === undefined) return null;
      return toJob(row, (await transitionsOf(db, [row.id])).get(row.id) ?? []);
    },

    async list(accountId, lq) {
      const params: unknown[] = [accountId];
      let from = 'jobs j';
      let where = 'j.account_id = $1';
      if (lq.idempotencyKey !== undefined) {
        // From the key table's primary key to the job's (migration 0205): the only plan there
        // is, where a filter on jobs could scan the account's whole history.
        params.push(lq.idempotencyKey);
        from = 'job_idempotency_keys k JOIN jobs j ON j.id = k.job_id';
        where = `k.account_id = $1 AND k.idempotency_key = $${params.length}`;
      }
      if (lq.before !== undefined) {
        params.push(lq.before.createdAtMicros.toString(), lq.before.id);
        where += ` AND (j.created_at, j.id) < (timestamptz 'epoch' + $${params.length - 1}::bigint * interval '1 microsecond', $${params.length}::uuid)`;
      }
      params.push(lq.limit);
      const r = await db.query<JobRow>(`SELECT ${JOB} FROM ${from} WHERE ${where} ORDER BY j.created_at DESC, j.id DESC LIMIT $${params.length}`, params);
      const t = await transitionsOf(db, r.rows.map((x) => x.id));
      return r.rows.map((row) => toJob(row, t.get(row.id) ?? []));
    },

    async balance(accountId) {
      const w = await getWallet(db, accountId);
      return { availableMicros: w.availableMicros, heldMicros: w.heldMicros };
    },

    async claim(worker, leaseMs): Promise<Claim | null> {
      const r = await db.query<JobRow & { prev: Claim['previousStatus']; hold_status: string | null }>(
        CLAIM_JOB_SQL,
        [worker, leaseMs],
      );
      const row = r.rows[0];
      if (row === undefined) return null;
      return { job: toJob(row), previousStatus: row.prev, holdStatus: row.hold_status };
    },

    async markRerun(jobId, worker) {
      await transition(db, jobId, 'running', 'running', worker, 'previous worker lost its lease; running again');
    },

    async heartbeat(jobId, worker, leaseMs) {
      const r = await db.query(
        `UPDATE jobs SET lease_expires_at = clock_timestamp() + $3::int * interval '1 millisecond'
          WHERE id = $1 AND lease_owner = $2 AND status IN ('running', 'result_saved')`,
        [jobId, worker, leaseMs],
      );
      return r.rowCount > 0;
    },

    async saveResult(jobId, worker, result, leaseMs) {
      const r = await db.query(
        `WITH u AS (
           UPDATE jobs SET status = 'result_saved', result = $3::jsonb, lease_expires_at = clock_timestamp() + $4::int * interval '1 millisecond',
                  updated_at = clock_timestamp()
            WHERE id = $1 AND lease_owner = $2 AND status = 'running' RETURNING id)
         INSERT INTO job_transitions (job_id, from_status, to_status, worker) SELECT id, 'running', 'result_saved', $2 FROM u RETURNING job_id`,
        [jobId, worker, JSON.stringify(result), leaseMs],
      );
      return r.rows.length > 0;
    },

    async complete(jobId, worker) {
      // One statement (migrations 0203, 0401): the capture goes through the ledger's ledger_capture.
      const r = await db.query<{ r: { outcome: 'completed' | 'lease_lost' | 'hold_lapsed'; job?: unknown; error?: string } }>('SELECT jobs_complete($1, $2) AS r', [jobId, worker]);
      const o = r.rows[0]?.r;
      if (o?.outcome === 'completed') return toJob(o.job as JobRow);
      if (o?.outcome === 'lease_lost') return null;
      if (o?.outcome !== 'hold_lapsed' || o.error === undefined) throw new Error(`jobs_complete returned ${JSON.stringify(o)}`);
      const refusal = JSON.parse(o.error) as LedgerRefusal;
      if (refusal.code === 'HOLD_NOT_PENDING') return failLapsed(jobId, worker);
      throw ledgerError(refusal);
    },

    fail: (jobId, worker, code, message) =>
      db.tx(async (q) => {
        const j = await lockJob(q, jobId);
        if (j === undefined) return null;
        if (j.status === 'completed' || j.status === 'failed') return worker === null ? toJob(j) : null;
        if (worker !== null && j.lease_owner !== worker) return null;
        return failLocked(q, j, worker, code, message);
      }),
  };
}
