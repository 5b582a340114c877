import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, signUp } from '../helpers/app.js';
import { busyCircuit } from '../helpers/circuits.js';
import { waitFor } from '../helpers/wait-for.js';
import type { App } from '../../src/http/app-types.js';
import { expectWallet, ghz3, settleExecutionJob } from './helpers.js';

// A state vector of 22 qubits through 3000 gates (seconds of work): long enough to be seen running and canceled.
const slow = { ...busyCircuit(22, 3000, 5), num_clbits: 1, measurements: [{ qubit: 0, clbit: 0 }] };

describe('async simulator runs (issue #22 item 7): 202 queued, run by the execution worker', () => {
  let app: App;
  beforeAll(async () => {
    app = await buildTestApp({ EXECUTION_LEASE_MS: '3000' });
  });
  afterAll(async () => {
    await app.close();
  });

  it('async: true → 202 queued; the worker runs it to the same counts as the sync run with the same seed', async () => {
    const u = await signUp(app);
    for (const provider of ['provider-one', 'provider-two']) {
      const sync = await app.inject({ method: 'POST', url: `/v1/execute/${provider}`, headers: u.auth, payload: { circuit: ghz3, shots: 300, seed: 5, client_token: `s-${provider}` } });
      expect(sync.statusCode).toBe(200);
      const r = await app.inject({ method: 'POST', url: `/v1/execute/${provider}`, headers: u.auth, payload: { circuit: ghz3, shots: 300, seed: 5, client_token: `a-${provider}`, async: true } });
      expect(r.statusCode).toBe(202);
      const q = r.json().data;
      expect(q).toMatchObject({ provider, kind: 'simulator', status: 'queued', replayed: false, results: null });
      // A retry with the token answers the same job (200, replayed) and queues nothing more.
      const again = await app.inject({ method: 'POST', url: `/v1/execute/${provider}`, headers: u.auth, payload: { circuit: ghz3, shots: 300, seed: 5, client_token: `a-${provider}`, async: true } });
      expect(again.statusCode).toBe(200);
      expect(again.json().data).toMatchObject({ job_id: q.job_id, replayed: true });
      await settleExecutionJob(app, q.job_id);
      const done = (await app.inject({ method: 'GET', url: `/v1/execute/${provider}/${q.job_id}`, headers: u.auth })).json().data;
      expect(done.status).toBe('completed');
      expect(done.results.counts).toEqual(sync.json().data.results.counts);
      // Another account cannot read it.
      const v = await signUp(app);
      expect((await app.inject({ method: 'GET', url: `/v1/execute/${provider}/${q.job_id}`, headers: v.auth })).statusCode).toBe(404);
    }
    await expectWallet(app, u.auth, '0.000000', '0.000000');
  });

  it('async requests are checked before anything is queued: too many shots → 422, a hardware device → 409 hold required', async () => {
    const u = await signUp(app);
    const bad = await app.inject({ method: 'POST', url: '/v1/execute/provider-two', headers: u.auth, payload: { circuit: ghz3, shots: 200_000, client_token: 'bad', async: true } });
    expect(bad.statusCode).toBe(422);
    const hw = await app.inject({ method: 'POST', url: '/v1/execute/provider-two', headers: u.auth, payload: { circuit: ghz3, device: 'p2-grid-9', client_token: 'hw', async: true } });
    expect(hw.statusCode).toBe(409);
    expect(hw.json().error.code).toBe('EXECUTION_HOLD_REQUIRED');
    const n = await app.db.query<{ n: number }>('SELECT count(*)::int AS n FROM execution_jobs WHERE account_id = $1', [u.accountId]);
    expect(n.rows[0]!.n).toBe(0);
    const typo = await app.inject({ method: 'POST', url: '/v1/execute/provider-two', headers: u.auth, payload: { circuit: ghz3, client_token: 'typo', async: 'yes' } });
    expect(typo.statusCode).toBe(400);
  });

  it('a queued async run is canceled at once; the worker never runs it', async () => {
    const u = await signUp(app);
    const q = (await app.inject({ method: 'POST', url: '/v1/execute/provider-two', headers: u.auth, payload: { circuit: ghz3, shots: 10, client_token: 'cq', async: true } })).json().data;
    const c = await app.inject({ method: 'POST', url: `/v1/execute/provider-two/${q.job_id}/cancel`, headers: u.auth });
    expect(c.statusCode).toBe(200);
    expect(c.json().data).toMatchObject({ status: 'failed', failure: { code: 'CANCELED' }, results: null });
    await app.services.executionWorker.drain();
    expect((await app.inject({ method: 'GET', url: `/v1/execute/provider-two/${q.job_id}`, headers: u.auth })).json().data.status).toBe('failed');
    await expectWallet(app, u.auth, '0.000000', '0.000000');
  });

  it('an account may have 16 simulator jobs queued or running: the 17th async run is 429 and queues nothing; a cancel makes room', async () => {
    const u = await signUp(app);
    const runAsync = (token: string) => app.inject({ method: 'POST', url: '/v1/execute/provider-two', headers: u.auth, payload: { circuit: ghz3, shots: 10, client_token: token, async: true } });
    const ids: string[] = [];
    for (let k = 0; k < 16; k++) {
      const r = await runAsync(`cap-${k}`);
      expect(r.statusCode).toBe(202);
      ids.push(r.json().data.job_id as string);
    }
    const over = await runAsync('cap-16');
    expect(over.statusCode).toBe(429);
    expect(over.json().error).toMatchObject({ code: 'EXECUTION_TOO_MANY_OPEN', details: { max_open: 16 } });
    const count = async () => (await app.db.query<{ n: number }>('SELECT count(*)::int AS n FROM execution_jobs WHERE account_id = $1', [u.accountId])).rows[0]!.n;
    expect(await count()).toBe(16);
    // The refused token was not taken: the same request is accepted once there is room.
    expect((await app.inject({ method: 'POST', url: `/v1/execute/provider-two/${ids[0]}/cancel`, headers: u.auth })).statusCode).toBe(200);
    expect((await runAsync('cap-16')).statusCode).toBe(202);
    expect(await count()).toBe(17);
    await app.services.executionWorker.drain();
  });

  it('a running async run is aborted by its cancel and ends failed / CANCELED', async () => {
    const u = await signUp(app);
    const r = await app.inject({ method: 'POST', url: '/v1/execute/provider-one', headers: u.auth, payload: { circuit: slow, shots: 10, seed: 1, client_token: 'cr', async: true } });
    expect(r.statusCode).toBe(202);
    const id = r.json().data.job_id as string;
    const draining = app.services.executionWorker.drain();
    await waitFor(async () => (await app.inject({ method: 'GET', url: `/v1/execute/provider-one/${id}`, headers: u.auth })).json().data.status === 'running', {
      intervalMs: 2,
      what: 'the async run running',
    });
    const c = await app.inject({ method: 'POST', url: `/v1/execute/provider-one/${id}/cancel`, headers: u.auth });
    expect(c.statusCode).toBe(200);
    await draining;
    const end = (await app.inject({ method: 'GET', url: `/v1/execute/provider-one/${id}`, headers: u.auth })).json().data;
    expect(end).toMatchObject({ status: 'failed', failure: { code: 'CANCELED' }, results: null });
    await expectWallet(app, u.auth, '0.000000', '0.000000');
  });

  it('a running run shows its progress (fraction and phase, never going back), and none once it ended', async () => {
    const u = await signUp(app);
    const r = await app.inject({ method: 'POST', url: '/v1/execute/provider-two', headers: u.auth, payload: { circuit: slow, shots: 10, seed: 2, client_token: 'pr', async: true } });
    expect(r.statusCode).toBe(202);
    expect(r.json().data.progress).toBeNull();
    const id = r.json().data.job_id as string;
    const read = async () => (await app.inject({ method: 'GET', url: `/v1/execute/provider-two/${id}`, headers: u.auth })).json().data;
    const draining = app.services.executionWorker.drain();
    const first = await waitFor(
      async () => {
        const j = await read();
        return j.status === 'running' && j.progress !== null && j.progress;
      },
      { intervalMs: 5, what: 'a progress report of the running run' },
    );
    expect(first.phase).toBe('simulating');
    expect(first.fraction).toBeGreaterThan(0);
    expect(first.fraction).toBeLessThanOrEqual(1);
    expect(Date.parse(first.at)).not.toBeNaN();
    // A later report is further on (the run reports after every block of gates; stored once a second).
    const later = await waitFor(
      async () => {
        const j = await read();
        if (j.status !== 'running') return j.progress === null && { fraction: 1 };
        return j.progress.at !== first.at && j.progress;
      },
      { intervalMs: 20, what: 'a second progress report or the end' },
    );
    expect(later.fraction).toBeGreaterThanOrEqual(first.fraction);
    const c = await app.inject({ method: 'POST', url: `/v1/execute/provider-two/${id}/cancel`, headers: u.auth });
    expect(c.statusCode).toBe(200);
    await draining;
    const end = await read();
    expect(end.status).not.toBe('running');
    expect(end.progress).toBeNull();
  });
});
