/** Execution's billing port (src/execution/billing-port.ts) on the ledger's SQL implementation. */
import type { ExecutionBilling, ExecutionTx } from '../../execution/billing-port.js';
import type { Database, Queryable } from '../db.js';
import { sqlHardwareStore } from './hardware-sql.js';
import { sqlLedger } from './ledger-sql.js';
import { billingTx } from './unit-of-work.js';

export function sqlExecutionBilling(db: Database): ExecutionBilling {
  const auto = billingTx(db);
  // Execution runs its rows on this store's Queryable: the same transaction carries the money.
  const tx = (t: ExecutionTx) => billingTx(t as Queryable);
  return {
    wallet: (accountId) => sqlLedger.wallet(auto, accountId),
    openHeldJobs: (accountId) => sqlHardwareStore.openHeldJobs(auto, accountId),
    getHeldJob: (jobId) => sqlHardwareStore.getHeldJob(auto, jobId),
    lockHeldJob: (t, accountId, jobId) => sqlHardwareStore.lockHeldJob(tx(t), accountId, jobId),
    markHeldJobContinued: (t, jobId) => sqlHardwareStore.markHeldJobContinued(tx(t), jobId),
    extendHold: (t, holdId, seconds) => sqlLedger.extendHold(tx(t), holdId, seconds),
    captureHold: (t, i) => sqlLedger.captureHold(tx(t), i),
    releaseIfPending: (t, holdId, reason) => sqlLedger.releaseIfPending(tx(t), holdId, reason),
  };
}
