/**
 * An optimize job (async POST /v1/circuits/optimize, migration 1711) as stored, its states, and
 * the store it needs. It is queued by the request, claimed by a worker on the one queue
 * (src/queue/queue-worker.ts) and ends completed (the result the synchronous optimize answers),
 * failed (the error's code and message) or canceled. Free work: no hold, no price.
 */
import type { Heartbeat, QueueClaim } from '../queue/queue-worker.js';
import type { CancelOutcome } from '../queue/cancel-requests.js';
import { defineStateMachine } from '../queue/state-machine.js';
import type { OptimizeTaskInput } from '../compute/compute-tasks.js';
import type { ListPosition } from '../kernel/list-cursor.js';

export const OPTIMIZE_JOB_STATUSES = ['queued', 'running', 'completed', 'failed', 'canceled'] as const;
export type OptimizeJobStatus = (typeof OPTIMIZE_JOB_STATUSES)[number];

/** Canceled before a worker took it. */
export const CANCELED_BEFORE_RUNNING = 'Canceled before it ran.';
/** Canceled while it ran. */
export const CANCELED_WHILE_RUNNING = 'Canceled while it ran: the computation was stopped and nothing was returned.';

export const OPTIMIZE_JOB_STATE_MACHINE = defineStateMachine<OptimizeJobStatus>({
  name: 'optimize job',
  states: OPTIMIZE_JOB_STATUSES,
  initial: ['queued'],
  queued: 'queued',
  leased: ['running'],
  terminal: ['completed', 'failed', 'canceled'],
  next: {
    queued: ['running', 'canceled'],
    // running → running: the note of a cancel request (its worker stops it).
    running: ['running', 'completed', 'failed', 'canceled'],
    completed: [],
    failed: [],
    canceled: [],
  },
  cancel: { to: 'canceled', now: ['queued'], ask: ['running'] },
});

/**
 * What the worker runs: the compute task's input (the circuit already validated, in wire format)
 * and what the answer echoes besides the task's output.
 */
export interface OptimizeJobRequest {
  readonly task: OptimizeTaskInput;
  /** The request's device (null: none), echoed in the result. */
  readonly device: string | null;
  /** Validation warnings of the circuit, echoed in the result. */
  readonly warnings: readonly string[];
}

export interface OptimizeJobProgress {
  readonly fraction: number;
  readonly phase: string;
  readonly at: string;
}

export interface OptimizeJob {
  id: string;
  account_id: string;
  status: OptimizeJobStatus;
  request: OptimizeJobRequest;
  result: Record<string, unknown> | null;
  error_code: string | null;
  error_message: string | null;
  progress: OptimizeJobProgress | null;
  attempts: number;
  lease_owner: string | null;
  lease_expires_at: Date | null;
  cancel_requested_at: Date | null;
  traceparent: string | null;
  created_at: Date;
  updated_at: Date;
  started_at: Date | null;
  finished_at: Date | null;
}

export interface OptimizeJobClaim extends QueueClaim {
  readonly job: OptimizeJob;
}

/** A page of an account's jobs, newest first (GET /v1/circuits/optimize/jobs). */
export interface OptimizeJobListQuery {
  readonly limit: number;
  readonly status?: OptimizeJobStatus | undefined;
  readonly before?: ListPosition | undefined;
  readonly createdAfterMicros?: bigint | undefined;
  readonly createdBeforeMicros?: bigint | undefined;
}

/** The optimize jobs' storage (src/store/optimize-jobs/optimize-jobs-sql.ts). */
export interface OptimizeJobStore {
  /** Queues the job unless the account already has `maxOpen` jobs queued or running (null then). */
  insert(j: { id: string; accountId: string; request: OptimizeJobRequest; traceparent: string | null; maxOpen: number }): Promise<OptimizeJob | null>;
  get(accountId: string, id: string): Promise<OptimizeJob | null>;
  /** Newest first; `created_us` is created_at in µs since the epoch (the page's cursor). */
  list(accountId: string, q: OptimizeJobListQuery): Promise<Array<OptimizeJob & { created_us: string }>>;
  claim(worker: string, leaseMs: number): Promise<OptimizeJobClaim | null>;
  heartbeat(id: string, worker: string, leaseMs: number): Promise<Heartbeat>;
  /** Best effort, only while running. */
  saveProgress(id: string, fraction: number, phase: string): Promise<void>;
  /** running → completed under the lease; 'canceled' when a cancel was requested meanwhile (it wins). */
  complete(id: string, worker: string, result: unknown): Promise<'completed' | 'canceled' | 'lease_lost'>;
  /** running → failed (or canceled, when a cancel was requested meanwhile) under the lease; false when the lease was lost. */
  fail(id: string, worker: string, code: string, message: string): Promise<boolean>;
  /** running → canceled under the lease; false when the lease was lost. */
  cancel(id: string, worker: string, message: string): Promise<boolean>;
  /** The cancel route: queued → canceled at once, running → asked. Null: no such job of the account. */
  requestCancel(accountId: string, id: string): Promise<{ outcome: CancelOutcome; job: OptimizeJob } | null>;
}
