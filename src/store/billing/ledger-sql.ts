/**
 * The Ledger port (src/billing/ports.ts) over the ledger's SQL functions (migration 0400):
 * each money movement is one call of one function, inside the caller's transaction, so a job
 * row and its money move commit together. The rules and the words of their refusals are in
 * the functions; this file only passes arguments and maps rows. The same functions serve the
 * job submission and completion (migration 0401) and the store's jobs repository.
 */
import type { Ledger } from '../../billing/ports.js';
import type { CaptureResult, CreditResult, HoldKind, HoldRecord, HoldStatus, PlaceHoldInput, PlaceHoldResult, RefundResult, ReleaseResult, Wallet, WalletState } from '../../billing/records.js';
import type { Queryable } from '../db.js';
import { ledgerError, type LedgerRefusal } from './ledger-error.js';
import { queryable } from './unit-of-work.js';

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
}

const toHold = (r: HoldRow): HoldRecord => ({
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

const s = (b: bigint): string => b.toString();
const big = (v: bigint | string | number | null | undefined): bigint => (v === null || v === undefined ? 0n : BigInt(v));

/** The wallet's columns and the ledger's auto-recharge trigger evaluated on them. */
const WALLET = `w.*, ledger_recharge_due(w.ar_enabled, w.ar_paused_at, w.ar_threshold_micros, w.ar_recharge_to_micros, w.available_micros) AS recharge_due`;

/** One row of a ledger function: its OUT parameters, `error` set when it refused. */
async function call<R extends { error: LedgerRefusal | null }>(q: Queryable, sql: string, params: readonly unknown[]): Promise<Omit<R, 'error'>> {
  const row = (await q.query<R>(sql, params)).rows[0];
  if (row === undefined) throw new Error(`no row from ${sql}`);
  if (row.error !== null) throw ledgerError(row.error);
  return row;
}

export async function lockWallet(q: Queryable, accountId: string): Promise<WalletState> {
  const r = await q.query<WalletState>(`SELECT ${WALLET} FROM ledger_lock_wallet($1) w`, [accountId]);
  const w = r.rows[0];
  if (w === undefined || w.account_id === null) throw new Error(`wallet of ${accountId} vanished`);
  return w;
}

export async function readWallet(q: Queryable, accountId: string): Promise<WalletState | null> {
  const r = await q.query<WalletState>(`SELECT ${WALLET} FROM billing_wallets w WHERE w.account_id = $1`, [accountId]);
  return r.rows[0] ?? null;
}

export async function ensureWallet(q: Queryable, accountId: string): Promise<void> {
  await q.query('INSERT INTO billing_wallets (account_id) VALUES ($1) ON CONFLICT (account_id) DO NOTHING', [accountId]);
}

export async function getWallet(q: Queryable, accountId: string): Promise<Wallet> {
  const r = await q.query<{ a: string; h: string }>('SELECT available_micros::text AS a, held_micros::text AS h FROM billing_wallets WHERE account_id = $1', [accountId]);
  const available = big(r.rows[0]?.a);
  const held = big(r.rows[0]?.h);
  return { accountId, availableMicros: available, heldMicros: held, totalMicros: available + held, currency: 'USD' };
}

export async function spentSince(q: Queryable, accountId: string, since: Date): Promise<bigint> {
  const r = await q.query<{ spent: string }>('SELECT ledger_spent_since($1, $2)::text AS spent', [accountId, since]);
  return big(r.rows[0]?.spent);
}

export async function placeHold(q: Queryable, i: PlaceHoldInput): Promise<PlaceHoldResult> {
  // The audit trigger of migration 1811 names the request from this transaction-local setting.
  if (i.requestId !== undefined && i.requestId !== null) await q.query("SELECT set_config('qrail.request_id', $1, true)", [i.requestId]);
  const r = await call<{ hold_id: string; existing: boolean; available_after: string; error: LedgerRefusal | null }>(
    q,
    'SELECT hold_id, existing, available_after::text, error FROM ledger_place_hold_once($1, $2, $3, $4, $5, $6, $7, $8, COALESCE($9, now()), $10)',
    [i.accountId, i.kind, i.refId, s(i.amountMicros), i.description, i.product ?? null, i.provider ?? null, i.expiresAt, i.now ?? null, i.submittedBy ?? null],
  );
  return { holdId: r.hold_id, existing: r.existing, availableAfterMicros: BigInt(r.available_after) };
}

export async function captureHold(q: Queryable, i: { holdId: string; amountMicros: bigint; description: string; accountId?: string }): Promise<CaptureResult> {
  const r = await call<{ transfer_ids: string[]; captured: string; released: string; balance_after: string; already: boolean; error: LedgerRefusal | null }>(
    q,
    'SELECT transfer_ids::text[] AS transfer_ids, captured::text, released::text, balance_after::text, already, error FROM ledger_capture($1, $2, $3, $4)',
    [i.holdId, s(i.amountMicros), i.description, i.accountId ?? null],
  );
  return { transferIds: r.transfer_ids, capturedMicros: BigInt(r.captured), releasedMicros: BigInt(r.released), balanceAfterMicros: BigInt(r.balance_after), alreadyCaptured: r.already };
}

interface ReleaseRow {
  transfer_id: string | null;
  released: string | null;
  status: 'released' | 'expired' | null;
  already: boolean | null;
  error: LedgerRefusal | null;
}
const RELEASE = 'SELECT transfer_id, released::text, status, already, error FROM ledger_release($1, $2, $3, $4)';
const toRelease = (r: Omit<ReleaseRow, 'error'>): ReleaseResult | null =>
  r.status === null ? null : { releasedMicros: big(r.released), transferId: r.transfer_id, alreadyReleased: r.already === true, status: r.status };

export async function releaseHold(q: Queryable, i: { holdId: string; reason: string; accountId?: string }): Promise<ReleaseResult> {
  const r = toRelease(await call<ReleaseRow>(q, RELEASE, [i.holdId, i.reason, i.accountId ?? null, null]));
  if (r === null) throw new Error(`ledger_release returned nothing for hold ${i.holdId}`);
  return r;
}

/**
 * Releases the hold if it is pending. A hold already resolved (or unknown) is left as it is and
 * its refusal returned, not thrown: the caller decides whether that matters.
 */
export async function releaseIfPending(q: Queryable, holdId: string, reason: string): Promise<{ code: string } | null> {
  const r = (await q.query<ReleaseRow>(RELEASE, [holdId, reason, null, null])).rows[0];
  return r?.error ?? null;
}

export async function expireHold(q: Queryable, holdId: string, now: Date = new Date()): Promise<ReleaseResult | null> {
  return toRelease(await call<ReleaseRow>(q, RELEASE, [holdId, 'hold expired', null, now]));
}

export async function refundCapture(q: Queryable, i: { holdId: string; amountMicros: bigint; reason: string; accountId?: string }): Promise<RefundResult> {
  const r = await call<{ transfer_id: string; refunded: string; balance_after: string; error: LedgerRefusal | null }>(
    q,
    'SELECT transfer_id, refunded::text, balance_after::text, error FROM ledger_refund($1, $2, $3, $4)',
    [i.holdId, s(i.amountMicros), i.reason, i.accountId ?? null],
  );
  return { transferId: r.transfer_id, refundedMicros: BigInt(r.refunded), balanceAfterMicros: BigInt(r.balance_after) };
}

async function credit(q: Queryable, kind: 'grant' | 'topup', accountId: string, amountMicros: bigint, description: string, key: string | null): Promise<CreditResult> {
  const r = await call<{ credited: boolean; transfer_id: string | null; balance_after: string; error: LedgerRefusal | null }>(
    q,
    'SELECT credited, transfer_id, balance_after::text, error FROM ledger_credit($1, $2, $3, $4, $5)',
    [accountId, kind, s(amountMicros), description, key],
  );
  return { credited: r.credited, transferId: r.transfer_id ?? '', balanceAfterMicros: BigInt(r.balance_after) };
}

export async function grantCredit(q: Queryable, i: { accountId: string; amountMicros: bigint; reason: string; idempotencyKey?: string }): Promise<CreditResult> {
  return credit(q, 'grant', i.accountId, i.amountMicros, i.reason, i.idempotencyKey ?? null);
}

export async function creditPayment(q: Queryable, i: { accountId: string; amountMicros: bigint; externalRef: string; description: string }): Promise<CreditResult> {
  return credit(q, 'topup', i.accountId, i.amountMicros, i.description, i.externalRef);
}

export async function extendHold(q: Queryable, holdId: string, seconds: number): Promise<void> {
  await q.query(`UPDATE billing_holds SET expires_at = GREATEST(expires_at, now() + $2::int * interval '1 second') WHERE id = $1 AND status = 'pending'`, [holdId, seconds]);
}

export async function getHold(q: Queryable, holdId: string): Promise<HoldRecord | null> {
  const r = await q.query<HoldRow>('SELECT * FROM billing_holds WHERE id = $1', [holdId]);
  return r.rows[0] === undefined ? null : toHold(r.rows[0]);
}

export async function findHoldByRef(q: Queryable, kind: HoldKind, refId: string): Promise<HoldRecord | null> {
  const r = await q.query<HoldRow>('SELECT * FROM billing_holds WHERE kind = $1 AND ref_id = $2', [kind, refId]);
  return r.rows[0] === undefined ? null : toHold(r.rows[0]);
}

export async function dueHoldIds(q: Queryable, now: Date, limit: number): Promise<string[]> {
  const r = await q.query<{ id: string }>(`SELECT id FROM billing_holds WHERE status = 'pending' AND expires_at <= $1 ORDER BY expires_at LIMIT $2`, [now, limit]);
  return r.rows.map((x) => x.id);
}

export const sqlLedger: Ledger = {
  lockWallet: (tx, accountId) => lockWallet(queryable(tx), accountId),
  readWallet: (tx, accountId) => readWallet(queryable(tx), accountId),
  ensureWallet: (tx, accountId) => ensureWallet(queryable(tx), accountId),
  wallet: (tx, accountId) => getWallet(queryable(tx), accountId),
  spentSince: (tx, accountId, since) => spentSince(queryable(tx), accountId, since),
  placeHold: (tx, i) => placeHold(queryable(tx), i),
  captureHold: (tx, i) => captureHold(queryable(tx), i),
  releaseHold: (tx, i) => releaseHold(queryable(tx), i),
  releaseIfPending: async (tx, holdId, reason) => {
    await releaseIfPending(queryable(tx), holdId, reason);
  },
  expireHold: (tx, holdId, now) => expireHold(queryable(tx), holdId, now),
  refundCapture: (tx, i) => refundCapture(queryable(tx), i),
  grantCredit: (tx, i) => grantCredit(queryable(tx), i),
  creditPayment: (tx, i) => creditPayment(queryable(tx), i),
  extendHold: (tx, holdId, seconds) => extendHold(queryable(tx), holdId, seconds),
  getHold: (tx, holdId) => getHold(queryable(tx), holdId),
  findHoldByRef: (tx, kind, refId) => findHoldByRef(queryable(tx), kind, refId),
  dueHoldIds: (tx, now, limit) => dueHoldIds(queryable(tx), now, limit),
};
