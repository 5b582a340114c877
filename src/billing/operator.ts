import { fail } from '../errors/app-error.js';
import { BILLING_ERRORS } from './error-codes.js';
import { formatMicros, parseUsd } from './money.js';
import type { BillingPorts } from './ports.js';

/** Operator actions shared by the CLI (PostgreSQL) and the operator endpoints (PGlite). */
export async function grantCreditByEmail(p: Pick<BillingPorts, 'uow' | 'ledger' | 'accounts'>, i: { email: string; amount: string; reason?: string; idempotencyKey?: string }) {
  let micros: bigint;
  try {
    micros = parseUsd(i.amount);
  } catch {
    throw fail(BILLING_ERRORS.INVALID_AMOUNT, `Not a USD amount: ${i.amount}`);
  }
  if (micros <= 0n) throw fail(BILLING_ERRORS.INVALID_AMOUNT, 'The amount must be positive.');
  const user = await p.accounts.byEmail(p.uow.autocommit, i.email);
  if (user === null) throw fail(BILLING_ERRORS.USER_NOT_FOUND, `No user with email ${i.email}.`);
  const r = await p.uow.run((tx) =>
    p.ledger.grantCredit(tx, {
      accountId: user.accountId,
      amountMicros: micros,
      reason: i.reason ?? 'promotional credit (operator)',
      ...(i.idempotencyKey === undefined ? {} : { idempotencyKey: i.idempotencyKey }),
    }),
  );
  const w = await p.ledger.wallet(p.uow.autocommit, user.accountId);
  return {
    email: user.email,
    account_id: user.accountId,
    amount: formatMicros(micros),
    credited: r.credited,
    transfer_id: r.transferId,
    wallet: { available: formatMicros(w.availableMicros), held: formatMicros(w.heldMicros), total: formatMicros(w.totalMicros), currency: 'USD' as const },
  };
}

export async function ledgerCheck(p: Pick<BillingPorts, 'reports' | 'uow'>) {
  const problems = await p.reports.ledgerProblems(p.uow.autocommit);
  const checked = await p.reports.ledgerCounts(p.uow.autocommit);
  return { ok: problems.length === 0, problems, checked };
}
