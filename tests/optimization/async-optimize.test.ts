import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { circuit, gate, measure } from '../../src/circuits/ir.js';
import type { App } from '../../src/http/app-types.js';
import { optimizeCircuit } from '../../src/optimization/optimize.js';
import { OPTIMIZE_QUEUE, pgOptimizeJobStore } from '../../src/store/optimize-jobs/optimize-jobs-sql.js';
import { checkTransitions } from '../../src/store/queue/queue-invariants.js';
import { buildTestApp, signUp } from '../helpers/app.js';
import { busyCircuit } from '../helpers/circuits.js';
import { waitFor } from '../helpers/wait-for.js';

// Issue 22 item 7: POST /v1/circuits/optimize with "async": true → 202 and an optimize job, run by
// the optimize worker on the one queue, polled, canceled, with the optimizer's progress.

const small = {
  schema: '0.2',
  num_qubits: 3,
  num_clbits: 0,
  gates: [
    { op: 'h', qubits: [0] },
    { op: 'h', qubits: [0] },
    { op: 't', qubits: [1] },
    { op: 'cx', qubits: [1, 2] },
    { op: 't', qubits: [1] },
    { op: 'cx', qubits: [0, 1] },
    { op: 'x', qubits: [2] },
    { op: 'x', qubits: [2] },
  ],
  measurements: [],
  metadata: {},
};

// Ten qubits through 3000 gates: the balanced search runs for seconds (up to its budget), long
// enough to be seen running with several progress reports, and canceled.
const large = busyCircuit(10, 3000, 3);

type Auth = { authorization: string };

/** The answer without its timings (the only fields two runs of the same optimization differ in). */
const withoutTimes = (v: unknown): unknown => JSON.parse(JSON.stringify(v, (k, x: unknown) => (k === 'elapsed_ms' ? undefined : x)));

describe('async optimize: 202 with an optimize job, polled and canceled', () => {
  let app: App;
  beforeAll(async () => {
    app = await buildTestApp();
  });
  afterAll(async () => {
    await app.close();
  });

  const submit = (auth: Auth | undefined, body: Record<string, unknown>, headers: Record<string, string> = {}) =>
    app.inject({ method: 'POST', url: '/v1/circuits/optimize', headers: { ...auth, ...headers }, payload: { ...body, async: true } });
  const read = async (auth: Auth, id: string) => (await app.inject({ method: 'GET', url: `/v1/circuits/optimize/jobs/${id}`, headers: auth })).json().data;
  const cancel = (auth: Auth, id: string) => app.inject({ method: 'POST', url: `/v1/circuits/optimize/jobs/${id}/cancel`, headers: auth });
  const jobsOf = async (accountId: string) => (await app.db.query<{ n: number }>('SELECT count(*)::int AS n FROM optimize_jobs WHERE account_id = $1', [accountId])).rows[0]!.n;

  it('202 queued with a Location; the worker completes it with the result the synchronous optimize answers', async () => {
    const u = await signUp(app);
    const body = { circuit: small, profile: 'balanced', backend_hint: 'provider-one' };
    const r = await submit(u.auth, body);
    expect(r.statusCode).toBe(202);
    const q = r.json().data;
    expect(q).toMatchObject({ status: 'queued', profile: 'balanced', backend_hint: 'provider-one', device: null, progress: null, result: null, error: null, started_at: null });
    expect(r.headers['location']).toBe(`/v1/circuits/optimize/jobs/${q.job_id}`);
    expect(await app.services.optimizeWorker.drain()).toEqual([{ jobId: q.job_id, outcome: 'completed' }]);
    const done = await read(u.auth, q.job_id);
    expect(done).toMatchObject({ status: 'completed', progress: null, error: null });
    expect(Date.parse(done.finished_at)).not.toBeNaN();
    const sync = (await app.inject({ method: 'POST', url: '/v1/circuits/optimize', headers: u.auth, payload: body })).json().data;
    expect(withoutTimes(done.result)).toEqual(withoutTimes(sync));
    expect(done.result.proof.verified).toBe(true);
  });

  it('checks the request before anything is stored: bad circuit 400, unknown device 400, too wide for the device 422, no session 401', async () => {
    const u = await signUp(app);
    const bad = await submit(u.auth, { circuit: { ...small, gates: [{ op: 'nope', qubits: [0] }] } });
    expect(bad.statusCode).toBe(400);
    const device = await submit(u.auth, { circuit: small, device: 'no-such-device' });
    expect(device.statusCode).toBe(400);
    expect(device.json().error.code).toBe('OPTIMIZATION_DEVICE_UNKNOWN');
    const wide = await submit(u.auth, { circuit: busyCircuit(40, 10), device: 'p1-falcon-7' });
    expect(wide.statusCode).toBe(422);
    expect(wide.json().error.code).toBe('OPTIMIZATION_TARGET_UNSUPPORTED');
    const typo = await app.inject({ method: 'POST', url: '/v1/circuits/optimize', headers: u.auth, payload: { circuit: small, async: 'yes' } });
    expect(typo.statusCode).toBe(400);
    expect(await jobsOf(u.accountId)).toBe(0);
    const anonymous = await submit(undefined, { circuit: small });
    expect(anonymous.statusCode).toBe(401);
    expect(anonymous.json().error.code).toBe('UNAUTHENTICATED');
  });

  it('a retry with the same Idempotency-Key answers the same job and queues nothing more', async () => {
    const u = await signUp(app);
    const first = await submit(u.auth, { circuit: small }, { 'idempotency-key': 'opt-1' });
    expect(first.statusCode).toBe(202);
    const again = await submit(u.auth, { circuit: small }, { 'idempotency-key': 'opt-1' });
    expect(again.statusCode).toBe(202);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.json().data.job_id).toBe(first.json().data.job_id);
    expect(await jobsOf(u.accountId)).toBe(1);
    const other = await submit(u.auth, { circuit: small, profile: 'balanced' }, { 'idempotency-key': 'opt-1' });
    expect(other.statusCode).toBe(409);
    expect(other.json().error.code).toBe('IDEMPOTENCY_KEY_REUSED');
    await app.services.optimizeWorker.drain();
  });

  it('lists the account’s jobs newest first, by status, a page at a time; another account sees none of them', async () => {
    const u = await signUp(app);
    const ids: string[] = [];
    for (let k = 0; k < 3; k++) ids.push((await submit(u.auth, { circuit: small })).json().data.job_id as string);
    await cancel(u.auth, ids[1]!);
    const list = async (auth: Auth, query: string) => (await app.inject({ method: 'GET', url: `/v1/circuits/optimize/jobs?${query}`, headers: auth })).json().data;
    const first = await list(u.auth, 'limit=2');
    expect(first.jobs.map((j: { job_id: string }) => j.job_id)).toEqual([ids[2], ids[1]]);
    expect(first.has_more).toBe(true);
    const second = await list(u.auth, `limit=2&cursor=${first.next_cursor as string}`);
    expect(second).toMatchObject({ jobs: [{ job_id: ids[0], status: 'queued' }], has_more: false, next_cursor: null });
    expect((await list(u.auth, 'status=canceled')).jobs.map((j: { job_id: string }) => j.job_id)).toEqual([ids[1]]);
    const v = await signUp(app);
    expect((await list(v.auth, '')).jobs).toEqual([]);
    const bad = await app.inject({ method: 'GET', url: '/v1/circuits/optimize/jobs?cursor=nope', headers: u.auth });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().error.code).toBe('INVALID_CURSOR');
    await app.services.optimizeWorker.drain();
  });

  it('an account may have 16 jobs queued or running: of 17 sent at once one is 429 and stores nothing; a cancel makes room', async () => {
    const u = await signUp(app);
    // 17 at once: the count is taken under the account's lock, so exactly one is refused (on
    // PostgreSQL the submissions run in concurrent transactions).
    const all = await Promise.all(Array.from({ length: 17 }, () => submit(u.auth, { circuit: small })));
    expect(all.map((r) => r.statusCode).sort((a, b) => a - b)).toEqual([...Array.from({ length: 16 }, () => 202), 429]);
    const over = all.find((r) => r.statusCode === 429)!;
    expect(over.json().error).toMatchObject({ code: 'OPTIMIZE_JOBS_TOO_MANY_OPEN', details: { max_open: 16 } });
    const ids = all.filter((r) => r.statusCode === 202).map((r) => r.json().data.job_id as string);
    expect(await jobsOf(u.accountId)).toBe(16);
    // Another account is not affected.
    const other = await signUp(app);
    expect((await submit(other.auth, { circuit: small })).statusCode).toBe(202);
    expect((await cancel(u.auth, ids[0]!)).statusCode).toBe(200);
    expect((await submit(u.auth, { circuit: small })).statusCode).toBe(202);
    expect(await jobsOf(u.accountId)).toBe(17);
  });

  it("another account's job is 404 to read and to cancel", async () => {
    const u = await signUp(app);
    const v = await signUp(app);
    const id = (await submit(u.auth, { circuit: small })).json().data.job_id as string;
    for (const r of [await app.inject({ method: 'GET', url: `/v1/circuits/optimize/jobs/${id}`, headers: v.auth }), await cancel(v.auth, id)]) {
      expect(r.statusCode).toBe(404);
      expect(r.json().error.code).toBe('OPTIMIZE_JOB_NOT_FOUND');
    }
    expect((await read(u.auth, id)).status).toBe('queued');
    expect((await app.inject({ method: 'GET', url: `/v1/circuits/optimize/jobs/${id}` })).statusCode).toBe(401);
    await app.services.optimizeWorker.drain();
  });

  it('a queued job is canceled at once (again: the same answer); the worker never runs it; a completed one is 409', async () => {
    const u = await signUp(app);
    const id = (await submit(u.auth, { circuit: small })).json().data.job_id as string;
    const c = await cancel(u.auth, id);
    expect(c.statusCode).toBe(200);
    expect(c.json().data).toMatchObject({ job_id: id, status: 'canceled', result: null, started_at: null });
    expect((await cancel(u.auth, id)).json().data.status).toBe('canceled');
    expect(await app.services.optimizeWorker.drain()).toEqual([]);
    expect((await read(u.auth, id)).status).toBe('canceled');
    const done = (await submit(u.auth, { circuit: small })).json().data.job_id as string;
    await app.services.optimizeWorker.drain();
    const late = await cancel(u.auth, done);
    expect(late.statusCode).toBe(409);
    expect(late.json().error).toMatchObject({ code: 'OPTIMIZE_JOB_NOT_CANCELABLE', details: { status: 'completed' } });
  });

  it('a running job shows the optimizer progress (a phase, a fraction in (0, 1] never going back); its cancel stops the computation', async () => {
    const u = await signUp(app);
    const id = (await submit(u.auth, { circuit: large, profile: 'balanced' })).json().data.job_id as string;
    const draining = app.services.optimizeWorker.drain();
    const seen: Array<{ fraction: number; phase: string; at: string }> = [];
    await waitFor(
      async () => {
        const j = await read(u.auth, id);
        expect(['queued', 'running']).toContain(j.status);
        if (j.progress !== null && seen.at(-1)?.at !== j.progress.at) seen.push(j.progress);
        return seen.length >= 3;
      },
      { intervalMs: 20, what: 'three progress reports of the running job' },
    );
    for (const p of seen) {
      expect(p.fraction).toBeGreaterThan(0);
      expect(p.fraction).toBeLessThanOrEqual(1);
      expect(p.phase).toMatch(/^(parsing|optimizing|verifying|exporting)/);
      expect(Date.parse(p.at)).not.toBeNaN();
    }
    expect(seen.some((p) => p.phase === 'optimizing')).toBe(true);
    for (let i = 1; i < seen.length; i++) expect(seen[i]!.fraction).toBeGreaterThanOrEqual(seen[i - 1]!.fraction);
    const c = await cancel(u.auth, id);
    expect(c.statusCode).toBe(200);
    expect(c.json().data.cancel_requested_at).not.toBeNull();
    expect(await draining).toEqual([{ jobId: id, outcome: 'canceled' }]);
    const end = await read(u.auth, id);
    expect(end).toMatchObject({ status: 'canceled', progress: null, result: null, error: null });
    // The transitions stored: submitted, claimed, cancel requested, canceled.
    const events = await app.db.query<{ from_status: string | null; to_status: string }>('SELECT from_status, to_status FROM optimize_job_events WHERE job_id = $1 ORDER BY id', [id]);
    expect(events.rows.map((e) => `${e.from_status ?? '-'}>${e.to_status}`)).toEqual(['->queued', 'queued>running', 'running>running', 'running>canceled']);
  });
});

describe('optimize jobs whose worker died', () => {
  let app: App;
  beforeAll(async () => {
    app = await buildTestApp();
  });
  afterAll(async () => {
    await app.close();
  });

  it('another worker claims a job whose lease lapsed and runs it again; past the attempts limit it fails WORKER_LOST', async () => {
    const u = await signUp(app);
    const store = pgOptimizeJobStore(app.db);
    const submit = async () => (await app.inject({ method: 'POST', url: '/v1/circuits/optimize', headers: u.auth, payload: { circuit: small, async: true } })).json().data.job_id as string;
    // A worker (of another node) claims it under a 1 ms lease and dies: nothing renews it.
    const id = await submit();
    expect((await store.claim('dead-node/0', 1))?.id).toBe(id);
    await waitFor(async () => (await app.db.query('SELECT 1 FROM optimize_jobs WHERE id = $1 AND lease_expires_at < clock_timestamp()', [id])).rows.length > 0, { what: 'the lease lapsed' });
    expect(await app.services.optimizeWorker.drain()).toEqual([{ jobId: id, outcome: 'completed' }]);
    const row = (await app.db.query<{ attempts: number }>('SELECT attempts FROM optimize_jobs WHERE id = $1', [id])).rows[0]!;
    expect(row.attempts).toBe(2);

    const lost = await submit();
    for (let k = 0; k < 3; k++) {
      expect((await store.claim(`dead-node/${k}`, 1))?.id).toBe(lost);
      await waitFor(async () => (await app.db.query('SELECT 1 FROM optimize_jobs WHERE id = $1 AND lease_expires_at < clock_timestamp()', [lost])).rows.length > 0, { what: 'the lease lapsed' });
    }
    expect(await app.services.optimizeWorker.drain()).toEqual([{ jobId: lost, outcome: 'failed' }]);
    const view = (await app.inject({ method: 'GET', url: `/v1/circuits/optimize/jobs/${lost}`, headers: u.auth })).json().data;
    expect(view).toMatchObject({ status: 'failed', result: null, error: { code: 'WORKER_LOST' } });
    // Every stored transition is one the state machine allows, each starting where the last ended.
    expect(await checkTransitions(app.db, OPTIMIZE_QUEUE)).toEqual([]);
  });
});

describe('the optimizer reports its progress through its options (no I/O)', () => {
  it('segment by segment for a circuit with mid-circuit measurement: named phases, a fraction that never goes back and ends at 1', () => {
    const c = circuit(2, 2, [gate('h', [0]), gate('h', [0]), gate('cx', [0, 1]), measure(0, 0), gate('x', [0]), gate('x', [0]), gate('t', [1]), gate('tdg', [1]), measure(1, 1)]);
    const seen: Array<{ f: number; phase: string }> = [];
    const r = optimizeCircuit(c, { profile: 'balanced', onProgress: (f, phase) => seen.push({ f, phase }) });
    expect(r.proof.verified).toBe(true);
    expect(seen.length).toBeGreaterThan(2);
    for (let i = 1; i < seen.length; i++) expect(seen[i]!.f).toBeGreaterThanOrEqual(seen[i - 1]!.f);
    expect(seen.every((p) => p.f >= 0 && p.f <= 1)).toBe(true);
    expect(seen.at(-1)!.f).toBe(1);
    for (const p of seen) expect(p.phase).toMatch(/^(optimizing|verifying) segment \d+\/\d+$/);
    expect(seen.some((p) => p.phase.startsWith('optimizing'))).toBe(true);
    expect(seen.some((p) => p.phase.startsWith('verifying'))).toBe(true);
  });
});
