/**
 * Canceling an Account Job (docs/jobs.md#canceling), inside the caller's transaction. The job row
 * is locked first, then the wallet and the hold (the ledger's lock order, as jobs_complete and a
 * failure take them). The rule the receipt states: a job is priced per result, so a canceled job
 * — before it ran, or stopped while it ran — consumed nothing: nothing is captured and the whole
 * reservation is released, through the ledger's ledger_release.
 */
import { formatMicros } from '../../billing/money.js';
import { JOB_FAILURE } from '../../jobs/error-codes.js';
import { JOB_STATE_MACHINE, PAYMENT_RAIL, type JobRecord, type JobStatus } from '../../jobs/job.js';
import type { CancelOutcome } from '../../queue/cancel-requests.js';
import { cancelAction } from '../../queue/state-machine.js';
import { getWallet, releaseHold } from '../billing/ledger-sql.js';
import type { Queryable } from '../db.js';
import { finish, lockItem, requestCancel } from '../queue/pg-queue.js';
import { toJob, transitionsOf, type JobRow } from './job-rows.js';
import { JOBS_QUEUE } from './jobs-queue.js';

/** What the receipt and the job's error_message say, by when the cancel took effect. */
export const CANCEL_RULE = {
  before_running: 'Canceled before it ran: nothing was consumed, so nothing was captured and the whole reservation was released.',
  while_running:
    'Canceled while it ran: the work was stopped before it delivered a result. Jobs are priced per result, so nothing was consumed: nothing was captured and the whole reservation was released.',
} as const;

async function withTransitions(q: Queryable, row: JobRow): Promise<JobRecord> {
  return toJob(row, (await transitionsOf(q, [row.id])).get(row.id) ?? []);
}

/** Ends the locked job failed / CANCELED: the hold released (nothing captured) and a receipt saying so. */
async function endCanceled(q: Queryable, j: JobRow, worker: string | null): Promise<JobRecord> {
  const stage = j.status === 'running' ? 'while_running' : 'before_running';
  let transferIds: string[] = [];
  let released = 0n;
  if (j.hold_id !== null) {
    // A pending hold is released now; one the expiry sweeper got first stays expired (its transfer is named).
    const r = await releaseHold(q, { holdId: j.hold_id, reason: `job ${j.id} canceled`, accountId: j.account_id });
    transferIds = r.transferId === null ? [] : [r.transferId];
    released = r.releasedMicros;
  }
  const wallet = await getWallet(q, j.account_id);
  const reference = `rcpt_${j.id.replaceAll('-', '')}`;
  const receipt = {
    receipt_reference: reference,
    job_id: j.id,
    capability_id: j.capability_id,
    payment_rail: PAYMENT_RAIL,
    currency: 'USD',
    amount_reserved: formatMicros(BigInt(j.reserved_price_micros)),
    amount_captured: formatMicros(0n),
    amount_released: formatMicros(released),
    balance_after: formatMicros(wallet.availableMicros),
    hold_id: j.hold_id ?? '',
    ledger_transfer_ids: transferIds,
    issued_at: new Date().toISOString(),
    canceled: stage,
    note: CANCEL_RULE[stage],
  };
  const row = await finish<JobRow, JobStatus>(
    q,
    JOBS_QUEUE,
    j.id,
    j.status,
    JOB_STATE_MACHINE.cancel.to,
    worker,
    { error_code: JOB_FAILURE.CANCELED, error_message: CANCEL_RULE[stage], receipt: JSON.stringify(receipt), receipt_reference: reference },
    `${JOB_FAILURE.CANCELED}: captured 0.000000, released ${formatMicros(released)}`,
  );
  return withTransitions(q, row);
}

/** The lease holder ends a running job whose cancel was requested (the caller locked it through lockOwned). */
export function finishCanceledLocked(q: Queryable, j: JobRow, worker: string): Promise<JobRecord> {
  return endCanceled(q, j, worker);
}

/** POST /v1/jobs/{job_id}/cancel: what the job's state machine says a cancel does now. Null: no such job of the account. */
export async function cancelJob(q: Queryable, accountId: string, jobId: string): Promise<{ outcome: CancelOutcome; job: JobRecord } | null> {
  const j = await lockItem<JobRow, JobStatus>(q, JOBS_QUEUE, jobId);
  if (j === undefined || j.account_id !== accountId) return null;
  switch (cancelAction(JOB_STATE_MACHINE, j.status)) {
    case 'now':
      return { outcome: 'canceled', job: await endCanceled(q, j, null) };
    case 'ask': {
      // Asked once; a repeat finds it asked and answers the same.
      await requestCancel(q, JOBS_QUEUE, j.id);
      const now = await lockItem<JobRow, JobStatus>(q, JOBS_QUEUE, j.id);
      return { outcome: 'requested', job: await withTransitions(q, now ?? j) };
    }
    case 'terminal':
      return { outcome: j.status === 'failed' && j.error_code === JOB_FAILURE.CANCELED ? 'already' : 'not_cancelable', job: await withTransitions(q, j) };
    case 'too_late':
      return { outcome: 'not_cancelable', job: await withTransitions(q, j) };
  }
}
