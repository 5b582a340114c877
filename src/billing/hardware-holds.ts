/** Held jobs (DESIGN §8): a quote's amount reserved for a hardware run that execution continues later. */
import { fail } from '../errors/app-error.js';
import { BILLING_ERRORS } from './error-codes.js';
import type { BillingTx, HardwareStore, Ledger } from './ports.js';
import type { HeldJobRecord, ReleaseResult } from './records.js';

/**
 * Reserves a quote's amount and creates the held job, in the caller's transaction. One hold
 * per quote: a second hold for the same quote → 409 QUOTE_ALREADY_USED naming the job — unless
 * it is the retry of the Idempotency-Key run (`runToken`) that placed that hold and died before
 * its answer was stored: that retry gets the held job, as the first run would have answered.
 */
export async function holdQuote(
  p: { ledger: Ledger; hardware: HardwareStore; newId: () => string },
  tx: BillingTx,
  i: { accountId: string; quoteId: string; expiresAt: Date; now: Date; runToken?: string | undefined; submittedBy?: string | null | undefined; requestId?: string | null | undefined },
): Promise<HeldJobRecord> {
  const quote = await p.hardware.quote(tx, i.accountId, i.quoteId);
  if (quote === null) throw fail(BILLING_ERRORS.QUOTE_NOT_FOUND, `No quote ${i.quoteId}.`);
  const used = await p.hardware.heldJobOfQuote(tx, quote.id);
  if (used !== null) {
    if (i.runToken !== undefined && (await p.hardware.heldJobOfRun(tx, i.runToken)) === used) {
      const mine = await p.hardware.getHeldJob(tx, used);
      if (mine !== null) return mine;
    }
    throw fail(BILLING_ERRORS.QUOTE_ALREADY_USED, 'A hold was already placed for this quote.', { job_id: used });
  }
  if (quote.validUntil.getTime() < i.now.getTime()) {
    throw fail(BILLING_ERRORS.QUOTE_EXPIRED, `The quote expired at ${quote.validUntil.toISOString()}; ask for a new one.`, { valid_until: quote.validUntil.toISOString() });
  }
  const jobId = p.newId();
  const { holdId } = await p.ledger.placeHold(tx, {
    accountId: i.accountId,
    amountMicros: quote.totalMicros,
    kind: 'hardware',
    refId: jobId,
    description: `hardware ${quote.provider}/${quote.device}: ${quote.tasks} task(s) × ${quote.shots} shots`,
    expiresAt: i.expiresAt,
    product: 'product-one',
    provider: quote.provider,
    now: i.now,
    submittedBy: i.submittedBy ?? null,
    requestId: i.requestId ?? null,
  });
  const job = await p.hardware.insertHeldJob(tx, {
    jobId,
    accountId: i.accountId,
    quoteId: quote.id,
    holdId,
    provider: quote.provider,
    device: quote.device,
    shots: quote.shots,
    tasks: quote.tasks,
    amountMicros: quote.totalMicros,
    expiresAt: i.expiresAt,
    submittedBy: i.submittedBy ?? null,
  });
  if (job === null) throw fail(BILLING_ERRORS.QUOTE_ALREADY_USED, 'A hold was already placed for this quote.');
  if (i.runToken !== undefined) await p.hardware.recordRunHeldJob(tx, i.runToken, jobId);
  return job;
}

/**
 * Releases a held job's funds — exactly once. Releasing again returns the first outcome
 * (`alreadyReleased: true`); a job execution already continued (captured) → 409. The state
 * is read under `lockHeldJob`, so a continuation committed a moment earlier is seen.
 */
export async function releaseHeldJob(
  p: { ledger: Ledger; hardware: HardwareStore },
  tx: BillingTx,
  i: { accountId: string; jobId: string; reason: string },
): Promise<{ job: HeldJobRecord; release: ReleaseResult }> {
  const job = await p.hardware.lockHeldJob(tx, i.accountId, i.jobId);
  if (job === null) throw fail(BILLING_ERRORS.HOLD_NOT_FOUND, `No held job ${i.jobId}.`);
  if (job.status === 'continued') {
    throw fail(BILLING_ERRORS.HOLD_NOT_PENDING, 'The held job was already continued: it is queued or running, and its funds are settled when it finishes.', { status: 'continued', job_id: job.jobId });
  }
  const release = await p.ledger.releaseHold(tx, { holdId: job.holdId, reason: i.reason, accountId: i.accountId });
  return { job: await p.hardware.resolveHeldJob(tx, i.jobId, release.status), release };
}

/**
 * Takes `count` tasks of a held job for one continuation (docs/execution.md#holds-for-n-tasks),
 * in the caller's transaction, after `lockHeldJob` (wallet, then held job). Returns one hold per
 * task taken (or per run of `sizes[j]` tasks), each of the quote's per-task price, which that task's run captures (completed) or
 * releases (failed); the money of the tasks not yet taken stays held under a hold of its own,
 * which the held job now names, until a later continuation takes them, the job is released or
 * the hold expires. Money moves only through the ledger's functions: the held job's hold is
 * released and the per-task and remainder holds are placed in its stead, under the same wallet
 * lock, so nothing leaves `held` and nobody else can spend it in between. Taking the one task
 * left keeps its hold as it is (a `tasks: 1` hold moves no money here, as before).
 * Null when the job is not `held` or fewer than `count` tasks remain.
 */
export async function takeHeldTasks(
  p: { ledger: Pick<Ledger, 'placeHold' | 'releaseHold'>; hardware: Pick<HardwareStore, 'takeHeldTasks'> },
  tx: BillingTx,
  i: { job: HeldJobRecord; count: number; sizes?: readonly number[] },
): Promise<{ job: HeldJobRecord; holdIds: string[] } | null> {
  const { job, count } = i;
  // Tasks per hold: one each, or `sizes` (a run of several tasks, e.g. an expectation's
  // measurement groups, owns one hold of its tasks' price: it settles once).
  const sizes = i.sizes ?? Array.from({ length: count }, () => 1);
  const remaining = job.tasks - job.tasksUsed;
  if (job.status !== 'held' || count < 1 || count > remaining || sizes.some((k) => !Number.isInteger(k) || k < 1) || sizes.reduce((a, b) => a + b, 0) !== count) return null;
  if (sizes.length === 1 && count === remaining) {
    const taken = await p.hardware.takeHeldTasks(tx, job.jobId, count, null);
    return taken === null ? null : { job: taken, holdIds: [taken.holdId] };
  }
  // quoteTotal is tasks × (per task + shots × per shot): the division is exact.
  const perTask = job.amountMicros / BigInt(job.tasks);
  const released = await p.ledger.releaseHold(tx, { holdId: job.holdId, accountId: job.accountId, reason: `held job ${job.jobId}: ${count} of ${remaining} task(s) taken by a continuation` });
  if (released.alreadyReleased) return null;
  const place = (amountMicros: bigint, refId: string, description: string) =>
    p.ledger.placeHold(tx, {
      accountId: job.accountId,
      amountMicros,
      kind: 'hardware',
      refId,
      description,
      expiresAt: job.expiresAt,
      product: 'product-one',
      provider: job.provider,
      // The tasks stay the spend of whoever held the job, against their budget.
      submittedBy: job.submittedBy,
    });
  const holdIds: string[] = [];
  let n = job.tasksUsed + 1;
  for (const k of sizes) {
    const which = k === 1 ? `task ${n}` : `tasks ${n}–${n + k - 1}`;
    const h = await place(perTask * BigInt(k), `${job.jobId}:task-${n}`, `hardware ${job.provider}/${job.device}: ${which} of ${job.tasks} × ${job.shots} shots (held job ${job.jobId})`);
    holdIds.push(h.holdId);
    n += k;
  }
  const rest = remaining - count;
  const restHold =
    rest === 0
      ? null
      : await place(perTask * BigInt(rest), `${job.jobId}:rest-${job.tasksUsed + count}`, `hardware ${job.provider}/${job.device}: ${rest} task(s) of held job ${job.jobId} not yet taken`);
  const taken = await p.hardware.takeHeldTasks(tx, job.jobId, count, restHold?.holdId ?? null);
  // Locked and checked above: a refusal here is a bug, and throwing rolls every movement back.
  if (taken === null) throw new Error(`held job ${job.jobId}: ${count} task(s) could not be taken under its lock`);
  return { job: taken, holdIds };
}
