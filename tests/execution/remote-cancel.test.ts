/**
 * Canceling a remote run (issue #21 item 1): an accepted IonQ job is canceled at the provider
 * (PUT /jobs/{id}/status/cancel) and ends failed / CANCELED with nothing captured once the
 * provider reports it stopped; a run the provider would not stop and finished anyway was
 * consumed: its price is captured and its results kept, on a job that still ends CANCELED.
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { App } from '../../src/http/app-types.js';
import { buildTestApp, signUp } from '../helpers/app.js';
import { fundAccount } from '../helpers/ledger.js';
import { waitFor } from '../helpers/wait-for.js';
import { FakeIonq, fakeIonqEnv } from './fakes/ionq-v04-fake.js';
import { expectExecutionInvariants, expectWallet, ghz3, quoteAndHold } from './helpers.js';

describe('cancel a remote (IonQ) run', () => {
  const fake = new FakeIonq();
  let app: App;
  beforeAll(async () => {
    await fake.start();
    // A poll a minute away: nothing but the cancel makes the parked job due.
    app = await buildTestApp(fakeIonqEnv(fake, { IONQ_TIMEOUT_MS: '2000', EXECUTION_REMOTE_POLL_MS: '60000' }));
  });
  beforeEach(() => {
    fake.script = { ...fake.script, submit: [], pollStatuses: ['started'], cancel: 'stop' };
  });
  afterEach(async () => expectExecutionInvariants(app));
  afterAll(async () => {
    await app.close();
    await fake.close();
  });

  /** A remote job accepted by the provider and parked until its next poll (a minute away). */
  async function acceptedJob(token: string) {
    const u = await signUp(app);
    await fundAccount(app, u.accountId, 2_000_000n);
    const { held } = await quoteAndHold(app, u.auth, 'p2-ionq-qpu', 10);
    const cont = await app.inject({ method: 'POST', url: `/v1/execute/provider-two/held/${held.job_id}`, headers: u.auth, payload: { circuit: ghz3, client_token: token } });
    expect(cont.statusCode).toBe(202);
    expect(await app.services.executionWorker.runOnce()).toEqual({ jobId: held.job_id, outcome: 'parked' });
    // Not due before its next poll.
    expect(await app.services.executionWorker.runOnce()).toBeNull();
    await expectWallet(app, u.auth, '1.400000', '0.600000');
    return { u, id: held.job_id };
  }

  const cancel = (auth: { authorization: string }, id: string) => app.inject({ method: 'POST', url: `/v1/execute/provider-two/${id}/cancel`, headers: auth });
  const puts = () => fake.requests.filter((r) => r.method === 'PUT').length;

  it('the provider stops it: failed / CANCELED, the hold released, nothing captured', async () => {
    const { u, id } = await acceptedJob('remote-cancel-1');
    const before = puts();
    const r = await cancel(u.auth, id);
    expect(r.statusCode).toBe(200);
    expect(r.json().data).toMatchObject({ status: 'running', cancel_requested_at: expect.any(String) });
    // A parked job is due at once: the worker asks the provider to stop it and reads the outcome.
    expect(await app.services.executionWorker.runOnce()).toEqual({ jobId: id, outcome: 'failed' });
    expect(puts()).toBe(before + 1);
    const job = (await app.inject({ method: 'GET', url: `/v1/execute/provider-two/${id}`, headers: u.auth })).json().data;
    expect(job).toMatchObject({ status: 'failed', results: null, cost: { actual: '0.000000' }, failure: { code: 'CANCELED' } });
    expect(job.failure.message).toMatch(/provider stopped the run/);
    await expectWallet(app, u.auth, '2.000000', '0.000000');
    expect((await cancel(u.auth, id)).json().data).toEqual(job);
  });

  it('the provider would not stop it and ran it: its price is captured and its results kept, and the job ends CANCELED', async () => {
    const { u, id } = await acceptedJob('remote-cancel-2');
    fake.script.cancel = 'refuse';
    expect((await cancel(u.auth, id)).statusCode).toBe(200);
    // Still running at the provider: the worker parks it again and keeps asking.
    expect(await app.services.executionWorker.runOnce()).toEqual({ jobId: id, outcome: 'parked' });
    await app.db.query("UPDATE execution_jobs SET lease_expires_at = now() - interval '1 second' WHERE id = $1", [id]);
    fake.script.pollStatuses = ['completed'];
    const step = await waitFor(() => app.services.executionWorker.runOnce(), { what: 'the job to be claimed' });
    expect(step).toEqual({ jobId: id, outcome: 'failed' });
    const job = (await app.inject({ method: 'GET', url: `/v1/execute/provider-two/${id}`, headers: u.auth })).json().data;
    expect(job).toMatchObject({ status: 'failed', cost: { actual: '0.600000' }, failure: { code: 'CANCELED' } });
    expect(job.failure.message).toMatch(/captured/);
    expect(job.results.counts).toEqual(expect.any(Object));
    await expectWallet(app, u.auth, '1.400000', '0.000000');
  });
});
