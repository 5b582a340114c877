import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, signUp } from '../helpers/app.js';
import { fundAccount } from '../helpers/ledger.js';
import type { App } from '../../src/http/app-types.js';
import { claimJob, insertJob } from '../../src/store/execution/execution-repository.js';
import { bell, expectWallet, ghz3, quoteAndHold } from './helpers.js';

describe('simulator runs on both providers, client tokens, restarts', () => {
  let app: App;
  beforeAll(async () => {
    app = await buildTestApp({ EXECUTION_LEASE_MS: '100' });
  });
  afterAll(async () => {
    await app.close();
  });

  it('provider-one and provider-two simulators answer with counts (bit order stated), free of charge', async () => {
    const u = await signUp(app);
    for (const provider of ['provider-one', 'provider-two']) {
      const r = await app.inject({ method: 'POST', url: `/v1/execute/${provider}`, headers: u.auth, payload: { circuit: ghz3, shots: 500, seed: 11, client_token: `sim-${provider}` } });
      expect(r.statusCode).toBe(200);
      const d = r.json().data;
      expect(d).toMatchObject({ provider, kind: 'simulator', status: 'completed', shots: 500, seed: 11, replayed: false, cost: { estimated: '0.000000', actual: '0.000000' } });
      expect(Object.keys(d.results.counts).sort()).toEqual(['000', '111']);
      expect(d.results.counts['000'] + d.results.counts['111']).toBe(500);
      expect(d.results.probabilities).toEqual({ '000': expect.closeTo(0.5, 9), '111': expect.closeTo(0.5, 9) });
      expect(d.results.bit_order).toMatch(/clbit 0 rightmost/);
      const read = await app.inject({ method: 'GET', url: `/v1/execute/${provider}/${d.job_id}`, headers: u.auth });
      expect(read.json().data.results.counts).toEqual(d.results.counts);
      const wrong = provider === 'provider-one' ? 'provider-two' : 'provider-one';
      expect((await app.inject({ method: 'GET', url: `/v1/execute/${wrong}/${d.job_id}`, headers: u.auth })).statusCode).toBe(404);
    }
    // clbit 0 is the rightmost character: X on qubit 0 only reads "01".
    const x0 = {
      schema: '0.2',
      num_qubits: 2,
      num_clbits: 2,
      gates: [{ op: 'x', qubits: [0] }],
      measurements: [
        { qubit: 0, clbit: 0 },
        { qubit: 1, clbit: 1 },
      ],
    };
    const r = await app.inject({ method: 'POST', url: '/v1/execute/provider-two', headers: u.auth, payload: { circuit: x0, shots: 10, client_token: 'x0' } });
    expect(r.json().data.results.counts).toEqual({ '01': 10 });
    await expectWallet(app, u.auth, '0.000000', '0.000000');
  });

  it('the same client token never runs twice; another request under it → 409', async () => {
    const u = await signUp(app);
    const first = (await app.inject({ method: 'POST', url: '/v1/execute/provider-two', headers: u.auth, payload: { circuit: bell, shots: 1000, client_token: 'tok-A' } })).json().data;
    const second = (await app.inject({ method: 'POST', url: '/v1/execute/provider-two', headers: u.auth, payload: { circuit: bell, shots: 1000, client_token: 'tok-A' } })).json().data;
    expect(second).toMatchObject({ job_id: first.job_id, replayed: true, seed: first.seed, results: { counts: first.results.counts } });
    const n = await app.db.query<{ n: number }>('SELECT count(*)::int AS n FROM execution_jobs WHERE account_id = $1', [u.accountId]);
    expect(n.rows[0]!.n).toBe(1);
    const other = await app.inject({ method: 'POST', url: '/v1/execute/provider-two', headers: u.auth, payload: { circuit: bell, shots: 999, client_token: 'tok-A' } });
    expect(other.statusCode).toBe(409);
    expect(other.json().error).toMatchObject({ code: 'EXECUTION_CLIENT_TOKEN_REUSED', details: { job_id: first.job_id } });
    // Tokens are per account.
    const v = await signUp(app);
    const theirs = await app.inject({ method: 'POST', url: '/v1/execute/provider-two', headers: v.auth, payload: { circuit: bell, shots: 1000, client_token: 'tok-A' } });
    expect(theirs.json().data.job_id).not.toBe(first.job_id);
  });

  it('refusals: unknown device, provider-one hardware, invalid circuit (every problem), bad token', async () => {
    const u = await signUp(app);
    const unknown = await app.inject({ method: 'POST', url: '/v1/execute/provider-two', headers: u.auth, payload: { circuit: bell, device: 'p1-simulator', client_token: 't1' } });
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json().error.code).toBe('EXECUTION_DEVICE_UNKNOWN');
    expect(unknown.json().error.details.devices).toContain('p2-ion-11');
    const p1hw = await app.inject({ method: 'POST', url: '/v1/execute/provider-one', headers: u.auth, payload: { circuit: bell, device: 'p1-falcon-7', client_token: 't2' } });
    // Provider One hardware runs through a quote and a hold, like Provider Two's; unconfigured, it says why.
    expect(p1hw.json().error).toMatchObject({
      code: 'EXECUTION_HOLD_REQUIRED',
      details: { device_available: false, reasons: [{ code: 'provider_not_configured' }, { code: 'provider_not_configured' }] },
    });
    const bad = await app.inject({
      method: 'POST',
      url: '/v1/execute/provider-two',
      headers: u.auth,
      payload: {
        circuit: {
          schema: '0.2',
          num_qubits: 1,
          gates: [
            { op: 'cx', qubits: [0, 3] },
            { op: 'nope', qubits: [0] },
          ],
        },
        client_token: 't3',
      },
    });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().error.code).toBe('CIRCUIT_INVALID');
    expect(bad.json().error.details.length).toBeGreaterThanOrEqual(2);
    const tok = await app.inject({ method: 'POST', url: '/v1/execute/provider-two', headers: u.auth, payload: { circuit: bell, client_token: ' spaces ' } });
    expect(tok.statusCode).toBe(400);
    expect(tok.json().error.code).toBe('VALIDATION_FAILED');
  });

  it('a hardware job whose worker dies mid-run is run again by another worker and charged once', async () => {
    const u = await signUp(app);
    await fundAccount(app, u.accountId, 1_000_000n);
    const { held } = await quoteAndHold(app, u.auth, 'p2-grid-9', 50);
    await app.inject({ method: 'POST', url: `/v1/execute/provider-two/held/${held.job_id}`, headers: u.auth, payload: { circuit: bell, client_token: 'die-1', seed: 5 } });
    // Worker A claims it and dies (no heartbeat, no result).
    expect((await claimJob(app.db, 'worker-A', 60_000))?.job.id).toBe(held.job_id);
    expect(await app.services.executionWorker.drain()).toEqual([]); // still leased by A
    // A's lease runs out (forced rather than waited for).
    await app.db.query("UPDATE execution_jobs SET lease_expires_at = now() - interval '1 second' WHERE id = $1", [held.job_id]);
    expect(await app.services.executionWorker.drain()).toEqual([{ jobId: held.job_id, outcome: 'completed' }]);
    const j = (await app.inject({ method: 'GET', url: `/v1/execute/provider-two/${held.job_id}`, headers: u.auth })).json().data;
    expect(j).toMatchObject({ status: 'completed', cost: { actual: '0.345000' } });
    const captures = await app.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM ledger_transfers WHERE hold_id = $1 AND kind = 'capture'`, [held.hold_id]);
    expect(captures.rows[0]!.n).toBe(1);
    await expectWallet(app, u.auth, '0.655000', '0.000000');
  });

  it('a simulator run whose API process died is finished by the worker with the same seed', async () => {
    const u = await signUp(app);
    // As the API would have left it: running, leased by a process that is gone.
    const row = await insertJob(app.db, {
      id: '6f1c1d7e-0000-4000-8000-00000000a001',
      accountId: u.accountId,
      clientToken: 'orphan-1',
      requestHash: 'h',
      provider: 'provider-two',
      device: 'p2-local-simulator',
      kind: 'simulator',
      driver: 'simulator',
      status: 'running',
      shots: 64,
      seed: 99,
      circuit: bell,
      translation: null,
      holdId: null,
      estimatedMicros: 0n,
      leaseOwner: 'api-gone',
      leaseMs: 1,
    });
    expect(row?.status).toBe('running');
    await app.db.query("UPDATE execution_jobs SET lease_expires_at = now() - interval '1 second' WHERE id = $1", [row!.id]);
    expect(await app.services.executionWorker.drain()).toEqual([{ jobId: row!.id, outcome: 'completed' }]);
    const j = (await app.inject({ method: 'GET', url: `/v1/execute/provider-two/${row!.id}`, headers: u.auth })).json().data;
    expect(j).toMatchObject({ status: 'completed', seed: 99 });
    expect(Object.values(j.results.counts as Record<string, number>).reduce((a, b) => a + b, 0)).toBe(64);
  });
});
