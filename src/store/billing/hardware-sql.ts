/** The HardwareStore port (src/billing/ports.ts): hardware quotes and held jobs. */
import { randomUUID } from 'node:crypto';
import type { HardwareStore } from '../../billing/ports.js';
import type { HeldJobRecord, HeldJobStatus, QuoteRecord } from '../../billing/records.js';
import type { Queryable } from '../db.js';
import { claimEffect, findEffect } from '../repositories/idempotency-repository.js';
import { lockWallet } from './ledger-sql.js';
import { queryable } from './unit-of-work.js';

interface QuoteRow {
  id: string;
  account_id: string;
  provider: string;
  device: string;
  shots: number;
  tasks: number;
  per_task_micros: bigint;
  per_shot_micros: bigint;
  total_micros: bigint;
  valid_until: Date;
  created_at: Date;
}
interface HeldRow {
  job_id: string;
  account_id: string;
  quote_id: string;
  hold_id: string;
  provider: string;
  device: string;
  shots: number;
  tasks: number;
  tasks_used: number;
  amount_micros: bigint;
  status: HeldJobStatus;
  expires_at: Date;
  created_at: Date;
  updated_at: Date;
  submitted_by?: string | null;
}

const toQuote = (r: QuoteRow): QuoteRecord => ({
  id: r.id,
  accountId: r.account_id,
  provider: r.provider,
  device: r.device,
  shots: Number(r.shots),
  tasks: Number(r.tasks),
  perTaskMicros: BigInt(r.per_task_micros),
  perShotMicros: BigInt(r.per_shot_micros),
  totalMicros: BigInt(r.total_micros),
  validUntil: new Date(r.valid_until),
  createdAt: new Date(r.created_at),
});
const toHeld = (r: HeldRow): HeldJobRecord => ({
  jobId: r.job_id,
  accountId: r.account_id,
  quoteId: r.quote_id,
  holdId: r.hold_id,
  provider: r.provider,
  device: r.device,
  shots: Number(r.shots),
  tasks: Number(r.tasks),
  tasksUsed: Number(r.tasks_used),
  amountMicros: BigInt(r.amount_micros),
  status: r.status,
  expiresAt: new Date(r.expires_at),
  createdAt: new Date(r.created_at),
  updatedAt: new Date(r.updated_at),
  submittedBy: r.submitted_by ?? null,
});

export async function getHeldJob(q: Queryable, jobId: string): Promise<HeldJobRecord | null> {
  const r = await q.query<HeldRow>('SELECT * FROM billing_held_jobs WHERE job_id = $1', [jobId]);
  return r.rows[0] === undefined ? null : toHeld(r.rows[0]);
}

export const sqlHardwareStore: HardwareStore = {
  async createQuote(tx, i) {
    const r = await queryable(tx).query<QuoteRow>(
      `INSERT INTO billing_hardware_quotes (id, account_id, provider, device, shots, tasks, per_task_micros, per_shot_micros, total_micros, valid_until)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) RETURNING *`,
      [randomUUID(), i.accountId, i.provider, i.device, i.shots, i.tasks, i.perTaskMicros.toString(), i.perShotMicros.toString(), i.totalMicros.toString(), i.validUntil],
    );
    return toQuote(r.rows[0] as QuoteRow);
  },

  async quote(tx, accountId, quoteId) {
    const r = await queryable(tx).query<QuoteRow>('SELECT * FROM billing_hardware_quotes WHERE id = $1 AND account_id = $2', [quoteId, accountId]);
    return r.rows[0] === undefined ? null : toQuote(r.rows[0]);
  },

  async heldJobOfQuote(tx, quoteId) {
    const r = await queryable(tx).query<{ job_id: string }>('SELECT job_id FROM billing_held_jobs WHERE quote_id = $1', [quoteId]);
    return r.rows[0]?.job_id ?? null;
  },

  async insertHeldJob(tx, j) {
    const r = await queryable(tx).query<HeldRow>(
      `INSERT INTO billing_held_jobs (job_id, account_id, quote_id, hold_id, provider, device, shots, tasks, amount_micros, status, expires_at, submitted_by)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, 'held', $10, $11) ON CONFLICT (quote_id) DO NOTHING RETURNING *`,
      [j.jobId, j.accountId, j.quoteId, j.holdId, j.provider, j.device, j.shots, j.tasks, j.amountMicros.toString(), j.expiresAt, j.submittedBy],
    );
    return r.rows[0] === undefined ? null : toHeld(r.rows[0]);
  },

  getHeldJob: (tx, jobId) => getHeldJob(queryable(tx), jobId),

  async lockHeldJob(tx, accountId, jobId) {
    const q = queryable(tx);
    await lockWallet(q, accountId);
    const r = await q.query<HeldRow>('SELECT * FROM billing_held_jobs WHERE job_id = $1 AND account_id = $2 FOR UPDATE', [jobId, accountId]);
    return r.rows[0] === undefined ? null : toHeld(r.rows[0]);
  },

  async resolveHeldJob(tx, jobId, to) {
    const r = await queryable(tx).query<HeldRow>(
      `UPDATE billing_held_jobs SET status = CASE WHEN status = 'held' THEN $2 ELSE status END, updated_at = now()
        WHERE job_id = $1 RETURNING *`,
      [jobId, to],
    );
    return toHeld(r.rows[0] as HeldRow);
  },

  async markHeldJobExpired(tx, holdId) {
    await queryable(tx).query(`UPDATE billing_held_jobs SET status = 'expired', updated_at = now() WHERE hold_id = $1 AND status IN ('held', 'continued')`, [holdId]);
  },

  async markHeldJobContinued(tx, jobId) {
    const r = await queryable(tx).query<HeldRow>(`UPDATE billing_held_jobs SET status = 'continued', updated_at = now() WHERE job_id = $1 AND status = 'held' RETURNING *`, [jobId]);
    return r.rows[0] === undefined ? null : toHeld(r.rows[0]);
  },

  async takeHeldTasks(tx, jobId, count, holdId) {
    const r = await queryable(tx).query<HeldRow>(
      `UPDATE billing_held_jobs SET tasks_used = tasks_used + $2, hold_id = COALESCE($3, hold_id),
              status = CASE WHEN tasks_used + $2 = tasks THEN 'continued' ELSE status END, updated_at = now()
        WHERE job_id = $1 AND status = 'held' AND tasks_used + $2 <= tasks RETURNING *`,
      [jobId, count, holdId],
    );
    return r.rows[0] === undefined ? null : toHeld(r.rows[0]);
  },

  async openHeldJobs(tx, accountId) {
    const r = await queryable(tx).query<{ job_id: string; device: string; expires_at: Date }>(
      `SELECT job_id, device, expires_at FROM billing_held_jobs WHERE account_id = $1 AND status = 'held' AND expires_at > now() ORDER BY created_at`,
      [accountId],
    );
    return r.rows;
  },

  heldJobOfRun: (tx, runToken) => findEffect(queryable(tx), runToken, 'hardware_hold'),

  async recordRunHeldJob(tx, runToken, jobId) {
    await claimEffect(queryable(tx), runToken, 'hardware_hold', jobId);
  },
};
