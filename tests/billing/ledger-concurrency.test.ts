import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import type { App } from '../../src/http/app-types.js';
import { buildTestApp, signUp } from '../helpers/app.js';
import { captureHold, expectLedgerInvariants, expireDueHolds, fundAccount, getHold, getWallet, placeHold, releaseHold } from '../helpers/ledger.js';

// On PGlite one process owns the data and serialises transactions, so this runs there too
// (trivially serial); on PostgreSQL (DATABASE_URL) the 50 transactions really race for the
// wallet row lock through a pool of connections.
describe(`concurrent holds (${process.env['DATABASE_URL'] === undefined ? 'PGlite' : 'PostgreSQL'})`, () => {
  let app: App;
  beforeAll(async () => {
    app = await buildTestApp();
  });
  afterAll(async () => app.close());

  it('50 concurrent holds against a balance covering exactly 10 → exactly 10 succeed', async () => {
    const u = await signUp(app);
    await fundAccount(app, u.accountId, 1_000_000n); // 10 × 0.10
    const attempts = await Promise.allSettled(
      Array.from({ length: 50 }, () =>
        app.db.tx((q) => placeHold(q, { accountId: u.accountId, amountMicros: 100_000n, kind: 'job', refId: randomUUID(), description: 'race', expiresAt: new Date(Date.now() + 60_000) })),
      ),
    );
    const ok = attempts.filter((a) => a.status === 'fulfilled');
    const rejected = attempts.filter((a): a is PromiseRejectedResult => a.status === 'rejected');
    expect(ok).toHaveLength(10);
    expect(rejected).toHaveLength(40);
    for (const r of rejected) expect(r.reason).toMatchObject({ code: 'INSUFFICIENT_BALANCE', statusCode: 409 });
    expect(await getWallet(app.db, u.accountId)).toMatchObject({ availableMicros: 0n, heldMicros: 1_000_000n });
    await expectLedgerInvariants(app);
  });

  it('captures, releases and the expiry sweeper racing on one hold: exactly one resolution wins', async () => {
    const u = await signUp(app);
    await fundAccount(app, u.accountId, 1_000_000n);
    for (let round = 0; round < 5; round++) {
      const { holdId } = await app.db.tx((q) =>
        placeHold(q, { accountId: u.accountId, amountMicros: 100_000n, kind: 'job', refId: randomUUID(), description: 'race', expiresAt: new Date(Date.now() - 1) }),
      );
      const results = await Promise.allSettled([
        ...Array.from({ length: 4 }, () => app.db.tx((q) => captureHold(q, { holdId, amountMicros: 60_000n, description: 'done' }))),
        ...Array.from({ length: 4 }, () => app.db.tx((q) => releaseHold(q, { holdId, reason: 'cancel' }))),
        expireDueHolds(app.db),
      ]);
      const h = await getHold(app.db, holdId);
      const captures = results.slice(0, 4);
      const releases = results.slice(4, 8);
      if (h?.status === 'captured') {
        expect(captures.every((r) => r.status === 'fulfilled')).toBe(true);
        expect(releases.every((r) => r.status === 'rejected' && (r.reason as { code?: string }).code === 'HOLD_NOT_PENDING')).toBe(true);
        expect(captures.filter((r) => r.status === 'fulfilled' && !(r.value as { alreadyCaptured: boolean }).alreadyCaptured)).toHaveLength(1);
      } else {
        expect(['released', 'expired']).toContain(h?.status);
        expect(captures.every((r) => r.status === 'rejected' && (r.reason as { code?: string }).code === 'HOLD_NOT_PENDING')).toBe(true);
      }
      await expectLedgerInvariants(app);
    }
    expect((await getWallet(app.db, u.accountId)).heldMicros).toBe(0n);
  });
});
