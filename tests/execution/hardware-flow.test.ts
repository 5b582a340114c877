import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, signUp } from '../helpers/app.js';
import { expectLedgerInvariants, fundAccount } from '../helpers/ledger.js';
import { expireDueHolds } from '../helpers/ledger.js';
import type { App } from '../../src/http/app-types.js';
import { bell, expectWallet, ghz3, quoteAndHold } from './helpers.js';

/**
 * The provider-two hardware flow over HTTP: quote → hold → held job → continue → queued →
 * running → completed, with the wallet checked at every step and the ledger invariants
 * after every money movement. Also release, expiry, an offline device and idempotency.
 */
describe('provider-two hardware: quote → hold → continue → result', () => {
  let app: App;
  beforeAll(async () => {
    app = await buildTestApp();
  });
  afterAll(async () => {
    await app.close();
  });

  it('full flow on the emulated ion device: wallet figures at every step, one capture', async () => {
    const u = await signUp(app);
    await fundAccount(app, u.accountId, 10_000_000n);
    await expectWallet(app, u.auth, '10.000000', '0.000000');

    // Hardware through the plain endpoint → 409 with the steps and the estimate; nothing moves.
    const direct = await app.inject({ method: 'POST', url: '/v1/execute/provider-two', headers: u.auth, payload: { circuit: bell, device: 'p2-ion-11', shots: 100, client_token: 'direct-1' } });
    expect(direct.statusCode).toBe(409);
    expect(direct.json().error.code).toBe('EXECUTION_HOLD_REQUIRED');
    expect(direct.json().error.details.estimated_cost).toBe('3.300000');
    expect(direct.json().error.details.steps.map((s: { path: string }) => s.path)).toEqual(['/v1/billing/hardware/quote', '/v1/billing/hardware/hold', '/v1/execute/provider-two/held/<job_id>']);
    await expectWallet(app, u.auth, '10.000000', '0.000000');

    // Quote: $0.30 + 100 × $0.03 = $3.30 (prices from the device catalogue); quoting moves no money.
    const { quote, held } = await quoteAndHold(app, u.auth, 'p2-ion-11', 100);
    expect(quote.total).toBe('3.300000');
    expect(held.status).toBe('held');
    await expectWallet(app, u.auth, '6.700000', '3.300000');

    // The held job is readable through execution before it is continued.
    const before = await app.inject({ method: 'GET', url: `/v1/execute/provider-two/${held.job_id}`, headers: u.auth });
    expect(before.statusCode).toBe(200);
    expect(before.json().data).toMatchObject({ status: 'held', cost: { estimated: '3.300000', actual: null, held: '3.300000' } });

    // Capabilities now offer the continuation.
    const caps = (await app.inject({ method: 'GET', url: '/v1/execute/capabilities', headers: u.auth })).json().data;
    expect(caps.held_job_continuation.ready).toBe(true);
    expect(caps.held_job_continuation.held_jobs.map((h: { job_id: string }) => h.job_id)).toContain(held.job_id);

    // Continue → 202 queued with a queue position; the funds stay held.
    const cont = await app.inject({ method: 'POST', url: `/v1/execute/provider-two/held/${held.job_id}`, headers: u.auth, payload: { circuit: ghz3, client_token: 'ion-run-1', seed: 7 } });
    expect(cont.statusCode).toBe(202);
    const queued = cont.json().data;
    expect(queued).toMatchObject({ job_id: held.job_id, status: 'queued', queue_position: 1, device: 'p2-ion-11', kind: 'hardware', driver: 'emulated', results: null });
    expect(queued.translation.verification.equivalent).toBe(true);
    expect(queued.translation.final_layout).toEqual({ 0: 0, 1: 1, 2: 2 });
    await expectWallet(app, u.auth, '6.700000', '3.300000');

    // The same token again → the same job, not a second run.
    const again = await app.inject({ method: 'POST', url: `/v1/execute/provider-two/held/${held.job_id}`, headers: u.auth, payload: { circuit: ghz3, client_token: 'ion-run-1', seed: 7 } });
    expect(again.statusCode).toBe(200);
    expect(again.json().data).toMatchObject({ job_id: held.job_id, replayed: true });
    // Another token on the same held job → 409 (already continued).
    const other = await app.inject({ method: 'POST', url: `/v1/execute/provider-two/held/${held.job_id}`, headers: u.auth, payload: { circuit: ghz3, client_token: 'ion-run-2' } });
    expect(other.statusCode).toBe(409);
    expect(other.json().error).toMatchObject({ code: 'EXECUTION_HELD_JOB_NOT_CONTINUABLE', details: { status: 'continued' } });
    // Releasing a continued job is refused by billing: the run settles it.
    const rel = await app.inject({ method: 'POST', url: `/v1/billing/hardware/hold/${held.job_id}/release`, headers: u.auth });
    expect(rel.statusCode).toBe(409);
    await expectWallet(app, u.auth, '6.700000', '3.300000');

    // The worker runs it: running → completed, the hold captured once.
    const steps = await app.services.executionWorker.drain();
    expect(steps).toEqual([{ jobId: held.job_id, outcome: 'completed' }]);
    const done = (await app.inject({ method: 'GET', url: `/v1/execute/provider-two/${held.job_id}`, headers: u.auth })).json().data;
    expect(done.status).toBe('completed');
    expect(done.results.bit_order).toMatch(/clbit 0 rightmost/);
    const counts = done.results.counts as Record<string, number>;
    expect(Object.values(counts).reduce((a, b) => a + b, 0)).toBe(100);
    expect(Object.keys(counts).every((k) => /^[01]{3}$/.test(k))).toBe(true);
    // A noisy GHZ: mostly 000 and 111.
    expect((counts['000'] ?? 0) + (counts['111'] ?? 0)).toBeGreaterThan(70);
    expect(done.cost).toEqual({ currency: 'USD', estimated: '3.300000', actual: '3.300000', hold_id: held.hold_id, held: '3.300000' });
    expect(done.events.map((e: { to: string }) => e.to)).toEqual(['queued', 'running', 'completed']);
    await expectWallet(app, u.auth, '6.700000', '0.000000');

    // Nothing more to do; the token still returns the completed job and nothing is charged again.
    expect(await app.services.executionWorker.drain()).toEqual([]);
    const replay = await app.inject({ method: 'POST', url: `/v1/execute/provider-two/held/${held.job_id}`, headers: u.auth, payload: { circuit: ghz3, client_token: 'ion-run-1', seed: 7 } });
    expect(replay.json().data).toMatchObject({ status: 'completed', replayed: true, results: { counts } });
    await expectWallet(app, u.auth, '6.700000', '0.000000');
  });

  it('routes on the grid device: SWAPs, final mapping, counts in clbit order', async () => {
    const u = await signUp(app);
    await fundAccount(app, u.accountId, 5_000_000n);
    const { held } = await quoteAndHold(app, u.auth, 'p2-grid-9', 1000);
    expect(held.amount).toBe('1.200000'); // 0.30 + 1000 × 0.0009
    await expectWallet(app, u.auth, '3.800000', '1.200000');
    // x on qubit 0 only, then entangle 0 with 4 (not coupled on a 3×3 grid once 0..4 are placed)
    const circuit = {
      schema: '0.2',
      num_qubits: 5,
      num_clbits: 5,
      gates: [
        { op: 'x', qubits: [0] },
        { op: 'cx', qubits: [0, 1] },
        { op: 'cx', qubits: [0, 2] },
        { op: 'cx', qubits: [0, 3] },
        { op: 'cx', qubits: [0, 4] },
        { op: 'cx', qubits: [1, 4] },
      ],
      measurements: [0, 1, 2, 3, 4].map((q) => ({ qubit: q, clbit: q })),
    };
    const cont = await app.inject({ method: 'POST', url: `/v1/execute/provider-two/held/${held.job_id}`, headers: u.auth, payload: { circuit, client_token: 'grid-1', seed: 3 } });
    expect(cont.statusCode).toBe(202);
    const tr = cont.json().data.translation;
    expect(tr.verification.equivalent).toBe(true);
    expect(Object.keys(tr.final_layout)).toHaveLength(5);
    await app.services.executionWorker.drain();
    const done = (await app.inject({ method: 'GET', url: `/v1/execute/provider-two/${held.job_id}`, headers: u.auth })).json().data;
    expect(done.status).toBe('completed');
    // Ideal outcome: q0..q3 = 1, q4 = 1 xor 1 = 0 → "01111" (clbit 0 rightmost); noise spreads the rest.
    const counts = done.results.counts as Record<string, number>;
    const top = Object.entries(counts).sort((a, b) => b[1] - a[1])[0]![0];
    expect(top).toBe('01111');
    await expectWallet(app, u.auth, '3.800000', '0.000000');
  });

  it('release returns the funds; a released job cannot be continued', async () => {
    const u = await signUp(app);
    await fundAccount(app, u.accountId, 2_000_000n);
    const { held } = await quoteAndHold(app, u.auth, 'p2-grid-9', 100);
    await expectWallet(app, u.auth, '1.610000', '0.390000');
    const rel = await app.inject({ method: 'POST', url: `/v1/billing/hardware/hold/${held.job_id}/release`, headers: u.auth });
    expect(rel.statusCode).toBe(200);
    await expectWallet(app, u.auth, '2.000000', '0.000000');
    const cont = await app.inject({ method: 'POST', url: `/v1/execute/provider-two/held/${held.job_id}`, headers: u.auth, payload: { circuit: bell, client_token: 'rel-1' } });
    expect(cont.statusCode).toBe(409);
    expect(cont.json().error).toMatchObject({ code: 'EXECUTION_HELD_JOB_NOT_CONTINUABLE', details: { status: 'released' } });
    const view = (await app.inject({ method: 'GET', url: `/v1/execute/provider-two/${held.job_id}`, headers: u.auth })).json().data;
    expect(view).toMatchObject({ status: 'released', cost: { actual: '0.000000' } });
    await expectWallet(app, u.auth, '2.000000', '0.000000');
  });

  it('a hold never continued expires and releases itself', async () => {
    const u = await signUp(app);
    await fundAccount(app, u.accountId, 1_000_000n);
    const { held } = await quoteAndHold(app, u.auth, 'p2-grid-9', 10, { expires_in_seconds: 60 });
    await expectWallet(app, u.auth, '0.691000', '0.309000');
    // The sweeper, run as if two minutes had passed.
    const expired = await expireDueHolds(app.db, { now: new Date(Date.now() + 120_000) });
    expect(expired).toContain(held.hold_id);
    await expectWallet(app, u.auth, '1.000000', '0.000000');
    const view = (await app.inject({ method: 'GET', url: `/v1/execute/provider-two/${held.job_id}`, headers: u.auth })).json().data;
    expect(view.status).toBe('expired');
    const cont = await app.inject({ method: 'POST', url: `/v1/execute/provider-two/held/${held.job_id}`, headers: u.auth, payload: { circuit: bell, client_token: 'exp-1' } });
    expect(cont.json().error).toMatchObject({ code: 'EXECUTION_HELD_JOB_NOT_CONTINUABLE', details: { status: 'expired' } });
    const caps = (await app.inject({ method: 'GET', url: '/v1/execute/capabilities', headers: u.auth })).json().data;
    expect(caps.held_job_continuation.ready).toBe(false);
    expect(caps.held_job_continuation.reasons.map((r: { code: string }) => r.code)).toEqual(['quote_hold_required']);
  });

  it('a continued job keeps its funds past the original hold expiry (the run settles it)', async () => {
    const u = await signUp(app);
    await fundAccount(app, u.accountId, 1_000_000n);
    const { held } = await quoteAndHold(app, u.auth, 'p2-grid-9', 10, { expires_in_seconds: 60 });
    const cont = await app.inject({ method: 'POST', url: `/v1/execute/provider-two/held/${held.job_id}`, headers: u.auth, payload: { circuit: bell, client_token: 'keep-1' } });
    expect(cont.statusCode).toBe(202);
    expect(await expireDueHolds(app.db, { now: new Date(Date.now() + 120_000) })).not.toContain(held.hold_id);
    await expectWallet(app, u.auth, '0.691000', '0.309000');
    await app.services.executionWorker.drain();
    await expectWallet(app, u.auth, '0.691000', '0.000000');
  });

  it('an offline device: continuation refused with the hold intact; a device going offline while queued fails the job and releases', async () => {
    const u = await signUp(app);
    await fundAccount(app, u.accountId, 3_000_000n);
    const a = await quoteAndHold(app, u.auth, 'p2-grid-9', 100);
    const b = await quoteAndHold(app, u.auth, 'p2-grid-9', 100);
    await expectWallet(app, u.auth, '2.220000', '0.780000');
    // b is queued while the device is online…
    const contB = await app.inject({ method: 'POST', url: `/v1/execute/provider-two/held/${b.held.job_id}`, headers: u.auth, payload: { circuit: bell, client_token: 'off-b' } });
    expect(contB.statusCode).toBe(202);
    // …then an operator takes the device down.
    await app.services.execution.setDeviceStatus('p2-grid-9', 'maintenance', 'recalibration');
    const devices = (await app.inject({ method: 'GET', url: '/v1/execute/provider-two/devices' })).json().data.devices;
    const grid = devices.find((d: { id: string }) => d.id === 'p2-grid-9');
    expect(grid).toMatchObject({ status: 'maintenance', available: false, queue_depth: 1, status_detail: 'recalibration' });
    expect(grid.reasons.map((r: { code: string }) => r.code)).toEqual(['device_offline']);

    const contA = await app.inject({ method: 'POST', url: `/v1/execute/provider-two/held/${a.held.job_id}`, headers: u.auth, payload: { circuit: bell, client_token: 'off-a' } });
    expect(contA.statusCode).toBe(409);
    expect(contA.json().error).toMatchObject({ code: 'EXECUTION_DEVICE_UNAVAILABLE', details: { status: 'maintenance' } });
    await expectWallet(app, u.auth, '2.220000', '0.780000');

    await app.services.executionWorker.drain();
    const jobB = (await app.inject({ method: 'GET', url: `/v1/execute/provider-two/${b.held.job_id}`, headers: u.auth })).json().data;
    expect(jobB).toMatchObject({ status: 'failed', failure: { code: 'DEVICE_OFFLINE' }, cost: { estimated: '0.390000', actual: '0.000000' }, results: null });
    await expectWallet(app, u.auth, '2.610000', '0.390000');

    // Back online: a continues and completes.
    await app.services.execution.setDeviceStatus('p2-grid-9', null);
    const retry = await app.inject({ method: 'POST', url: `/v1/execute/provider-two/held/${a.held.job_id}`, headers: u.auth, payload: { circuit: bell, client_token: 'off-a' } });
    expect(retry.statusCode).toBe(202);
    await app.services.executionWorker.drain();
    await expectWallet(app, u.auth, '2.610000', '0.000000');
  });

  it('client tokens: another request under a used token → 409; other accounts cannot see or continue a job', async () => {
    const u = await signUp(app);
    const v = await signUp(app);
    await fundAccount(app, u.accountId, 1_000_000n);
    const { held } = await quoteAndHold(app, u.auth, 'p2-grid-9', 10);
    const theirs = await app.inject({ method: 'POST', url: `/v1/execute/provider-two/held/${held.job_id}`, headers: v.auth, payload: { circuit: bell, client_token: 'x-1' } });
    expect(theirs.statusCode).toBe(404);
    expect((await app.inject({ method: 'GET', url: `/v1/execute/provider-two/${held.job_id}`, headers: v.auth })).statusCode).toBe(404);
    const ok = await app.inject({ method: 'POST', url: `/v1/execute/provider-two/held/${held.job_id}`, headers: u.auth, payload: { circuit: bell, client_token: 'tok-1' } });
    expect(ok.statusCode).toBe(202);
    const reused = await app.inject({ method: 'POST', url: `/v1/execute/provider-two/held/${held.job_id}`, headers: u.auth, payload: { circuit: ghz3, client_token: 'tok-1' } });
    expect(reused.json().error).toMatchObject({ code: 'EXECUTION_CLIENT_TOKEN_REUSED', details: { job_id: held.job_id } });
    await app.services.executionWorker.drain();
    await expectLedgerInvariants(app);
  });

  it('spend controls turned off after the hold: continuation refused (HARDWARE_DISABLED), funds stay held until released', async () => {
    const u = await signUp(app);
    await fundAccount(app, u.accountId, 1_000_000n);
    const { held } = await quoteAndHold(app, u.auth, 'p2-grid-9', 10);
    await app.inject({ method: 'PATCH', url: '/v1/billing/spend-controls', headers: u.auth, payload: { hardware_allowed: false } });
    const cont = await app.inject({ method: 'POST', url: `/v1/execute/provider-two/held/${held.job_id}`, headers: u.auth, payload: { circuit: bell, client_token: 'sc-1' } });
    expect(cont.statusCode).toBe(409);
    expect(cont.json().error.code).toBe('HARDWARE_DISABLED');
    await expectWallet(app, u.auth, '0.691000', '0.309000');
    await app.inject({ method: 'POST', url: `/v1/billing/hardware/hold/${held.job_id}/release`, headers: u.auth });
    await expectWallet(app, u.auth, '1.000000', '0.000000');
  });

  it('no session → 401 on every execution endpoint except capabilities and devices', async () => {
    for (const [method, url] of [
      ['POST', '/v1/execute/provider-one'],
      ['POST', '/v1/execute/provider-two'],
      ['POST', '/v1/execute/provider-two/held/00000000-0000-4000-8000-000000000000'],
      ['GET', '/v1/execute/provider-two/00000000-0000-4000-8000-000000000000'],
    ] as const) {
      const r = await app.inject({ method, url, ...(method === 'POST' ? { payload: { circuit: bell, client_token: 't' } } : {}) });
      expect(r.statusCode).toBe(401);
    }
    expect((await app.inject({ method: 'GET', url: '/v1/execute/capabilities' })).statusCode).toBe(200);
    expect((await app.inject({ method: 'GET', url: '/v1/execute/provider-two/devices' })).statusCode).toBe(200);
  });
});
