/** The job submission (jobs_submit, migrations 0201–0205, 0401, 0501, 0600 and 1820; batched: 0207, 0401, 0600, 1820) and the mapping of its outcomes. */
import { AppError, fail } from '../../errors/app-error.js';
import { HTTP_ERRORS } from '../../errors/http-error-codes.js';
import type { JobRecord, JobStatus, JobTransition } from '../../jobs/job.js';
import type { JobsRepository, SubmitBatching, SubmitInput } from '../../jobs/ports.js';
import { ledgerError } from '../billing/ledger-error.js';
import type { Database } from '../db.js';
import { groupCommit } from './group-commit.js';
import { toJob, type JobRow } from './job-rows.js';

/** What `jobs_submit` (migrations 0201, 0202, 0204, 0205, 0401) returns. */
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
  /** created: the `quoted` transition's note (the price, worded by the function). */
  note?: string;
  /** reused: the job the key names. */
  info?: Record<string, string | null>;
  /** price_above, refused: the refusal as the function worded it (json text). */
  error?: string;
}

const dateOfMicros = (us: bigint): Date => new Date(Number(us / 1000n));

/** The job a "created" outcome stands for: the submission plus the generated fields. */
function createdJob(s: SubmitInput, o: SubmitOutcome): JobRecord {
  const { hold_id: holdId, created_us: createdUs, updated_us: updatedUs, at, note: priceNote } = o;
  if (holdId === undefined || createdUs === undefined || updatedUs === undefined || at?.length !== 3 || priceNote === undefined) {
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
    tags: { ...s.tags },
    cancelRequestedAt: null,
    createdAt: dateOfMicros(BigInt(createdUs)),
    createdAtMicros: BigInt(createdUs),
    updatedAt: dateOfMicros(BigInt(updatedUs)),
    transitions: [step(0, null, 'quoted', priceNote), step(1, 'quoted', 'reserved', `hold ${holdId}`), step(2, 'reserved', 'queued', null)],
  };
}

const toTransitionJson = (t: NonNullable<SubmitOutcome['transitions']>[number]): JobTransition => ({ from: t.f, to: t.t, at: new Date(t.at), worker: t.w, note: t.n });

/** The tags as the function takes them: NULL when there are none (the common case writes no tag rows). */
const tagsJson = (s: SubmitInput): string | null => (Object.keys(s.tags).length === 0 ? null : JSON.stringify(s.tags));

/** What the port's `submit` answers. */
type SubmitResult = Awaited<ReturnType<JobsRepository['submit']>>;

/** One submission, its own transaction (one statement: see migrations 0201–0205). */
async function submitOne(db: Database, s: SubmitInput): Promise<SubmitOutcome | undefined> {
  // Named, so each pooled connection parses and plans it once.
  const r = await db.query<{ r: SubmitOutcome }>(
    'SELECT jobs_submit_in_request($14, $1, $2, $3, $4, $5, $6, $7::jsonb, $8, $9, $10::jsonb, $11, $12, $13::jsonb) AS r',
    [
      s.id,
      s.accountId,
      s.idempotencyKey,
      s.requestHash,
      s.capabilityId,
      s.product,
      JSON.stringify(s.request),
      s.maxTotalPriceMicros.toString(),
      s.quotedPriceMicros.toString(),
      JSON.stringify(s.quote),
      s.holdExpiresAt,
      s.submittedBy,
      tagsJson(s),
      s.requestId ?? null,
    ],
    { name: 'jobs_submit_in_request' },
  );
  return r.rows[0]?.r;
}

/**
 * Several submissions in one transaction (jobs_submit_many, migration 0207), sent in account
 * order so that concurrent batches lock wallets in the same order; outcomes in `items`' order.
 */
async function submitMany(db: Database, items: readonly SubmitInput[]): Promise<Array<SubmitOutcome | undefined>> {
  const order = items
    .map((_, i) => i)
    .sort((x, y) => {
      const a = (items[x] as SubmitInput).accountId;
      const b = (items[y] as SubmitInput).accountId;
      return a < b ? -1 : a > b ? 1 : x - y;
    });
  const sorted = order.map((i) => items[i] as SubmitInput);
  const col = <T>(f: (s: SubmitInput) => T): T[] => sorted.map(f);
  const r = await db.query<{ r: Array<SubmitOutcome | null> }>(
    `SELECT jobs_submit_many_in_requests($1::uuid[], $2::uuid[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::bigint[], $9::bigint[],
            $10::text[], $11::timestamptz[], $12::text[], $13::text[], $14::text[]) AS r`,
    [
      col((s) => s.id),
      col((s) => s.accountId),
      col((s) => s.idempotencyKey),
      col((s) => s.requestHash),
      col((s) => s.capabilityId),
      col((s) => s.product),
      col((s) => JSON.stringify(s.request)),
      col((s) => s.maxTotalPriceMicros.toString()),
      col((s) => s.quotedPriceMicros.toString()),
      col((s) => JSON.stringify(s.quote)),
      col((s) => s.holdExpiresAt.toISOString()),
      col((s) => s.submittedBy),
      col(tagsJson),
      col((s) => s.requestId ?? null),
    ],
    { name: 'jobs_submit_many_in_requests' },
  );
  const outs = r.rows[0]?.r;
  if (!Array.isArray(outs) || outs.length !== items.length) throw new Error(`jobs_submit_many returned ${JSON.stringify(outs)?.slice(0, 200)}`);
  const byItem = new Array<SubmitOutcome | undefined>(items.length);
  order.forEach((item, k) => {
    byItem[item] = outs[k] ?? undefined;
  });
  return byItem;
}

export interface SubmitterOptions extends SubmitBatching {
  readonly onBatchError?: (e: unknown, size: number) => void;
}

/**
 * The repository's `submit`: submissions that arrive while others are in the database are
 * committed together (group-commit.ts); each caller gets its own outcome.
 */
export function jobSubmitter(db: Database, o: SubmitterOptions): (s: SubmitInput) => Promise<SubmitResult> {
  const send = groupCommit<SubmitInput, SubmitOutcome | undefined>({
    maxBatch: o.maxBatch,
    maxInFlight: o.maxInFlight,
    one: (s) => submitOne(db, s),
    many: (items) => submitMany(db, items),
    ...(o.onBatchError === undefined ? {} : { onBatchError: o.onBatchError }),
  });
  return async (s) => toSubmitResult(s, await send(s));
}

/** A refusal worded by the function (the ledger's spend controls, the price ceiling), as an AppError. */
function refusal(o: SubmitOutcome, extraDetails?: Record<string, unknown>): AppError {
  if (o.error === undefined) throw new Error(`jobs_submit refused without an error: ${JSON.stringify(o)}`);
  const e = ledgerError(o.error);
  return extraDetails === undefined ? e : new AppError(e.code, e.statusCode, e.message, { details: { ...(e.details as object), ...extraDetails } });
}

function toSubmitResult(s: SubmitInput, o: SubmitOutcome | undefined): SubmitResult {
  switch (o?.outcome) {
    case 'created':
      return { job: createdJob(s, o), replayed: false, rechargeRequested: o.recharge === true };
    case 'replayed':
      return { job: toJob(o.job as JobRow, (o.transitions ?? []).map(toTransitionJson)), replayed: true, rechargeRequested: false };
    case 'in_flight':
      throw fail(
        HTTP_ERRORS.IDEMPOTENCY_KEY_IN_FLIGHT,
        'A request with this idempotency key is being processed; retry shortly to get its job.',
        { idempotency_key: s.idempotencyKey },
        { 'retry-after': '1' },
      );
    case 'reused':
      throw fail(HTTP_ERRORS.IDEMPOTENCY_KEY_REUSED, 'This idempotency key was already used with another capability_id, request or max_total_price.', {
        idempotency_key: s.idempotencyKey,
        job_id: o.info?.['job_id'],
      });
    case 'price_above':
      // The price ceiling is checked (and worded) by jobs_submit alone; the quote is the caller's.
      throw refusal(o, { quote: s.quote });
    case 'refused':
      // Spend controls and balance, checked and worded by the ledger (ledger_place_hold).
      throw refusal(o);
    default:
      throw new Error(`jobs_submit returned ${JSON.stringify(o)}`);
  }
}
