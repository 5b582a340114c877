import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import type { App } from '../../src/http/app-types.js';
import { formatMicros, parseUsd } from '../../src/billing/money.js';
import { buildTestApp, signUp } from '../helpers/app.js';
import { captureHold, checkLedgerInvariants, expectLedgerInvariants, expireDueHolds, fundAccount, getHold, getWallet, grantCredit, placeHold, refundCapture, releaseHold } from '../helpers/ledger.js';

const later = () => new Date(Date.now() + 3600_000);

describe('ledger', () => {
  let app: App;
  beforeAll(async () => {
    app = await buildTestApp();
  });
  afterEach(async () => expectLedgerInvariants(app));
  afterAll(async () => app.close());

  const hold = (accountId: string, amount: bigint, extra: Partial<Parameters<typeof placeHold>[1]> = {}) =>
    app.db.tx((q) => placeHold(q, { accountId, amountMicros: amount, kind: 'job', refId: randomUUID(), description: 'test job', expiresAt: later(), ...extra }));

  it('money helpers never use floats', () => {
    expect(formatMicros(120000n)).toBe('0.120000');
    expect(formatMicros(0n)).toBe('0.000000');
    expect(formatMicros(12_345_678_901n)).toBe('12345.678901');
    expect(formatMicros(-500000n)).toBe('-0.500000');
    expect(parseUsd('0.12')).toBe(120000n);
    expect(parseUsd('1')).toBe(1_000_000n);
    expect(parseUsd('0.000001')).toBe(1n);
    for (const bad of ['', '-1', '1.0000001', '01', '1e3', ' 1', '0.1.2', 'NaN']) expect(() => parseUsd(bad)).toThrow(RangeError);
  });

  it('grant → hold → partial capture → rest returns; wallet figures follow', async () => {
    const u = await signUp(app);
    await fundAccount(app, u.accountId, 1_000_000n);
    expect(await getWallet(app.db, u.accountId)).toMatchObject({ availableMicros: 1_000_000n, heldMicros: 0n, totalMicros: 1_000_000n, currency: 'USD' });
    const { holdId } = await hold(u.accountId, 300_000n);
    expect(await getWallet(app.db, u.accountId)).toMatchObject({ availableMicros: 700_000n, heldMicros: 300_000n, totalMicros: 1_000_000n });
    const cap = await app.db.tx((q) => captureHold(q, { holdId, amountMicros: 120_000n, description: 'ran' }));
    expect(cap).toMatchObject({ capturedMicros: 120_000n, releasedMicros: 180_000n, balanceAfterMicros: 880_000n, alreadyCaptured: false });
    expect(cap.transferIds).toHaveLength(2);
    expect(await getWallet(app.db, u.accountId)).toMatchObject({ availableMicros: 880_000n, heldMicros: 0n });
    // A second capture is a no-op returning the first outcome.
    const again = await app.db.tx((q) => captureHold(q, { holdId, amountMicros: 300_000n, description: 'retry' }));
    expect(again).toMatchObject({ capturedMicros: 120_000n, releasedMicros: 180_000n, balanceAfterMicros: 880_000n, alreadyCaptured: true });
    expect(again.transferIds.sort()).toEqual(cap.transferIds.sort());
    // Release after capture → 409.
    await expect(app.db.tx((q) => releaseHold(q, { holdId, reason: 'late' }))).rejects.toMatchObject({ code: 'HOLD_NOT_PENDING', statusCode: 409 });
    // Refund part of the capture back to the wallet.
    const ref = await app.db.tx((q) => refundCapture(q, { holdId, amountMicros: 20_000n, reason: 'partial refund' }));
    expect(ref.balanceAfterMicros).toBe(900_000n);
    await expect(app.db.tx((q) => refundCapture(q, { holdId, amountMicros: 100_001n, reason: 'too much' }))).rejects.toMatchObject({ code: 'REFUND_EXCEEDS_CAPTURE' });
  });

  it('release exactly once; capture after release → 409', async () => {
    const u = await signUp(app);
    await fundAccount(app, u.accountId, 500_000n);
    const { holdId } = await hold(u.accountId, 500_000n);
    const r1 = await app.db.tx((q) => releaseHold(q, { holdId, reason: 'cancelled' }));
    const r2 = await app.db.tx((q) => releaseHold(q, { holdId, reason: 'cancelled again' }));
    expect(r1).toMatchObject({ releasedMicros: 500_000n, alreadyReleased: false });
    expect(r2).toMatchObject({ releasedMicros: 500_000n, alreadyReleased: true, transferId: r1.transferId });
    expect((await getWallet(app.db, u.accountId)).availableMicros).toBe(500_000n);
    await expect(app.db.tx((q) => captureHold(q, { holdId, amountMicros: 1n, description: 'x' }))).rejects.toMatchObject({ code: 'HOLD_NOT_PENDING' });
  });

  it('capture more than held → 409 and nothing moves', async () => {
    const u = await signUp(app);
    await fundAccount(app, u.accountId, 500_000n);
    const { holdId } = await hold(u.accountId, 100_000n);
    await expect(app.db.tx((q) => captureHold(q, { holdId, amountMicros: 100_001n, description: 'x' }))).rejects.toMatchObject({ code: 'CAPTURE_EXCEEDS_HOLD' });
    expect((await getHold(app.db, holdId))?.status).toBe('pending');
  });

  it('insufficient balance and spend limits → 409 with a code naming the limit', async () => {
    const u = await signUp(app);
    await fundAccount(app, u.accountId, 1_000_000n);
    await expect(hold(u.accountId, 1_000_001n)).rejects.toMatchObject({ code: 'INSUFFICIENT_BALANCE', statusCode: 409 });
    await app.db.query('UPDATE billing_wallets SET per_job_max_micros = 200000, daily_limit_micros = 300000, monthly_limit_micros = 350000 WHERE account_id = $1', [u.accountId]);
    await expect(hold(u.accountId, 200_001n)).rejects.toMatchObject({ code: 'SPEND_LIMIT_PER_JOB' });
    await hold(u.accountId, 200_000n);
    await expect(hold(u.accountId, 100_001n)).rejects.toMatchObject({ code: 'SPEND_LIMIT_DAILY' });
    // Yesterday's spend counts for the month but not for today.
    const yesterday = new Date(Date.now() - 86_400_000);
    const sameMonth = yesterday.getUTCMonth() === new Date().getUTCMonth();
    if (sameMonth) {
      await app.db.query('UPDATE billing_holds SET created_at = $2 WHERE account_id = $1', [u.accountId, yesterday]);
      await hold(u.accountId, 150_000n);
      await expect(hold(u.accountId, 1n)).rejects.toMatchObject({ code: 'SPEND_LIMIT_MONTHLY' });
    }
    await app.db.query('UPDATE billing_wallets SET hardware_allowed = false WHERE account_id = $1', [u.accountId]);
    await expect(hold(u.accountId, 1n, { kind: 'hardware' })).rejects.toMatchObject({ code: 'HARDWARE_DISABLED' });
    // Released holds no longer count as spend.
    expect((await getWallet(app.db, u.accountId)).availableMicros).toBeLessThan(1_000_000n);
  });

  it('same (kind, refId) twice returns the existing hold; another amount → HOLD_EXISTS', async () => {
    const u = await signUp(app);
    await fundAccount(app, u.accountId, 1_000_000n);
    const refId = randomUUID();
    const a = await hold(u.accountId, 100_000n, { refId });
    const b = await hold(u.accountId, 100_000n, { refId });
    expect(b).toMatchObject({ holdId: a.holdId, existing: true });
    await expect(hold(u.accountId, 100_001n, { refId })).rejects.toMatchObject({ code: 'HOLD_EXISTS' });
    expect((await getWallet(app.db, u.accountId)).heldMicros).toBe(100_000n);
  });

  it('a rolled-back transaction moves no money (hold and job commit together)', async () => {
    const u = await signUp(app);
    await fundAccount(app, u.accountId, 1_000_000n);
    await expect(
      app.db.tx(async (q) => {
        await placeHold(q, { accountId: u.accountId, amountMicros: 400_000n, kind: 'job', refId: randomUUID(), description: 'x', expiresAt: later() });
        throw new Error('job insert failed');
      }),
    ).rejects.toThrow('job insert failed');
    expect(await getWallet(app.db, u.accountId)).toMatchObject({ availableMicros: 1_000_000n, heldMicros: 0n });
  });

  it('expired holds release themselves exactly once', async () => {
    const u = await signUp(app);
    await fundAccount(app, u.accountId, 1_000_000n);
    const past = new Date(Date.now() - 1000);
    const a = await hold(u.accountId, 100_000n, { expiresAt: past });
    const b = await hold(u.accountId, 200_000n);
    const swept = await expireDueHolds(app.db);
    expect(swept).toContain(a.holdId);
    expect(swept).not.toContain(b.holdId);
    expect(await expireDueHolds(app.db)).not.toContain(a.holdId);
    expect((await getHold(app.db, a.holdId))?.status).toBe('expired');
    expect(await getWallet(app.db, u.accountId)).toMatchObject({ availableMicros: 800_000n, heldMicros: 200_000n });
    const r = await app.db.tx((q) => releaseHold(q, { holdId: a.holdId, reason: 'late' }));
    expect(r).toMatchObject({ alreadyReleased: true, status: 'expired' });
  });

  it('grant with an idempotency key credits once', async () => {
    const u = await signUp(app);
    const a = await app.db.tx((q) => grantCredit(q, { accountId: u.accountId, amountMicros: 5_000_000n, reason: 'promo', idempotencyKey: 'promo-1' }));
    const b = await app.db.tx((q) => grantCredit(q, { accountId: u.accountId, amountMicros: 5_000_000n, reason: 'promo', idempotencyKey: 'promo-1' }));
    expect(a.credited).toBe(true);
    expect(b).toMatchObject({ credited: false, transferId: a.transferId });
    expect((await getWallet(app.db, u.accountId)).availableMicros).toBe(5_000_000n);
  });

  it('the reconciliation detects a tampered cached balance', async () => {
    const u = await signUp(app);
    await fundAccount(app, u.accountId, 1_000_000n);
    await app.db.query('UPDATE billing_wallets SET available_micros = available_micros + 1 WHERE account_id = $1', [u.accountId]);
    const problems = await checkLedgerInvariants(app.db);
    expect(problems.some((p) => p.includes(u.accountId) && p.includes('entries give'))).toBe(true);
    await app.db.query('UPDATE billing_wallets SET available_micros = available_micros - 1 WHERE account_id = $1', [u.accountId]);
  });

  it('ledger rows are append-only', async () => {
    await expect(app.db.query('DELETE FROM ledger_entries')).rejects.toThrow(/append-only/);
    await expect(app.db.query("UPDATE ledger_transfers SET description = 'x'")).rejects.toThrow(/append-only/);
  });
});
