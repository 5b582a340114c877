import { fail } from '../errors/app-error.js';
import type { Database } from '../store/db.js';
import { BILLING_ERRORS } from './error-codes.js';
import { formatMicros, parseUsd } from './money.js';
import { checkLedgerInvariants } from './store/invariants-sql.js';
import { getWallet, grantCredit } from './store/ledger-sql.js';

/** Operator actions shared by the CLI (PostgreSQL) and the operator endpoints (PGlite). */
export async function grantCreditByEmail(db: Database, i: { email: string; amount: string; reason?: string; idempotencyKey?: string }) {
  let micros: bigint;
  try {
    micros = parseUsd(i.amount);
  } catch {
    throw fail(BILLING_ERRORS.INVALID_AMOUNT, `Not a USD amount: ${i.amount}`);
  }
  if (micros <= 0n) throw fail(BILLING_ERRORS.INVALID_AMOUNT, 'The amount must be positive.');
  const u = await db.query<{ account_id: string; email: string }>('SELECT account_id, email FROM users WHERE lower(email) = lower($1)', [i.email]);
  const user = u.rows[0];
  if (user === undefined) throw fail(BILLING_ERRORS.USER_NOT_FOUND, `No user with email ${i.email}.`);
  const r = await db.tx((q) => grantCredit(q, {
    accountId: user.account_id, amountMicros: micros, reason: i.reason ?? 'promotional credit (operator)',
    ...(i.idempotencyKey === undefined ? {} : { idempotencyKey: i.idempotencyKey }),
  }));
  const w = await getWallet(db, user.account_id);
  return {
    email: user.email, account_id: user.account_id, amount: formatMicros(micros), credited: r.credited, transfer_id: r.transferId,
    wallet: { available: formatMicros(w.availableMicros), held: formatMicros(w.heldMicros), total: formatMicros(w.totalMicros), currency: 'USD' as const },
  };
}

export async function ledgerCheck(db: Database) {
  const problems = await checkLedgerInvariants(db);
  const counts = await db.query<{ transfers: number; holds: number; wallets: number }>(
    `SELECT (SELECT count(*)::int FROM ledger_transfers) AS transfers, (SELECT count(*)::int FROM billing_holds) AS holds, (SELECT count(*)::int FROM billing_wallets) AS wallets`,
  );
  return { ok: problems.length === 0, problems, checked: counts.rows[0] ?? { transfers: 0, holds: 0, wallets: 0 } };
}
