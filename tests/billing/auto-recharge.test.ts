import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { randomUUID } from 'node:crypto';
import type { App } from '../../src/http/app-types.js';
import { rechargeAmountCents } from '../../src/billing/auto-recharge.js';
import { checkJobInvariants } from '../../src/store/jobs/jobs-invariants.js';
import { buildTestApp, signUp } from '../helpers/app.js';
import { expectLedgerInvariants, placeHold } from '../helpers/ledger.js';
import { key, newAgent, submit, withTestCapabilities } from '../jobs/helpers.js';

describe('auto-recharge (sandbox processor)', () => {
  let app: App;
  beforeAll(async () => {
    app = await buildTestApp();
  });
  afterEach(async () => {
    vi.restoreAllMocks();
    await expectLedgerInvariants(app);
  });
  afterAll(async () => app.close());

  const patch = (auth: { authorization: string }, body: object) => app.inject({ method: 'PATCH', url: '/v1/billing/spend-controls', headers: auth, payload: body });
  const wallet = async (auth: { authorization: string }) => (await app.inject({ method: 'GET', url: '/v1/billing/wallet', headers: auth })).json().data;
  const attempts = async (auth: { authorization: string }) =>
    (await app.inject({ method: 'GET', url: '/v1/billing/auto-recharge/attempts', headers: auth })).json().data.attempts as Array<Record<string, unknown>>;
  const hold = (accountId: string, micros: bigint) =>
    app.db.tx((q) => placeHold(q, { accountId, amountMicros: micros, kind: 'job', refId: randomUUID(), description: 'job', expiresAt: new Date(Date.now() + 3600_000) }));

  it('amount: up to recharge-to, at least $0.50, within the monthly cap', () => {
    expect(rechargeAmountCents({ availableMicros: 4_000_000n, rechargeToMicros: 20_000_000n, capMicros: null, usedThisMonthMicros: 0n })).toBe(1600n);
    expect(rechargeAmountCents({ availableMicros: 19_900_000n, rechargeToMicros: 20_000_000n, capMicros: null, usedThisMonthMicros: 0n })).toBe(50n);
    expect(rechargeAmountCents({ availableMicros: 0n, rechargeToMicros: 1_000_001n, capMicros: null, usedThisMonthMicros: 0n })).toBe(101n);
    expect(rechargeAmountCents({ availableMicros: 0n, rechargeToMicros: 20_000_000n, capMicros: 25_000_000n, usedThisMonthMicros: 20_000_000n })).toBe(500n);
    expect(rechargeAmountCents({ availableMicros: 0n, rechargeToMicros: 20_000_000n, capMicros: 25_000_000n, usedThisMonthMicros: 24_600_000n })).toBeNull();
  });

  it('a debit below the threshold triggers an off-session charge up to recharge-to; every attempt is recorded', async () => {
    const u = await signUp(app);
    await app.inject({ method: 'POST', url: '/v1/billing/processor/setup-intent', headers: u.auth, payload: { payment_method: 'pm_card_visa' } });
    const en = await patch(u.auth, { auto_recharge: { enabled: true, threshold: '5.00', recharge_to: '20.00', monthly_cap: '40.00' } });
    expect(en.statusCode).toBe(200);
    expect(en.json().data.auto_recharge).toMatchObject({ enabled: true, threshold: '5.000000', recharge_to: '20.000000', effective_payment_method: 'pm_card_visa' });
    // Enabling with a balance under the threshold requests a recharge at once.
    expect(await app.services.billing.autoRecharge.runRequested()).toBe(1);
    expect((await wallet(u.auth)).available).toBe('20.000000');

    await hold(u.accountId, 16_000_000n); // available 4.00 < 5.00
    // What afterDebit(accountId) starts in the background, awaited here.
    await app.services.billing.autoRecharge.runIfRequested(u.accountId);
    expect(await wallet(u.auth)).toMatchObject({ available: '20.000000', held: '16.000000' });

    // Monthly cap 40: 20 + 16 used, 4 left → next recharge charges only 4.00.
    await hold(u.accountId, 17_000_000n); // available 3.00
    await app.services.billing.autoRecharge.runRequested();
    expect((await wallet(u.auth)).available).toBe('7.000000');
    await hold(u.accountId, 3_000_000n); // available 4.00, cap exhausted
    await app.services.billing.autoRecharge.runRequested();
    expect((await wallet(u.auth)).available).toBe('4.000000');

    const list = await attempts(u.auth);
    expect(list.map((a) => [a['status'], a['amount']])).toEqual([
      ['skipped', '0.000000'],
      ['succeeded', '4.000000'],
      ['succeeded', '16.000000'],
      ['succeeded', '20.000000'],
    ]);
    expect(list[0]).toMatchObject({ failure_code: 'monthly_cap_reached' });
    expect(list[1]?.['payment_intent_id']).toMatch(/^pi_sbx_/);
    // No request is left behind; a second run finds nothing to do.
    expect(await app.services.billing.autoRecharge.runRequested()).toBe(0);
  });

  it('three failures in a row pause it; recovery-status says what to do; a new card resumes', async () => {
    const u = await signUp(app);
    const en = await patch(u.auth, { auto_recharge: { enabled: true, threshold: '1.00', recharge_to: '10.00', payment_method: 'pm_card_chargeDeclined' } });
    expect(en.statusCode).toBe(200);
    for (let i = 0; i < 3; i++) {
      const t = await app.inject({ method: 'POST', url: '/v1/billing/auto-recharge/test', headers: u.auth });
      expect(t.statusCode).toBe(200);
      expect(t.json().data.attempt).toMatchObject({ trigger: 'test', status: 'failed', failure_code: 'card_declined', amount: '10.000000' });
    }
    const rs = (await app.inject({ method: 'GET', url: '/v1/billing/recovery-status', headers: u.auth })).json().data;
    expect(rs).toMatchObject({ state: 'paused', paused: true, consecutive_failures: 3, failures_before_pause: 3, last_attempt: { status: 'failed' } });
    expect(rs.actions.map((a: { action: string }) => a.action)).toEqual(expect.arrayContaining(['update_payment_method', 'resume', 'top_up']));
    // Paused: a threshold trigger does nothing.
    await app.db.query('UPDATE billing_wallets SET ar_requested_at = now() WHERE account_id = $1', [u.accountId]);
    expect(await app.services.billing.autoRecharge.run(u.accountId, 'threshold')).toBeNull();
    expect(await attempts(u.auth)).toHaveLength(3);
    expect((await app.inject({ method: 'GET', url: '/v1/billing/summary', headers: u.auth })).json().data.auto_recharge.state).toBe('paused');

    const fixed = await patch(u.auth, { auto_recharge: { payment_method: 'pm_card_visa' } });
    expect(fixed.json().data.auto_recharge).toMatchObject({ paused: false, consecutive_failures: 0 });
    await app.services.billing.autoRecharge.runRequested();
    expect((await wallet(u.auth)).available).toBe('10.000000');
    expect((await app.inject({ method: 'GET', url: '/v1/billing/recovery-status', headers: u.auth })).json().data.state).toBe('healthy');
  });

  it('the test endpoint needs a payment method; a successful test resumes a paused auto-recharge', async () => {
    const u = await signUp(app);
    const none = await app.inject({ method: 'POST', url: '/v1/billing/auto-recharge/test', headers: u.auth });
    expect(none.statusCode).toBe(409);
    expect(none.json().error.code).toBe('NO_PAYMENT_METHOD');
    await patch(u.auth, { auto_recharge: { enabled: true, threshold: '1.00', recharge_to: '2.00', payment_method: 'pm_card_visa' } });
    await app.db.query("UPDATE billing_wallets SET ar_paused_at = now(), ar_pause_reason = 'test', ar_consecutive_failures = 3 WHERE account_id = $1", [u.accountId]);
    const t = await app.inject({ method: 'POST', url: '/v1/billing/auto-recharge/test', headers: u.auth });
    expect(t.json().data.attempt).toMatchObject({ status: 'succeeded', amount: '2.000000' });
    expect(t.json().data.wallet.available).toBe('2.000000');
    // Topped up to recharge-to already: a test still charges the processor minimum.
    const t2 = await app.inject({ method: 'POST', url: '/v1/billing/auto-recharge/test', headers: u.auth });
    expect(t2.json().data.attempt).toMatchObject({ status: 'succeeded', amount: '0.500000' });
    expect((await app.inject({ method: 'GET', url: '/v1/billing/recovery-status', headers: u.auth })).json().data).toMatchObject({ state: 'healthy', paused: false });
  });

  it('a late failure webhook never undoes a success', async () => {
    const u = await signUp(app);
    await patch(u.auth, { auto_recharge: { enabled: true, threshold: '1.00', recharge_to: '3.00', payment_method: 'pm_card_visa' } });
    const ok = (await app.inject({ method: 'POST', url: '/v1/billing/auto-recharge/test', headers: u.auth })).json().data.attempt;
    expect(ok.status).toBe('succeeded');
    const { signatureHeader } = await import('../../src/billing/processor/webhook-signature.js');
    const secret = app.services.billing.processor.webhookSecret as string;
    const customer = (await app.inject({ method: 'GET', url: '/v1/billing/profile', headers: u.auth })).json().data.processor_customer_id;
    const ev = {
      id: `evt_late_${ok.attempt_id}`,
      object: 'event',
      type: 'payment_intent.payment_failed',
      created: Math.floor(Date.now() / 1000),
      data: {
        object: {
          id: ok.payment_intent_id,
          object: 'payment_intent',
          customer,
          amount: 300,
          metadata: { qrail_account_id: u.accountId, qrail_purpose: 'auto_recharge', qrail_attempt_id: ok.attempt_id },
          last_payment_error: { code: 'card_declined' },
        },
      },
    };
    const body = JSON.stringify(ev);
    const r = await app.inject({
      method: 'POST',
      url: '/v1/billing/processor/webhook',
      headers: { 'content-type': 'application/json', 'stripe-signature': signatureHeader(body, secret, Math.floor(Date.now() / 1000)) },
      payload: body,
    });
    expect(r.statusCode).toBe(200);
    const list = await attempts(u.auth);
    expect(list[0]).toMatchObject({ attempt_id: ok.attempt_id, status: 'succeeded' });
    expect((await app.inject({ method: 'GET', url: '/v1/billing/recovery-status', headers: u.auth })).json().data.consecutive_failures).toBe(0);
    expect((await wallet(u.auth)).available).toBe('3.000000');
  });

  it('a job submission (the jobs_submit SQL path, fast and slow) leaving available below the threshold requests a recharge in its own transaction', async () => {
    withTestCapabilities(app);
    // The hook is stubbed so the durable request stays visible: it is what the worker serves
    // when the hook never runs (a crash right after the commit).
    const hook = vi.spyOn(app.services.billing, 'afterDebit').mockImplementation(() => undefined);
    // test.echo costs 0.001000 + 0.000010 × length(text): "hello" → 0.001050.
    const a = await newAgent(app, { fundMicros: 1_000_000n });
    const requested = async () => (await app.db.query<{ at: Date | null }>('SELECT ar_requested_at AS at FROM billing_wallets WHERE account_id = $1', [a.accountId])).rows[0]?.at ?? null;
    const en = await patch(a.session, { auto_recharge: { enabled: true, threshold: '0.999', recharge_to: '5.00', payment_method: 'pm_card_visa' } });
    expect(en.statusCode).toBe(200);
    expect(await requested()).toBeNull(); // 1.000000 is not below 0.999

    // Fast path (no daily/monthly limit): 1.000000 − 0.001050 = 0.998950 < 0.999.
    const body1 = { capability_id: 'test.echo', request: { text: 'hello' }, idempotency_key: key('ar'), max_total_price: '0.01' };
    const j1 = await submit(app, a, body1);
    expect(j1.statusCode).toBe(202);
    expect(await requested()).not.toBeNull();
    expect(hook.mock.calls).toEqual([[a.accountId]]);
    // A replay moves no money: no hook call, though the request is still pending.
    const again = await submit(app, a, body1);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(hook).toHaveBeenCalledTimes(1);
    await app.services.billing.autoRecharge.runRequested();
    expect(await requested()).toBeNull();
    // Up to 5.00: 4.001050 rounded up to whole cents = 4.01.
    expect(await wallet(a.session)).toMatchObject({ available: '5.008950', held: '0.001050' });
    expect((await attempts(a.session)).map((x) => [x['trigger'], x['status'], x['amount']])).toEqual([['threshold', 'succeeded', '4.010000']]);

    // Slow path (a daily limit makes jobs_submit sum the day's spend under the wallet lock).
    const p2 = await patch(a.session, { daily_limit: '100', auto_recharge: { threshold: '5.0085', recharge_to: '6.00' } });
    expect(p2.statusCode).toBe(200);
    expect(await requested()).toBeNull(); // 5.008950 is not below 5.0085
    const j2 = await submit(app, a, { capability_id: 'test.echo', request: { text: 'hello' }, idempotency_key: key('ar'), max_total_price: '0.01' });
    expect(j2.statusCode).toBe(202);
    expect(await requested()).not.toBeNull(); // 5.007900 < 5.0085
    expect(hook.mock.calls).toEqual([[a.accountId], [a.accountId]]);
    await app.services.billing.autoRecharge.runRequested();
    // Up to 6.00: 0.992100 rounded up to whole cents = 1.00.
    expect(await wallet(a.session)).toMatchObject({ available: '6.007900', held: '0.002100' });
    expect((await attempts(a.session)).map((x) => [x['status'], x['amount']])).toEqual([
      ['succeeded', '1.000000'],
      ['succeeded', '4.010000'],
    ]);
    expect(await checkJobInvariants(app.db)).toEqual([]);
  });

  it("a job submission's debit below the threshold starts the recharge right after its commit, not at the worker's interval, and charges once", async () => {
    // The billing worker runs, but its first tick is an hour away: only the submission's hook can charge here.
    const slow = await buildTestApp({ BILLING_AUTO_RECHARGE_INTERVAL_MS: '3600000' });
    const workers = slow.services.billing.workers;
    for (const w of workers) w.start();
    try {
      withTestCapabilities(slow);
      const ar = slow.services.billing.autoRecharge;
      const runIfRequested = ar.runIfRequested.bind(ar);
      const runs: Promise<void>[] = [];
      // What afterDebit starts in the background, kept so the test can await it (no timing).
      // While `held` is set the runs are only recorded, to be started together later.
      let held: string[] | null = null;
      const started = vi.spyOn(ar, 'runIfRequested').mockImplementation((accountId) => {
        if (held !== null) {
          held.push(accountId);
          return Promise.resolve();
        }
        const p = runIfRequested(accountId);
        runs.push(p);
        return p;
      });
      const settle = async () => {
        while (runs.length > 0) await runs.shift();
      };
      const set = (x: { session: { authorization: string } }, body: object) => slow.inject({ method: 'PATCH', url: '/v1/billing/spend-controls', headers: x.session, payload: body });
      const balance = async (x: { session: { authorization: string } }) => (await slow.inject({ method: 'GET', url: '/v1/billing/wallet', headers: x.session })).json().data;
      const tried = async (x: { session: { authorization: string } }) =>
        ((await slow.inject({ method: 'GET', url: '/v1/billing/auto-recharge/attempts', headers: x.session })).json().data.attempts as Array<Record<string, unknown>>).map((t) => [
          t['trigger'],
          t['status'],
          t['amount'],
        ]);
      const echo = () => ({ capability_id: 'test.echo', request: { text: 'hello' }, idempotency_key: key('ar-hook'), max_total_price: '0.01' });

      const a = await newAgent(slow, { fundMicros: 1_000_000n });
      expect((await set(a, { auto_recharge: { enabled: true, threshold: '0.999', recharge_to: '5.00', payment_method: 'pm_card_visa' } })).statusCode).toBe(200);
      expect(started).not.toHaveBeenCalled();
      // 1.000000 − 0.001050 = 0.998950 < 0.999: the route called the hook before answering 202.
      expect((await submit(slow, a, echo())).statusCode).toBe(202);
      expect(started.mock.calls).toEqual([[a.accountId]]);
      await settle();
      expect(await balance(a)).toMatchObject({ available: '5.008950', held: '0.001050' });
      expect(await tried(a)).toEqual([['threshold', 'succeeded', '4.010000']]);
      // Served: nothing is left for the worker's tick, which would otherwise charge again.
      expect(await ar.runRequested()).toBe(0);
      // Above the threshold again: a submission does not call the hook at all.
      expect((await submit(slow, a, echo())).statusCode).toBe(202);
      expect(started).toHaveBeenCalledTimes(1);
      expect(await tried(a)).toHaveLength(1);

      // Six concurrent submissions each leave available below the threshold, so each calls
      // the hook; their six recharge runs then race each other: one charge.
      const b = await newAgent(slow, { fundMicros: 1_000_000n });
      expect((await set(b, { auto_recharge: { enabled: true, threshold: '0.999', recharge_to: '5.00', payment_method: 'pm_card_visa' } })).statusCode).toBe(200);
      held = [];
      const burst = await Promise.all(Array.from({ length: 6 }, () => submit(slow, b, echo())));
      expect(burst.map((r) => r.statusCode)).toEqual([202, 202, 202, 202, 202, 202]);
      const racing = held;
      held = null;
      expect(racing).toEqual(Array.from({ length: 6 }, () => b.accountId));
      await Promise.all(racing.map((id) => runIfRequested(id)));
      // 1.000000 − 6 × 0.001050 = 0.993700; up to 5.00: 4.006300 rounded up to cents = 4.01.
      expect(await tried(b)).toEqual([['threshold', 'succeeded', '4.010000']]);
      expect(await balance(b)).toMatchObject({ available: '5.003700', held: '0.006300' });
      expect(await ar.runRequested()).toBe(0);
      await expectLedgerInvariants(slow);
      expect(await checkJobInvariants(slow.db)).toEqual([]);
    } finally {
      vi.restoreAllMocks();
      for (const w of workers) await w.stop();
      await slow.close();
    }
  });

  it('an attempt left pending by a crash is charged again with its idempotency key and settled once', async () => {
    const u = await signUp(app);
    await patch(u.auth, { auto_recharge: { enabled: true, threshold: '1.00', recharge_to: '5.00', payment_method: 'pm_card_visa' } });
    await app.db.query('UPDATE billing_wallets SET ar_requested_at = NULL WHERE account_id = $1', [u.accountId]);
    const id = randomUUID();
    await app.db.query(
      `INSERT INTO billing_auto_recharge_attempts (id, account_id, trigger, amount_micros, status, available_before_micros, created_at)
       VALUES ($1, $2, 'threshold', 5000000, 'pending', 0, now() - interval '20 minutes')`,
      [id, u.accountId],
    );
    // While it is pending no second attempt starts.
    await app.db.query('UPDATE billing_wallets SET ar_requested_at = now() WHERE account_id = $1', [u.accountId]);
    expect(await app.services.billing.autoRecharge.run(u.accountId, 'threshold')).toBeNull();
    expect(await app.services.billing.autoRecharge.recoverStale()).toBe(1);
    expect(await app.services.billing.autoRecharge.recoverStale()).toBe(0);
    const list = await attempts(u.auth);
    expect(list).toHaveLength(1);
    expect(list[0]).toMatchObject({ attempt_id: id, status: 'succeeded', amount: '5.000000' });
    expect((await wallet(u.auth)).available).toBe('5.000000');
  });
});
