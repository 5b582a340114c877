/** The BillingReports port (src/billing/ports.ts): dashboard figures, the holds list and reconciliation. */
import type { BillingReports } from '../../billing/ports.js';
import type { DayAmount, GroupAmount, HoldKind, HoldListRow, HoldStatus, LargestJob } from '../../billing/records.js';
import type { Queryable } from '../db.js';
import { checkLedgerInvariants } from './invariants-sql.js';
import { listTransfers } from './ledger-listing-sql.js';
import { queryable } from './unit-of-work.js';

const d = (x: unknown): string => (x instanceof Date ? x.toISOString().slice(0, 10) : String(x).slice(0, 10));

/** Net spend (captures − refunds) per UTC day since `from`. */
export async function spendPerDay(q: Queryable, accountId: string, from: Date): Promise<DayAmount[]> {
  const r = await q.query<{ day: string; amount: string; n: number }>(
    `SELECT to_char(date_trunc('day', created_at AT TIME ZONE 'UTC'), 'YYYY-MM-DD') AS day,
            SUM(CASE WHEN kind = 'capture' THEN amount_micros ELSE -amount_micros END)::text AS amount,
            count(*) FILTER (WHERE kind = 'capture')::int AS n
       FROM ledger_transfers WHERE account_id = $1 AND kind IN ('capture', 'refund') AND created_at >= $2
      GROUP BY 1 ORDER BY 1`,
    [accountId, from],
  );
  return r.rows.map((x) => ({ day: d(x.day), amount: BigInt(x.amount), count: Number(x.n) }));
}

/** Net spend grouped by the hold's product or provider since `from`. */
export async function spendBy(q: Queryable, accountId: string, from: Date, by: 'product' | 'provider'): Promise<GroupAmount[]> {
  const col = by === 'product' ? 'h.product' : 'h.provider';
  const r = await q.query<{ key: string | null; amount: string; n: number }>(
    `SELECT ${col} AS key, SUM(h.captured_micros - h.refunded_micros)::text AS amount, count(*)::int AS n
       FROM billing_holds h WHERE h.account_id = $1 AND h.status = 'captured' AND h.resolved_at >= $2
      GROUP BY ${col} ORDER BY SUM(h.captured_micros - h.refunded_micros) DESC`,
    [accountId, from],
  );
  return r.rows.map((x) => ({ key: x.key, amount: BigInt(x.amount), count: Number(x.n) }));
}

export async function largestJobs(q: Queryable, accountId: string, from: Date, limit: number): Promise<LargestJob[]> {
  const r = await q.query<LargestJob>(
    `SELECT id AS hold_id, kind, ref_id, description, product, provider, captured_micros, refunded_micros, created_at, resolved_at
       FROM billing_holds WHERE account_id = $1 AND status = 'captured' AND resolved_at >= $2
      ORDER BY captured_micros - refunded_micros DESC, resolved_at DESC LIMIT $3`,
    [accountId, from, limit],
  );
  return r.rows;
}

/** Opening balances (before `from`) and net change per day of the account's available and held accounts. */
export async function balanceMoves(q: Queryable, accountId: string, from: Date): Promise<{ openAvailable: bigint; openHeld: bigint; days: Array<{ day: string; available: bigint; held: bigint }> }> {
  const open = await q.query<{ a: string; h: string }>(
    `SELECT COALESCE(SUM(amount_micros) FILTER (WHERE ledger_account LIKE '%:available'), 0)::text AS a,
            COALESCE(SUM(amount_micros) FILTER (WHERE ledger_account LIKE '%:held'), 0)::text AS h
       FROM ledger_entries WHERE account_id = $1 AND created_at < $2`,
    [accountId, from],
  );
  const r = await q.query<{ day: string; a: string; h: string }>(
    `SELECT to_char(date_trunc('day', created_at AT TIME ZONE 'UTC'), 'YYYY-MM-DD') AS day,
            COALESCE(SUM(amount_micros) FILTER (WHERE ledger_account LIKE '%:available'), 0)::text AS a,
            COALESCE(SUM(amount_micros) FILTER (WHERE ledger_account LIKE '%:held'), 0)::text AS h
       FROM ledger_entries WHERE account_id = $1 AND created_at >= $2 GROUP BY 1 ORDER BY 1`,
    [accountId, from],
  );
  return {
    openAvailable: BigInt(open.rows[0]?.a ?? '0'),
    openHeld: BigInt(open.rows[0]?.h ?? '0'),
    days: r.rows.map((x) => ({ day: d(x.day), available: BigInt(x.a), held: BigInt(x.h) })),
  };
}

/** The account's holds, newest first, with a keyset cursor (`seq` of the last row seen). */
export async function listHolds(q: Queryable, accountId: string, o: { limit: number; status?: HoldStatus; kind?: HoldKind; beforeSeq?: bigint }): Promise<HoldListRow[]> {
  const params: unknown[] = [accountId];
  let where = 'account_id = $1';
  if (o.status !== undefined) {
    params.push(o.status);
    where += ` AND status = $${params.length}`;
  }
  if (o.kind !== undefined) {
    params.push(o.kind);
    where += ` AND kind = $${params.length}`;
  }
  if (o.beforeSeq !== undefined) {
    params.push(o.beforeSeq.toString());
    where += ` AND seq < $${params.length}`;
  }
  params.push(o.limit);
  const r = await q.query<HoldListRow>(
    `SELECT seq, id, kind, ref_id, description, product, provider, amount_micros, status, captured_micros, released_micros, refunded_micros, expires_at, created_at, resolved_at
       FROM billing_holds WHERE ${where} ORDER BY seq DESC LIMIT $${params.length}`,
    params,
  );
  return r.rows;
}

export const sqlBillingReports: BillingReports = {
  spendPerDay: (tx, accountId, from) => spendPerDay(queryable(tx), accountId, from),
  spendBy: (tx, accountId, from, by) => spendBy(queryable(tx), accountId, from, by),
  largestJobs: (tx, accountId, from, limit) => largestJobs(queryable(tx), accountId, from, limit),
  balanceMoves: (tx, accountId, from) => balanceMoves(queryable(tx), accountId, from),
  listHolds: (tx, accountId, o) => listHolds(queryable(tx), accountId, o),
  listTransfers: (tx, accountId, o) => listTransfers(queryable(tx), accountId, o),
  async openHolds(tx, accountId) {
    const r = await queryable(tx).query<{ n: number; s: string }>(
      `SELECT count(*)::int AS n, COALESCE(SUM(amount_micros), 0)::text AS s FROM billing_holds WHERE account_id = $1 AND status = 'pending'`,
      [accountId],
    );
    return { count: r.rows[0]?.n ?? 0, amountMicros: BigInt(r.rows[0]?.s ?? '0') };
  },
  ledgerProblems: (tx) => checkLedgerInvariants(queryable(tx)),
  async ledgerCounts(tx) {
    const r = await queryable(tx).query<{ transfers: number; holds: number; wallets: number }>(
      `SELECT (SELECT count(*)::int FROM ledger_transfers) AS transfers, (SELECT count(*)::int FROM billing_holds) AS holds, (SELECT count(*)::int FROM billing_wallets) AS wallets`,
    );
    return r.rows[0] ?? { transfers: 0, holds: 0, wallets: 0 };
  },
};
