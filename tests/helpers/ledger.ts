import { expect } from 'vitest';
import { expireDueHolds as expireWith } from '../../src/billing/hold-expiry.js';
import type { App } from '../../src/http/app-types.js';
import { checkLedgerInvariants } from '../../src/store/billing/invariants-sql.js';
import { grantCredit } from '../../src/store/billing/ledger-sql.js';
import { sqlBillingPorts } from '../../src/store/billing/sql-billing-ports.js';
import type { Database } from '../../src/store/db.js';

/** The ledger's TypeScript calls (each one SQL function of migration 0400) on a Queryable, for tests that move money directly. */
export { captureHold, getHold, getWallet, grantCredit, placeHold, refundCapture, releaseHold } from '../../src/store/billing/ledger-sql.js';
export { checkLedgerInvariants };

/** The hold expiry sweeper's pass on this database. */
export const expireDueHolds = (db: Database, opts: { now?: Date; limit?: number } = {}): Promise<string[]> => expireWith(sqlBillingPorts(db), opts);

/** Asserts the ledger invariants of DESIGN §3 on the app's database (call after every money test). */
export async function expectLedgerInvariants(app: App): Promise<void> {
  expect(await checkLedgerInvariants(app.db)).toEqual([]);
}

/** Gives an account promotional credit through the ledger (test setup). */
export async function fundAccount(app: App, accountId: string, micros: bigint): Promise<void> {
  await app.db.tx((q) => grantCredit(q, { accountId, amountMicros: micros, reason: 'test funding' }));
}
