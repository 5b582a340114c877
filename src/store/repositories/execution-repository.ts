/**
 * SQL of the execution domain (tables of migration 0300). Every function takes the
 * caller's `Queryable`, so a job row and its money movement commit together.
 */
import type { Database, Queryable } from '../db.js';

export type ExecutionStatus = 'queued' | 'running' | 'completed' | 'failed';

export interface ExecutionJobRow {
  id: string;
  account_id: string;
  client_token: string;
  request_hash: string;
  provider: string;
  device: string;
  kind: 'simulator' | 'hardware';
  driver: 'simulator' | 'emulated' | 'remote';
  status: ExecutionStatus;
  shots: number;
  seed: string | number | bigint;
  circuit: unknown;
  translation: Record<string, unknown> | null;
  hold_id: string | null;
  estimated_micros: string | number | bigint;
  actual_micros: string | number | bigint | null;
  result: Record<string, unknown> | null;
  error_code: string | null;
  error_message: string | null;
  remote_job_id: string | null;
  remote_submit_started_at: Date | null;
  remote_failures: number;
  attempts: number;
  lease_owner: string | null;
  lease_expires_at: Date | null;
  created_at: Date;
  updated_at: Date;
  started_at: Date | null;
  finished_at: Date | null;
}

export interface NewExecutionJob {
  readonly id: string;
  readonly accountId: string;
  readonly clientToken: string;
  readonly requestHash: string;
  readonly provider: string;
  readonly device: string;
  readonly kind: 'simulator' | 'hardware';
  readonly driver: 'simulator' | 'emulated' | 'remote';
  readonly status: 'queued' | 'running';
  readonly shots: number;
  readonly seed: number;
  readonly circuit: unknown;
  readonly translation: unknown;
  readonly holdId: string | null;
  readonly estimatedMicros: bigint;
  /** For a run the API process does itself: its lease. */
  readonly leaseOwner?: string;
  readonly leaseMs?: number;
}

export async function addEvent(q: Queryable, jobId: string, from: string | null, to: string, worker: string | null, note: string | null): Promise<void> {
  await q.query('INSERT INTO execution_job_events (job_id, from_status, to_status, worker, note) VALUES ($1, $2, $3, $4, $5)', [jobId, from, to, worker, note]);
}

/** Inserts the job unless the account already used the client token; null then. */
export async function insertJob(q: Queryable, j: NewExecutionJob): Promise<ExecutionJobRow | null> {
  const r = await q.query<ExecutionJobRow>(
    `INSERT INTO execution_jobs (id, account_id, client_token, request_hash, provider, device, kind, driver, status, shots, seed, circuit,
        translation, hold_id, estimated_micros, attempts, lease_owner, lease_expires_at, started_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17,
        CASE WHEN $17::text IS NULL THEN NULL ELSE clock_timestamp() + $18::int * interval '1 millisecond' END,
        CASE WHEN $9 = 'running' THEN clock_timestamp() ELSE NULL END)
     ON CONFLICT (account_id, client_token) DO NOTHING RETURNING *`,
    [j.id, j.accountId, j.clientToken, j.requestHash, j.provider, j.device, j.kind, j.driver, j.status, j.shots, j.seed,
      JSON.stringify(j.circuit), j.translation === null ? null : JSON.stringify(j.translation), j.holdId, j.estimatedMicros.toString(),
      j.status === 'running' ? 1 : 0, j.leaseOwner ?? null, j.leaseMs ?? 0],
  );
  const row = r.rows[0];
  if (row !== undefined) await addEvent(q, row.id, null, row.status, j.leaseOwner ?? null, 'submitted');
  return row ?? null;
}

export async function findJobByToken(q: Queryable, accountId: string, clientToken: string): Promise<ExecutionJobRow | null> {
  const r = await q.query<ExecutionJobRow>('SELECT * FROM execution_jobs WHERE account_id = $1 AND client_token = $2', [accountId, clientToken]);
  return r.rows[0] ?? null;
}

export async function getJob(q: Queryable, id: string): Promise<ExecutionJobRow | null> {
  const r = await q.query<ExecutionJobRow>('SELECT * FROM execution_jobs WHERE id = $1', [id]);
  return r.rows[0] ?? null;
}

export interface ExecutionClaim {
  readonly job: ExecutionJobRow;
  readonly previousStatus: ExecutionStatus;
  readonly holdStatus: string | null;
}

/**
 * Claims the oldest job that is queued, or running with an expired lease (a worker died, or
 * a remote job is due for its next poll). Attempts count runs, not polls.
 */
export async function claimJob(db: Database, worker: string, leaseMs: number): Promise<ExecutionClaim | null> {
  const r = await db.query<ExecutionJobRow & { prev: ExecutionStatus; hold_status: string | null }>(
    `WITH c AS (
       SELECT id, status AS prev FROM execution_jobs
        WHERE status = 'queued' OR (status = 'running' AND lease_expires_at < clock_timestamp())
        ORDER BY created_at LIMIT 1 FOR UPDATE SKIP LOCKED),
     u AS (
       UPDATE execution_jobs j SET status = 'running', lease_owner = $1,
              lease_expires_at = clock_timestamp() + $2::int * interval '1 millisecond',
              attempts = CASE WHEN j.remote_job_id IS NULL THEN j.attempts + 1 ELSE j.attempts END,
              started_at = COALESCE(j.started_at, clock_timestamp()), updated_at = clock_timestamp()
         FROM c WHERE j.id = c.id
       RETURNING j.*, c.prev)
     SELECT u.*, h.status AS hold_status FROM u LEFT JOIN billing_holds h ON h.id = u.hold_id`,
    [worker, leaseMs],
  );
  const row = r.rows[0];
  if (row === undefined) return null;
  if (row.prev === 'queued') await addEvent(db, row.id, 'queued', 'running', worker, null);
  const { prev, hold_status, ...job } = row;
  return { job, previousStatus: prev, holdStatus: hold_status };
}

/**
 * Takes over a `running` job whose lease ran out (its worker or API process died): the caller
 * becomes its owner and runs it again. Null while the lease is live or the job has ended.
 */
export async function takeOverExpired(db: Database, id: string, worker: string, leaseMs: number): Promise<ExecutionJobRow | null> {
  const r = await db.query<ExecutionJobRow>(
    `UPDATE execution_jobs SET lease_owner = $2, lease_expires_at = clock_timestamp() + $3::int * interval '1 millisecond',
            attempts = attempts + 1, updated_at = clock_timestamp()
      WHERE id = $1 AND status = 'running' AND lease_expires_at < clock_timestamp()
      RETURNING *`,
    [id, worker, leaseMs],
  );
  return r.rows[0] ?? null;
}

export async function heartbeat(q: Queryable, id: string, worker: string, leaseMs: number): Promise<boolean> {
  const r = await q.query(
    `UPDATE execution_jobs SET lease_expires_at = clock_timestamp() + $3::int * interval '1 millisecond'
      WHERE id = $1 AND lease_owner = $2 AND status = 'running'`,
    [id, worker, leaseMs],
  );
  return r.rowCount > 0;
}

/** Locks the job row if this worker still holds it (inside the settling transaction). */
export async function lockOwnedJob(q: Queryable, id: string, worker: string): Promise<ExecutionJobRow | null> {
  const r = await q.query<ExecutionJobRow>(`SELECT * FROM execution_jobs WHERE id = $1 AND lease_owner = $2 AND status = 'running' FOR UPDATE`, [id, worker]);
  return r.rows[0] ?? null;
}

export async function markCompleted(q: Queryable, id: string, worker: string, result: unknown, actualMicros: bigint): Promise<void> {
  await q.query(
    `UPDATE execution_jobs SET status = 'completed', result = $2, actual_micros = $3, lease_owner = NULL, lease_expires_at = NULL,
       finished_at = clock_timestamp(), updated_at = clock_timestamp() WHERE id = $1`,
    [id, JSON.stringify(result), actualMicros.toString()],
  );
  await addEvent(q, id, 'running', 'completed', worker, null);
}

export async function markFailed(q: Queryable, id: string, worker: string | null, from: ExecutionStatus, code: string, message: string): Promise<void> {
  await q.query(
    `UPDATE execution_jobs SET status = 'failed', error_code = $2, error_message = $3, actual_micros = 0, lease_owner = NULL, lease_expires_at = NULL,
       finished_at = clock_timestamp(), updated_at = clock_timestamp() WHERE id = $1`,
    [id, code, message],
  );
  await addEvent(q, id, from, 'failed', worker, code);
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
export async function parkJob(q: Queryable, id: string, worker: string, o: { afterMs: number; remoteJobId?: string; failed?: boolean; clearSubmit?: boolean; note?: string | undefined }): Promise<boolean> {
  const r = await q.query(
    `UPDATE execution_jobs SET lease_owner = NULL, lease_expires_at = clock_timestamp() + $3::int * interval '1 millisecond',
       remote_job_id = COALESCE($4, remote_job_id), remote_failures = remote_failures + CASE WHEN $5 THEN 1 ELSE 0 END,
       remote_submit_started_at = CASE WHEN $6 THEN NULL ELSE remote_submit_started_at END,
       attempts = CASE WHEN $6 THEN GREATEST(attempts - 1, 0) ELSE attempts END, updated_at = clock_timestamp()
      WHERE id = $1 AND lease_owner = $2 AND status = 'running'`,
    [id, worker, o.afterMs, o.remoteJobId ?? null, o.failed === true, o.clearSubmit === true],
  );
  if (r.rowCount > 0 && o.note !== undefined) await addEvent(q, id, 'running', 'running', worker, o.note);
  return r.rowCount > 0;
}

/** 1-based position among the device's queued jobs (oldest first); null when not queued. */
export async function queuePosition(q: Queryable, job: ExecutionJobRow): Promise<number | null> {
  if (job.status !== 'queued') return null;
  const r = await q.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM execution_jobs WHERE device = $1 AND status = 'queued' AND (created_at, id) < ($2, $3)`,
    [job.device, job.created_at, job.id],
  );
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

/**
 * A continued hardware job keeps its funds while it waits and runs: its hold's expiry is
 * moved out to the run window (billing's sweeper only expires pending holds past expiry).
 */
export async function extendHoldExpiry(q: Queryable, holdId: string, seconds: number): Promise<void> {
  await q.query(
    `UPDATE billing_holds SET expires_at = GREATEST(expires_at, now() + $2::int * interval '1 second') WHERE id = $1 AND status = 'pending'`,
    [holdId, seconds],
  );
}

/** Held jobs of the account that can still be continued. */
export async function openHeldJobs(q: Queryable, accountId: string): Promise<Array<{ job_id: string; device: string; expires_at: Date }>> {
  const r = await q.query<{ job_id: string; device: string; expires_at: Date }>(
    `SELECT job_id, device, expires_at FROM billing_held_jobs WHERE account_id = $1 AND status = 'held' AND expires_at > now() ORDER BY created_at`,
    [accountId],
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
