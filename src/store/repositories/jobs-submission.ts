/** The job submission (jobs_submit, migrations 0201–0205) and the mapping of its outcomes. */
import { checkSpend } from '../../billing/spend-controls.js';
import { formatMicros } from '../../billing/money.js';
import { fail, type AppError } from '../../errors/app-error.js';
import { JOBS_ERRORS } from '../../jobs/error-codes.js';
import type { JobRecord, JobStatus, JobTransition } from '../../jobs/job.js';
import type { SubmitInput } from '../../jobs/ports.js';
import type { Database } from '../db.js';
import { toJob, type JobRow } from './job-rows.js';

/** What `jobs_submit` (migrations 0201, 0202, 0204, 0205) returns. */
interface SubmitOutcome {
  outcome: 'created' | 'replayed' | 'reused' | 'in_flight' | 'price_above' | 'refused';
  /** replayed: the stored row. */
  job?: unknown;
  transitions?: Array<{ id: number; f: JobStatus | null; t: JobStatus; at: string; w: string | null; n: string | null }>;
  /** created: what the database generated; the rest of the job is the input. */
  hold_id?: string;
  created_us?: number | string;
  updated_us?: number | string;
  at?: Array<number | string>;
  /** created: the wallet asks for an auto-recharge after this hold (`ar_requested_at` set). */
  recharge?: boolean | null;
  info?: Record<string, string | null>;
}

const dateOfMicros = (us: bigint): Date => new Date(Number(us / 1000n));

/** The job a "created" outcome stands for: the submission plus the generated fields. */
function createdJob(s: SubmitInput, o: SubmitOutcome, priceNote: string): JobRecord {
  const { hold_id: holdId, created_us: createdUs, updated_us: updatedUs, at } = o;
  if (holdId === undefined || createdUs === undefined || updatedUs === undefined || at?.length !== 3) {
    throw new Error(`jobs_submit returned an incomplete job: ${JSON.stringify(o)}`);
  }
  const times = at.map((us) => dateOfMicros(BigInt(us)));
  const step = (i: number, from: JobStatus | null, to: JobStatus, note: string | null): JobTransition => ({ from, to, at: times[i] as Date, worker: null, note });
  return {
    id: s.id,
    accountId: s.accountId,
    idempotencyKey: s.idempotencyKey,
    requestHash: s.requestHash,
    capabilityId: s.capabilityId,
    product: s.product,
    request: { ...s.request },
    maxTotalPriceMicros: s.maxTotalPriceMicros,
    quotedPriceMicros: s.quotedPriceMicros,
    reservedPriceMicros: s.quotedPriceMicros,
    quote: { ...s.quote },
    holdId,
    status: 'queued',
    result: null,
    receipt: null,
    receiptReference: null,
    errorCode: null,
    errorMessage: null,
    attempts: 0,
    leaseOwner: null,
    leaseExpiresAt: null,
    submittedBy: s.submittedBy,
    createdAt: dateOfMicros(BigInt(createdUs)),
    createdAtMicros: BigInt(createdUs),
    updatedAt: dateOfMicros(BigInt(updatedUs)),
    transitions: [step(0, null, 'quoted', priceNote), step(1, 'quoted', 'reserved', `hold ${holdId}`), step(2, 'reserved', 'queued', null)],
  };
}

const toTransitionJson = (t: NonNullable<SubmitOutcome['transitions']>[number]): JobTransition => ({ from: t.f, to: t.t, at: new Date(t.at), worker: t.w, note: t.n });

function spendRefusal(amountMicros: bigint, info: Record<string, string | null>): AppError {
  const opt = (k: string) => (info[k] === null || info[k] === undefined ? null : BigInt(info[k] as string));
  const err = checkSpend(
    { perJobMaxMicros: opt('per_job_max'), dailyLimitMicros: opt('daily_limit'), monthlyLimitMicros: opt('monthly_limit'), hardwareAllowed: true, holdExpirySeconds: 0 },
    { amountMicros, kind: 'job', spentTodayMicros: opt('spent_today') ?? 0n, spentMonthMicros: opt('spent_month') ?? 0n, availableMicros: opt('available') ?? 0n },
  );
  // The function and checkSpend apply the same rules; disagreeing would be a bug, not a refusal.
  if (err === null) throw new Error(`jobs_submit refused a hold that checkSpend allows: ${JSON.stringify(info)}`);
  return err;
}

export async function submitJob(db: Database, s: SubmitInput): Promise<{ job: JobRecord; replayed: boolean; rechargeRequested: boolean }> {
  const priceNote = `price ${formatMicros(s.quotedPriceMicros)}`;
  // One statement (its own transaction): see migrations 0201–0205. Named, so each pooled
  // connection parses and plans it once.
  const r = await db.query<{ r: SubmitOutcome }>(
    'SELECT jobs_submit($1, $2, $3, $4, $5, $6, $7::jsonb, $8, $9, $10::jsonb, $11, $12, $13) AS r',
    [s.id, s.accountId, s.idempotencyKey, s.requestHash, s.capabilityId, s.product, JSON.stringify(s.request), s.maxTotalPriceMicros.toString(),
      s.quotedPriceMicros.toString(), JSON.stringify(s.quote), s.holdExpiresAt, s.submittedBy, priceNote],
    { name: 'jobs_submit' },
  );
  const o = r.rows[0]?.r;
  switch (o?.outcome) {
    case 'created':
      return { job: createdJob(s, o, priceNote), replayed: false, rechargeRequested: o.recharge === true };
    case 'replayed':
      return { job: toJob(o.job as JobRow, (o.transitions ?? []).map(toTransitionJson)), replayed: true, rechargeRequested: false };
    case 'in_flight':
      throw fail(JOBS_ERRORS.IDEMPOTENCY_KEY_IN_FLIGHT, 'A request with this idempotency key is being processed; retry shortly to get its job.', { idempotency_key: s.idempotencyKey }, { 'retry-after': '1' });
    case 'reused':
      throw fail(JOBS_ERRORS.IDEMPOTENCY_KEY_REUSED, 'This idempotency key was already used with another capability_id, request or max_total_price.', {
        idempotency_key: s.idempotencyKey, job_id: o.info?.['job_id'],
      });
    case 'price_above':
      throw fail(JOBS_ERRORS.PRICE_ABOVE_MAXIMUM, `The quoted price ${formatMicros(s.quotedPriceMicros)} is above max_total_price ${formatMicros(s.maxTotalPriceMicros)}.`, {
        quoted_price: formatMicros(s.quotedPriceMicros), max_total_price: formatMicros(s.maxTotalPriceMicros), quote: s.quote,
      });
    case 'refused':
      // The billing module words the refusal (spend controls, then the balance) from the numbers the function saw.
      throw spendRefusal(s.quotedPriceMicros, o.info ?? {});
    default:
      throw new Error(`jobs_submit returned ${JSON.stringify(o)}`);
  }
}
