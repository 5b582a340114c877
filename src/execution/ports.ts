/**
 * What the execution domain needs from storage (src/store/execution/pg-execution-store.ts
 * implements it over migration 0300's tables and billing's held jobs and ledger). Execution
 * jobs run on the one queue (src/queue/queue-worker.ts): the store's claim and heartbeat are
 * the queue's.
 */
import type { DeviceStatus } from '../devices/device-catalogue.js';
import type { ExecutionEvent, ExecutionJob, ExecutionStatus, NewExecutionJob } from './execution-job.js';
import type { ListPosition } from '../kernel/list-cursor.js';
import type { CancelOutcome } from '../queue/cancel-requests.js';
import type { QueueClaim, QueuePort } from '../queue/queue-worker.js';

/** Billing's held job (a hold for a hardware run, waiting to be continued), as execution reads it. */
export interface HeldJob {
  readonly jobId: string;
  readonly accountId: string;
  readonly holdId: string;
  readonly provider: string;
  readonly device: string;
  readonly shots: number;
  readonly tasks: number;
  /** Tasks taken by continuations so far; the rest can still be continued. */
  readonly tasksUsed: number;
  readonly amountMicros: bigint;
  readonly status: 'held' | 'continued' | 'released' | 'expired';
  readonly expiresAt: Date;
  readonly createdAt: Date;
  /** Who held it (migration 1810): its runs are their spend. */
  readonly submittedBy?: string | null;
}

export interface ExecutionClaim extends QueueClaim {
  readonly job: ExecutionJob;
  readonly previousStatus: ExecutionStatus;
  /** Status of the job's hold when claimed (`pending` unless it lapsed meanwhile); null without one. */
  readonly holdStatus: string | null;
}

/** The continuation's transaction: the held job locked, continued and run as one change. */
export interface ExecutionTx {
  /** The held job under lock (wallet, then held job: the lock order of every held-job change); null if the account has none. */
  lockHeldJob(accountId: string, jobId: string): Promise<HeldJob | null>;
  /**
   * Takes `count` tasks of the locked held job (billing's takeHeldTasks): one hold per task (or per
   * run of `sizes[j]` tasks, one run per job: an expectation's groups), the
   * untaken tasks' money left held under the held job; it is `continued` once every task is
   * taken. Null when it is not `held` or fewer tasks remain.
   */
  takeHeldTasks(held: HeldJob, count: number, sizes?: readonly number[]): Promise<{ holdIds: string[]; tasksUsed: number } | null>;
  /** As the store's insertJob, in this transaction. */
  insertJob(j: NewExecutionJob): Promise<ExecutionJob | null>;
  /** A continued hold keeps its funds for the run window: its expiry moves out to `seconds` from now. */
  extendHoldExpiry(holdId: string, seconds: number): Promise<void>;
}

export type DeviceOverride = { readonly status: DeviceStatus; readonly note: string | null };

/** Options of parking a running job until it is due again (a remote poll, a retry's backoff). */
export interface ParkOptions {
  readonly afterMs: number;
  readonly remoteJobId?: string;
  /** A transient failure: counted in remote_failures. */
  readonly failed?: boolean;
  /** The submission did not happen: clear its start mark and do not count the attempt. */
  readonly clearSubmit?: boolean;
  readonly note?: string | undefined;
}

/** What a run stopped by a cancel consumed (capture it, release the rest) and the result kept with it, if it was paid for. */
export interface CanceledRun {
  readonly consumedMicros: bigint;
  readonly result: unknown;
  /** The job's failure message: the rule as it applied. */
  readonly message: string;
}

/** How a running job's outcome was stored. */
export type Settled = 'completed' | 'canceled' | 'lease_lost';

/** The filters of GET /v1/execute/jobs, all optional, all of which must match. */
export interface ExecutionListQuery {
  readonly provider?: string;
  readonly device?: string;
  readonly status?: ExecutionStatus;
  readonly createdAfterMicros?: bigint;
  readonly createdBeforeMicros?: bigint;
  readonly limit: number;
  readonly before?: ListPosition;
}

/** A listed job with its exact creation time (the cursor's). */
export type ListedExecutionJob = ExecutionJob & { readonly created_us: string };

export interface ExecutionStore extends QueuePort<ExecutionClaim> {
  /** Runs `fn` in one transaction. */
  tx<T>(fn: (t: ExecutionTx) => Promise<T>): Promise<T>;

  /**
   * Inserts the job and records its client token (one transaction), unless the token is already
   * recorded or being recorded by a concurrent request; null then (look the token up again).
   */
  insertJob(j: NewExecutionJob): Promise<ExecutionJob | null>;
  getJob(id: string): Promise<ExecutionJob | null>;
  /** Stores the W3C traceparent of the request that queued these jobs (their workers' spans continue it). */
  saveTraceparent(ids: readonly string[], traceparent: string): Promise<void>;
  /** Stores how far a running job has got (no effect once it is not running). */
  saveProgress(id: string, fraction: number, phase: string): Promise<void>;
  /** 1-based position among the device's queued jobs (oldest first); null when not queued. */
  queuePosition(job: ExecutionJob): Promise<number | null>;
  jobEvents(id: string): Promise<ExecutionEvent[]>;

  /** A running job whose lease expired (its owner died), now leased to `worker` with an attempt counted; null while the lease lives. */
  takeOver(id: string, worker: string, leaseMs: number): Promise<ExecutionJob | null>;
  /** Written before a remote submission is sent; false if `worker` lost the lease. */
  markSubmitStarted(id: string, worker: string): Promise<boolean>;
  park(id: string, worker: string, o: ParkOptions): Promise<boolean>;
  /**
   * running → completed with its result and cost, capturing the hold (if any) in the same
   * transaction, if `worker` still holds the lease ('lease_lost' when it does not). A cancel
   * requested meanwhile wins: the job ends failed / CANCELED as `ifCanceled` says ('canceled').
   * A hold that is not pending any more throws HOLD_NOT_PENDING (nothing written).
   */
  complete(job: ExecutionJob, worker: string, result: unknown, actualMicros: bigint, ifCanceled: CanceledRun): Promise<Settled>;
  /** running → failed, releasing a pending hold in the same transaction, if `worker` still holds the lease (a requested cancel ends it canceled instead). */
  fail(job: ExecutionJob, worker: string, code: string, message: string): Promise<boolean>;
  /** running → failed / CANCELED by the lease holder: captures what was consumed (releasing the rest) or releases the hold; false if the lease is lost. */
  cancel(job: ExecutionJob, worker: string, run: CanceledRun): Promise<boolean>;
  /**
   * The cancel request, one transaction: a queued job ends failed / CANCELED with its hold
   * released; a running one gets `cancel_requested_at` (its worker, or the request running it,
   * stops it; a parked remote job is made due). Null when the account has no such job.
   */
  requestCancel(accountId: string, id: string): Promise<{ outcome: CancelOutcome; job: ExecutionJob } | null>;
  /** The account's jobs, newest first (keyset pages). */
  list(accountId: string, q: ExecutionListQuery): Promise<ListedExecutionJob[]>;
  /** The events of several jobs at once (a list page). */
  eventsOf(ids: readonly string[]): Promise<Map<string, ExecutionEvent[]>>;

  /** Jobs waiting or running per device. */
  queueDepths(): Promise<Map<string, { queued: number; running: number }>>;
  deviceStatusOverrides(): Promise<Map<string, DeviceOverride>>;
  setDeviceStatusOverride(device: string, status: DeviceStatus | null, note: string | null): Promise<void>;

  heldJob(jobId: string): Promise<HeldJob | null>;
  /** Held jobs of the account that can still be continued. */
  openHeldJobs(accountId: string): Promise<Array<{ job_id: string; device: string; expires_at: Date }>>;
  wallet(accountId: string): Promise<{ availableMicros: bigint; heldMicros: bigint }>;
}
