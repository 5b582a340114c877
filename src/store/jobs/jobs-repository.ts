import { BILLING_ERRORS } from '../../billing/error-codes.js';
import { JOB_STATE_MACHINE, type JobRecord, type JobStatus } from '../../jobs/job.js';
import { DEFAULT_SUBMIT_BATCHING, type Claim, type JobsRepository } from '../../jobs/ports.js';
import { isTerminal } from '../../queue/state-machine.js';
import { JOB_FAILURE } from '../../jobs/error-codes.js';
import { ledgerError, type LedgerRefusal } from '../billing/ledger-error.js';
import { getWallet, releaseIfPending } from '../billing/ledger-sql.js';
import type { Database, Queryable } from '../db.js';
import { advance, claimNext, finish, heartbeat, lockItem, lockOwned, recordTransition } from '../queue/pg-queue.js';
import { JOBS_QUEUE } from './jobs-queue.js';
import { cancelJob, finishCanceledLocked } from './job-cancel-sql.js';
import { listQuery } from '../list-page.js';
import { jobListSql } from './job-list-sql.js';
import { JOB, toJob, transitionsOf, type JobRow } from './job-rows.js';
import { jobSubmitter, type SubmitterOptions } from './jobs-submission.js';

export { CLAIM_JOB_SQL, JOBS_QUEUE } from './jobs-queue.js';

/** Submissions' group commit when the caller does not say (JOBS_SUBMIT_BATCH_MAX, JOBS_SUBMIT_IN_FLIGHT). */
export const DEFAULT_SUBMITTER: SubmitterOptions = DEFAULT_SUBMIT_BATCHING;

export function pgJobsRepository(db: Database, submitter: SubmitterOptions = DEFAULT_SUBMITTER): JobsRepository {
  const failLocked = async (q: Queryable, j: JobRow, worker: string | null, code: string, message: string): Promise<JobRecord> => {
    if (j.hold_id !== null) {
      // Released if pending; one already released or expired stays so; a captured one is a bug.
      const refused = await releaseIfPending(q, j.hold_id, `job ${j.id} failed: ${code}`);
      if (refused?.code === BILLING_ERRORS.HOLD_NOT_PENDING.code) throw new Error(`job ${j.id} cannot fail: its hold was captured`);
    }
    return toJob(await finish<JobRow, JobStatus>(q, JOBS_QUEUE, j.id, j.status, 'failed', worker, { error_code: code, error_message: message }, code));
  };

  /** The hold lapsed before the charge (jobs_complete moved nothing): the job fails, nothing charged, no result given. */
  const failLapsed = (jobId: string, worker: string): Promise<JobRecord | null> =>
    db.tx(async (q) => {
      const j = await lockItem<JobRow, JobStatus>(q, JOBS_QUEUE, jobId);
      if (j === undefined) return null;
      if (j.status === 'completed') return toJob(j);
      if (j.status !== 'result_saved' || j.lease_owner !== worker || j.hold_id === null) return null;
      return failLocked(q, j, worker, JOB_FAILURE.HOLD_EXPIRED, 'The reservation expired before the job could be charged; nothing was charged and the result is withheld.');
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
      const { sql, params } = jobListSql(accountId, lq);
      const rows = await listQuery<JobRow>(db, sql, params);
      const t = await transitionsOf(
        db,
        rows.map((x) => x.id),
      );
      return rows.map((row) => toJob(row, t.get(row.id) ?? []));
    },

    async balance(accountId) {
      const w = await getWallet(db, accountId);
      return { availableMicros: w.availableMicros, heldMicros: w.heldMicros };
    },

    async claim(worker, leaseMs): Promise<Claim | null> {
      const row = await claimNext<JobRow, JobStatus>(db, JOBS_QUEUE, worker, leaseMs);
      if (row === undefined) return null;
      const job = toJob(row);
      const previousStatus = row.prev as Claim['previousStatus'];
      return {
        id: job.id,
        attempts: job.attempts,
        job,
        previousStatus,
        holdStatus: row.hold_status,
        cancelRequested: job.cancelRequestedAt !== null,
        // A job is queued when it is submitted: its first claim waited since then.
        claimableSince: previousStatus === 'queued' ? job.createdAt : undefined,
        traceparent: row.traceparent ?? undefined,
      };
    },

    cancel: (accountId, jobId, requestId) =>
      db.tx(async (q) => {
        // The release's money event (migration 1811's trigger) takes the request id from the transaction.
        if (requestId !== undefined) await q.query("SELECT set_config('qrail.request_id', $1, true)", [requestId]);
        return cancelJob(q, accountId, jobId);
      }),

    async saveTraceparent(jobId, traceparent) {
      await db.query('UPDATE jobs SET traceparent = $2 WHERE id = $1', [jobId, traceparent]);
    },

    finishCanceled: (jobId, worker) =>
      db.tx(async (q) => {
        const j = await lockOwned<JobRow, JobStatus>(q, JOBS_QUEUE, jobId, worker);
        if (j === undefined || j.cancel_requested_at === null) return null;
        return finishCanceledLocked(q, j, worker);
      }),

    async markRerun(jobId, worker) {
      await recordTransition(db, JOBS_QUEUE, jobId, 'running', 'running', worker, 'previous worker lost its lease; running again');
    },

    heartbeat: (jobId, worker, leaseMs) => heartbeat(db, JOBS_QUEUE, jobId, worker, leaseMs),

    // A charge below the reservation (a batch) is stored with the result: jobs_complete captures it (migration 1451).
    saveResult: (jobId, worker, result, leaseMs, charge) =>
      advance(
        db,
        JOBS_QUEUE,
        jobId,
        worker,
        'running',
        'result_saved',
        {
          result: JSON.stringify(result),
          ...(charge === undefined ? {} : { capture_micros: charge.captureMicros.toString(), receipt_lines: JSON.stringify(charge.lines) }),
        },
        leaseMs,
      ),

    async complete(jobId, worker) {
      // One statement (migrations 0203, 0401): the capture goes through the ledger's ledger_capture.
      const r = await db.query<{ r: { outcome: 'completed' | 'lease_lost' | 'hold_lapsed'; job?: unknown; error?: string } }>('SELECT jobs_complete($1, $2) AS r', [jobId, worker]);
      const o = r.rows[0]?.r;
      if (o?.outcome === 'completed') return toJob(o.job as JobRow);
      if (o?.outcome === 'lease_lost') return null;
      if (o?.outcome !== 'hold_lapsed' || o.error === undefined) throw new Error(`jobs_complete returned ${JSON.stringify(o)}`);
      const refusal = JSON.parse(o.error) as LedgerRefusal;
      if (refusal.code === BILLING_ERRORS.HOLD_NOT_PENDING.code) return failLapsed(jobId, worker);
      throw ledgerError(refusal);
    },

    fail: (jobId, worker, code, message) =>
      db.tx(async (q) => {
        const j = await lockItem<JobRow, JobStatus>(q, JOBS_QUEUE, jobId);
        if (j === undefined) return null;
        if (isTerminal(JOB_STATE_MACHINE, j.status)) return worker === null ? toJob(j) : null;
        if (worker !== null && j.lease_owner !== worker) return null;
        // Asked to stop before it failed: it ends as the cancel said (the same money: nothing captured).
        if (worker !== null && j.cancel_requested_at !== null) return finishCanceledLocked(q, j, worker);
        return failLocked(q, j, worker, code, message);
      }),
  };
}
