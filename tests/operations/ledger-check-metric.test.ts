import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LedgerCheckWorker } from '../../src/billing/ledger-check-worker.js';
import type { App } from '../../src/http/app-types.js';
import { buildTestApp, signUp } from '../helpers/app.js';
import { expectLedgerInvariants, fundAccount } from '../helpers/ledger.js';
import { parsePrometheus, sampleValue } from '../helpers/prometheus.js';

/**
 * The worker role's periodic ledger check: what the alert QrailLedgerCheckViolations reads. A clean
 * ledger reports 0 violations and an ok check; a tampered cached balance is found at the next check.
 */
describe('the periodic ledger check and its metrics', () => {
  let app: App;
  let worker: LedgerCheckWorker;
  const scrape = async () => parsePrometheus((await app.inject({ method: 'GET', url: '/metrics' })).body);

  beforeAll(async () => {
    app = await buildTestApp();
    const w = app.services.workers.find((x) => x.name === 'billing-ledger-check');
    expect(w).toBeInstanceOf(LedgerCheckWorker);
    worker = w as LedgerCheckWorker;
  });
  afterAll(async () => {
    await app.close();
  });

  it('before any check: no violations series, so max() over the workers is what counts', async () => {
    const s = await scrape();
    expect(sampleValue(s, 'qrail_ledger_checks_total')).toBeUndefined();
    expect(sampleValue(s, 'qrail_ledger_check_violations') ?? 0).toBe(0);
  });

  it('a clean ledger: 0 violations, an ok check and its time', async () => {
    const u = await signUp(app);
    await fundAccount(app, u.accountId, 1_000_000n);
    const before = Math.floor(Date.now() / 1000);
    expect(await worker.checkNow()).toMatchObject({ ok: true, problems: [] });
    const s = await scrape();
    expect(sampleValue(s, 'qrail_ledger_check_violations')).toBe(0);
    expect(sampleValue(s, 'qrail_ledger_checks_total', { outcome: 'ok' })).toBe(1);
    expect(sampleValue(s, 'qrail_ledger_check_last_run_timestamp_seconds')).toBeGreaterThanOrEqual(before);
  });

  it('a tampered cached balance: the next check reports it, counted as a check with violations', async () => {
    const u = await signUp(app);
    await fundAccount(app, u.accountId, 1_000_000n);
    await app.db.query('UPDATE billing_wallets SET available_micros = available_micros + 1 WHERE account_id = $1', [u.accountId]);
    try {
      const r = await worker.checkNow();
      expect(r?.ok).toBe(false);
      expect(r?.problems.some((p) => p.includes(u.accountId))).toBe(true);
      const s = await scrape();
      expect(sampleValue(s, 'qrail_ledger_check_violations')).toBe(r?.problems.length);
      expect(sampleValue(s, 'qrail_ledger_checks_total', { outcome: 'violations' })).toBe(1);
    } finally {
      await app.db.query('UPDATE billing_wallets SET available_micros = available_micros - 1 WHERE account_id = $1', [u.accountId]);
    }
    await expectLedgerInvariants(app);
  });

  it('a check that cannot run is counted as an error, not as a clean ledger', async () => {
    const { PromMeter } = await import('../../src/telemetry/prom-meter.js');
    const meter = new PromMeter();
    const seen: unknown[] = [];
    const failing = new LedgerCheckWorker(
      () => Promise.reject(new Error('statement timeout')),
      60_000,
      meter,
      (o) => seen.push(o),
    );
    expect(await failing.checkNow()).toBeUndefined();
    const s = parsePrometheus(await meter.render());
    expect(sampleValue(s, 'qrail_ledger_checks_total', { outcome: 'error' })).toBe(1);
    expect(sampleValue(s, 'qrail_ledger_check_last_run_timestamp_seconds') ?? 0).toBe(0);
    expect(seen).toHaveLength(1);
    await failing.stop();
  });
});
