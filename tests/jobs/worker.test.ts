import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { expireDueHolds } from '../helpers/ledger.js';
import type { App } from '../../src/http/app-types.js';
import { createJobsWorker, type JobsWorkerOptions } from '../../src/jobs/jobs-worker.js';
import { pgJobsRepository } from '../../src/store/jobs/jobs-repository.js';
import { buildTestApp } from '../helpers/app.js';
import { expectAllInvariants, key, newAgent, submit, withTestCapabilities, type Agent } from './helpers.js';
import { waitFor } from '../helpers/wait-for.js';

describe('the durable worker: leases, crashes, recovery, never charged twice', () => {
  let app: App;
  let a: Agent;
  let runs: Map<string, number>;
  const worker = (id: string, o: Partial<JobsWorkerOptions> = {}) =>
    createJobsWorker(pgJobsRepository(app.db), app.services.jobs.capabilities, { id, leaseMs: 60_000, pollMs: 20, maxAttempts: 3, concurrency: 1, ...o });
  /** A worker that "dies" (throws, leaving its lease) right after storing `at`. */
  const dying = (at: string) =>
    worker(`doomed-${at}`, {
      afterTransition: (_id, s) => {
        if (s === at) throw new Error(`simulated crash after ${s}`);
      },
    });
  const expireLeases = () => app.db.query("UPDATE jobs SET lease_expires_at = now() - interval '1 second' WHERE status IN ('running', 'result_saved')");
  const job = async (id: string) => (await app.inject({ method: 'GET', url: `/v1/jobs/${id}`, headers: a.auth })).json();
  const captures = async (jobId: string) =>
    (await app.db.query<{ n: number }>("SELECT count(*)::int AS n FROM ledger_transfers t JOIN jobs j ON j.hold_id = t.hold_id WHERE j.id = $1 AND t.kind = 'capture'", [jobId])).rows[0]?.n;

  beforeAll(async () => {
    app = await buildTestApp();
    runs = withTestCapabilities(app).runs;
    a = await newAgent(app, { fundMicros: 1_000_000n });
  });
  afterEach(async () => expectAllInvariants(app));
  afterAll(async () => app.close());

  it('a job caught in running after its worker died is re-run (rerun capability) and charged once', async () => {
    const id = (await submit(app, a, { capability_id: 'test.echo', request: { text: 'again' }, idempotency_key: key(), max_total_price: '1' })).json().job_id;
    await expect(dying('running').runOnce()).rejects.toThrow(/simulated crash/);
    expect((await job(id)).status).toBe('running');
    // Still leased: nobody else takes it.
    expect(await worker('other').runOnce()).toBeNull();
    await expireLeases();
    expect(await worker('rescuer').runOnce()).toEqual({ jobId: id, status: 'completed' });
    const j = await job(id);
    expect(j.attempts).toBe(2);
    expect(j.transitions.map((t: { from: string; to: string }) => `${t.from}>${t.to}`)).toEqual([
      'null>quoted',
      'quoted>reserved',
      'reserved>queued',
      'queued>running',
      'running>running',
      'running>result_saved',
      'result_saved>completed',
    ]);
    expect(await captures(id)).toBe(1);
  });

  it('a job caught in running is failed WORKER_LOST when its capability is not safe to re-run; the hold is released', async () => {
    const id = (await submit(app, a, { capability_id: 'test.effectful', request: { text: 'once' }, idempotency_key: key(), max_total_price: '1' })).json().job_id;
    await expect(dying('running').runOnce()).rejects.toThrow();
    await expireLeases();
    expect(await worker('rescuer').runOnce()).toEqual({ jobId: id, status: 'failed' });
    const j = await job(id);
    expect(j).toMatchObject({ status: 'failed', error_code: 'WORKER_LOST', receipt: null });
    expect(await captures(id)).toBe(0);
  });

  it('a job in result_saved is completed on restart without running again', async () => {
    const id = (await submit(app, a, { capability_id: 'test.effectful', request: { text: 'saved' }, idempotency_key: key(), max_total_price: '1' })).json().job_id;
    await expect(dying('result_saved').runOnce()).rejects.toThrow();
    expect((await job(id)).status).toBe('result_saved');
    expect(runs.get(id)).toBe(1);
    await expireLeases();
    expect(await worker('rescuer').runOnce()).toEqual({ jobId: id, status: 'completed' });
    expect(runs.get(id)).toBe(1);
    const j = await job(id);
    expect(j.result).toEqual({ echo: 'saved', attempt: 1 });
    expect(j.transitions.filter((t: { to: string }) => t.to === 'running')).toHaveLength(1);
    expect(await captures(id)).toBe(1);
  });

  it('a worker that lost its lease cannot save or charge: the job completes once', async () => {
    const id = (await submit(app, a, { capability_id: 'test.echo', request: { text: 'race' }, idempotency_key: key(), max_total_price: '1' })).json().job_id;
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    let reached!: () => void;
    const atRunning = new Promise<void>((r) => (reached = r));
    const slow = worker('slow', {
      afterTransition: async (_id, s) => {
        if (s === 'running') {
          reached();
          await gate;
        }
      },
    });
    const slowDone = slow.runOnce();
    await atRunning;
    await expireLeases();
    expect(await worker('fast').runOnce()).toEqual({ jobId: id, status: 'completed' });
    release();
    expect(await slowDone).toEqual({ jobId: id, status: 'lease_lost' });
    expect(await captures(id)).toBe(1);
    expect((await job(id)).status).toBe('completed');
  });

  it('gives up after the maximum number of attempts', async () => {
    const id = (await submit(app, a, { capability_id: 'test.echo', request: { text: 'flaky' }, idempotency_key: key(), max_total_price: '1' })).json().job_id;
    for (let i = 0; i < 3; i++) {
      await expect(dying('running').runOnce()).rejects.toThrow();
      await expireLeases();
    }
    expect(await worker('rescuer').runOnce()).toEqual({ jobId: id, status: 'failed' });
    expect(await job(id)).toMatchObject({ error_code: 'WORKER_LOST', attempts: 4 });
  });

  it('an expired hold fails the job as HOLD_EXPIRED with nothing charged', async () => {
    const id = (await submit(app, a, { capability_id: 'test.echo', request: { text: 'late' }, idempotency_key: key(), max_total_price: '1' })).json().job_id;
    await expireDueHolds(app.db, { now: new Date(Date.now() + 2 * 86_400_000) });
    expect(await worker('w').runOnce()).toEqual({ jobId: id, status: 'failed' });
    expect(await job(id)).toMatchObject({ status: 'failed', error_code: 'HOLD_EXPIRED' });
    expect(await captures(id)).toBe(0);
  });

  it('a capability withdrawn from the catalog fails its queued jobs as CAPABILITY_UNAVAILABLE', async () => {
    const reg = app.services.jobs.capabilities;
    const echo = reg.get('test.echo');
    if (echo === undefined) throw new Error('no echo');
    reg.register({ ...echo, id: 'test.temporary' });
    const id = (await submit(app, a, { capability_id: 'test.temporary', request: { text: 'x' }, idempotency_key: key(), max_total_price: '1' })).json().job_id;
    reg.unregister('test.temporary');
    expect(await worker('w').runOnce()).toEqual({ jobId: id, status: 'failed' });
    expect((await job(id)).error_code).toBe('CAPABILITY_UNAVAILABLE');
  });

  it('an unexpected capability error fails the job as CAPABILITY_FAILED', async () => {
    const id = (await submit(app, a, { capability_id: 'test.echo', request: { text: 'x', crash: true }, idempotency_key: key(), max_total_price: '1' })).json().job_id;
    expect(await worker('w').runOnce()).toEqual({ jobId: id, status: 'failed' });
    expect((await job(id)).error_code).toBe('CAPABILITY_FAILED');
  });

  it('the background loop (serve --role worker) completes submitted jobs and stops cleanly', async () => {
    const bg = worker('bg', { concurrency: 2 });
    bg.start();
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push((await submit(app, a, { capability_id: 'test.echo', request: { text: `bg${i}`, sleep_ms: 5 }, idempotency_key: key(), max_total_price: '1' })).json().job_id);
    for (const id of ids) {
      await waitFor(async () => (await job(id)).status === 'completed', { intervalMs: 20, what: `job ${id} completed` });
      expect((await job(id)).status).toBe('completed');
    }
    await bg.stop();
    expect(app.services.workers.map((w) => w.name)).toContain('jobs-worker');
  });
});
