import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { buildTestApp, signUp } from '../helpers/app.js';
import { fundAccount } from '../helpers/ledger.js';
import type { App } from '../../src/http/app-types.js';
import { claimJob, markSubmitStarted } from '../../src/store/execution/execution-repository.js';
import { FakeIonq } from './fakes/ionq-v04-fake.js';
import { bell, expectWallet, ghz3, quoteAndHold, settleExecutionJob } from './helpers.js';
import { waitFor } from '../helpers/wait-for.js';

/** The IonQ v0.4 driver in the app against a local fake of that contract: success, refusals, 5xx, timeouts, remote failures. */
describe('remote driver (IonQ v0.4 contract) against a fake server', () => {
  const fake = new FakeIonq();
  let app: App;

  beforeAll(async () => {
    await fake.start();
    app = await buildTestApp({
      IONQ_BASE_URL: fake.baseUrl,
      IONQ_API_KEY: 'test-key',
      IONQ_TIMEOUT_MS: '300',
      EXECUTION_REMOTE_POLL_MS: '1',
      EXECUTION_REMOTE_MAX_FAILURES: '2',
      EXECUTION_STATUS_CACHE_MS: '0',
      EXECUTION_LEASE_MS: '200',
    });
  });
  afterAll(async () => {
    await app.close();
    await fake.close();
  });
  beforeEach(() => {
    fake.script = { apiKey: 'test-key', submit: [], pollStatuses: ['ready', 'started', 'completed'], histogram: { '0': 0.5, '3': 0.5 }, backendStatus: 'available' };
  });

  async function heldRemoteJob(shots = 10) {
    const u = await signUp(app);
    await fundAccount(app, u.accountId, 2_000_000n);
    const { held } = await quoteAndHold(app, u.auth, 'p2-ionq-qpu', shots);
    expect(held.amount).toBe('0.600000'); // 0.30 + 10 × 0.03
    await expectWallet(app, u.auth, '1.400000', '0.600000');
    return { u, held };
  }

  const settle = (id: string) => settleExecutionJob(app, id);

  async function job(u: { auth: { authorization: string } }, id: string) {
    return (await app.inject({ method: 'GET', url: `/v1/execute/provider-two/${id}`, headers: u.auth })).json().data;
  }

  it('configured: the device is listed as available; a run is submitted once, polled, and charged once', async () => {
    // The first probe of a cold process can outlast the 300 ms timeout on a loaded machine (it then
    // reads "could not be reached", as it should): the listing is polled until the probe answers.
    const aria = await waitFor(async () => {
      const devices = (await app.inject({ method: 'GET', url: '/v1/execute/provider-two/devices' })).json().data.devices as { id: string; status: string }[];
      const d = devices.find((x) => x.id === 'p2-ionq-qpu');
      return d?.status === 'online' && d;
    });
    expect(aria).toMatchObject({ driver: 'remote', status: 'online', available: true, status_detail: 'IonQ reports qpu.forte-1 available' });

    const { u, held } = await heldRemoteJob();
    fake.script.histogram = { '0': 0.5, '7': 0.5 };
    const before = fake.submissions;
    const cont = await app.inject({ method: 'POST', url: `/v1/execute/provider-two/held/${held.job_id}`, headers: u.auth, payload: { circuit: ghz3, client_token: 'remote-1' } });
    expect(cont.statusCode).toBe(202);
    expect(cont.json().data).toMatchObject({ driver: 'remote', status: 'queued', queue_position: 1, cost: { estimated: '0.600000', actual: null } });
    await expectWallet(app, u.auth, '1.400000', '0.600000');

    // Submitted to the provider: running (queued there), funds still held, nothing charged yet.
    expect(await app.services.executionWorker.runOnce()).toEqual({ jobId: held.job_id, outcome: 'parked' });
    const running = await job(u, held.job_id);
    expect(running).toMatchObject({ status: 'running', queue_position: null, results: null, failure: null, remote: { provider: 'ionq' }, cost: { estimated: '0.600000', actual: null } });
    expect(running.remote.job_id).toEqual(expect.any(String));
    await expectWallet(app, u.auth, '1.400000', '0.600000');

    expect(await settle(held.job_id)).toEqual(['parked', 'parked', 'completed']);
    expect(fake.submissions - before).toBe(1);
    const sent = [...fake.jobs.values()].at(-1)!.body as { backend: string; shots: number; input: { gateset: string; qubits: number; circuit: Array<{ gate: string }> } };
    expect(sent).toMatchObject({
      type: 'ionq.circuit.v1',
      backend: 'qpu.forte-1',
      shots: 10,
      name: `qrail-${held.job_id}`,
      metadata: { qrail_job_id: held.job_id },
      input: { gateset: 'qis', qubits: 3 },
    });
    expect(sent).not.toHaveProperty('noise'); // a QPU gets no noise model
    expect(sent.input.circuit.map((g) => g.gate)).toEqual(['h', 'cnot', 'cnot']);

    const done = await job(u, held.job_id);
    expect(done).toMatchObject({ status: 'completed', remote: { provider: 'ionq' }, cost: { estimated: '0.600000', actual: '0.600000' } });
    expect(done.results.counts).toEqual({ '000': 5, '111': 5 });
    expect(done.events.map((e: { note: string | null }) => e.note).filter(Boolean)).toContain(`submitted as ${done.remote.job_id}`);
    await expectWallet(app, u.auth, '1.400000', '0.000000');
  });

  it('a refused API key (401) fails the job as REMOTE_AUTH_FAILED and releases the hold', async () => {
    const { u, held } = await heldRemoteJob();
    fake.script.apiKey = 'another-key'; // the server no longer accepts ours
    // Readiness sees the device as unreachable; continuation is refused with the hold intact.
    const refused = await app.inject({ method: 'POST', url: `/v1/execute/provider-two/held/${held.job_id}`, headers: u.auth, payload: { circuit: bell, client_token: 'auth-0' } });
    expect(refused.json().error.code).toBe('EXECUTION_DEVICE_UNAVAILABLE');
    fake.script.apiKey = 'test-key';
    const cont = await app.inject({ method: 'POST', url: `/v1/execute/provider-two/held/${held.job_id}`, headers: u.auth, payload: { circuit: bell, client_token: 'auth-1' } });
    expect(cont.statusCode).toBe(202);
    fake.script.submit = [401]; // the key is refused at submission
    await settle(held.job_id);
    const j = await job(u, held.job_id);
    expect(j).toMatchObject({ status: 'failed', failure: { code: 'REMOTE_AUTH_FAILED' }, cost: { actual: '0.000000' } });
    expect(j.failure.message).toMatch(/401/);
    await expectWallet(app, u.auth, '2.000000', '0.000000');
  });

  it('a 400 refusal fails as REMOTE_REJECTED with the provider message', async () => {
    const { u, held } = await heldRemoteJob();
    fake.script.submit = [400];
    await app.inject({ method: 'POST', url: `/v1/execute/provider-two/held/${held.job_id}`, headers: u.auth, payload: { circuit: bell, client_token: 'rej-1' } });
    await settle(held.job_id);
    const j = await job(u, held.job_id);
    expect(j).toMatchObject({ status: 'failed', failure: { code: 'REMOTE_REJECTED' } });
    expect(j.failure.message).toMatch(/400.*scripted 400/);
    await expectWallet(app, u.auth, '2.000000', '0.000000');
  });

  it('5xx on submission is retried (nothing was accepted), then fails as REMOTE_UNAVAILABLE past the limit', async () => {
    const { u, held } = await heldRemoteJob();
    fake.script.submit = [500, 503, 502, 500];
    const before = fake.submissions;
    await app.inject({ method: 'POST', url: `/v1/execute/provider-two/held/${held.job_id}`, headers: u.auth, payload: { circuit: bell, client_token: '5xx-1' } });
    expect(await settle(held.job_id)).toEqual(['parked', 'parked', 'failed']);
    expect(fake.submissions - before).toBe(3);
    expect(await job(u, held.job_id)).toMatchObject({ status: 'failed', failure: { code: 'REMOTE_UNAVAILABLE' } });
    await expectWallet(app, u.auth, '2.000000', '0.000000');
  });

  it('one 5xx then success: completes with a single accepted submission', async () => {
    const { u, held } = await heldRemoteJob();
    fake.script.submit = [503];
    const jobsBefore = fake.jobs.size;
    await app.inject({ method: 'POST', url: `/v1/execute/provider-two/held/${held.job_id}`, headers: u.auth, payload: { circuit: bell, client_token: '5xx-2' } });
    await settle(held.job_id);
    expect(fake.jobs.size - jobsBefore).toBe(1);
    expect(await job(u, held.job_id)).toMatchObject({ status: 'completed', results: { counts: { '00': 5, '11': 5 } } });
    await expectWallet(app, u.auth, '1.400000', '0.000000');
  });

  it('429 with Retry-After: the job waits at least that long (not our 1 ms backoff), then sent again and accepted once', async () => {
    const { u, held } = await heldRemoteJob();
    fake.script.submit = [429];
    fake.script.retryAfterSeconds = 30;
    const before = fake.submissions;
    await app.inject({ method: 'POST', url: `/v1/execute/provider-two/held/${held.job_id}`, headers: u.auth, payload: { circuit: bell, client_token: '429-1' } });
    expect(await app.services.executionWorker.runOnce()).toEqual({ jobId: held.job_id, outcome: 'parked' });
    const wait = (await app.db.query<{ s: number }>('SELECT EXTRACT(EPOCH FROM lease_expires_at - now())::float8 AS s FROM execution_jobs WHERE id = $1', [held.job_id])).rows[0]!.s;
    expect(wait).toBeGreaterThan(25);
    expect(await app.services.executionWorker.runOnce()).toBeNull(); // not due yet
    // The wait is forced over rather than slept through.
    await app.db.query("UPDATE execution_jobs SET lease_expires_at = now() - interval '1 second' WHERE id = $1", [held.job_id]);
    await settle(held.job_id);
    expect(fake.submissions - before).toBe(2);
    expect([...fake.jobs.values()].filter((j) => (j.body['metadata'] as Record<string, string>)['qrail_job_id'] === held.job_id)).toHaveLength(1);
    expect(await job(u, held.job_id)).toMatchObject({ status: 'completed' });
    await expectWallet(app, u.auth, '1.400000', '0.000000');
  });

  it('a submission that times out is looked up by its tag: never accepted → sent again once, completed, charged once', async () => {
    const { u, held } = await heldRemoteJob();
    fake.script.submit = ['hang', 'ok'];
    const before = fake.submissions;
    await app.inject({ method: 'POST', url: `/v1/execute/provider-two/held/${held.job_id}`, headers: u.auth, payload: { circuit: bell, client_token: 'hang-1' } });
    await settle(held.job_id);
    expect(fake.submissions - before).toBe(2);
    expect(await job(u, held.job_id)).toMatchObject({ status: 'completed' });
    await expectWallet(app, u.auth, '1.400000', '0.000000');
  });

  it('a submission IonQ stored but never answered is found by its tag and adopted: sent once, completed, charged once', async () => {
    const { u, held } = await heldRemoteJob();
    fake.script.submit = ['accept-hang'];
    const before = fake.submissions;
    await app.inject({ method: 'POST', url: `/v1/execute/provider-two/held/${held.job_id}`, headers: u.auth, payload: { circuit: bell, client_token: 'accept-hang-1' } });
    await settle(held.job_id);
    expect(fake.submissions - before).toBe(1);
    expect(await job(u, held.job_id)).toMatchObject({ status: 'completed' });
    await expectWallet(app, u.auth, '1.400000', '0.000000');
  });

  it('a status poll that times out or answers 503 is retried; the job still completes', async () => {
    const { u, held } = await heldRemoteJob();
    fake.script.pollStatuses = ['hang', 503, 'completed'];
    await app.inject({ method: 'POST', url: `/v1/execute/provider-two/held/${held.job_id}`, headers: u.auth, payload: { circuit: bell, client_token: 'poll-1' } });
    expect(await settle(held.job_id)).toEqual(['parked', 'parked', 'parked', 'completed']);
    expect(await job(u, held.job_id)).toMatchObject({ status: 'completed' });
    await expectWallet(app, u.auth, '1.400000', '0.000000');
  });

  it('a job the provider reports failed is failed with its code; the hold is released', async () => {
    const { u, held } = await heldRemoteJob();
    fake.script.pollStatuses = ['started', 'failed'];
    await app.inject({ method: 'POST', url: `/v1/execute/provider-two/held/${held.job_id}`, headers: u.auth, payload: { circuit: bell, client_token: 'rf-1' } });
    await settle(held.job_id);
    const j = await job(u, held.job_id);
    expect(j).toMatchObject({ status: 'failed', failure: { code: 'REMOTE_JOB_FAILED' } });
    expect(j.failure.message).toMatch(/QuantumComputerError/);
    await expectWallet(app, u.auth, '2.000000', '0.000000');
  });

  it('the provider reports the backend unavailable: capabilities say device_offline; continuation refused', async () => {
    const { u, held } = await heldRemoteJob();
    fake.script.backendStatus = 'unavailable';
    const caps = (await app.inject({ method: 'GET', url: '/v1/execute/capabilities', headers: u.auth })).json().data;
    const aria = caps.provider_two.hardware.devices.find((d: { device: string }) => d.device === 'p2-ionq-qpu');
    expect(aria).toMatchObject({ ready: false, status: 'offline' });
    expect(aria.reasons.map((r: { code: string }) => r.code)).toEqual(['device_offline']);
    const cont = await app.inject({ method: 'POST', url: `/v1/execute/provider-two/held/${held.job_id}`, headers: u.auth, payload: { circuit: bell, client_token: 'off-1' } });
    expect(cont.json().error).toMatchObject({ code: 'EXECUTION_DEVICE_UNAVAILABLE', details: { status: 'offline' } });
    await expectWallet(app, u.auth, '1.400000', '0.600000');
  });

  it('a worker that died mid-submission: the tag look-up finds nothing at IonQ, so it is sent once and completes', async () => {
    const { u, held } = await heldRemoteJob();
    await app.inject({ method: 'POST', url: `/v1/execute/provider-two/held/${held.job_id}`, headers: u.auth, payload: { circuit: bell, client_token: 'crash-1' } });
    // A worker claims it and records the submission start… then dies before sending.
    const claim = await claimJob(app.db, 'doomed-worker', 60_000);
    expect(claim?.job.id).toBe(held.job_id);
    expect(await markSubmitStarted(app.db, held.job_id, 'doomed-worker')).toBe(true);
    // Its lease runs out (forced rather than waited for).
    await app.db.query("UPDATE execution_jobs SET lease_expires_at = now() - interval '1 second' WHERE id = $1", [held.job_id]);
    const before = fake.submissions;
    await settle(held.job_id);
    expect(fake.submissions - before).toBe(1);
    expect(await job(u, held.job_id)).toMatchObject({ status: 'completed' });
    await expectWallet(app, u.auth, '1.400000', '0.000000');
  });
});
