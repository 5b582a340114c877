/**
 * The Job record and its wire form (spec §2.2). States (DESIGN §4):
 * quoted → reserved → queued → running → result_saved → completed, and failed from any
 * non-terminal state (hold released, error_code set): JOB_STATE_MACHINE.
 */
import { formatMicros } from '../billing/money.js';
import { submittedByView } from '../orgs/submitter.js';
import { defineStateMachine } from '../queue/state-machine.js';
import type { Product } from './capability.js';

export const JOB_STATUSES = ['quoted', 'reserved', 'queued', 'running', 'result_saved', 'completed', 'failed'] as const;
export type JobStatus = (typeof JOB_STATUSES)[number];

/** The one definition of a job's states and moves: the worker and the store check every transition against it. */
export const JOB_STATE_MACHINE = defineStateMachine<JobStatus>({
  name: 'job',
  states: JOB_STATUSES,
  initial: ['quoted'],
  queued: 'queued',
  leased: ['running', 'result_saved'],
  terminal: ['completed', 'failed'],
  next: {
    quoted: ['reserved', 'failed'],
    reserved: ['queued', 'failed'],
    queued: ['running', 'failed'],
    // running → running: re-run after the previous worker's lease expired.
    running: ['running', 'result_saved', 'failed'],
    result_saved: ['completed', 'failed'],
    completed: [],
    failed: [],
  },
  // A saved result is not stopped: the work is done and the job completes (docs/jobs.md#canceling).
  cancel: { to: 'failed', now: ['quoted', 'reserved', 'queued'], ask: ['running'] },
});

export const PAYMENT_RAIL = 'account_core_balance';

export interface JobTransition {
  readonly from: JobStatus | null;
  readonly to: JobStatus;
  readonly at: Date;
  readonly worker: string | null;
  readonly note: string | null;
}

export interface JobRecord {
  readonly id: string;
  readonly accountId: string;
  readonly idempotencyKey: string;
  readonly requestHash: string;
  readonly capabilityId: string;
  readonly product: Product | null;
  readonly request: Record<string, unknown>;
  readonly maxTotalPriceMicros: bigint;
  readonly quotedPriceMicros: bigint;
  readonly reservedPriceMicros: bigint;
  readonly quote: Record<string, unknown>;
  readonly holdId: string | null;
  readonly status: JobStatus;
  readonly result: Record<string, unknown> | null;
  readonly receipt: Record<string, unknown> | null;
  readonly receiptReference: string | null;
  readonly errorCode: string | null;
  readonly errorMessage: string | null;
  readonly attempts: number;
  readonly leaseOwner: string | null;
  readonly leaseExpiresAt: Date | null;
  readonly submittedBy: string;
  /** The submission's tags (key → value), `{}` without any. */
  readonly tags: Readonly<Record<string, string>>;
  /** When a cancel was requested while the job ran (its worker then stops it); null otherwise. */
  readonly cancelRequestedAt: Date | null;
  readonly createdAt: Date;
  /** created_at in microseconds since the epoch (exact; the list cursor uses it). */
  readonly createdAtMicros: bigint;
  readonly updatedAt: Date;
  readonly transitions?: readonly JobTransition[];
}

/** The Job object of the Account Jobs interface. */
export function jobView(j: JobRecord, publicBaseUrl: string): Record<string, unknown> {
  const submittedBy = submittedByView(j.submittedBy);
  return {
    job_id: j.id,
    status: j.status,
    capability_id: j.capabilityId,
    ...(j.product === null ? {} : { product: j.product }),
    payment_rail: PAYMENT_RAIL,
    quoted_price: formatMicros(j.quotedPriceMicros),
    reserved_price: formatMicros(j.reservedPriceMicros),
    max_total_price: formatMicros(j.maxTotalPriceMicros),
    retrieval_url: `${publicBaseUrl}/v1/jobs/${j.id}`,
    receipt_reference: j.receiptReference,
    idempotency_key: j.idempotencyKey,
    tags: j.tags,
    quote: j.quote,
    // The result is delivered once it is paid for (completed), never before.
    result: j.status === 'completed' ? j.result : null,
    // The receipt names who submitted the job it charged, as the job does.
    receipt: j.receipt === null ? null : { ...j.receipt, submitted_by: submittedBy },
    submitted_by: submittedBy,
    error_code: j.errorCode,
    error_message: j.errorMessage,
    attempts: j.attempts,
    cancel_requested_at: j.cancelRequestedAt === null ? null : j.cancelRequestedAt.toISOString(),
    created_at: j.createdAt.toISOString(),
    updated_at: j.updatedAt.toISOString(),
    ...(j.transitions === undefined ? {} : { transitions: j.transitions.map((t) => ({ from: t.from, to: t.to, at: t.at.toISOString(), ...(t.note === null ? {} : { note: t.note }) })) }),
  };
}
