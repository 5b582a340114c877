/** The account's ledger as a list (GET /v1/billing/ledger): transfers with their effect on the two balances. */
import type { LedgerListQuery } from '../../billing/ports.js';
import type { LedgerTransferRow } from '../../billing/records.js';
import type { Queryable } from '../db.js';

export async function listTransfers(q: Queryable, accountId: string, o: LedgerListQuery): Promise<LedgerTransferRow[]> {
  const params: unknown[] = [accountId, `acct:${accountId}:available`, `acct:${accountId}:held`];
  let where = 't.account_id = $1';
  if (o.kind !== undefined) {
    params.push(o.kind);
    where += ` AND t.kind = $${params.length}`;
  }
  if (o.from !== undefined) {
    params.push(o.from);
    where += ` AND t.created_at >= $${params.length}`;
  }
  if (o.to !== undefined) {
    params.push(o.to);
    where += ` AND t.created_at < $${params.length}`;
  }
  if (o.before !== undefined) {
    params.push(o.before.position, o.before.id);
    where += ` AND (t.created_at, t.id) < ($${params.length - 1}::timestamptz, $${params.length}::uuid)`;
  }
  params.push(o.limit);
  // The page is chosen on the transfers' own index first; only its rows' entries are summed.
  const r = await q.query<{
    id: string;
    kind: LedgerTransferRow['kind'];
    description: string;
    hold_id: string | null;
    amount_micros: string;
    available_delta: string;
    held_delta: string;
    submitted_by: string | null;
    created_at: Date;
    position: string;
  }>(
    `WITH page AS (
       SELECT t.id, t.kind, t.description, t.hold_id, t.amount_micros, t.created_at
         FROM ledger_transfers t WHERE ${where}
        ORDER BY t.created_at DESC, t.id DESC LIMIT $${params.length})
     SELECT p.id, p.kind, p.description, p.hold_id, p.amount_micros::text AS amount_micros, p.created_at,
            to_char(p.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS position,
            COALESCE((SELECT SUM(e.amount_micros) FROM ledger_entries e WHERE e.transfer_id = p.id AND e.ledger_account = $2), 0)::text AS available_delta,
            COALESCE((SELECT SUM(e.amount_micros) FROM ledger_entries e WHERE e.transfer_id = p.id AND e.ledger_account = $3), 0)::text AS held_delta,
            (SELECT h.submitted_by FROM billing_holds h WHERE h.id = p.hold_id) AS submitted_by
       FROM page p ORDER BY p.created_at DESC, p.id DESC`,
    params,
  );
  return r.rows.map((x) => ({
    id: x.id,
    kind: x.kind,
    description: x.description,
    hold_id: x.hold_id,
    amount_micros: BigInt(x.amount_micros),
    available_delta: BigInt(x.available_delta),
    held_delta: BigInt(x.held_delta),
    submitted_by: x.submitted_by,
    created_at: x.created_at,
    position: x.position,
  }));
}
