import type { HeldJobRecord } from '../billing/records.js';

/**
 * The transaction execution writes its own rows in, handed to billing so that a hold's capture
 * or release commits with the job's outcome. Opaque here: the store made it and reads it.
 */
export type ExecutionTx = unknown;

/**
 * What execution needs from billing: wallets, held jobs and hold settlement, through the
 * ledger (src/store/billing/execution-billing.ts implements it; the composition wires it).
 */
export interface ExecutionBilling {
  wallet(accountId: string): Promise<{ availableMicros: bigint; heldMicros: bigint }>;
  /** The account's held jobs that can still be continued. */
  openHeldJobs(accountId: string): Promise<Array<{ job_id: string; device: string; expires_at: Date }>>;
  getHeldJob(jobId: string): Promise<HeldJobRecord | null>;
  /** Locks the held job (after the account's wallet: the lock order of every held-job change); null when the account has none such. */
  lockHeldJob(tx: ExecutionTx, accountId: string, jobId: string): Promise<HeldJobRecord | null>;
  /** `held` → `continued`; null when it was not `held`. */
  markHeldJobContinued(tx: ExecutionTx, jobId: string): Promise<HeldJobRecord | null>;
  /** A continued job keeps its funds while it waits and runs: the pending hold's expiry moves out to the run window. */
  extendHold(tx: ExecutionTx, holdId: string, seconds: number): Promise<void>;
  /** Captures ≤ the held amount (the rest returns to available); 409 HOLD_NOT_PENDING when the hold lapsed. */
  captureHold(tx: ExecutionTx, i: { holdId: string; amountMicros: bigint; description: string }): Promise<unknown>;
  /** Releases the hold if it is still pending; otherwise leaves it as it is. */
  releaseIfPending(tx: ExecutionTx, holdId: string, reason: string): Promise<void>;
}
