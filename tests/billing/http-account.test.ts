import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/http/app-types.js';
import { buildTestApp, signUp } from '../helpers/app.js';
import { expectLedgerInvariants, fundAccount } from '../helpers/ledger.js';

describe('billing HTTP: wallet, spend controls, hardware, dashboard', () => {
  let app: App;
  beforeAll(async () => {
    app = await buildTestApp();
  });
  afterEach(async () => expectLedgerInvariants(app));
  afterAll(async () => app.close());

  it('every billing endpoint needs a session (401) and answers in the envelope', async () => {
    const gets = [
      '/v1/billing/profile',
      '/v1/billing/summary',
      '/v1/billing/wallet',
      '/v1/billing/jobs',
      '/v1/billing/ledger',
      '/v1/billing/dashboard',
      '/v1/billing/spend-controls',
      '/v1/billing/auto-recharge/attempts',
      '/v1/billing/recovery-status',
    ];
    for (const url of gets) {
      const r = await app.inject({ method: 'GET', url });
      expect(r.statusCode, url).toBe(401);
      expect(r.json()).toMatchObject({ status: 'error', error: { code: 'UNAUTHENTICATED' } });
    }
    const posts = [
      '/v1/billing/auto-recharge/test',
      '/v1/billing/hardware/quote',
      '/v1/billing/hardware/hold',
      '/v1/billing/hardware/hold/00000000-0000-4000-8000-000000000000/release',
      '/v1/billing/processor/customer',
      '/v1/billing/processor/setup-intent',
      '/v1/billing/processor/payment-intent',
      '/v1/billing/processor/checkout-session',
      '/v1/billing/processor/portal-session',
      '/v1/billing/processor/reconcile-checkout',
    ];
    for (const url of posts) {
      const r = await app.inject({ method: 'POST', url, payload: {} });
      expect(r.statusCode, url).toBe(401);
    }
    expect((await app.inject({ method: 'PATCH', url: '/v1/billing/spend-controls', payload: { hardware_allowed: false } })).statusCode).toBe(401);
  });

  it('funding and policy changes are owner-only: a machine credential or its access token gets 403 (SESSION_REQUIRED, or INSUFFICIENT_SCOPE beyond its scopes), the settings stay', async () => {
    const u = await signUp(app);
    const c = await app.inject({ method: 'POST', url: '/v1/auth/credentials', headers: u.auth, payload: { name: 'agent', scopes: ['jobs:read', 'jobs:write'] } });
    expect(c.statusCode).toBe(201);
    const cred = c.json().data as { secret: string; credential_id: string };
    const tok = await app.inject({ method: 'POST', url: '/v1/oauth/token', payload: { grant_type: 'client_credentials', client_id: cred.credential_id, client_secret: cred.secret } });
    expect(tok.statusCode).toBe(200);
    const agentAuths = [{ authorization: `Bearer ${cred.secret}` }, { authorization: `Bearer ${tok.json().access_token as string}` }];
    // The agent's own interface accepts both.
    for (const h of agentAuths) expect((await app.inject({ method: 'GET', url: '/v1/account/balance', headers: h })).statusCode).toBe(200);
    const attempts: Array<[method: 'GET' | 'POST' | 'PATCH', url: string, code: string, payload?: object]> = [
      ['PATCH', '/v1/billing/spend-controls', 'SESSION_REQUIRED', { hardware_allowed: false, per_job_max: '0.01' }],
      ['POST', '/v1/billing/processor/checkout-session', 'SESSION_REQUIRED', { amount: '10.00' }],
      ['POST', '/v1/billing/processor/payment-intent', 'SESSION_REQUIRED', { amount: '10.00', payment_method: 'pm_card_visa' }],
      ['POST', '/v1/billing/processor/setup-intent', 'SESSION_REQUIRED', { payment_method: 'pm_card_visa' }],
      ['POST', '/v1/billing/auto-recharge/test', 'SESSION_REQUIRED'],
      ['POST', '/v1/billing/hardware/quote', 'INSUFFICIENT_SCOPE', { provider: 'provider-two', device: 'p2-grid-9', shots: 10 }],
      ['GET', '/v1/billing/wallet', 'INSUFFICIENT_SCOPE'],
    ];
    for (const h of agentAuths) {
      for (const [method, url, code, payload] of attempts) {
        const r = await app.inject({ method, url, headers: h, ...(payload === undefined ? {} : { payload }) });
        expect(r.statusCode, `${method} ${url}`).toBe(403);
        expect(r.json()).toMatchObject({ status: 'error', error: { code } });
        expect(r.headers['www-authenticate'], `${method} ${url}`).toContain('error="insufficient_scope"');
      }
    }
    const controls = (await app.inject({ method: 'GET', url: '/v1/billing/spend-controls', headers: u.auth })).json().data;
    expect(controls).toMatchObject({ hardware_allowed: true, per_job_max: null, auto_recharge: { enabled: false } });
    expect((await app.inject({ method: 'GET', url: '/v1/billing/wallet', headers: u.auth })).json().data).toMatchObject({ available: '0.000000', held: '0.000000' });
  });

  it('wallet, profile and summary show money as six-decimal strings', async () => {
    const u = await signUp(app);
    const empty = await app.inject({ method: 'GET', url: '/v1/billing/wallet', headers: u.auth });
    expect(empty.statusCode).toBe(200);
    expect(empty.json()).toMatchObject({ status: 'ok', data: { available: '0.000000', held: '0.000000', total: '0.000000', currency: 'USD' } });
    await fundAccount(app, u.accountId, 2_500_000n);
    const w = (await app.inject({ method: 'GET', url: '/v1/billing/wallet', headers: u.auth })).json().data;
    expect(w).toMatchObject({ available: '2.500000', held: '0.000000', total: '2.500000' });
    const p = (await app.inject({ method: 'GET', url: '/v1/billing/profile', headers: u.auth })).json().data;
    expect(p).toMatchObject({ account_id: u.accountId, email: u.email, currency: 'USD', processor: 'sandbox', role: 'owner' });
    const s = (await app.inject({ method: 'GET', url: '/v1/billing/summary', headers: u.auth })).json().data;
    expect(s).toMatchObject({
      wallet: { available: '2.500000' },
      spend: { today: '0.000000' },
      open_holds: { count: 0, amount: '0.000000' },
      auto_recharge: { enabled: false, state: 'not_configured' },
    });
  });

  it('spend controls: GET defaults, PATCH validates each field and rejects unknown ones', async () => {
    const u = await signUp(app);
    const g = (await app.inject({ method: 'GET', url: '/v1/billing/spend-controls', headers: u.auth })).json().data;
    expect(g).toMatchObject({ daily_limit: null, monthly_limit: null, per_job_max: null, hardware_allowed: true, hold_expiry_seconds: 3600, auto_recharge: { enabled: false } });

    const unknown = await app.inject({ method: 'PATCH', url: '/v1/billing/spend-controls', headers: u.auth, payload: { daily_limit: '5', colour: 'red', auto_recharge: { sparkle: true } } });
    expect(unknown.statusCode).toBe(400);
    const details = unknown.json().error.details as Array<{ path: string; code: string }>;
    expect(details).toEqual(
      expect.arrayContaining([expect.objectContaining({ path: '/colour', code: 'UNKNOWN_PROPERTY' }), expect.objectContaining({ path: '/auto_recharge/sparkle', code: 'UNKNOWN_PROPERTY' })]),
    );

    const bad = await app.inject({
      method: 'PATCH',
      url: '/v1/billing/spend-controls',
      headers: u.auth,
      payload: { daily_limit: 5, per_job_max: '1.1234567', hardware_allowed: 'no', hold_expiry_seconds: 5 },
    });
    expect(bad.statusCode).toBe(400);
    const paths = (bad.json().error.details as Array<{ path: string }>).map((d) => d.path);
    expect(paths).toEqual(expect.arrayContaining(['/daily_limit', '/per_job_max', '/hardware_allowed', '/hold_expiry_seconds']));

    expect((await app.inject({ method: 'PATCH', url: '/v1/billing/spend-controls', headers: u.auth, payload: {} })).statusCode).toBe(400);
    const inverted = await app.inject({ method: 'PATCH', url: '/v1/billing/spend-controls', headers: u.auth, payload: { daily_limit: '10', monthly_limit: '5' } });
    expect(inverted.statusCode).toBe(400);
    const noPm = await app.inject({ method: 'PATCH', url: '/v1/billing/spend-controls', headers: u.auth, payload: { auto_recharge: { enabled: true, threshold: '1', recharge_to: '5' } } });
    expect(noPm.statusCode).toBe(400);
    expect(noPm.json().error.details[0].path).toBe('/auto_recharge/payment_method');

    const ok = await app.inject({
      method: 'PATCH',
      url: '/v1/billing/spend-controls',
      headers: u.auth,
      payload: { daily_limit: '10', monthly_limit: '100.5', per_job_max: '0.25', hardware_allowed: false, hold_expiry_seconds: 600 },
    });
    expect(ok.statusCode).toBe(200);
    expect(ok.json().data).toMatchObject({ daily_limit: '10.000000', monthly_limit: '100.500000', per_job_max: '0.250000', hardware_allowed: false, hold_expiry_seconds: 600 });
    const cleared = await app.inject({ method: 'PATCH', url: '/v1/billing/spend-controls', headers: u.auth, payload: { daily_limit: null } });
    expect(cleared.json().data).toMatchObject({ daily_limit: null, monthly_limit: '100.500000' });
  });

  it('hardware: quote → hold → release exactly once; another account gets 403', async () => {
    const u = await signUp(app);
    const other = await signUp(app);
    await fundAccount(app, u.accountId, 10_000_000n);
    const unknownDevice = await app.inject({ method: 'POST', url: '/v1/billing/hardware/quote', headers: u.auth, payload: { provider: 'provider-two', device: 'nope', shots: 100 } });
    expect(unknownDevice.statusCode).toBe(400);
    expect(unknownDevice.json().error.code).toBe('UNKNOWN_DEVICE');

    const quote = await app.inject({ method: 'POST', url: '/v1/billing/hardware/quote', headers: u.auth, payload: { provider: 'provider-two', device: 'p2-ion-11', shots: 100 } });
    expect(quote.statusCode).toBe(200);
    const qd = quote.json().data;
    // $0.30 per task + 100 × $0.03 per shot = $3.30
    expect(qd).toMatchObject({ price_per_task: '0.300000', price_per_shot: '0.030000', total: '3.300000', shots: 100, tasks: 1, currency: 'USD' });
    expect(new Date(qd.valid_until).getTime()).toBeGreaterThan(Date.now());

    const stolen = await app.inject({ method: 'POST', url: '/v1/billing/hardware/hold', headers: other.auth, payload: { quote_id: qd.quote_id } });
    expect(stolen.statusCode).toBe(404);

    const hold = await app.inject({ method: 'POST', url: '/v1/billing/hardware/hold', headers: u.auth, payload: { quote_id: qd.quote_id } });
    expect(hold.statusCode).toBe(201);
    const hd = hold.json().data;
    expect(hd).toMatchObject({ status: 'held', amount: '3.300000', wallet: { available: '6.700000', held: '3.300000' } });
    expect(hd.job_id).toMatch(/^[0-9a-f-]{36}$/);
    const again = await app.inject({ method: 'POST', url: '/v1/billing/hardware/hold', headers: u.auth, payload: { quote_id: qd.quote_id } });
    expect(again.statusCode).toBe(409);
    expect(again.json().error).toMatchObject({ code: 'QUOTE_ALREADY_USED', details: { job_id: hd.job_id } });

    const jobs = (await app.inject({ method: 'GET', url: '/v1/billing/jobs', headers: u.auth })).json().data.jobs;
    expect(jobs[0]).toMatchObject({ job_id: hd.job_id, kind: 'hardware', status: 'pending', amount_held: '3.300000' });

    const foreign = await app.inject({ method: 'POST', url: `/v1/billing/hardware/hold/${hd.job_id}/release`, headers: other.auth });
    expect(foreign.statusCode).toBe(403);
    expect(foreign.json().error.code).toBe('FORBIDDEN');
    const missing = await app.inject({ method: 'POST', url: '/v1/billing/hardware/hold/00000000-0000-4000-8000-000000000000/release', headers: u.auth });
    expect(missing.statusCode).toBe(404);

    const r1 = await app.inject({ method: 'POST', url: `/v1/billing/hardware/hold/${hd.job_id}/release`, headers: u.auth });
    expect(r1.statusCode).toBe(200);
    expect(r1.json().data).toMatchObject({ status: 'released', released: '3.300000', already_released: false, wallet: { available: '10.000000', held: '0.000000' } });
    const r2 = await app.inject({ method: 'POST', url: `/v1/billing/hardware/hold/${hd.job_id}/release`, headers: u.auth });
    expect(r2.json().data).toMatchObject({ status: 'released', released: '3.300000', already_released: true, wallet: { available: '10.000000' } });
  });

  it('hardware: hold refused by spend controls and balance with a code naming the limit', async () => {
    const u = await signUp(app);
    await fundAccount(app, u.accountId, 1_000_000n);
    const quote = async (shots: number) =>
      (await app.inject({ method: 'POST', url: '/v1/billing/hardware/quote', headers: u.auth, payload: { provider: 'provider-two', device: 'p2-grid-9', shots } })).json().data.quote_id as string;
    const hold = (quoteId: string) => app.inject({ method: 'POST', url: '/v1/billing/hardware/hold', headers: u.auth, payload: { quote_id: quoteId } });
    const big = await hold(await quote(1000)); // 0.30 + 0.90 = 1.20 > 1.00
    expect(big.statusCode).toBe(409);
    expect(big.json().error.code).toBe('INSUFFICIENT_BALANCE');
    await app.inject({ method: 'PATCH', url: '/v1/billing/spend-controls', headers: u.auth, payload: { per_job_max: '0.35' } });
    expect((await hold(await quote(100))).json().error.code).toBe('SPEND_LIMIT_PER_JOB'); // 0.39
    await app.inject({ method: 'PATCH', url: '/v1/billing/spend-controls', headers: u.auth, payload: { hardware_allowed: false } });
    expect((await hold(await quote(10))).json().error.code).toBe('HARDWARE_DISABLED');
  });

  it('an expired quote cannot be held; an expired hold releases itself and its held job says so', async () => {
    const u = await signUp(app);
    await fundAccount(app, u.accountId, 5_000_000n);
    const quote = (await app.inject({ method: 'POST', url: '/v1/billing/hardware/quote', headers: u.auth, payload: { provider: 'provider-two', device: 'p2-grid-9', shots: 200, tasks: 2 } })).json()
      .data;
    expect(quote.total).toBe('0.960000'); // 2 × (0.30 + 200 × 0.0009)
    await app.db.query("UPDATE billing_hardware_quotes SET valid_until = now() - interval '1 second' WHERE id = $1", [quote.quote_id]);
    const late = await app.inject({ method: 'POST', url: '/v1/billing/hardware/hold', headers: u.auth, payload: { quote_id: quote.quote_id } });
    expect(late.json().error.code).toBe('QUOTE_EXPIRED');

    const q2 = (await app.inject({ method: 'POST', url: '/v1/billing/hardware/quote', headers: u.auth, payload: { provider: 'provider-two', device: 'p2-grid-9', shots: 200 } })).json().data;
    const held = (await app.inject({ method: 'POST', url: '/v1/billing/hardware/hold', headers: u.auth, payload: { quote_id: q2.quote_id, expires_in_seconds: 60 } })).json().data;
    const { expireDueHolds } = await import('../helpers/ledger.js');
    const swept = await expireDueHolds(app.db, { now: new Date(Date.now() + 61_000) });
    expect(swept).toContain(held.hold_id);
    const jobs = (await app.inject({ method: 'GET', url: '/v1/billing/jobs?kind=hardware', headers: u.auth })).json().data.jobs;
    expect(jobs[0]).toMatchObject({ job_id: held.job_id, status: 'expired', amount_released: '0.480000' });
    const rel = await app.inject({ method: 'POST', url: `/v1/billing/hardware/hold/${held.job_id}/release`, headers: u.auth });
    expect(rel.json().data).toMatchObject({ status: 'expired', already_released: true });
    expect((await app.inject({ method: 'GET', url: '/v1/billing/wallet', headers: u.auth })).json().data.available).toBe('5.000000');
  });

  it('jobs list pages with a cursor', async () => {
    const u = await signUp(app);
    await fundAccount(app, u.accountId, 10_000_000n);
    for (let i = 0; i < 5; i++) {
      const q = (await app.inject({ method: 'POST', url: '/v1/billing/hardware/quote', headers: u.auth, payload: { provider: 'provider-two', device: 'p2-grid-9', shots: 10 } })).json().data;
      await app.inject({ method: 'POST', url: '/v1/billing/hardware/hold', headers: u.auth, payload: { quote_id: q.quote_id } });
    }
    const p1 = (await app.inject({ method: 'GET', url: '/v1/billing/jobs?limit=3', headers: u.auth })).json().data;
    expect(p1.jobs).toHaveLength(3);
    expect(p1.next_cursor).not.toBeNull();
    const p2 = (await app.inject({ method: 'GET', url: `/v1/billing/jobs?limit=3&cursor=${p1.next_cursor}`, headers: u.auth })).json().data;
    expect(p2.jobs).toHaveLength(2);
    expect(p2.next_cursor).toBeNull();
    const ids = new Set([...p1.jobs, ...p2.jobs].map((j: { hold_id: string }) => j.hold_id));
    expect(ids.size).toBe(5);
    expect((await app.inject({ method: 'GET', url: '/v1/billing/jobs?limit=101', headers: u.auth })).statusCode).toBe(400);
  });

  it('dashboard: spend per day and per product/provider, largest jobs, balance history', async () => {
    const u = await signUp(app);
    await fundAccount(app, u.accountId, 10_000_000n);
    const { captureHold, placeHold } = await import('../helpers/ledger.js');
    const later = new Date(Date.now() + 3600_000);
    for (const [amount, product, provider] of [
      [1_000_000n, 'product-one', 'provider-one'],
      [2_500_000n, 'product-one', 'provider-two'],
      [300_000n, 'product-two', null],
    ] as const) {
      await app.db.tx(async (q) => {
        const { holdId } = await placeHold(q, {
          accountId: u.accountId,
          amountMicros: amount,
          kind: 'job',
          refId: crypto.randomUUID(),
          description: `job ${product}`,
          expiresAt: later,
          product,
          ...(provider ? { provider } : {}),
        });
        await captureHold(q, { holdId, amountMicros: amount, description: 'done' });
      });
    }
    const r = await app.inject({ method: 'GET', url: '/v1/billing/dashboard?days=7', headers: u.auth });
    expect(r.statusCode).toBe(200);
    const d = r.json().data;
    expect(d.spend_per_day).toHaveLength(7);
    const today = new Date().toISOString().slice(0, 10);
    expect(d.spend_per_day[6]).toEqual({ date: today, spend: '3.800000', jobs: 3 });
    expect(d.spend_per_day[0].spend).toBe('0.000000');
    expect(d.totals).toEqual({ spend: '3.800000', jobs: 3 });
    expect(d.spend_by_product).toEqual([
      { product: 'product-one', spend: '3.500000', jobs: 2 },
      { product: 'product-two', spend: '0.300000', jobs: 1 },
    ]);
    expect(d.spend_by_provider.map((p: { provider: string }) => p.provider)).toEqual(['provider-two', 'provider-one', 'unspecified']);
    expect(d.largest_jobs[0]).toMatchObject({ spend: '2.500000', provider: 'provider-two' });
    expect(d.balance_history[6]).toEqual({ date: today, available: '6.200000', held: '0.000000', total: '6.200000' });
    expect(d.balance_history[0].total).toBe('0.000000');
    expect((await app.inject({ method: 'GET', url: '/v1/billing/dashboard?days=0', headers: u.auth })).statusCode).toBe(400);
  });
});

describe('billing readiness (for the execution capabilities report)', () => {
  it('says why hardware cannot be paid for', async () => {
    const app = await buildTestApp();
    try {
      const u = await signUp(app);
      const empty = await app.services.billing.readiness(u.accountId);
      expect(empty).toMatchObject({ ready: false, hardware_allowed: true, available: '0.000000', processor: 'sandbox' });
      expect(empty.reasons.join(' ')).toContain('top up');
      await fundAccount(app, u.accountId, 1_000_000n);
      expect(await app.services.billing.readiness(u.accountId)).toMatchObject({ ready: true, reasons: [] });
      await app.inject({ method: 'PATCH', url: '/v1/billing/spend-controls', headers: u.auth, payload: { hardware_allowed: false } });
      const off = await app.services.billing.readiness(u.accountId);
      expect(off.ready).toBe(false);
      expect(off.reasons.join(' ')).toContain('hardware_allowed');
      await expectLedgerInvariants(app);
    } finally {
      await app.close();
    }
  });
});
