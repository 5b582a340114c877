/** Job rows as the database returns them, and their mapping to JobRecord. */
import type { Product } from '../../jobs/capability.js';
import type { JobRecord, JobStatus, JobTransition } from '../../jobs/job.js';
import type { Queryable } from '../db.js';

export interface JobRow {
  id: string;
  account_id: string;
  idempotency_key: string;
  request_hash: string;
  capability_id: string;
  product: Product | null;
  request: Record<string, unknown>;
  max_total_price_micros: bigint;
  quoted_price_micros: bigint;
  reserved_price_micros: bigint;
  quote: Record<string, unknown>;
  hold_id: string | null;
  status: JobStatus;
  result: Record<string, unknown> | null;
  receipt: Record<string, unknown> | null;
  receipt_reference: string | null;
  error_code: string | null;
  error_message: string | null;
  attempts: number;
  lease_owner: string | null;
  lease_expires_at: Date | null;
  submitted_by: string;
  tags: Record<string, string> | null;
  cancel_requested_at: Date | string | null;
  /** Migration 1300: the submitting request's trace, when tracing is on. */
  traceparent?: string | null;
  created_at: Date;
  created_us: bigint | string;
  updated_at: Date;
}

interface TransitionRow {
  job_id: string;
  from_status: JobStatus | null;
  to_status: JobStatus;
  at: Date;
  worker: string | null;
  note: string | null;
}

// Every job read returns created_at in exact microseconds too, for the list cursor.
export const jobColumns = (a: string): string => `${a}.*, (extract(epoch from ${a}.created_at) * 1000000)::bigint AS created_us`;
export const JOB = jobColumns('j');

export const toJob = (r: JobRow, transitions?: JobTransition[]): JobRecord => ({
  id: r.id,
  accountId: r.account_id,
  idempotencyKey: r.idempotency_key,
  requestHash: r.request_hash,
  capabilityId: r.capability_id,
  product: r.product,
  request: r.request,
  maxTotalPriceMicros: BigInt(r.max_total_price_micros),
  quotedPriceMicros: BigInt(r.quoted_price_micros),
  reservedPriceMicros: BigInt(r.reserved_price_micros),
  quote: r.quote,
  holdId: r.hold_id,
  status: r.status,
  result: r.result,
  receipt: r.receipt,
  receiptReference: r.receipt_reference,
  errorCode: r.error_code,
  errorMessage: r.error_message,
  attempts: Number(r.attempts),
  leaseOwner: r.lease_owner,
  leaseExpiresAt: r.lease_expires_at === null ? null : new Date(r.lease_expires_at),
  submittedBy: r.submitted_by,
  tags: r.tags ?? {},
  cancelRequestedAt: r.cancel_requested_at === null ? null : new Date(r.cancel_requested_at),
  createdAt: new Date(r.created_at),
  createdAtMicros: BigInt(r.created_us),
  updatedAt: new Date(r.updated_at),
  ...(transitions === undefined ? {} : { transitions }),
});

const toTransition = (t: TransitionRow): JobTransition => ({ from: t.from_status, to: t.to_status, at: new Date(t.at), worker: t.worker, note: t.note });

export async function transitionsOf(q: Queryable, ids: readonly string[]): Promise<Map<string, JobTransition[]>> {
  const out = new Map<string, JobTransition[]>();
  if (ids.length === 0) return out;
  const r = await q.query<TransitionRow>('SELECT job_id, from_status, to_status, at, worker, note FROM job_transitions WHERE job_id = ANY($1::uuid[]) ORDER BY id', [ids]);
  for (const t of r.rows) {
    const list = out.get(t.job_id) ?? [];
    list.push(toTransition(t));
    out.set(t.job_id, list);
  }
  return out;
}
