import { waitFor } from '../helpers/wait-for.js';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { buildTestApp, signUp } from '../helpers/app.js';
import { expireDueHolds, fundAccount } from '../helpers/ledger.js';
import type { App } from '../../src/http/app-types.js';
import { ibmJobTag } from '../../src/execution/adapters/ibm-runtime-driver.js';
import { bell, expectWallet, settleExecutionJob } from './helpers.js';
import { FAKE_BACKEND, FakeIbmRuntime, defaultIbmScript, ibmFakeEnv } from './fakes/ibm-runtime-fake.js';

/**
 * Provider One hardware on IBM Quantum Runtime (a local fake of it): device data from the
 * provider's snapshot, quote → hold → continue → completed with results in the documented bit
 * order, and the exactly-once reconciliation of an uncertain submission.
 */
describe('Provider One hardware through IBM Quantum Runtime (fake)', () => {
  const fake = new FakeIbmRuntime();
  let app: App;

  beforeAll(async () => {
    await fake.start();
    app = await buildTestApp({
      ...ibmFakeEnv(fake),
      EXECUTION_REMOTE_POLL_MS: '1',
      EXECUTION_REMOTE_MAX_FAILURES: '2',
      EXECUTION_LEASE_MS: '200',
    });
  });
  afterAll(async () => {
    await app.close();
    await fake.close();
  });
  beforeEach(async () => {
    fake.script = defaultIbmScript();
    expect(await app.services.snapshotRefresher.refreshAll()).toEqual([{ provider: 'provider-one', ok: true, nextInMs: 300_000 }]);
  });

  async function heldJob(shots = 10) {
    const u = await signUp(app);
    await fundAccount(app, u.accountId, 5_000_000n);
    const q = await app.inject({ method: 'POST', url: '/v1/billing/hardware/quote', headers: u.auth, payload: { provider: 'provider-one', device: 'p1-falcon-7', shots } });
    expect(q.statusCode).toBe(200);
    const h = await app.inject({ method: 'POST', url: '/v1/billing/hardware/hold', headers: u.auth, payload: { quote_id: q.json().data.quote_id } });
    expect(h.statusCode).toBe(201);
    const held = h.json().data as { job_id: string; amount: string; continue_url: string };
    // $3.20 per task + shots × $0.0004 per shot.
    const amount = 3_200_000 + shots * 400;
    const usd = (m: number) => (m / 1e6).toFixed(6);
    expect(held).toMatchObject({ amount: usd(amount), continue_url: `/v1/execute/provider-one/held/${held.job_id}` });
    await expectWallet(app, u.auth, usd(5_000_000 - amount), usd(amount));
    return { u, held };
  }

  const settle = (id: string) => settleExecutionJob(app, id);
  const nextStep = () => waitFor(() => app.services.executionWorker.runOnce(), { intervalMs: 1, what: 'the parked job to be due again' });

  const job = async (u: { auth: { authorization: string } }, id: string) => (await app.inject({ method: 'GET', url: `/v1/execute/provider-one/${id}`, headers: u.auth })).json().data;
  const cont = (u: { auth: { authorization: string } }, id: string, token: string, circuit: unknown = bell) =>
    app.inject({ method: 'POST', url: `/v1/execute/provider-one/held/${id}`, headers: u.auth, payload: { circuit, client_token: token } });

  it("devices show the provider's report (status, queue, gates, coupling, calibration) labelled provider; unmapped hardware says why; emulated figures say deployment", async () => {
    const devices = (await app.inject({ method: 'GET', url: '/v1/execute/provider-one/devices' })).json().data.devices as Array<Record<string, unknown>>;
    const f7 = devices.find((d) => d['id'] === 'p1-falcon-7')!;
    expect(f7).toMatchObject({
      driver: 'remote',
      source: 'provider',
      status: 'online',
      available: true,
      status_detail: `IBM Quantum reports ${FAKE_BACKEND} active`,
      provider_queue_length: 17,
      num_qubits: 7,
      native_gates: ['cx', 'id', 'rz', 'sx', 'x'],
      calibration: { source: 'provider', calibrated_at: '2026-11-26T05:10:00.000Z', mean: { t1_us: 103, t2_us: 83, readout_error: 0.02, error_2q: 0.01 } },
      pricing: { per_task: '3.200000', per_shot: '0.000400' },
    });
    const f27 = devices.find((d) => d['id'] === 'p1-falcon-27')!;
    expect(f27).toMatchObject({ source: 'deployment', calibration: null, available: false });
    expect((f27['reasons'] as Array<{ code: string; message: string }>).map((r) => r.code)).toEqual(['provider_not_configured']);
    const grid = (await app.inject({ method: 'GET', url: '/v1/execute/provider-two/devices' })).json().data.devices.find((d: { id: string }) => d.id === 'p2-grid-9');
    expect(grid.calibration).toMatchObject({ source: 'deployment' });
    const caps = (await app.inject({ method: 'GET', url: '/v1/execute/capabilities' })).json().data;
    expect(caps.provider_one.hardware.devices.find((d: { device: string }) => d.device === 'p1-falcon-7')).toMatchObject({ status: 'online' });
    expect(caps.provider_one.hardware.endpoint).toMatch(/provider-one\/held/);
  });

  it('quote → hold → continue → completed: one Sampler job tagged with our id, counts in the documented bit order, charged once, ledger clean', async () => {
    const { u, held } = await heldJob();
    // x on qubit 0 only: clbit 0 reads 1, clbit 1 reads 0 → key "01" (clbit 0 rightmost).
    const asym = {
      schema: '0.2',
      num_qubits: 2,
      num_clbits: 2,
      gates: [{ op: 'x', qubits: [0] }],
      measurements: [
        { qubit: 0, clbit: 0 },
        { qubit: 1, clbit: 1 },
      ],
    };
    fake.script.samples = [...Array(7).fill('0x1'), '0x0', '0x3', '0x1'];
    const before = fake.submissions;
    const r = await cont(u, held.job_id, 'ibm-1', asym);
    expect(r.statusCode).toBe(202);
    expect(r.json().data).toMatchObject({ provider: 'provider-one', driver: 'remote', status: 'queued', cost: { estimated: '3.204000', actual: null } });

    // Submitted, then polled Queued → Running → Completed.
    expect((await settle(held.job_id)).filter((o) => o !== 'none')).toEqual(['parked', 'parked', 'parked', 'completed']);
    expect(fake.submissions - before).toBe(1);
    const sent = [...fake.jobs.values()].at(-1)!;
    expect(sent.tags).toEqual([ibmJobTag(held.job_id)]);
    expect(sent.resultFetches).toBe(1);

    const done = await job(u, held.job_id);
    expect(done).toMatchObject({ status: 'completed', remote: { provider: 'ibm', job_id: sent.id }, cost: { estimated: '3.204000', actual: '3.204000' } });
    expect(done.results.counts).toEqual({ '01': 8, '00': 1, '11': 1 });
    expect(done.results.bit_order).toMatch(/clbit 0 rightmost/);
    expect(done.results.meta).toMatchObject({ remote_provider: 'ibm', target: FAKE_BACKEND });
    expect(done.results.meta.memory).toHaveLength(10);
    await expectWallet(app, u.auth, '1.796000', '0.000000');
    expect((await app.services.billing.ledgerCheck()).ok).toBe(true);
  });

  it('several classical registers: IBM counts split by register like the simulator, with registers (#34 item 8)', async () => {
    const { u, held } = await heldJob();
    const regs = {
      schema: '0.2',
      num_qubits: 2,
      num_clbits: 2,
      registers: [
        { name: 'a', size: 1 },
        { name: 'b', size: 1 },
      ],
      gates: [{ op: 'x', qubits: [0] }],
      measurements: [
        { qubit: 0, clbit: 0 },
        { qubit: 1, clbit: 1 },
      ],
    };
    fake.script.samples = [...Array(8).fill('0x1'), '0x0', '0x3'];
    expect((await cont(u, held.job_id, 'ibm-regs', regs)).statusCode).toBe(202);
    await settle(held.job_id);
    const done = await job(u, held.job_id);
    expect(done.status).toBe('completed');
    expect(done.results.counts).toEqual({ '0 1': 8, '0 0': 1, '1 1': 1 });
    expect(done.results.registers).toEqual([
      { name: 'a', size: 1 },
      { name: 'b', size: 1 },
    ]);
  });

  it('a submission that timed out after IBM accepted it is found by its tag and adopted: never sent twice', async () => {
    const { u, held } = await heldJob(4);
    fake.script.submit = ['accept-then-hang'];
    const before = fake.submissions;
    const jobsBefore = fake.jobs.size;
    expect((await cont(u, held.job_id, 'ibm-u1')).statusCode).toBe(202);
    await settle(held.job_id);
    expect(fake.submissions - before).toBe(1);
    expect(fake.jobs.size - jobsBefore).toBe(1);
    const done = await job(u, held.job_id);
    expect(done).toMatchObject({ status: 'completed', remote: { job_id: [...fake.jobs.values()].at(-1)!.id }, results: { counts: { '00': 2, '11': 2 } } });
    const notes = done.events.map((e: { note: string | null }) => e.note).filter(Boolean) as string[];
    expect(notes.some((n) => n.startsWith('submission uncertain'))).toBe(true);
    expect(notes).toContain(`submitted as ${done.remote.job_id}`);
    await expectWallet(app, u.auth, '1.798400', '0.000000');
  });

  it('a submission that never arrived (no job with our tag) is sent again, once', async () => {
    const { u, held } = await heldJob(4);
    fake.script.submit = ['hang'];
    const before = fake.submissions;
    const jobsBefore = fake.jobs.size;
    expect((await cont(u, held.job_id, 'ibm-a1')).statusCode).toBe(202);
    await settle(held.job_id);
    expect(fake.submissions - before).toBe(2);
    expect(fake.jobs.size - jobsBefore).toBe(1);
    const done = await job(u, held.job_id);
    expect(done.status).toBe('completed');
    expect(done.events.map((e: { note: string | null }) => e.note)).toContain('the provider has no job with our tag: the submission never arrived; sending it again');
  });

  it('uncertain and the provider cannot say (listing fails): retried within the limit, then REMOTE_SUBMISSION_UNCERTAIN, nothing charged', async () => {
    const { u, held } = await heldJob();
    fake.script.submit = ['hang'];
    fake.script.list = [503, 503, 503, 503];
    const before = fake.submissions;
    expect((await cont(u, held.job_id, 'ibm-k1')).statusCode).toBe(202);
    await settle(held.job_id);
    expect(fake.submissions - before).toBe(1);
    expect(await job(u, held.job_id)).toMatchObject({ status: 'failed', failure: { code: 'REMOTE_SUBMISSION_UNCERTAIN' }, cost: { actual: '0.000000' } });
    await expectWallet(app, u.auth, '5.000000', '0.000000');
  });

  it('429 with Retry-After: the job waits at least that long before it is sent again', async () => {
    const { u, held } = await heldJob();
    fake.script.submit = [{ status: 429, retryAfter: '120' }];
    expect((await cont(u, held.job_id, 'ibm-429')).statusCode).toBe(202);
    expect(await app.services.executionWorker.drain()).toEqual([{ jobId: held.job_id, outcome: 'parked' }]);
    const due = (await app.db.query<{ s: number }>('SELECT EXTRACT(EPOCH FROM (lease_expires_at - now()))::float8 AS s FROM execution_jobs WHERE id = $1', [held.job_id])).rows[0]!.s;
    expect(due).toBeGreaterThan(100);
    expect(await job(u, held.job_id)).toMatchObject({ status: 'running' });
  });

  it('a provider outage after the continuation does not fail the job: it waits, then the hold expires and releases the funds', async () => {
    const { u, held } = await heldJob();
    expect((await cont(u, held.job_id, 'ibm-out')).statusCode).toBe(202);
    // No report from IBM any more (as if it had not answered for three refresh intervals).
    await app.db.query('DELETE FROM device_snapshots');
    const caps = (await app.inject({ method: 'GET', url: '/v1/execute/capabilities' })).json().data;
    expect(caps.provider_one.hardware.ready).toBe(false);
    const before = fake.submissions;
    expect(await app.services.executionWorker.runOnce()).toEqual({ jobId: held.job_id, outcome: 'parked' });
    // Parked for EXECUTION_REMOTE_POLL_MS (1 ms): claimed again once due, however fast this machine is.
    expect(await nextStep()).toEqual({ jobId: held.job_id, outcome: 'parked' });
    expect(fake.submissions).toBe(before);
    expect(await job(u, held.job_id)).toMatchObject({ status: 'running', failure: null });
    // Its hold reaches its expiry (only this one: other tests' holds stay as they are), and the sweeper runs.
    await app.db.query("UPDATE billing_holds SET expires_at = now() - interval '1 second' WHERE id = (SELECT hold_id FROM billing_held_jobs WHERE job_id = $1)", [held.job_id]);
    expect(await expireDueHolds(app.db)).toHaveLength(1);
    await app.db.query("UPDATE execution_jobs SET lease_expires_at = now() - interval '1 second' WHERE id = $1", [held.job_id]);
    await settle(held.job_id);
    const j = await job(u, held.job_id);
    expect(j).toMatchObject({ status: 'failed', failure: { code: 'HOLD_LAPSED' } });
    expect(j.failure.message).toMatch(/expired/);
    await expectWallet(app, u.auth, '5.000000', '0.000000');
  });

  it('cancel of an accepted job is sent to IBM; the job ends CANCELED with its hold released', async () => {
    const { u, held } = await heldJob();
    fake.script.pollStatuses = ['Queued'];
    expect((await cont(u, held.job_id, 'ibm-c1')).statusCode).toBe(202);
    // Submitted (parked with IBM's id), then polled once: still Queued at IBM.
    expect(await app.services.executionWorker.runOnce()).toEqual({ jobId: held.job_id, outcome: 'parked' });
    // Parked for EXECUTION_REMOTE_POLL_MS (1 ms): claimed again once due, however fast this machine is.
    expect(await nextStep()).toEqual({ jobId: held.job_id, outcome: 'parked' });
    const c = await app.inject({ method: 'POST', url: `/v1/execute/provider-one/${held.job_id}/cancel`, headers: u.auth });
    expect(c.statusCode).toBe(200);
    await settle(held.job_id);
    const remoteId = (await job(u, held.job_id)).remote.job_id as string;
    expect(fake.requests.some((r) => r.method === 'POST' && r.path === `/api/v1/jobs/${remoteId}/cancel`)).toBe(true);
    expect(await job(u, held.job_id)).toMatchObject({ status: 'failed', failure: { code: 'CANCELED' } });
    await expectWallet(app, u.auth, '5.000000', '0.000000');
  });

  it('a failed refresh keeps the last snapshot and backs off', async () => {
    fake.script.backends = [503];
    const [r] = await app.services.snapshotRefresher.refreshAll();
    expect(r).toMatchObject({ provider: 'provider-one', ok: false, nextInMs: 30_000 });
    const f7 = (await app.inject({ method: 'GET', url: '/v1/execute/provider-one/devices' })).json().data.devices.find((d: { id: string }) => d.id === 'p1-falcon-7');
    expect(f7).toMatchObject({ status: 'online', source: 'provider' });
    fake.script.backends = [503];
    expect((await app.services.snapshotRefresher.refreshAll())[0]).toMatchObject({ ok: false, nextInMs: 60_000 });
  });

  it("memory: the Sampler's samples in shot order as clbit strings, their histogram the counts", async () => {
    const { u, held } = await heldJob();
    const asym = {
      schema: '0.2',
      num_qubits: 2,
      num_clbits: 2,
      gates: [{ op: 'x', qubits: [0] }],
      measurements: [
        { qubit: 0, clbit: 0 },
        { qubit: 1, clbit: 1 },
      ],
    };
    fake.script.samples = ['0x1', '0x3', '0x1', '0x0', '0x1', '0x1', '0x2', '0x1', '0x1', '0x1'];
    const r = await app.inject({
      method: 'POST',
      url: `/v1/execute/provider-one/held/${held.job_id}`,
      headers: u.auth,
      payload: { circuit: asym, client_token: 'ibm-mem', result_types: ['counts', 'memory'] },
    });
    expect(r.statusCode, r.body).toBe(202);
    await settle(held.job_id);
    const done = await job(u, held.job_id);
    expect(done).toMatchObject({ status: 'completed', cost: { estimated: '3.204000', actual: '3.204000' } });
    expect(done.results.memory).toEqual(['01', '11', '01', '00', '01', '01', '10', '01', '01', '01']);
    const hist: Record<string, number> = {};
    for (const m of done.results.memory as string[]) hist[m] = (hist[m] ?? 0) + 1;
    expect(hist).toEqual(done.results.counts);
    await expectWallet(app, u.auth, '1.796000', '0.000000');
  });

  it('expectation: one PUB per measurement group in one Sampler job, estimated from their samples; a job of 3 tasks holds and captures 3 task prices', async () => {
    const u = await signUp(app);
    await fundAccount(app, u.accountId, 20_000_000n);
    // counts + groups {ZZ, IZ} and {XI}: 3 tasks.
    const observables = [
      { pauli: 'ZZ', coeff: 1 },
      { pauli: 'IZ', coeff: 0.5 },
      { pauli: 'XI', coeff: 2 },
    ];
    const q = await app.inject({
      method: 'POST',
      url: '/v1/billing/hardware/quote',
      headers: u.auth,
      payload: { provider: 'provider-one', device: 'p1-falcon-7', shots: 10, result_types: ['counts', 'expectation'], observables },
    });
    expect(q.json().data).toMatchObject({ tasks: 3, total: '9.612000' });
    const h = await app.inject({ method: 'POST', url: '/v1/billing/hardware/hold', headers: u.auth, payload: { quote_id: q.json().data.quote_id } });
    const held = h.json().data as { job_id: string };
    const asym = {
      schema: '0.2',
      num_qubits: 2,
      num_clbits: 2,
      gates: [{ op: 'x', qubits: [0] }],
      measurements: [
        { qubit: 0, clbit: 0 },
        { qubit: 1, clbit: 1 },
      ],
    };
    // PUB 0 the circuit (reads 01), PUB 1 the Z basis (01: ZZ = −1, IZ = −1), PUB 2 X on qubit 1 (clbit 1: half 0, half 1).
    fake.script.pubSamples = [Array(10).fill('0x1'), Array(10).fill('0x1'), [...Array(5).fill('0x0'), ...Array(5).fill('0x2')]];
    const before = fake.submissions;
    const r = await app.inject({
      method: 'POST',
      url: `/v1/execute/provider-one/held/${held.job_id}`,
      headers: u.auth,
      payload: { circuit: asym, client_token: 'ibm-exp', result_types: ['counts', 'expectation'], observables },
    });
    expect(r.statusCode, r.body).toBe(202);
    await settle(held.job_id);
    expect(fake.submissions - before).toBe(1);
    const sent = [...fake.jobs.values()].at(-1)!;
    expect((sent.body.params?.pubs as unknown[]).length).toBe(3);
    const done = await job(u, held.job_id);
    expect(done).toMatchObject({ status: 'completed', cost: { estimated: '9.612000', actual: '9.612000' } });
    expect(done.results.counts).toEqual({ '01': 10 });
    const e = done.results.expectation;
    expect(e).toMatchObject({ kind: 'estimated', terms: [-1, -0.5, 0], value: -1.5 });
    expect(e.groups.map((g: { basis: string }) => g.basis)).toEqual(['ZZ', 'XI']);
    // XI: h = ±2 on 5 + 5 shots → sample variance 40/9, standard error √(40/9/10) = 2/3.
    expect(e.stderr).toBeCloseTo(2 / 3, 12);
    await expectWallet(app, u.auth, '10.388000', '0.000000');
  });
});
