/**
 * POST /v1/jobs/{job_id}/cancel (issue #21 item 1; docs/jobs.md#canceling): a job not yet running
 * ends failed / CANCELED at once with its reservation released in the same transaction; a running
 * one is asked to stop (its capability's signal aborts, its compute task is dropped) and ends so
 * with nothing captured; a repeat answers the same; 409 JOB_NOT_CANCELABLE after another end.
 * The ledger and job invariants (what `qrail ledger check` checks) hold after every test.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/http/app-types.js';
import { pgJobsRepository } from '../../src/store/jobs/jobs-repository.js';
import { buildTestApp } from '../helpers/app.js';
import { openapiDocument, ResponseChecker } from '../helpers/openapi.js';
import { waitFor } from '../helpers/wait-for.js';
import { blockingCapability, type Blocker } from './fixtures/blocking-capability.js';
import { expectAllInvariants, key, newAgent, submit, withTestCapabilities, type Agent } from './helpers.js';

describe('cancel an Account Job', () => {
  let app: App;
  let blocker: Blocker;
  let runs: Map<string, number>;
  let checker: ResponseChecker;
  beforeAll(async () => {
    // A short lease: a heartbeat every 100 ms, so a cancel stored elsewhere is seen quickly.
    app = await buildTestApp({ JOBS_LEASE_MS: '300' });
    runs = withTestCapabilities(app).runs;
    blocker = blockingCapability();
    app.services.jobs.capabilities.register(blocker.capability);
    checker = new ResponseChecker(await openapiDocument(app));
  });
  afterEach(async () => expectAllInvariants(app));
  afterAll(async () => app.close());

  /** The cancel, its answer checked against the OpenAPI document. */
  const cancel = async (a: Agent, id: string) => {
    const r = await app.inject({ method: 'POST', url: `/v1/jobs/${id}/cancel`, headers: a.auth });
    expect(checker.check('POST', `/v1/jobs/${id}/cancel`, r.statusCode, r.headers, r.body)).toEqual([]);
    return r;
  };
  const get = async (a: Agent, id: string) => (await app.inject({ method: 'GET', url: `/v1/jobs/${id}`, headers: a.auth })).json();
  const balance = async (a: Agent) => (await app.inject({ method: 'GET', url: '/v1/account/balance', headers: a.auth })).json();
  const submitted = async (a: Agent, capability: string, request: Record<string, unknown>) => {
    const r = await submit(app, a, { capability_id: capability, request, idempotency_key: key('cancel'), max_total_price: '0.5' });
    expect(r.statusCode).toBe(202);
    return r.json().job_id as string;
  };

  it('queued: failed / CANCELED at once, the reservation released in the same transaction; the receipt says so; a repeat answers the same', async () => {
    const a = await newAgent(app, { fundMicros: 1_000_000n });
    const id = await submitted(a, 'test.echo', { text: 'hello' });
    expect(await balance(a)).toMatchObject({ available: '0.998950', held: '0.001050' });

    const r = await cancel(a, id);
    expect(r.statusCode).toBe(200);
    const job = r.json();
    expect(job).toMatchObject({ job_id: id, status: 'failed', error_code: 'CANCELED', result: null, cancel_requested_at: null, receipt_reference: `rcpt_${id.replaceAll('-', '')}` });
    expect(job.error_message).toMatch(/before it ran/);
    expect(job.receipt).toMatchObject({
      job_id: id,
      amount_reserved: '0.001050',
      amount_captured: '0.000000',
      amount_released: '0.001050',
      balance_after: '1.000000',
      canceled: 'before_running',
    });
    expect(job.receipt.note).toMatch(/nothing was captured/);
    expect(job.transitions.map((t: { to: string }) => t.to)).toEqual(['quoted', 'reserved', 'queued', 'failed']);
    // The receipt names the ledger's release of this job's hold, and nothing else moved.
    const moves = await app.db.query<{ kind: string; amount: string }>(
      `SELECT t.kind, t.amount_micros::text AS amount FROM ledger_transfers t JOIN billing_holds h ON h.id = t.hold_id WHERE h.ref_id = $1 ORDER BY t.created_at, t.kind`,
      [id],
    );
    expect(moves.rows).toEqual([
      { kind: 'hold', amount: '1050' },
      { kind: 'release', amount: '1050' },
    ]);
    expect((await app.db.query<{ id: string }>("SELECT id FROM ledger_transfers WHERE kind = 'release' AND id = $1", [job.receipt.ledger_transfer_ids[0]])).rows).toHaveLength(1);
    expect(await balance(a)).toMatchObject({ available: '1.000000', held: '0.000000' });

    const again = await cancel(a, id);
    expect(again.statusCode).toBe(200);
    expect(again.json()).toEqual(job);
    expect(await get(a, id)).toEqual(job);
    // Nothing left for a worker.
    expect(await app.services.jobsWorker.runOnce()).toBeNull();
  });

  it('running: the worker is asked to stop, the capability’s signal aborts, and it ends failed / CANCELED with nothing captured', async () => {
    const a = await newAgent(app, { fundMicros: 1_000_000n });
    const id = await submitted(a, 'test.block', { text: 'hold on' });
    const step = app.services.jobsWorker.runOnce();
    await waitFor(() => blocker.started.has(id), { what: 'the run to start' });

    const r = await cancel(a, id);
    expect(r.statusCode).toBe(200);
    const asked = r.json();
    // Answered at once with the job as it is: still running, the cancel recorded.
    expect(asked.status === 'running' || asked.status === 'failed').toBe(true);
    expect(asked.cancel_requested_at).toEqual(expect.any(String));
    expect(asked.transitions.some((t: { from: string; to: string; note?: string }) => t.from === 'running' && t.to === 'running' && t.note === 'cancel requested')).toBe(true);

    expect(await step).toEqual({ jobId: id, status: 'failed' });
    expect(blocker.aborted.has(id)).toBe(true);
    const done = await get(a, id);
    expect(done).toMatchObject({ status: 'failed', error_code: 'CANCELED', result: null, receipt: { amount_captured: '0.000000', amount_released: '0.002000', canceled: 'while_running' } });
    expect(done.transitions.map((t: { to: string }) => t.to)).toEqual(['quoted', 'reserved', 'queued', 'running', 'running', 'failed']);
    expect(await balance(a)).toMatchObject({ available: '1.000000', held: '0.000000' });
    const again = await cancel(a, id);
    expect(again.statusCode).toBe(200);
    expect(again.json()).toEqual(done);
  });

  it('a cancel stored by another process reaches the worker at its next heartbeat', async () => {
    const a = await newAgent(app, { fundMicros: 1_000_000n });
    const id = await submitted(a, 'test.block', { text: 'elsewhere' });
    const step = app.services.jobsWorker.runOnce();
    await waitFor(() => blocker.started.has(id), { what: 'the run to start' });
    // The store alone, as an API process other than the worker's would write it: no in-process delivery.
    const r = await pgJobsRepository(app.db).cancel(a.accountId, id);
    expect(r?.outcome).toBe('requested');
    expect(await step).toEqual({ jobId: id, status: 'failed' });
    expect(blocker.aborted.has(id)).toBe(true);
    expect(await get(a, id)).toMatchObject({ status: 'failed', error_code: 'CANCELED' });
  });

  it('a result the capability produces after the cancel is discarded and not charged', async () => {
    const a = await newAgent(app, { fundMicros: 1_000_000n });
    const id = await submitted(a, 'test.block', { text: 'late', ignore_cancel: true });
    const step = app.services.jobsWorker.runOnce();
    await waitFor(() => blocker.started.has(id), { what: 'the run to start' });
    expect((await cancel(a, id)).statusCode).toBe(200);
    await waitFor(() => blocker.aborted.has(id), { what: 'the abort' });
    blocker.release(id);
    expect(await step).toEqual({ jobId: id, status: 'failed' });
    expect(await get(a, id)).toMatchObject({ status: 'failed', error_code: 'CANCELED', result: null, receipt: { amount_captured: '0.000000' } });
    expect(await balance(a)).toMatchObject({ available: '1.000000', held: '0.000000' });
  });

  it('a running job whose worker died is ended canceled by the next claim, never run again', async () => {
    const a = await newAgent(app, { fundMicros: 1_000_000n });
    const id = await submitted(a, 'test.echo', { text: 'orphan' });
    const repo = pgJobsRepository(app.db);
    const claim = await repo.claim('dead-worker', 60_000);
    expect(claim?.job.id).toBe(id);
    const r = await cancel(a, id);
    expect(r.json()).toMatchObject({ status: 'running', cancel_requested_at: expect.any(String) });
    // The worker is gone: its lease lapses, and the next claim ends the job instead of running it.
    await app.db.query("UPDATE jobs SET lease_expires_at = now() - interval '1 second' WHERE id = $1", [id]);
    expect(await app.services.jobsWorker.runOnce()).toEqual({ jobId: id, status: 'failed' });
    expect(runs.get(id)).toBeUndefined();
    expect(await get(a, id)).toMatchObject({ status: 'failed', error_code: 'CANCELED', receipt: { canceled: 'while_running' } });
    // The dead worker's late writes change nothing.
    expect(await repo.saveResult(id, 'dead-worker', { echo: 'late' }, 60_000)).toBe(false);
  });

  it('409 JOB_NOT_CANCELABLE once it completed, failed otherwise, or saved its result', async () => {
    const a = await newAgent(app, { fundMicros: 1_000_000n });
    const done = await submitted(a, 'test.echo', { text: 'done' });
    expect(await app.services.jobsWorker.runOnce()).toEqual({ jobId: done, status: 'completed' });
    const r1 = await cancel(a, done);
    expect(r1.statusCode).toBe(409);
    expect(r1.json().error).toMatchObject({ code: 'JOB_NOT_CANCELABLE', details: { job_id: done, status: 'completed' } });
    expect((await get(a, done)).status).toBe('completed');

    const failed = await submitted(a, 'test.echo', { text: 'x', fail_with: 'SIMULATION_TOO_LARGE' });
    expect((await app.services.jobsWorker.runOnce())?.status).toBe('failed');
    const r2 = await cancel(a, failed);
    expect(r2.statusCode).toBe(409);
    expect(r2.json().error.details).toEqual({ job_id: failed, status: 'failed' });

    // Its result is durable and only the charge is left: the work cannot be stopped any more.
    const saved = await submitted(a, 'test.echo', { text: 'saved' });
    const repo = pgJobsRepository(app.db);
    expect((await repo.claim('w-saved', 60_000))?.job.id).toBe(saved);
    expect(await repo.saveResult(saved, 'w-saved', { echo: 'saved', attempt: 1 }, 60_000)).toBe(true);
    const r3 = await cancel(a, saved);
    expect(r3.statusCode).toBe(409);
    expect(r3.json().error.details).toEqual({ job_id: saved, status: 'result_saved' });
    expect((await repo.complete(saved, 'w-saved'))?.status).toBe('completed');
  });

  it('another account’s job is a 404; a read-only credential gets 403; an unknown id 404', async () => {
    const a = await newAgent(app, { fundMicros: 1_000_000n });
    const b = await newAgent(app, { fundMicros: 0n });
    const reader = await newAgent(app, { fundMicros: 0n, scopes: ['jobs:read'] });
    const id = await submitted(a, 'test.echo', { text: 'mine' });
    const other = await cancel(b, id);
    expect(other.statusCode).toBe(404);
    expect(other.json().error.code).toBe('JOB_NOT_FOUND');
    const ro = await cancel(reader, id);
    expect(ro.statusCode).toBe(403);
    expect(ro.json().error.code).toBe('INSUFFICIENT_SCOPE');
    expect((await cancel(a, '00000000-0000-4000-8000-000000000000')).statusCode).toBe(404);
    expect((await get(a, id)).status).toBe('queued');
    expect((await cancel(a, id)).statusCode).toBe(200);
  });
});

describe('cancel aborts the compute', () => {
  let app: App;
  beforeAll(async () => {
    app = await buildTestApp({ COMPUTE_THREADS: '1' });
  });
  afterEach(async () => expectAllInvariants(app));
  afterAll(async () => app.close());

  it('a simulation canceled while it runs on the compute pool is stopped there, and the job ends canceled', async () => {
    const a = await newAgent(app, { fundMicros: 1_000_000n });
    // 22 qubits, thousands of gates: seconds of work on a compute thread.
    const n = 22;
    const gates: Array<Record<string, unknown>> = [];
    for (let layer = 0; layer < 60; layer++) {
      for (let q = 0; q < n; q++) gates.push({ op: 'rx', qubits: [q], params: [0.1 + layer * 0.01 + q * 0.001] });
      for (let q = layer % 2; q + 1 < n; q += 2) gates.push({ op: 'cx', qubits: [q, q + 1] });
    }
    const circuit = { schema: '0.2', num_qubits: n, num_clbits: n, gates, measurements: Array.from({ length: n }, (_, q) => ({ qubit: q, clbit: q })) };
    const r = await submit(app, a, { capability_id: 'circuit.simulate', request: { circuit, shots: 1 }, idempotency_key: key('heavy'), max_total_price: '0.1' });
    expect(r.statusCode).toBe(202);
    const id = r.json().job_id as string;
    const before = app.compute.stats();
    const step = app.services.jobsWorker.runOnce();
    await waitFor(() => app.compute.stats().busy === 1, { what: 'the simulation to run on the pool' });

    expect((await app.inject({ method: 'POST', url: `/v1/jobs/${id}/cancel`, headers: a.auth })).statusCode).toBe(200);
    expect(await step).toEqual({ jobId: id, status: 'failed' });
    expect(app.compute.stats().canceledRunning).toBe(before.canceledRunning + 1);
    const job = (await app.inject({ method: 'GET', url: `/v1/jobs/${id}`, headers: a.auth })).json();
    expect(job).toMatchObject({ status: 'failed', error_code: 'CANCELED', receipt: { amount_captured: '0.000000', canceled: 'while_running' } });
    // The thread is freed (it stops within the grace, or is replaced).
    await waitFor(() => app.compute.stats().busy === 0, { what: 'the thread to be free' });
  });
});
