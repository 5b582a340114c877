/**
 * Local simulator and emulated-hardware runs go through the app's compute pool (src/compute), off
 * the event loop the HTTP API shares: the same seeded counts as in-process (COMPUTE_THREADS=0), and
 * a compute thread that dies fails the run like any unexpected error (EXECUTION_FAILED, the hold
 * released, nothing charged).
 */
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { ThreadPool } from '../../src/compute/compute-pool.js';
import type { App } from '../../src/http/app-types.js';
import { buildTestApp, signUp } from '../helpers/app.js';
import { fundAccount } from '../helpers/ledger.js';
import { expectExecutionInvariants, expectWallet, ghz3, quoteAndHold } from './helpers.js';

/** Rotations and entanglers: many outcomes, so equal counts mean the same sampling. */
const spread = {
  schema: '0.2',
  num_qubits: 5,
  num_clbits: 5,
  gates: [
    { op: 'h', qubits: [0] },
    { op: 'ry', qubits: [1], params: [0.7] },
    { op: 'cx', qubits: [0, 2] },
    { op: 'rx', qubits: [3], params: [1.3] },
    { op: 'cx', qubits: [1, 3] },
    { op: 'rz', qubits: [2], params: [0.4] },
    { op: 'h', qubits: [2] },
    { op: 'ry', qubits: [4], params: [2.1] },
    { op: 'cx', qubits: [4, 0] },
  ],
  measurements: [0, 1, 2, 3, 4].map((q) => ({ qubit: q, clbit: q })),
};

const TOY = new URL('../foundation/fixtures/toy-compute-worker.js', import.meta.url);

let pooled: App;
let inProcess: App;
beforeAll(async () => {
  pooled = await buildTestApp({ COMPUTE_THREADS: '1' });
  inProcess = await buildTestApp({ COMPUTE_THREADS: '0' });
});
afterEach(async () => {
  vi.restoreAllMocks();
  await expectExecutionInvariants(pooled);
  await expectExecutionInvariants(inProcess);
});
afterAll(async () => {
  await pooled?.close();
  await inProcess?.close();
});

const total = (counts: Record<string, number>) => Object.values(counts).reduce((a, b) => a + b, 0);

describe('execution local drivers on the compute pool', () => {
  it('simulator runs (POST /v1/execute/{provider}): the same seeded counts in a thread as in-process', async () => {
    expect(pooled.compute.threads).toBe(1);
    expect(inProcess.compute.threads).toBe(0);
    const out: Record<string, unknown>[] = [];
    for (const app of [pooled, inProcess]) {
      const u = await signUp(app);
      const tasks = vi.spyOn(app.compute, 'run');
      for (const provider of ['provider-one', 'provider-two']) {
        const r = await app.inject({ method: 'POST', url: `/v1/execute/${provider}`, headers: u.auth, payload: { circuit: spread, shots: 4000, seed: 987654321, client_token: `pool-${provider}` } });
        expect(r.statusCode, r.body).toBe(200);
        const d = r.json().data;
        expect(d).toMatchObject({ status: 'completed', seed: 987654321, shots: 4000 });
        expect(total(d.results.counts)).toBe(4000);
        expect(Object.keys(d.results.counts).length).toBeGreaterThan(8);
        out.push(d.results);
      }
      expect(tasks.mock.calls.map((c) => c[0])).toEqual(['simulate', 'simulate']);
      // The exact simulator: no noise model crosses.
      expect(tasks.mock.calls.every((c) => (c[1] as { calibration?: unknown }).calibration === undefined)).toBe(true);
    }
    const [p1, p2, i1, i2] = out as Array<{ counts: unknown; probabilities: unknown; probabilities_kind?: unknown }>;
    expect(p1!.counts).toEqual(i1!.counts);
    expect(p2!.counts).toEqual(i2!.counts);
    expect(p1).toEqual(i1);
    expect(p2).toEqual(i2);
  });

  it('an emulated (noisy) device run by the worker: the same seeded counts in a thread as in-process', async () => {
    const results: Array<Record<string, number>> = [];
    for (const app of [pooled, inProcess]) {
      const u = await signUp(app);
      await fundAccount(app, u.accountId, 10_000_000n);
      const { held } = await quoteAndHold(app, u.auth, 'p2-ion-11', 200);
      const cont = await app.inject({ method: 'POST', url: `/v1/execute/provider-two/held/${held.job_id}`, headers: u.auth, payload: { circuit: ghz3, client_token: 'noisy-1', seed: 31337 } });
      expect(cont.statusCode, cont.body).toBe(202);
      const tasks = vi.spyOn(app.compute, 'run');
      expect(await app.services.executionWorker.drain()).toEqual([{ jobId: held.job_id, outcome: 'completed' }]);
      expect(tasks.mock.calls.map((c) => c[0])).toEqual(['simulate']);
      // The noise model is built in the task from the device's calibration record.
      expect((tasks.mock.calls[0]![1] as { calibration?: unknown }).calibration).toBeDefined();
      const done = (await app.inject({ method: 'GET', url: `/v1/execute/provider-two/${held.job_id}`, headers: u.auth })).json().data;
      expect(done.status).toBe('completed');
      const counts = done.results.counts as Record<string, number>;
      expect(total(counts)).toBe(200);
      // Noisy: more than the ideal 000 / 111.
      expect(Object.keys(counts).length).toBeGreaterThan(2);
      results.push(counts);
      vi.restoreAllMocks();
    }
    expect(results[0]).toEqual(results[1]);
  });

  it('a compute thread that dies fails a worker run as EXECUTION_FAILED and releases the hold; an API simulator run answers 500', async () => {
    const crashing = new ThreadPool({ threads: 1, workerUrl: TOY });
    try {
      const tasks = vi.spyOn(pooled.compute, 'run').mockImplementation(() => crashing.run('exit', null) as never);
      const u = await signUp(pooled);
      await fundAccount(pooled, u.accountId, 10_000_000n);
      const { held } = await quoteAndHold(pooled, u.auth, 'p2-ion-11', 100);
      await expectWallet(pooled, u.auth, '6.700000', '3.300000');
      const cont = await pooled.inject({ method: 'POST', url: `/v1/execute/provider-two/held/${held.job_id}`, headers: u.auth, payload: { circuit: ghz3, client_token: 'crash-1', seed: 3 } });
      expect(cont.statusCode, cont.body).toBe(202);
      expect(await pooled.services.executionWorker.drain()).toEqual([{ jobId: held.job_id, outcome: 'failed' }]);
      const job = (await pooled.inject({ method: 'GET', url: `/v1/execute/provider-two/${held.job_id}`, headers: u.auth })).json().data;
      expect(job).toMatchObject({ status: 'failed', failure: { code: 'EXECUTION_FAILED' }, results: null });
      await expectWallet(pooled, u.auth, '10.000000', '0.000000');

      const sim = await pooled.inject({ method: 'POST', url: '/v1/execute/provider-one', headers: u.auth, payload: { circuit: ghz3, shots: 10, seed: 1, client_token: 'crash-sim' } });
      expect(sim.statusCode).toBe(500);
      expect(sim.json().error.code).toBe('INTERNAL_ERROR');
      const rows = await pooled.db.query<{ status: string; error_code: string | null }>(`SELECT status, error_code FROM execution_jobs WHERE account_id = $1 AND kind = 'simulator'`, [u.accountId]);
      expect(rows.rows).toEqual([{ status: 'failed', error_code: 'EXECUTION_FAILED' }]);
      expect(tasks).toHaveBeenCalledTimes(2);
    } finally {
      await crashing.close();
    }
    vi.restoreAllMocks();
    // The app's own pool keeps serving runs.
    const u = await signUp(pooled);
    const ok = await pooled.inject({ method: 'POST', url: '/v1/execute/provider-one', headers: u.auth, payload: { circuit: ghz3, shots: 10, seed: 1, client_token: 'after-crash' } });
    expect(ok.statusCode, ok.body).toBe(200);
  });
});
