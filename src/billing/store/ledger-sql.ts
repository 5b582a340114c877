import { randomUUID } from 'node:crypto';
import { fail } from '../../errors/app-error.js';
import type { Queryable } from '../../store/db.js';
import { BILLING_ERRORS } from '../error-codes.js';
import { PLATFORM_REVENUE, PROCESSOR_CLEARING, PROMOTIONAL_CREDIT, availableAccount, heldAccount } from '../ledger-accounts.js';
import { formatMicros } from '../money.js';
import { checkSpend, startOfUtcDay, startOfUtcMonth, type SpendControls } from '../spend-controls.js';

/**
 * The ledger (DESIGN §3). Every function runs inside the caller's transaction (`q`), so a
 * job row and its money move commit together. Each takes the account's wallet row lock
 * (`SELECT … FOR UPDATE`) first and the hold row second — always in that order.
 */

export type HoldKind = 'job' | 'hardware';
export type HoldStatus = 'pending' | 'captured' | 'released' | 'expired';
export type TransferKind = 'grant' | 'topup' | 'hold' | 'capture' | 'release' | 'expire' | 'refund' | 'adjustment';

export interface WalletRow {
  account_id: string;
  currency: string;
  available_micros: bigint;
  held_micros: bigint;
  daily_limit_micros: bigint | null;
  monthly_limit_micros: bigint | null;
  per_job_max_micros: bigint | null;
  hardware_allowed: boolean;
  hold_expiry_seconds: number;
  ar_enabled: boolean;
  ar_threshold_micros: bigint | null;
  ar_recharge_to_micros: bigint | null;
  ar_monthly_cap_micros: bigint | null;
  ar_payment_method: string | null;
  ar_consecutive_failures: number;
  ar_paused_at: Date | null;
  ar_pause_reason: string | null;
  ar_requested_at: Date | null;
  processor_customer_id: string | null;
  default_payment_method: string | null;
  default_payment_method_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

export interface HoldRecord {
  readonly id: string;
  readonly accountId: string;
  readonly kind: HoldKind;
  readonly refId: string;
  readonly description: string;
  readonly product: string | null;
  readonly provider: string | null;
  readonly amountMicros: bigint;
  readonly status: HoldStatus;
  readonly capturedMicros: bigint;
  readonly releasedMicros: bigint;
  readonly refundedMicros: bigint;
  readonly expiresAt: Date;
  readonly createdAt: Date;
  readonly resolvedAt: Date | null;
  readonly resolutionReason: string | null;
}

interface HoldRow {
  id: string;
  account_id: string;
  kind: HoldKind;
  ref_id: string;
  description: string;
  product: string | null;
  provider: string | null;
  amount_micros: bigint;
  status: HoldStatus;
  captured_micros: bigint;
  released_micros: bigint;
  refunded_micros: bigint;
  expires_at: Date;
  created_at: Date;
  resolved_at: Date | null;
  resolution_reason: string | null;
  capture_balance_after_micros: bigint | null;
}

export const toHold = (r: HoldRow): HoldRecord => ({
  id: r.id,
  accountId: r.account_id,
  kind: r.kind,
  refId: r.ref_id,
  description: r.description,
  product: r.product,
  provider: r.provider,
  amountMicros: BigInt(r.amount_micros),
  status: r.status,
  capturedMicros: BigInt(r.captured_micros),
  releasedMicros: BigInt(r.released_micros),
  refundedMicros: BigInt(r.refunded_micros),
  expiresAt: new Date(r.expires_at),
  createdAt: new Date(r.created_at),
  resolvedAt: r.resolved_at === null ? null : new Date(r.resolved_at),
  resolutionReason: r.resolution_reason,
});

export interface Wallet {
  readonly accountId: string;
  readonly availableMicros: bigint;
  readonly heldMicros: bigint;
  readonly totalMicros: bigint;
  readonly currency: 'USD';
}

const s = (b: bigint): string => b.toString();
const big = (v: bigint | string | number | null | undefined): bigint => (v === null || v === undefined ? 0n : BigInt(v));

export function controlsOf(w: WalletRow): SpendControls {
  return {
    dailyLimitMicros: w.daily_limit_micros === null ? null : BigInt(w.daily_limit_micros),
    monthlyLimitMicros: w.monthly_limit_micros === null ? null : BigInt(w.monthly_limit_micros),
    perJobMaxMicros: w.per_job_max_micros === null ? null : BigInt(w.per_job_max_micros),
    hardwareAllowed: w.hardware_allowed,
    holdExpirySeconds: Number(w.hold_expiry_seconds),
  };
}

/** Creates the wallet row if absent and locks it for the rest of the transaction. */
export async function lockWallet(q: Queryable, accountId: string): Promise<WalletRow> {
  await q.query('INSERT INTO billing_wallets (account_id) VALUES ($1) ON CONFLICT (account_id) DO NOTHING', [accountId]);
  const r = await q.query<WalletRow>('SELECT * FROM billing_wallets WHERE account_id = $1 FOR UPDATE', [accountId]);
  const w = r.rows[0];
  if (w === undefined) throw new Error(`wallet of ${accountId} vanished`);
  return w;
}

/** Reads the wallet row without locking; null when the account never had one. */
export async function readWalletRow(q: Queryable, accountId: string): Promise<WalletRow | null> {
  const r = await q.query<WalletRow>('SELECT * FROM billing_wallets WHERE account_id = $1', [accountId]);
  return r.rows[0] ?? null;
}

export async function getWallet(q: Queryable, accountId: string): Promise<Wallet> {
  const w = await readWalletRow(q, accountId);
  const available = big(w?.available_micros);
  const held = big(w?.held_micros);
  return { accountId, availableMicros: available, heldMicros: held, totalMicros: available + held, currency: 'USD' };
}

interface TransferSpec {
  readonly kind: TransferKind;
  readonly from: string;
  readonly to: string;
  readonly amountMicros: bigint;
  readonly accountId: string | null;
  readonly holdId?: string | null;
  readonly description: string;
  readonly idempotencyKey?: string | null;
}

const ownerOf = (ledgerAccount: string): string | null => (ledgerAccount.startsWith('acct:') ? (ledgerAccount.split(':')[1] ?? null) : null);

/**
 * Appends one transfer and its two entries. With an idempotency key already used, appends
 * nothing and returns `null` (the unique index makes a double credit impossible).
 */
async function appendTransfer(q: Queryable, t: TransferSpec): Promise<string | null> {
  if (t.amountMicros < 0n) throw fail(BILLING_ERRORS.INVALID_AMOUNT, 'Amounts must not be negative.');
  const id = randomUUID();
  const r = await q.query<{ id: string }>(
    `INSERT INTO ledger_transfers (id, kind, from_account, to_account, amount_micros, account_id, hold_id, description, idempotency_key)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) ON CONFLICT (idempotency_key) DO NOTHING RETURNING id`,
    [id, t.kind, t.from, t.to, s(t.amountMicros), t.accountId, t.holdId ?? null, t.description, t.idempotencyKey ?? null],
  );
  if (r.rows.length === 0) return null;
  await q.query(
    `INSERT INTO ledger_entries (transfer_id, ledger_account, account_id, amount_micros) VALUES ($1, $2, $3, $4), ($1, $5, $6, $7)`,
    [id, t.from, ownerOf(t.from), s(-t.amountMicros), t.to, ownerOf(t.to), s(t.amountMicros)],
  );
  return id;
}

async function setBalances(q: Queryable, accountId: string, available: bigint, held: bigint): Promise<void> {
  // Auto-recharge outbox: a debit that leaves available below the threshold asks for a
  // recharge in the same transaction; the recharge itself runs after commit.
  await q.query(
    `UPDATE billing_wallets SET available_micros = $2, held_micros = $3, updated_at = now(),
       ar_requested_at = CASE
         WHEN ar_enabled AND ar_paused_at IS NULL AND ar_threshold_micros IS NOT NULL AND ar_recharge_to_micros IS NOT NULL
              AND $2::bigint < ar_threshold_micros
         THEN COALESCE(ar_requested_at, now()) ELSE ar_requested_at END
     WHERE account_id = $1`,
    [accountId, s(available), s(held)],
  );
}

/** What holds placed since `since` committed: pending amounts + captured − refunded. */
export async function spentSince(q: Queryable, accountId: string, since: Date): Promise<bigint> {
  const r = await q.query<{ spent: bigint | string | null }>(
    `SELECT COALESCE(SUM(CASE WHEN status = 'pending' THEN amount_micros
                              WHEN status = 'captured' THEN captured_micros - refunded_micros ELSE 0 END), 0)::bigint AS spent
       FROM billing_holds WHERE account_id = $1 AND created_at >= $2`,
    [accountId, since],
  );
  return big(r.rows[0]?.spent);
}

export interface PlaceHoldInput {
  readonly accountId: string;
  readonly amountMicros: bigint;
  readonly kind: HoldKind;
  /** The job id (or held-job id) this hold pays for; unique per kind. */
  readonly refId: string;
  readonly description: string;
  readonly expiresAt: Date;
  readonly product?: string;
  readonly provider?: string;
  /** Clock for spend windows (tests); defaults to now. */
  readonly now?: Date;
}

/**
 * Moves `amountMicros` from available to held after the spend controls and the balance
 * allow it. Placing a hold again for the same (kind, refId) with the same account and
 * amount returns the existing hold (`existing: true`); with anything else → 409 HOLD_EXISTS.
 */
export async function placeHold(q: Queryable, i: PlaceHoldInput): Promise<{ holdId: string; existing: boolean; availableAfterMicros: bigint }> {
  if (i.amountMicros < 0n) throw fail(BILLING_ERRORS.INVALID_AMOUNT, 'A hold amount must not be negative.');
  const now = i.now ?? new Date();
  const w = await lockWallet(q, i.accountId);
  const prior = await q.query<HoldRow>('SELECT * FROM billing_holds WHERE kind = $1 AND ref_id = $2', [i.kind, i.refId]);
  const p = prior.rows[0];
  if (p !== undefined) {
    if (p.account_id === i.accountId && BigInt(p.amount_micros) === i.amountMicros) {
      return { holdId: p.id, existing: true, availableAfterMicros: BigInt(w.available_micros) };
    }
    throw fail(BILLING_ERRORS.HOLD_EXISTS, `A hold for ${i.kind} ${i.refId} already exists.`, { hold_id: p.account_id === i.accountId ? p.id : undefined });
  }
  const available = BigInt(w.available_micros);
  const held = BigInt(w.held_micros);
  const controls = controlsOf(w);
  const needsWindows = controls.dailyLimitMicros !== null || controls.monthlyLimitMicros !== null;
  const err = checkSpend(controls, {
    amountMicros: i.amountMicros,
    kind: i.kind,
    spentTodayMicros: needsWindows && controls.dailyLimitMicros !== null ? await spentSince(q, i.accountId, startOfUtcDay(now)) : 0n,
    spentMonthMicros: needsWindows && controls.monthlyLimitMicros !== null ? await spentSince(q, i.accountId, startOfUtcMonth(now)) : 0n,
    availableMicros: available,
  });
  if (err !== null) throw err;

  const holdId = randomUUID();
  await q.query(
    `INSERT INTO billing_holds (id, account_id, kind, ref_id, description, product, provider, amount_micros, status, expires_at, created_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, 'pending', $9, $10)`,
    [holdId, i.accountId, i.kind, i.refId, i.description, i.product ?? null, i.provider ?? null, s(i.amountMicros), i.expiresAt, now],
  );
  await appendTransfer(q, {
    kind: 'hold', from: availableAccount(i.accountId), to: heldAccount(i.accountId), amountMicros: i.amountMicros,
    accountId: i.accountId, holdId, description: i.description,
  });
  await setBalances(q, i.accountId, available - i.amountMicros, held + i.amountMicros);
  return { holdId, existing: false, availableAfterMicros: available - i.amountMicros };
}

/** Locks wallet then hold; 404 when the hold does not exist (or belongs to another account, if given). */
async function lockHold(q: Queryable, holdId: string, accountId?: string): Promise<{ w: WalletRow; h: HoldRow }> {
  const owner = await q.query<{ account_id: string }>('SELECT account_id FROM billing_holds WHERE id = $1', [holdId]);
  const a = owner.rows[0]?.account_id;
  if (a === undefined || (accountId !== undefined && a !== accountId)) throw fail(BILLING_ERRORS.HOLD_NOT_FOUND, `No hold ${holdId}.`);
  const w = await lockWallet(q, a);
  const h = (await q.query<HoldRow>('SELECT * FROM billing_holds WHERE id = $1 FOR UPDATE', [holdId])).rows[0];
  if (h === undefined) throw fail(BILLING_ERRORS.HOLD_NOT_FOUND, `No hold ${holdId}.`);
  return { w, h };
}

async function transferIdsOf(q: Queryable, holdId: string, kinds: readonly TransferKind[]): Promise<string[]> {
  const r = await q.query<{ id: string }>(
    `SELECT id FROM ledger_transfers WHERE hold_id = $1 AND kind = ANY($2::text[]) ORDER BY created_at, kind`,
    [holdId, kinds],
  );
  return r.rows.map((x) => x.id);
}

export interface CaptureResult {
  readonly transferIds: string[];
  readonly capturedMicros: bigint;
  readonly releasedMicros: bigint;
  readonly balanceAfterMicros: bigint;
  /** True when the hold had already been captured: nothing moved, the first outcome is returned. */
  readonly alreadyCaptured: boolean;
}

/**
 * Captures ≤ the held amount into platform revenue and returns the rest to available —
 * exactly once. Capturing an already captured hold is a no-op returning the first
 * outcome (whatever amount is asked the second time). A released or expired hold → 409
 * HOLD_NOT_PENDING; more than held → 409 CAPTURE_EXCEEDS_HOLD.
 */
export async function captureHold(q: Queryable, i: { holdId: string; amountMicros: bigint; description: string; accountId?: string }): Promise<CaptureResult> {
  if (i.amountMicros < 0n) throw fail(BILLING_ERRORS.INVALID_AMOUNT, 'A capture amount must not be negative.');
  const { w, h } = await lockHold(q, i.holdId, i.accountId);
  if (h.status === 'captured') {
    return {
      transferIds: await transferIdsOf(q, h.id, ['capture', 'release']),
      capturedMicros: BigInt(h.captured_micros),
      releasedMicros: BigInt(h.released_micros),
      balanceAfterMicros: big(h.capture_balance_after_micros),
      alreadyCaptured: true,
    };
  }
  if (h.status !== 'pending') {
    throw fail(BILLING_ERRORS.HOLD_NOT_PENDING, `The hold was already ${h.status}; nothing can be captured.`, { status: h.status, hold_id: h.id });
  }
  const amount = BigInt(h.amount_micros);
  if (i.amountMicros > amount) {
    throw fail(BILLING_ERRORS.CAPTURE_EXCEEDS_HOLD, `Cannot capture ${formatMicros(i.amountMicros)} from a hold of ${formatMicros(amount)}.`, {
      held: formatMicros(amount), requested: formatMicros(i.amountMicros),
    });
  }
  const rest = amount - i.amountMicros;
  const ids: string[] = [];
  const cap = await appendTransfer(q, {
    kind: 'capture', from: heldAccount(h.account_id), to: PLATFORM_REVENUE, amountMicros: i.amountMicros,
    accountId: h.account_id, holdId: h.id, description: i.description,
  });
  if (cap !== null) ids.push(cap);
  if (rest > 0n) {
    const rel = await appendTransfer(q, {
      kind: 'release', from: heldAccount(h.account_id), to: availableAccount(h.account_id), amountMicros: rest,
      accountId: h.account_id, holdId: h.id, description: `unused part of hold: ${i.description}`,
    });
    if (rel !== null) ids.push(rel);
  }
  const availableAfter = BigInt(w.available_micros) + rest;
  await setBalances(q, h.account_id, availableAfter, BigInt(w.held_micros) - amount);
  await q.query(
    `UPDATE billing_holds SET status = 'captured', captured_micros = $2, released_micros = $3, resolved_at = now(),
       resolution_reason = $4, capture_balance_after_micros = $5 WHERE id = $1`,
    [h.id, s(i.amountMicros), s(rest), i.description, s(availableAfter)],
  );
  return { transferIds: ids, capturedMicros: i.amountMicros, releasedMicros: rest, balanceAfterMicros: availableAfter, alreadyCaptured: false };
}

export interface ReleaseResult {
  readonly releasedMicros: bigint;
  readonly transferId: string | null;
  /** True when the hold was already released or expired: nothing moved. */
  readonly alreadyReleased: boolean;
  readonly status: 'released' | 'expired';
}

async function releaseLocked(q: Queryable, w: WalletRow, h: HoldRow, reason: string, as: 'released' | 'expired'): Promise<ReleaseResult> {
  if (h.status === 'released' || h.status === 'expired') {
    const ids = await transferIdsOf(q, h.id, ['release', 'expire']);
    return { releasedMicros: BigInt(h.released_micros), transferId: ids[0] ?? null, alreadyReleased: true, status: h.status };
  }
  if (h.status === 'captured') {
    throw fail(BILLING_ERRORS.HOLD_NOT_PENDING, 'The hold was already captured; it cannot be released.', { status: h.status, hold_id: h.id });
  }
  const amount = BigInt(h.amount_micros);
  const id = await appendTransfer(q, {
    kind: as === 'expired' ? 'expire' : 'release', from: heldAccount(h.account_id), to: availableAccount(h.account_id),
    amountMicros: amount, accountId: h.account_id, holdId: h.id, description: reason,
  });
  await setBalances(q, h.account_id, BigInt(w.available_micros) + amount, BigInt(w.held_micros) - amount);
  await q.query(
    `UPDATE billing_holds SET status = $2, released_micros = amount_micros, resolved_at = now(), resolution_reason = $3 WHERE id = $1`,
    [h.id, as, reason],
  );
  return { releasedMicros: amount, transferId: id, alreadyReleased: false, status: as };
}

/**
 * Returns the whole held amount to available — exactly once. Releasing an already
 * released (or expired) hold is a no-op returning the first outcome; a captured hold → 409.
 */
export async function releaseHold(q: Queryable, i: { holdId: string; reason: string; accountId?: string }): Promise<ReleaseResult> {
  const { w, h } = await lockHold(q, i.holdId, i.accountId);
  return releaseLocked(q, w, h, i.reason, 'released');
}

/**
 * Expires one hold if it is still pending and past its expiry at `now`; returns null when
 * there was nothing to do (captured, released, or not yet due).
 */
export async function expireHold(q: Queryable, holdId: string, now: Date = new Date()): Promise<ReleaseResult | null> {
  const { w, h } = await lockHold(q, holdId);
  if (h.status !== 'pending' || new Date(h.expires_at).getTime() > now.getTime()) return null;
  return releaseLocked(q, w, h, 'hold expired', 'expired');
}

/**
 * Returns captured money to the wallet (a refund of a charge, not of a processor payment),
 * up to what was captured and not yet refunded.
 */
export async function refundCapture(q: Queryable, i: { holdId: string; amountMicros: bigint; reason: string; accountId?: string }): Promise<{ transferId: string; refundedMicros: bigint; balanceAfterMicros: bigint }> {
  if (i.amountMicros <= 0n) throw fail(BILLING_ERRORS.INVALID_AMOUNT, 'A refund must be positive.');
  const { w, h } = await lockHold(q, i.holdId, i.accountId);
  if (h.status !== 'captured') throw fail(BILLING_ERRORS.HOLD_NOT_PENDING, 'Only a captured hold can be refunded.', { status: h.status, hold_id: h.id });
  const refundable = BigInt(h.captured_micros) - BigInt(h.refunded_micros);
  if (i.amountMicros > refundable) {
    throw fail(BILLING_ERRORS.REFUND_EXCEEDS_CAPTURE, `Only ${formatMicros(refundable)} can still be refunded.`, { refundable: formatMicros(refundable) });
  }
  const id = await appendTransfer(q, {
    kind: 'refund', from: PLATFORM_REVENUE, to: availableAccount(h.account_id), amountMicros: i.amountMicros,
    accountId: h.account_id, holdId: h.id, description: i.reason,
  });
  const after = BigInt(w.available_micros) + i.amountMicros;
  await setBalances(q, h.account_id, after, BigInt(w.held_micros));
  await q.query('UPDATE billing_holds SET refunded_micros = refunded_micros + $2 WHERE id = $1', [h.id, s(i.amountMicros)]);
  return { transferId: id as string, refundedMicros: i.amountMicros, balanceAfterMicros: after };
}

export interface CreditResult {
  /** False when the idempotency key was already used: nothing moved. */
  readonly credited: boolean;
  readonly transferId: string;
  readonly balanceAfterMicros: bigint;
}

async function credit(q: Queryable, kind: 'grant' | 'topup', from: string, i: { accountId: string; amountMicros: bigint; description: string; idempotencyKey: string | null }): Promise<CreditResult> {
  if (i.amountMicros <= 0n) throw fail(BILLING_ERRORS.INVALID_AMOUNT, 'A credit must be positive.');
  const w = await lockWallet(q, i.accountId);
  const id = await appendTransfer(q, {
    kind, from, to: availableAccount(i.accountId), amountMicros: i.amountMicros, accountId: i.accountId,
    description: i.description, idempotencyKey: i.idempotencyKey,
  });
  if (id === null) {
    const prior = await q.query<{ id: string }>('SELECT id FROM ledger_transfers WHERE idempotency_key = $1', [i.idempotencyKey]);
    return { credited: false, transferId: prior.rows[0]?.id ?? '', balanceAfterMicros: BigInt(w.available_micros) };
  }
  const after = BigInt(w.available_micros) + i.amountMicros;
  await q.query(
    // A credit that lifts available to the threshold or above satisfies a pending recharge request.
    `UPDATE billing_wallets SET available_micros = $2, updated_at = now(),
       ar_requested_at = CASE WHEN ar_threshold_micros IS NOT NULL AND $2::bigint >= ar_threshold_micros THEN NULL ELSE ar_requested_at END
     WHERE account_id = $1`,
    [i.accountId, s(after)],
  );
  return { credited: true, transferId: id, balanceAfterMicros: after };
}

/** Promotional credit through the ledger (operator CLI, tests). Same key twice → one credit. */
export async function grantCredit(q: Queryable, i: { accountId: string; amountMicros: bigint; reason: string; idempotencyKey?: string }): Promise<CreditResult> {
  return credit(q, 'grant', PROMOTIONAL_CREDIT, {
    accountId: i.accountId, amountMicros: i.amountMicros, description: i.reason,
    idempotencyKey: i.idempotencyKey === undefined ? null : `grant:${i.accountId}:${i.idempotencyKey}`,
  });
}

/**
 * Money paid through the processor. `externalRef` (e.g. `checkout:cs_…`, `payment_intent:pi_…`)
 * is unique over the whole ledger: the same payment can never be credited twice.
 */
export async function creditPayment(q: Queryable, i: { accountId: string; amountMicros: bigint; externalRef: string; description: string }): Promise<CreditResult> {
  return credit(q, 'topup', PROCESSOR_CLEARING, { accountId: i.accountId, amountMicros: i.amountMicros, description: i.description, idempotencyKey: i.externalRef });
}

export async function getHold(q: Queryable, holdId: string): Promise<HoldRecord | null> {
  const r = await q.query<HoldRow>('SELECT * FROM billing_holds WHERE id = $1', [holdId]);
  return r.rows[0] === undefined ? null : toHold(r.rows[0]);
}

export async function findHoldByRef(q: Queryable, kind: HoldKind, refId: string): Promise<HoldRecord | null> {
  const r = await q.query<HoldRow>('SELECT * FROM billing_holds WHERE kind = $1 AND ref_id = $2', [kind, refId]);
  return r.rows[0] === undefined ? null : toHold(r.rows[0]);
}

/** Ids of pending holds past their expiry (oldest first). */
export async function dueHoldIds(q: Queryable, now: Date, limit: number): Promise<string[]> {
  const r = await q.query<{ id: string }>(
    `SELECT id FROM billing_holds WHERE status = 'pending' AND expires_at <= $1 ORDER BY expires_at LIMIT $2`,
    [now, limit],
  );
  return r.rows.map((x) => x.id);
}
