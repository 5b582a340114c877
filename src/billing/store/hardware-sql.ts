import { randomUUID } from 'node:crypto';
import { fail } from '../../errors/app-error.js';
import type { Queryable } from '../../store/db.js';
import { claimEffect, findEffect } from '../../store/repositories/idempotency-repository.js';
import { BILLING_ERRORS } from '../error-codes.js';
import type { DevicePrice } from '../hardware-pricing.js';
import { quoteTotal } from '../hardware-pricing.js';
import { lockWallet, placeHold, releaseHold, type ReleaseResult } from './ledger-sql.js';

export interface QuoteRecord {
  readonly id: string;
  readonly accountId: string;
  readonly provider: string;
  readonly device: string;
  readonly shots: number;
  readonly tasks: number;
  readonly perTaskMicros: bigint;
  readonly perShotMicros: bigint;
  readonly totalMicros: bigint;
  readonly validUntil: Date;
  readonly createdAt: Date;
}

export type HeldJobStatus = 'held' | 'continued' | 'released' | 'expired';

export interface HeldJobRecord {
  readonly jobId: string;
  readonly accountId: string;
  readonly quoteId: string;
  readonly holdId: string;
  readonly provider: string;
  readonly device: string;
  readonly shots: number;
  readonly tasks: number;
  readonly amountMicros: bigint;
  readonly status: HeldJobStatus;
  readonly expiresAt: Date;
  readonly createdAt: Date;
  readonly updatedAt: Date;
}

interface QuoteRow {
  id: string; account_id: string; provider: string; device: string; shots: number; tasks: number;
  per_task_micros: bigint; per_shot_micros: bigint; total_micros: bigint; valid_until: Date; created_at: Date;
}
interface HeldRow {
  job_id: string; account_id: string; quote_id: string; hold_id: string; provider: string; device: string; shots: number; tasks: number;
  amount_micros: bigint; status: HeldJobStatus; expires_at: Date; created_at: Date; updated_at: Date;
}

const toQuote = (r: QuoteRow): QuoteRecord => ({
  id: r.id, accountId: r.account_id, provider: r.provider, device: r.device, shots: Number(r.shots), tasks: Number(r.tasks),
  perTaskMicros: BigInt(r.per_task_micros), perShotMicros: BigInt(r.per_shot_micros), totalMicros: BigInt(r.total_micros),
  validUntil: new Date(r.valid_until), createdAt: new Date(r.created_at),
});
const toHeld = (r: HeldRow): HeldJobRecord => ({
  jobId: r.job_id, accountId: r.account_id, quoteId: r.quote_id, holdId: r.hold_id, provider: r.provider, device: r.device,
  shots: Number(r.shots), tasks: Number(r.tasks), amountMicros: BigInt(r.amount_micros), status: r.status,
  expiresAt: new Date(r.expires_at), createdAt: new Date(r.created_at), updatedAt: new Date(r.updated_at),
});

export async function createQuote(q: Queryable, i: { accountId: string; price: DevicePrice; shots: number; tasks: number; validUntil: Date }): Promise<QuoteRecord> {
  const f = quoteTotal(i.price, i.shots, i.tasks);
  const r = await q.query<QuoteRow>(
    `INSERT INTO billing_hardware_quotes (id, account_id, provider, device, shots, tasks, per_task_micros, per_shot_micros, total_micros, valid_until)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) RETURNING *`,
    [randomUUID(), i.accountId, i.price.provider, i.price.device, i.shots, i.tasks, f.perTaskMicros.toString(), f.perShotMicros.toString(), f.totalMicros.toString(), i.validUntil],
  );
  return toQuote(r.rows[0] as QuoteRow);
}

/** The account's quote and the held job already placed for it (null: none), or null when there is no such quote. */
export async function findQuote(q: Queryable, accountId: string, quoteId: string): Promise<{ quote: QuoteRecord; heldJobId: string | null } | null> {
  const r = await q.query<QuoteRow & { held_job_id: string | null }>(
    `SELECT qu.*, hj.job_id AS held_job_id FROM billing_hardware_quotes qu LEFT JOIN billing_held_jobs hj ON hj.quote_id = qu.id
      WHERE qu.id = $1 AND qu.account_id = $2`,
    [quoteId, accountId],
  );
  const row = r.rows[0];
  return row === undefined ? null : { quote: toQuote(row), heldJobId: row.held_job_id };
}

/**
 * Reserves a quote's amount and creates the held job, in one transaction. One hold per
 * quote: a second hold for the same quote → 409 QUOTE_ALREADY_USED naming the job — unless it
 * is the retry of the Idempotency-Key run (`runToken`) that placed that hold and died before its
 * answer was stored: that retry gets the held job, as the first run would have answered.
 */
export async function holdQuote(q: Queryable, i: { accountId: string; quoteId: string; expiresAt: Date; now: Date; runToken?: string | undefined }): Promise<HeldJobRecord> {
  const qr = (await q.query<QuoteRow>('SELECT * FROM billing_hardware_quotes WHERE id = $1 AND account_id = $2', [i.quoteId, i.accountId])).rows[0];
  if (qr === undefined) throw fail(BILLING_ERRORS.QUOTE_NOT_FOUND, `No quote ${i.quoteId}.`);
  const quote = toQuote(qr);
  const used = (await q.query<{ job_id: string }>('SELECT job_id FROM billing_held_jobs WHERE quote_id = $1', [quote.id])).rows[0];
  if (used !== undefined) {
    if (i.runToken !== undefined && (await findEffect(q, i.runToken, 'hardware_hold')) === used.job_id) {
      const mine = await getHeldJob(q, used.job_id);
      if (mine !== null) return mine;
    }
    throw fail(BILLING_ERRORS.QUOTE_ALREADY_USED, 'A hold was already placed for this quote.', { job_id: used.job_id });
  }
  if (quote.validUntil.getTime() < i.now.getTime()) {
    throw fail(BILLING_ERRORS.QUOTE_EXPIRED, `The quote expired at ${quote.validUntil.toISOString()}; ask for a new one.`, { valid_until: quote.validUntil.toISOString() });
  }
  const jobId = randomUUID();
  const { holdId } = await placeHold(q, {
    accountId: i.accountId, amountMicros: quote.totalMicros, kind: 'hardware', refId: jobId,
    description: `hardware ${quote.provider}/${quote.device}: ${quote.tasks} task(s) × ${quote.shots} shots`,
    expiresAt: i.expiresAt, product: 'product-one', provider: quote.provider, now: i.now,
  });
  const r = await q.query<HeldRow>(
    `INSERT INTO billing_held_jobs (job_id, account_id, quote_id, hold_id, provider, device, shots, tasks, amount_micros, status, expires_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, 'held', $10) ON CONFLICT (quote_id) DO NOTHING RETURNING *`,
    [jobId, i.accountId, quote.id, holdId, quote.provider, quote.device, quote.shots, quote.tasks, quote.totalMicros.toString(), i.expiresAt],
  );
  if (r.rows[0] === undefined) throw fail(BILLING_ERRORS.QUOTE_ALREADY_USED, 'A hold was already placed for this quote.');
  if (i.runToken !== undefined) await claimEffect(q, i.runToken, 'hardware_hold', jobId);
  return toHeld(r.rows[0]);
}

export async function getHeldJob(q: Queryable, jobId: string): Promise<HeldJobRecord | null> {
  const r = await q.query<HeldRow>('SELECT * FROM billing_held_jobs WHERE job_id = $1', [jobId]);
  return r.rows[0] === undefined ? null : toHeld(r.rows[0]);
}

/**
 * Locks a held job for a change of state (release, continuation) in the lock order every
 * such path follows: the account's wallet row first, then the held job row, then — through
 * the ledger — the hold row. The hold expiry sweeper takes the wallet first too, so two of
 * them on one job queue behind the wallet lock instead of deadlocking (a release and a
 * continuation used to lock hold → held job and held job → hold). Returns the held job as
 * it is under the lock; null when the account has no such held job.
 */
export async function lockHeldJob(q: Queryable, accountId: string, jobId: string): Promise<HeldJobRecord | null> {
  await lockWallet(q, accountId);
  const r = await q.query<HeldRow>('SELECT * FROM billing_held_jobs WHERE job_id = $1 AND account_id = $2 FOR UPDATE', [jobId, accountId]);
  return r.rows[0] === undefined ? null : toHeld(r.rows[0]);
}

/**
 * Releases a held job's funds — exactly once. Releasing again returns the first outcome
 * (`alreadyReleased: true`); a job execution already continued (captured) → 409. The state
 * is read under `lockHeldJob`, so a continuation committed a moment earlier is seen.
 */
export async function releaseHeldJob(q: Queryable, i: { accountId: string; jobId: string; reason: string }): Promise<{ job: HeldJobRecord; release: ReleaseResult }> {
  const job = await lockHeldJob(q, i.accountId, i.jobId);
  if (job === null) throw fail(BILLING_ERRORS.HOLD_NOT_FOUND, `No held job ${i.jobId}.`);
  if (job.status === 'continued') {
    throw fail(BILLING_ERRORS.HOLD_NOT_PENDING, 'The held job was already continued: it is queued or running, and its funds are settled when it finishes.', { status: 'continued', job_id: job.jobId });
  }
  const release = await releaseHold(q, { holdId: job.holdId, reason: i.reason, accountId: i.accountId });
  const r = await q.query<HeldRow>(
    `UPDATE billing_held_jobs SET status = CASE WHEN status = 'held' THEN $2 ELSE status END, updated_at = now()
      WHERE job_id = $1 RETURNING *`,
    [i.jobId, release.status],
  );
  return { job: toHeld(r.rows[0] as HeldRow), release };
}

/** Called by the expiry sweeper in the expiring transaction. */
export async function markHeldJobExpired(q: Queryable, holdId: string): Promise<void> {
  await q.query(`UPDATE billing_held_jobs SET status = 'expired', updated_at = now() WHERE hold_id = $1 AND status IN ('held', 'continued')`, [holdId]);
}

/**
 * For execution: marks a held job as taken for running (only from `held`). Returns the job,
 * or null when it is not in `held` (already continued, released or expired). Call it after
 * `lockHeldJob` in the same transaction (the lock order).
 */
export async function markHeldJobContinued(q: Queryable, jobId: string): Promise<HeldJobRecord | null> {
  const r = await q.query<HeldRow>(
    `UPDATE billing_held_jobs SET status = 'continued', updated_at = now() WHERE job_id = $1 AND status = 'held' RETURNING *`,
    [jobId],
  );
  return r.rows[0] === undefined ? null : toHeld(r.rows[0]);
}
