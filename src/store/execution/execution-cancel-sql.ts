/**
 * Canceling an execution job (docs/execution.md#canceling), inside the caller's transaction: the
 * job row is locked first, then the wallet and the hold (ledger order). What was consumed is
 * captured through ledger_capture (which returns the rest), or the hold is released whole.
 */
import { EXECUTION_STATE_MACHINE, type ExecutionJob } from '../../execution/execution-job.js';
import type { CanceledRun } from '../../execution/ports.js';
import type { CancelOutcome } from '../../queue/cancel-requests.js';
import { cancelAction } from '../../queue/state-machine.js';
import { EXECUTION_FAILURE } from '../../execution/error-codes.js';
import { sqlLedger } from '../billing/ledger-sql.js';
import { billingTx } from '../billing/unit-of-work.js';
import type { Queryable } from '../db.js';
import { requestCancel } from '../queue/pg-queue.js';
import { EXECUTION_QUEUE, lockJob, markCanceled } from './execution-repository.js';

/** Before it ran, nothing was consumed. */
export const CANCELED_BEFORE_RUNNING = 'Canceled before it ran: nothing was consumed, so nothing was captured and the hold was released.';

/** Ends the locked job failed / CANCELED, settling its hold by what the run consumed. */
export async function settleCanceled(q: Queryable, row: ExecutionJob, worker: string | null, run: CanceledRun): Promise<void> {
  if (row.hold_id !== null) {
    const tx = billingTx(q);
    const description = `canceled run ${row.provider}/${row.device} (job ${row.id})`;
    if (run.consumedMicros > 0n) await sqlLedger.captureHold(tx, { holdId: row.hold_id, amountMicros: run.consumedMicros, description });
    else await sqlLedger.releaseIfPending(tx, row.hold_id, `execution job canceled`);
  }
  await markCanceled(q, row.id, worker, row.status, run.consumedMicros, run.result, run.message);
}

/** POST /v1/execute/{provider}/{job_id}/cancel: what the state machine says a cancel does now. Null: no such job of the account. */
export async function requestCancelJob(q: Queryable, accountId: string, id: string): Promise<{ outcome: CancelOutcome; job: ExecutionJob } | null> {
  const row = await lockJob(q, id);
  if (row === null || row.account_id !== accountId) return null;
  const reread = async () => (await lockJob(q, id)) ?? row;
  switch (cancelAction(EXECUTION_STATE_MACHINE, row.status)) {
    case 'now':
      await settleCanceled(q, row, null, { consumedMicros: 0n, result: null, message: CANCELED_BEFORE_RUNNING });
      return { outcome: 'canceled', job: await reread() };
    case 'ask':
      await requestCancel(q, EXECUTION_QUEUE, id);
      return { outcome: 'requested', job: await reread() };
    case 'terminal':
      return { outcome: row.status === 'failed' && row.error_code === EXECUTION_FAILURE.CANCELED ? 'already' : 'not_cancelable', job: row };
    case 'too_late':
      return { outcome: 'not_cancelable', job: row };
  }
}
