/**
 * An execution job as stored (migration 0300; field names are the columns') and its states:
 * simulator runs start `running` inside the request that made them; hardware runs start
 * `queued` for the worker. A `running` job may stay `running` across claims (a remote job
 * parked between polls, a run taken over after its owner died).
 */
import { defineStateMachine } from '../queue/state-machine.js';

export const EXECUTION_STATUSES = ['queued', 'running', 'completed', 'failed'] as const;
export type ExecutionStatus = (typeof EXECUTION_STATUSES)[number];

/** The one definition of an execution job's states and moves: the worker and the store check every transition against it. */
export const EXECUTION_STATE_MACHINE = defineStateMachine<ExecutionStatus>({
  name: 'execution job',
  states: EXECUTION_STATUSES,
  initial: ['queued', 'running'],
  queued: 'queued',
  leased: ['running'],
  terminal: ['completed', 'failed'],
  next: {
    // queued → failed: canceled before it ran.
    queued: ['running', 'failed'],
    // running → running: a remote job parked until its next poll (the note says why).
    running: ['running', 'completed', 'failed'],
    completed: [],
    failed: [],
  },
  cancel: { to: 'failed', now: ['queued'], ask: ['running'] },
});

export interface ExecutionJob {
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
  /** How far a running local run has got: {fraction, phase, at} (migration 1710); null before its first report. */
  progress?: { fraction: number; phase: string; at: string } | null;
  /** The W3C traceparent of the request that queued it, when tracing is on (migration 1300). */
  traceparent?: string | null;
  /** A sweep's points and the result types asked for (migration 1400; null for a plain counts run). */
  run_options?: Record<string, unknown> | null;
  error_code: string | null;
  error_message: string | null;
  remote_job_id: string | null;
  remote_submit_started_at: Date | null;
  remote_failures: number;
  attempts: number;
  lease_owner: string | null;
  lease_expires_at: Date | null;
  /** Set when a cancel was requested while it ran: its worker (or the request running it) stops it. */
  cancel_requested_at: Date | null;
  /** Who submitted it (migration 1810); null for runs from before. */
  submitted_by?: string | null;
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
  /** Who submitted it (`user:<id>`, `credential:<id>`, …; migration 1810). */
  readonly submittedBy?: string | null | undefined;
  /** Stored run options (src/execution/workload-request.ts); absent or null for a plain run. */
  readonly runOptions?: unknown;
  /**
   * Queue it only while the account has fewer simulator jobs queued or running (async runs cost
   * nothing, so this bound is what keeps one account from filling the shared queue).
   */
  readonly maxOpenSimulator?: number;
  /** For a run the API process does itself: its lease. */
  readonly leaseOwner?: string;
  readonly leaseMs?: number;
}

export interface ExecutionEvent {
  readonly from_status: string | null;
  readonly to_status: string;
  readonly at: Date;
  readonly note: string | null;
}
