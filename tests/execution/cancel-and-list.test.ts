/**
 * Execution jobs (issue #21 items 1–2): POST /v1/execute/{provider}/{job_id}/cancel — a queued
 * hardware job ends failed / CANCELED with its hold released in the same transaction; a running
 * run (the worker's, or a simulator run inside its API request) is stopped through its signal and
 * ends so with nothing captured — and GET /v1/execute/jobs with its filters and keyset pages.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { DeviceDriver, DriverOutcome, RunInput } from '../../src/execution/drivers/driver.js';
import type { App } from '../../src/http/app-types.js';
import { buildTestApp, signUp } from '../helpers/app.js';
import { openapiDocument, ResponseChecker } from '../helpers/openapi.js';
import { fundAccount } from '../helpers/ledger.js';
import { waitFor } from '../helpers/wait-for.js';
import { key, newAgent, submit } from '../jobs/helpers.js';
import { bell, expectExecutionInvariants, expectWallet, ghz3, quoteAndHold } from './helpers.js';
import { expectAllInvariants } from '../jobs/helpers.js';

/** A driver that runs until released or until its input's signal aborts (the cancel reaching the run). */
function blockingDriver(kind: DeviceDriver['kind']) {
  const started = new Set<string>();
  const aborted = new Set<string>();
  const release = new Map<string, () => void>();
  const driver: DeviceDriver = {
    kind,
    submit: (input: RunInput) =>
      new Promise<DriverOutcome>((resolve, reject) => {
        started.add(input.jobId);
        release.set(input.jobId, () => resolve({ state: 'completed', result: { counts: { '00': input.shots }, probabilitiesKind: 'estimated' } }));
        const stop = () => {
          aborted.add(input.jobId);
          reject(new Error('stopped'));
        };
        if (input.signal?.aborted === true) stop();
        else input.signal?.addEventListener('abort', stop, { once: true });
      }),
  };
  return { driver, started, aborted, release: (id: string) => release.get(id)?.() };
}

type Auth = { authorization: string };

describe('execution jobs: cancel and list', () => {
  let app: App;
  let checker: ResponseChecker;
  beforeAll(async () => {
    app = await buildTestApp({ EXECUTION_LEASE_MS: '300' });
    checker = new ResponseChecker(await openapiDocument(app));
  });
  afterEach(async () => {
    await expectExecutionInvariants(app);
    await expectAllInvariants(app);
  });
  afterAll(async () => app.close());

  const drivers = () => app.services.execution.deps.directory.drivers as { simulator: DeviceDriver; emulated: DeviceDriver };
  /** Runs `fn` with a blocking driver in place of one of the local ones. */
  async function withDriver<T>(which: 'simulator' | 'emulated', fn: (b: ReturnType<typeof blockingDriver>) => Promise<T>): Promise<T> {
    const original = drivers()[which];
    const b = blockingDriver(which);
    drivers()[which] = b.driver;
    try {
      return await fn(b);
    } finally {
      drivers()[which] = original;
    }
  }
  /** The cancel, its answer checked against the OpenAPI document. */
  const cancel = async (auth: Auth, provider: string, id: string) => {
    const url = `/v1/execute/${provider}/${id}/cancel`;
    const r = await app.inject({ method: 'POST', url, headers: auth });
    expect(checker.check('POST', url, r.statusCode, r.headers, r.body)).toEqual([]);
    return r;
  };
  const read = async (auth: Auth, provider: string, id: string) => (await app.inject({ method: 'GET', url: `/v1/execute/${provider}/${id}`, headers: auth })).json().data;
  async function queuedHardwareJob(auth: Auth, token: string) {
    const { held } = await quoteAndHold(app, auth, 'p2-ion-11', 100);
    const cont = await app.inject({ method: 'POST', url: `/v1/execute/provider-two/held/${held.job_id}`, headers: auth, payload: { circuit: ghz3, client_token: token } });
    expect(cont.statusCode).toBe(202);
    return held.job_id;
  }

  it('queued hardware job: failed / CANCELED at once, the hold released in the same transaction; a repeat answers the same', async () => {
    const u = await signUp(app);
    await fundAccount(app, u.accountId, 10_000_000n);
    const id = await queuedHardwareJob(u.auth, 'cancel-queued');
    await expectWallet(app, u.auth, '6.700000', '3.300000');
    const r = await cancel(u.auth, 'provider-two', id);
    expect(r.statusCode).toBe(200);
    const job = r.json().data;
    expect(job).toMatchObject({ job_id: id, status: 'failed', results: null, queue_position: null, cancel_requested_at: null, cost: { actual: '0.000000' }, failure: { code: 'CANCELED' } });
    expect(job.failure.message).toMatch(/before it ran/);
    expect(job.events.map((e: { to: string }) => e.to)).toEqual(['queued', 'failed']);
    await expectWallet(app, u.auth, '10.000000', '0.000000');
    const again = await cancel(u.auth, 'provider-two', id);
    expect(again.statusCode).toBe(200);
    expect(again.json().data).toEqual(job);
    // Nothing left for the worker.
    expect(await app.services.executionWorker.runOnce()).toBeNull();
  });

  it('running hardware job: the worker’s run is stopped through its signal, failed / CANCELED, nothing captured', async () => {
    const u = await signUp(app);
    await fundAccount(app, u.accountId, 10_000_000n);
    await withDriver('emulated', async (b) => {
      const id = await queuedHardwareJob(u.auth, 'cancel-running');
      const step = app.services.executionWorker.runOnce();
      await waitFor(() => b.started.has(id), { what: 'the run to start' });
      const r = await cancel(u.auth, 'provider-two', id);
      expect(r.statusCode).toBe(200);
      expect(r.json().data.cancel_requested_at).toEqual(expect.any(String));
      expect(await step).toEqual({ jobId: id, outcome: 'failed' });
      expect(b.aborted.has(id)).toBe(true);
      const done = await read(u.auth, 'provider-two', id);
      expect(done).toMatchObject({ status: 'failed', failure: { code: 'CANCELED' }, cost: { actual: '0.000000' }, results: null });
      expect(done.events.map((e: { to: string; note: string | null }) => `${e.to}${e.note === 'cancel requested' ? ' (cancel requested)' : ''}`)).toEqual([
        'queued',
        'running',
        'running (cancel requested)',
        'failed',
      ]);
      await expectWallet(app, u.auth, '10.000000', '0.000000');
    });
  });

  it('a simulator run inside its API request is stopped by a cancel from another request and answers failed / CANCELED', async () => {
    const u = await signUp(app);
    await withDriver('simulator', async (b) => {
      const post = app.inject({ method: 'POST', url: '/v1/execute/provider-one', headers: u.auth, payload: { circuit: bell, shots: 10, client_token: 'sim-cancel' } });
      await waitFor(() => b.started.size > 0, { what: 'the run to start' });
      const id = [...b.started][0]!;
      const r = await cancel(u.auth, 'provider-one', id);
      expect(r.statusCode).toBe(200);
      const answer = await post;
      expect(answer.statusCode).toBe(200);
      expect(answer.json().data).toMatchObject({ job_id: id, status: 'failed', failure: { code: 'CANCELED' }, results: null });
      expect(b.aborted.has(id)).toBe(true);
      // The token names the canceled run: a retry answers it, nothing runs again.
      const retry = await app.inject({ method: 'POST', url: '/v1/execute/provider-one', headers: u.auth, payload: { circuit: bell, shots: 10, client_token: 'sim-cancel' } });
      expect(retry.json().data).toMatchObject({ job_id: id, status: 'failed', replayed: true });
    });
  });

  it('an Account Job on a provider simulator: its cancel stops the execution run too; both end canceled, nothing charged', async () => {
    const a = await newAgent(app, { fundMicros: 1_000_000n });
    await withDriver('simulator', async (b) => {
      const s = await submit(app, a, { capability_id: 'provider-two.simulate', request: { circuit: bell, shots: 10 }, idempotency_key: key('p2'), max_total_price: '0.1' });
      expect(s.statusCode).toBe(202);
      const jobId = s.json().job_id as string;
      const step = app.services.jobsWorker.runOnce();
      await waitFor(() => b.started.size > 0, { what: 'the execution run to start' });
      const runId = [...b.started][0]!;
      expect((await app.inject({ method: 'POST', url: `/v1/jobs/${jobId}/cancel`, headers: a.auth })).statusCode).toBe(200);
      expect(await step).toEqual({ jobId, status: 'failed' });
      expect((await app.inject({ method: 'GET', url: `/v1/jobs/${jobId}`, headers: a.auth })).json()).toMatchObject({ status: 'failed', error_code: 'CANCELED' });
      expect(await read(a.session, 'provider-two', runId)).toMatchObject({ status: 'failed', failure: { code: 'CANCELED' }, client_token: `job-${jobId}` });
      expect((await app.inject({ method: 'GET', url: '/v1/account/balance', headers: a.auth })).json()).toMatchObject({ available: '1.000000', held: '0.000000' });
    });
  });

  it('409 JOB_NOT_CANCELABLE once completed, and for a held job not continued (release it instead); 404 for another account or provider', async () => {
    const u = await signUp(app);
    await fundAccount(app, u.accountId, 10_000_000n);
    const run = await app.inject({ method: 'POST', url: '/v1/execute/provider-one', headers: u.auth, payload: { circuit: bell, shots: 10, client_token: 'done-1' } });
    const done = run.json().data.job_id as string;
    const r1 = await cancel(u.auth, 'provider-one', done);
    expect(r1.statusCode).toBe(409);
    expect(r1.json().error).toMatchObject({ code: 'JOB_NOT_CANCELABLE', details: { job_id: done, status: 'completed' } });

    const { held } = await quoteAndHold(app, u.auth, 'p2-ion-11', 10);
    const r2 = await cancel(u.auth, 'provider-two', held.job_id);
    expect(r2.statusCode).toBe(409);
    expect(r2.json().error).toMatchObject({ code: 'JOB_NOT_CANCELABLE', details: { status: 'held', path: `/v1/billing/hardware/hold/${held.job_id}/release` } });
    expect((await app.inject({ method: 'POST', url: `/v1/billing/hardware/hold/${held.job_id}/release`, headers: u.auth })).statusCode).toBe(200);

    const other = await signUp(app);
    expect((await cancel(other.auth, 'provider-one', done)).statusCode).toBe(404);
    expect((await cancel(u.auth, 'provider-two', done)).statusCode).toBe(404);
    expect((await cancel(u.auth, 'provider-one', '00000000-0000-4000-8000-000000000000')).json().error.code).toBe('EXECUTION_HELD_JOB_NOT_FOUND');
  });

  it('GET /v1/execute/jobs: newest first, filtered by provider, device, status and creation time, in keyset pages', async () => {
    const u = await signUp(app);
    await fundAccount(app, u.accountId, 10_000_000n);
    const ids: Record<string, string> = {};
    const runOn = async (name: string, provider: string, device?: string) => {
      const r = await app.inject({
        method: 'POST',
        url: `/v1/execute/${provider}`,
        headers: u.auth,
        payload: { circuit: bell, shots: 10, client_token: `list-${name}`, ...(device === undefined ? {} : { device }) },
      });
      expect(r.statusCode, r.body).toBe(200);
      ids[name] = r.json().data.job_id;
    };
    await runOn('s1', 'provider-one');
    await runOn('s2', 'provider-two');
    const midpoint = new Date().toISOString();
    await runOn('s3', 'provider-one');
    ids['h1'] = await queuedHardwareJob(u.auth, 'list-h1');
    const list = async (query: string) => {
      const r = await app.inject({ method: 'GET', url: `/v1/execute/jobs?${query}`, headers: u.auth });
      expect(r.statusCode, r.body).toBe(200);
      expect(checker.check('GET', '/v1/execute/jobs', r.statusCode, r.headers, r.body)).toEqual([]);
      return r.json().data as { jobs: Array<{ job_id: string; status: string; device: string }>; next_cursor: string | null; has_more: boolean };
    };
    const names = (p: { jobs: Array<{ job_id: string }> }) => p.jobs.map((j) => Object.keys(ids).find((n) => ids[n] === j.job_id));
    expect(names(await list(''))).toEqual(['h1', 's3', 's2', 's1']);
    expect(names(await list('provider=provider-one'))).toEqual(['s3', 's1']);
    expect(names(await list('device=p2-local-simulator'))).toEqual(['s2']);
    expect(names(await list('status=queued'))).toEqual(['h1']);
    expect(names(await list('provider=provider-two&status=completed'))).toEqual(['s2']);
    expect(names(await list(`created_after=${encodeURIComponent(midpoint)}`))).toEqual(['h1', 's3']);
    expect(names(await list(`created_before=${encodeURIComponent(midpoint)}&provider=provider-one`))).toEqual(['s1']);
    const hw = (await list('status=queued')).jobs[0];
    expect(hw).toMatchObject({ kind: 'hardware', queue_position: 1, cost: { held: '3.300000' } });
    expect((hw as unknown as { events: unknown[] }).events).toHaveLength(1);

    const p1 = await list('limit=3');
    expect(names(p1)).toEqual(['h1', 's3', 's2']);
    expect(p1.has_more).toBe(true);
    const p2 = await list(`limit=3&cursor=${p1.next_cursor}`);
    expect(names(p2)).toEqual(['s1']);
    expect(p2).toMatchObject({ has_more: false, next_cursor: null });

    const other = await signUp(app);
    expect((await app.inject({ method: 'GET', url: '/v1/execute/jobs', headers: other.auth })).json().data).toEqual({ jobs: [], next_cursor: null, has_more: false });
    for (const bad of ['status=held', 'provider=provider-three', 'limit=0', 'cursor=zzz', 'created_before=soon']) {
      expect((await app.inject({ method: 'GET', url: `/v1/execute/jobs?${bad}`, headers: u.auth })).statusCode, bad).toBe(400);
    }
    expect((await app.inject({ method: 'GET', url: '/v1/execute/jobs' })).statusCode).toBe(401);
    // Settle the queued one (cancel) so the wallet invariants close.
    expect((await cancel(u.auth, 'provider-two', ids['h1'])).statusCode).toBe(200);
  });
});
