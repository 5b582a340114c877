import type { Queryable } from '../db.js';

/**
 * Reconciliation (DESIGN §3): recomputes every balance from the entries and checks the
 * ledger's invariants. Returns one human-readable line per violation; empty = consistent.
 * Read-only; safe to run while the service runs (a snapshot per statement is enough:
 * every check compares rows that one transaction writes together).
 */
export async function checkLedgerInvariants(q: Queryable): Promise<string[]> {
  const problems: string[] = [];
  const rows = async <R>(sql: string): Promise<R[]> => (await q.query<R>(sql)).rows;

  // Each check is one statement, hence one snapshot, so concurrent movements cannot
  // produce a false alarm.
  const total = await rows<{ s: string | bigint | null }>('SELECT COALESCE(SUM(amount_micros), 0)::text AS s FROM ledger_entries');
  if (BigInt(total[0]?.s ?? 0) !== 0n) problems.push(`sum of all ledger entries is ${String(total[0]?.s)}, not 0`);

  for (const r of await rows<{ id: string; n: number; s: string }>(
    `SELECT t.id, count(e.id)::int AS n, COALESCE(SUM(e.amount_micros), 0)::text AS s
       FROM ledger_transfers t LEFT JOIN ledger_entries e ON e.transfer_id = t.id
      GROUP BY t.id
     HAVING count(e.id) <> 2 OR COALESCE(SUM(e.amount_micros), 0) <> 0
         OR bool_or(e.ledger_account = t.from_account AND e.amount_micros = -t.amount_micros) IS NOT TRUE
         OR bool_or(e.ledger_account = t.to_account AND e.amount_micros = t.amount_micros) IS NOT TRUE
      LIMIT 20`,
  ))
    problems.push(`transfer ${r.id} has ${r.n} entries summing to ${r.s} (or they do not match its accounts)`);

  for (const r of await rows<{ account_id: string; a: string; h: string }>(
    `SELECT account_id, available_micros::text AS a, held_micros::text AS h FROM billing_wallets
      WHERE available_micros < 0 OR held_micros < 0 LIMIT 20`,
  ))
    problems.push(`wallet ${r.account_id} is negative: available ${r.a}, held ${r.h}`);

  // Cached balances = recomputed from entries.
  for (const r of await rows<{ account_id: string; cached_a: string; real_a: string; cached_h: string; real_h: string }>(
    `WITH sums AS (
       SELECT account_id,
              COALESCE(SUM(amount_micros) FILTER (WHERE ledger_account LIKE '%:available'), 0) AS a,
              COALESCE(SUM(amount_micros) FILTER (WHERE ledger_account LIKE '%:held'), 0) AS h
         FROM ledger_entries WHERE account_id IS NOT NULL GROUP BY account_id)
     SELECT COALESCE(w.account_id, s.account_id) AS account_id,
            COALESCE(w.available_micros, 0)::text AS cached_a, COALESCE(s.a, 0)::text AS real_a,
            COALESCE(w.held_micros, 0)::text AS cached_h, COALESCE(s.h, 0)::text AS real_h
       FROM billing_wallets w FULL OUTER JOIN sums s ON s.account_id = w.account_id
      WHERE COALESCE(w.available_micros, 0) <> COALESCE(s.a, 0) OR COALESCE(w.held_micros, 0) <> COALESCE(s.h, 0)
      LIMIT 20`,
  ))
    problems.push(`wallet ${r.account_id}: cached available ${r.cached_a} / held ${r.cached_h} but entries give ${r.real_a} / ${r.real_h}`);

  // held = sum of open holds.
  for (const r of await rows<{ account_id: string; held: string; open: string }>(
    `SELECT w.account_id, w.held_micros::text AS held, COALESCE(SUM(h.amount_micros) FILTER (WHERE h.status = 'pending'), 0)::text AS open
       FROM billing_wallets w LEFT JOIN billing_holds h ON h.account_id = w.account_id
      GROUP BY w.account_id, w.held_micros
     HAVING w.held_micros <> COALESCE(SUM(h.amount_micros) FILTER (WHERE h.status = 'pending'), 0)
      LIMIT 20`,
  ))
    problems.push(`wallet ${r.account_id}: held ${r.held} but open holds sum to ${r.open}`);

  // Each hold's transfers match its state.
  for (const r of await rows<{
    id: string;
    status: string;
    holds: number;
    hold_amt: string;
    captures: number;
    cap_amt: string;
    releases: number;
    rel_amt: string;
    ref_amt: string;
    amount: string;
    captured: string;
    released: string;
    refunded: string;
  }>(
    `SELECT h.id, h.status, h.amount_micros::text AS amount, h.captured_micros::text AS captured,
            h.released_micros::text AS released, h.refunded_micros::text AS refunded,
            count(t.id) FILTER (WHERE t.kind = 'hold')::int AS holds,
            COALESCE(SUM(t.amount_micros) FILTER (WHERE t.kind = 'hold'), 0)::text AS hold_amt,
            count(t.id) FILTER (WHERE t.kind = 'capture')::int AS captures,
            COALESCE(SUM(t.amount_micros) FILTER (WHERE t.kind = 'capture'), 0)::text AS cap_amt,
            count(t.id) FILTER (WHERE t.kind IN ('release', 'expire'))::int AS releases,
            COALESCE(SUM(t.amount_micros) FILTER (WHERE t.kind IN ('release', 'expire')), 0)::text AS rel_amt,
            COALESCE(SUM(t.amount_micros) FILTER (WHERE t.kind = 'refund'), 0)::text AS ref_amt
       FROM billing_holds h LEFT JOIN ledger_transfers t ON t.hold_id = h.id
      GROUP BY h.id`,
  )) {
    const bad = (why: string) => problems.push(`hold ${r.id} (${r.status}): ${why}`);
    if (r.holds !== 1 || r.hold_amt !== r.amount) bad(`${r.holds} hold transfers for ${r.hold_amt}, amount ${r.amount}`);
    if (r.ref_amt !== r.refunded || BigInt(r.refunded) > BigInt(r.captured)) bad(`refunds ${r.ref_amt} vs recorded ${r.refunded} (captured ${r.captured})`);
    switch (r.status) {
      case 'pending':
        if (r.captures !== 0 || r.releases !== 0) bad(`pending with ${r.captures} captures and ${r.releases} releases`);
        break;
      case 'captured':
        if (r.captures !== 1) bad(`${r.captures} capture transfers (want exactly 1)`);
        if (r.cap_amt !== r.captured || r.rel_amt !== r.released) bad(`captured ${r.captured}/released ${r.released} but transfers ${r.cap_amt}/${r.rel_amt}`);
        if (BigInt(r.captured) + BigInt(r.released) !== BigInt(r.amount)) bad(`captured + released ≠ amount ${r.amount}`);
        if (r.releases > 1 || (BigInt(r.released) > 0n && r.releases !== 1)) bad(`${r.releases} release transfers`);
        break;
      case 'released':
      case 'expired':
        if (r.captures !== 0) bad(`${r.captures} capture transfers on a ${r.status} hold`);
        if (r.releases !== 1 || r.rel_amt !== r.amount || r.released !== r.amount) bad(`${r.releases} releases for ${r.rel_amt}, amount ${r.amount}`);
        break;
      default:
        bad('unknown status');
    }
  }

  // A processor payment, checkout or keyed grant credited twice is impossible while every keyed
  // credit claims its key (ledger_credit through idempotency_claim, migration 0503); check anyway.
  for (const r of await rows<{ k: string; n: number }>(
    `SELECT idempotency_key AS k, count(*)::int AS n FROM ledger_transfers WHERE idempotency_key IS NOT NULL
      GROUP BY idempotency_key HAVING count(*) > 1 LIMIT 20`,
  ))
    problems.push(`external reference ${r.k} credited ${r.n} times`);
  for (const r of await rows<{ id: string; k: string }>(
    `SELECT t.id, t.idempotency_key AS k FROM ledger_transfers t
      WHERE t.idempotency_key IS NOT NULL AND NOT EXISTS (SELECT 1 FROM idempotency_keys i WHERE i.scope = 'ledger' AND i.ref = t.id)
      LIMIT 20`,
  ))
    problems.push(`transfer ${r.id} (${r.k}) has no key row in idempotency_keys`);

  return problems;
}
