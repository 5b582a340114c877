import { expect } from 'vitest';
import { checkLedgerInvariants } from '../../src/billing/ledger.js';
import type { App } from '../../src/http/app-types.js';

/** Asserts the ledger invariants of DESIGN §3 on the app's database (call after every money test). */
export async function expectLedgerInvariants(app: App): Promise<void> {
  expect(await checkLedgerInvariants(app.db)).toEqual([]);
}

/** Gives an account promotional credit through the ledger (test setup). */
export async function fundAccount(app: App, accountId: string, micros: bigint): Promise<void> {
  const { grantCredit } = await import('../../src/billing/ledger.js');
  await app.db.tx((q) => grantCredit(q, { accountId, amountMicros: micros, reason: 'test funding' }));
}
