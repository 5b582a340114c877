/**
 * The execution domain's store (src/execution/ports.ts) over PostgreSQL/PGlite: its jobs on the
 * one queue (execution-repository.ts), billing's held jobs and ledger for the money a job
 * settles. A job's money moves in the transaction that stores its terminal state, under the
 * lease check, so it is captured or released once.
 */
import { takeHeldTasks } from '../../billing/hardware-holds.js';
import { sqlHardwareStore } from '../billing/hardware-sql.js';
import { sqlLedger } from '../billing/ledger-sql.js';
import { billingTx } from '../billing/unit-of-work.js';
import type { ExecutionStore, ExecutionTx } from '../../execution/ports.js';
import type { Database, Queryable } from '../db.js';
import { requestCancelJob, settleCanceled } from './execution-cancel-sql.js';
import { eventsOf, listExecutionJobs } from './execution-list-sql.js';
import {
  claimJob,
  saveTraceparent,
  saveProgress,
  deviceStatusOverrides,
  getJob,
  heartbeat,
  insertJob,
  jobEvents,
  lockOwnedJob,
  markCompleted,
  markFailed,
  markSubmitStarted,
  parkJob,
  queueDepths,
  queuePosition,
  setDeviceStatusOverride,
  takeOverExpired,
} from './execution-repository.js';

function txOf(q: Queryable): ExecutionTx {
  return {
    // Held jobs and holds are billing's: reached through billing's store, in this transaction.
    lockHeldJob: (accountId, jobId) => sqlHardwareStore.lockHeldJob(billingTx(q), accountId, jobId),
    takeHeldTasks: async (held, count, sizes) => {
      const job = await sqlHardwareStore.getHeldJob(billingTx(q), held.jobId);
      if (job === null) return null;
      const r = await takeHeldTasks({ ledger: sqlLedger, hardware: sqlHardwareStore }, billingTx(q), { job, count, ...(sizes === undefined ? {} : { sizes }) });
      return r === null ? null : { holdIds: r.holdIds, tasksUsed: r.job.tasksUsed };
    },
    insertJob: (j) => insertJob(q, j),
    extendHoldExpiry: (holdId, seconds) => sqlLedger.extendHold(billingTx(q), holdId, seconds),
  };
}

export function pgExecutionStore(db: Database): ExecutionStore {
  return {
    tx: (fn) => db.tx((q) => fn(txOf(q))),
    claim: (worker, leaseMs) => claimJob(db, worker, leaseMs),
    heartbeat: (id, worker, leaseMs) => heartbeat(db, id, worker, leaseMs),
    insertJob: (j) => db.tx((q) => insertJob(q, j)),
    getJob: (id) => getJob(db, id),
    saveTraceparent: (ids, traceparent) => saveTraceparent(db, ids, traceparent),
    saveProgress: (id, fraction, phase) => saveProgress(db, id, fraction, phase),
    queuePosition: (job) => queuePosition(db, job),
    jobEvents: (id) => jobEvents(db, id),
    takeOver: (id, worker, leaseMs) => takeOverExpired(db, id, worker, leaseMs),
    markSubmitStarted: (id, worker) => markSubmitStarted(db, id, worker),
    park: (id, worker, o) => parkJob(db, id, worker, o),

    complete: (job, worker, result, actual, ifCanceled) =>
      db.tx(async (q) => {
        const row = await lockOwnedJob(q, job.id, worker);
        if (row === null) return 'lease_lost';
        // A cancel requested while it ran wins over its result (the caller says what that consumed).
        if (row.cancel_requested_at !== null) {
          await settleCanceled(q, row, worker, ifCanceled);
          return 'canceled';
        }
        if (job.hold_id !== null) {
          await sqlLedger.captureHold(billingTx(q), { holdId: job.hold_id, amountMicros: actual, description: `hardware run ${job.provider}/${job.device}: ${job.shots} shots (job ${job.id})` });
        }
        await markCompleted(q, job.id, worker, result, actual);
        return 'completed';
      }),

    fail: (job, worker, code, message) =>
      db.tx(async (q) => {
        const row = await lockOwnedJob(q, job.id, worker);
        if (row === null) return false;
        if (row.cancel_requested_at !== null) {
          // Asked to stop before it failed: it ends as the cancel said (the same money: nothing captured).
          await settleCanceled(q, row, worker, { consumedMicros: 0n, result: null, message: `Canceled while it ran; it then failed (${code}): nothing was consumed, the hold was released.` });
          return true;
        }
        if (job.hold_id !== null) {
          await sqlLedger.releaseIfPending(billingTx(q), job.hold_id, `execution job failed: ${code}`);
        }
        await markFailed(q, job.id, worker, 'running', code, message);
        return true;
      }),

    cancel: (job, worker, run) =>
      db.tx(async (q) => {
        const row = await lockOwnedJob(q, job.id, worker);
        if (row === null) return false;
        await settleCanceled(q, row, worker, run);
        return true;
      }),

    requestCancel: (accountId, id) => db.tx((q) => requestCancelJob(q, accountId, id)),
    list: (accountId, lq) => listExecutionJobs(db, accountId, lq),
    eventsOf: (ids) => eventsOf(db, ids),

    queueDepths: () => queueDepths(db),
    deviceStatusOverrides: () => deviceStatusOverrides(db),
    setDeviceStatusOverride: (device, status, note) => setDeviceStatusOverride(db, device, status, note),
    heldJob: (jobId) => sqlHardwareStore.getHeldJob(billingTx(db), jobId),
    openHeldJobs: (accountId) => sqlHardwareStore.openHeldJobs(billingTx(db), accountId),
    wallet: (accountId) => sqlLedger.wallet(billingTx(db), accountId),
  };
}
