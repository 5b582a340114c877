/**
 * SQL of the execution domain (tables of migration 0300). Every function takes the
 * caller's `Queryable`, so a job row and its money movement commit together.
 */
import { EXECUTION_STATE_MACHINE, type ExecutionJob, type ExecutionStatus, type NewExecutionJob } from '../../execution/execution-job.js';
import { EXECUTION_ERRORS, EXECUTION_FAILURE } from '../../execution/error-codes.js';
import { fail } from '../../errors/app-error.js';
import type { ExecutionClaim } from '../../execution/ports.js';
import type { Heartbeat } from '../../queue/queue-worker.js';
import type { Queryable } from '../db.js';
import { claimNext, defineQueueTable, defer, finish, heartbeat as queueHeartbeat, lockItem, lockOwned, openItemsOfAccount, recordTransition, SqlExpr, takeOver } from '../queue/pg-queue.js';

/** The execution_jobs table on the one queue (src/store/queue/pg-queue.ts). */
export const EXECUTION_QUEUE = defineQueueTable<ExecutionStatus>({
  table: 'execution_jobs',
  events: 'execution_job_events',
  machine: EXECUTION_STATE_MACHINE,
  columns: (a) => `${a}.*`,
  // A remote job already accepted by the provider is polled, not run: polls are not attempts.
  resumes: 'j.remote_job_id IS NOT NULL',
  onClaim: ['started_at = COALESCE(j.started_at, clock_timestamp())'],
  onFinish: ['finished_at = clock_timestamp()'],
});

/** The worker's claim ($1 worker id, $2 lease in ms); tests EXPLAIN it. */
export const CLAIM_EXECUTION_JOB_SQL = EXECUTION_QUEUE.claimSql;

export async function addEvent(q: Queryable, jobId: string, from: ExecutionStatus | null, to: ExecutionStatus, worker: string | null, note: string | null): Promise<void> {
  await recordTransition(q, EXECUTION_QUEUE, jobId, from, to, worker, note);
}

/**
 * Inserts the job and records its client token in the one idempotency table (scope 'execution',
 * migrations 0500, 0502), unless the token is recorded already or a concurrent transaction is
 * recording it: null then. `q` must be a transaction (the claim's lock lasts until its end).
 */
export async function insertJob(q: Queryable, j: NewExecutionJob): Promise<ExecutionJob | null> {
  if (j.maxOpenSimulator !== undefined) {
    if ((await openItemsOfAccount(q, EXECUTION_QUEUE, j.accountId, "kind = 'simulator'")) >= j.maxOpenSimulator) {
      throw fail(EXECUTION_ERRORS.EXECUTION_TOO_MANY_OPEN, `This account already has ${j.maxOpenSimulator} simulator jobs queued or running: wait for one to end or cancel one.`, {
        max_open: j.maxOpenSimulator,
      });
    }
  }
  const claim = await q.query<{ outcome: string }>("SELECT outcome FROM idempotency_claim($1::text, 'execution', idempotency_hash($2), $3, NULL, NULL, false)", [
    j.accountId,
    j.clientToken,
    j.requestHash,
  ]);
  if (claim.rows[0]?.outcome !== 'new') return null;
  const r = await q.query<ExecutionJob>(
    `INSERT INTO execution_jobs (id, account_id, client_token, request_hash, provider, device, kind, driver, status, shots, seed, circuit,
        translation, hold_id, estimated_micros, attempts, lease_owner, lease_expires_at, started_at, run_options, submitted_by)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17,
        CASE WHEN $17::text IS NULL THEN NULL ELSE clock_timestamp() + $18::int * interval '1 millisecond' END,
        CASE WHEN $9 = 'running' THEN clock_timestamp() ELSE NULL END, $19, $20)
     RETURNING *`,
    [
      j.id,
      j.accountId,
      j.clientToken,
      j.requestHash,
      j.provider,
      j.device,
      j.kind,
      j.driver,
      j.status,
      j.shots,
      j.seed,
      JSON.stringify(j.circuit),
      j.translation === null ? null : JSON.stringify(j.translation),
      j.holdId,
      j.estimatedMicros.toString(),
      j.status === 'running' ? 1 : 0,
      j.leaseOwner ?? null,
      j.leaseMs ?? 0,
      j.runOptions === undefined || j.runOptions === null ? null : JSON.stringify(j.runOptions),
      j.submittedBy ?? null,
    ],
  );
  const row = r.rows[0];
  if (row === undefined) throw new Error(`execution job ${j.id} was not inserted`);
  await q.query("SELECT idempotency_record($1::text, 'execution', idempotency_hash($2), $3, $4)", [j.accountId, j.clientToken, j.requestHash, row.id]);
  await addEvent(q, row.id, null, row.status, j.leaseOwner ?? null, 'submitted');
  return row;
}

export async function getJob(q: Queryable, id: string): Promise<ExecutionJob | null> {
  const r = await q.query<ExecutionJob>('SELECT * FROM execution_jobs WHERE id = $1', [id]);
  return r.rows[0] ?? null;
}

/**
 * Claims a running job whose lease expired (a worker died, or a remote job is due for its next
 * poll), oldest lease first, else the oldest queued job. Attempts count runs, not polls.
 */
export async function claimJob(q: Queryable, worker: string, leaseMs: number): Promise<ExecutionClaim | null> {
  const row = await claimNext<ExecutionJob, ExecutionStatus>(q, EXECUTION_QUEUE, worker, leaseMs);
  if (row === undefined) return null;
  const { prev, hold_status, ...job } = row;
  return { id: job.id, attempts: job.attempts, job, previousStatus: prev, holdStatus: hold_status, cancelRequested: job.cancel_requested_at !== null, traceparent: job.traceparent ?? undefined };
}

/** A running job's progress report (ignored once it is no longer running: a late report never outlives the run). */
export async function saveProgress(q: Queryable, id: string, fraction: number, phase: string): Promise<void> {
  await q.query(`UPDATE execution_jobs SET progress = jsonb_build_object('fraction', $2::float8, 'phase', $3::text, 'at', now()) WHERE id = $1 AND status = 'running'`, [id, fraction, phase]);
}

/** Remembers the queuing request's trace so the workers' spans continue it (the jobs one request queued, in one statement). */
export async function saveTraceparent(q: Queryable, ids: readonly string[], traceparent: string): Promise<void> {
  await q.query('UPDATE execution_jobs SET traceparent = $2 WHERE id = ANY($1::uuid[])', [ids, traceparent]);
}

/**
 * Takes over a `running` job whose lease ran out (its worker or API process died): the caller
 * becomes its owner and runs it again. Null while the lease is live or the job has ended.
 */
export async function takeOverExpired(q: Queryable, id: string, worker: string, leaseMs: number): Promise<ExecutionJob | null> {
  return (await takeOver<ExecutionJob, ExecutionStatus>(q, EXECUTION_QUEUE, id, worker, leaseMs)) ?? null;
}

export function heartbeat(q: Queryable, id: string, worker: string, leaseMs: number): Promise<Heartbeat> {
  return queueHeartbeat(q, EXECUTION_QUEUE, id, worker, leaseMs);
}

/** Locks the job row whatever its state (the cancel request's transaction). */
export async function lockJob(q: Queryable, id: string): Promise<ExecutionJob | null> {
  return (await lockItem<ExecutionJob, ExecutionStatus>(q, EXECUTION_QUEUE, id)) ?? null;
}

/** Locks the job row if this worker still holds it (inside the settling transaction). */
export async function lockOwnedJob(q: Queryable, id: string, worker: string): Promise<ExecutionJob | null> {
  return (await lockOwned<ExecutionJob, ExecutionStatus>(q, EXECUTION_QUEUE, id, worker)) ?? null;
}

/** running → completed (the caller holds the row through lockOwnedJob). */
export async function markCompleted(q: Queryable, id: string, worker: string, result: unknown, actualMicros: bigint): Promise<void> {
  await finish(q, EXECUTION_QUEUE, id, 'running', 'completed', worker, { result: JSON.stringify(result), actual_micros: actualMicros.toString() });
}

/** → failed, nothing charged (the caller holds the row through lockOwnedJob). */
export async function markFailed(q: Queryable, id: string, worker: string | null, from: ExecutionStatus, code: string, message: string): Promise<void> {
  await finish(q, EXECUTION_QUEUE, id, from, 'failed', worker, { error_code: code, error_message: message, actual_micros: 0 }, code);
}

/** → failed / CANCELED with what the run consumed (and its result, when one was paid for); the caller locked the row and settled the hold. */
export async function markCanceled(q: Queryable, id: string, worker: string | null, from: ExecutionStatus, consumedMicros: bigint, result: unknown, message: string): Promise<void> {
  await finish(
    q,
    EXECUTION_QUEUE,
    id,
    from,
    EXECUTION_STATE_MACHINE.cancel.to,
    worker,
    { error_code: EXECUTION_FAILURE.CANCELED, error_message: message, actual_micros: consumedMicros.toString(), ...(result === null ? {} : { result: JSON.stringify(result) }) },
    EXECUTION_FAILURE.CANCELED,
  );
}

/** Written before a remote submission is sent: a job resumed with this set and no remote id was maybe submitted. */
export async function markSubmitStarted(q: Queryable, id: string, worker: string): Promise<boolean> {
  const r = await q.query(
    `UPDATE execution_jobs SET remote_submit_started_at = clock_timestamp(), updated_at = clock_timestamp()
      WHERE id = $1 AND lease_owner = $2 AND status = 'running' AND remote_job_id IS NULL`,
    [id, worker],
  );
  return r.rowCount > 0;
}

/** Parks a running job until `afterMs` (remote poll, or a retry after a transient failure). */
export async function parkJob(
  q: Queryable,
  id: string,
  worker: string,
  o: { afterMs: number; remoteJobId?: string; failed?: boolean; clearSubmit?: boolean; note?: string | undefined },
): Promise<boolean> {
  return defer(
    q,
    EXECUTION_QUEUE,
    id,
    worker,
    o.afterMs,
    {
      ...(o.remoteJobId === undefined ? {} : { remote_job_id: o.remoteJobId }),
      ...(o.failed === true ? { remote_failures: new SqlExpr('remote_failures + 1') } : {}),
      // The submission did not happen: it may be sent again, and this claim was not a run.
      ...(o.clearSubmit === true ? { remote_submit_started_at: null, attempts: new SqlExpr('GREATEST(attempts - 1, 0)') } : {}),
    },
    o.note,
  );
}

/** 1-based position among the device's queued jobs (oldest first); null when not queued. */
export async function queuePosition(q: Queryable, job: ExecutionJob): Promise<number | null> {
  if (job.status !== 'queued') return null;
  const r = await q.query<{ n: number }>(`SELECT count(*)::int AS n FROM execution_jobs WHERE device = $1 AND status = 'queued' AND (created_at, id) < ($2, $3)`, [job.device, job.created_at, job.id]);
  return (r.rows[0]?.n ?? 0) + 1;
}

/** Jobs waiting or running per device. */
export async function queueDepths(q: Queryable): Promise<Map<string, { queued: number; running: number }>> {
  const r = await q.query<{ device: string; queued: number; running: number }>(
    `SELECT device, count(*) FILTER (WHERE status = 'queued')::int AS queued, count(*) FILTER (WHERE status = 'running')::int AS running
       FROM execution_jobs WHERE status IN ('queued', 'running') GROUP BY device`,
  );
  return new Map(r.rows.map((x) => [x.device, { queued: x.queued, running: x.running }]));
}

export async function jobEvents(q: Queryable, id: string): Promise<Array<{ from_status: string | null; to_status: string; at: Date; note: string | null }>> {
  const r = await q.query<{ from_status: string | null; to_status: string; at: Date; note: string | null }>(
    'SELECT from_status, to_status, at, note FROM execution_job_events WHERE job_id = $1 ORDER BY id',
    [id],
  );
  return r.rows;
}

export async function deviceStatusOverrides(q: Queryable): Promise<Map<string, { status: 'online' | 'offline' | 'maintenance'; note: string | null }>> {
  const r = await q.query<{ device: string; status: 'online' | 'offline' | 'maintenance'; note: string | null }>('SELECT device, status, note FROM execution_device_status');
  return new Map(r.rows.map((x) => [x.device, { status: x.status, note: x.note }]));
}

export async function setDeviceStatusOverride(q: Queryable, device: string, status: 'online' | 'offline' | 'maintenance' | null, note: string | null): Promise<void> {
  if (status === null) {
    await q.query('DELETE FROM execution_device_status WHERE device = $1', [device]);
    return;
  }
  await q.query(
    `INSERT INTO execution_device_status (device, status, note) VALUES ($1, $2, $3)
     ON CONFLICT (device) DO UPDATE SET status = EXCLUDED.status, note = EXCLUDED.note, updated_at = now()`,
    [device, status, note],
  );
}
