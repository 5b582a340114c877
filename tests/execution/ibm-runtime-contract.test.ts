import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { circuit, gate, measure } from '../../src/circuits/ir.js';
import { deviceProfile } from '../../src/devices/device-catalogue.js';
import { IbmRuntimeClient, retryAfterMs } from '../../src/execution/adapters/ibm-runtime-client.js';
import { IbmRuntimeDriver, ibmJobTag, samplesToCounts } from '../../src/execution/adapters/ibm-runtime-driver.js';
import { IbmRuntimeSnapshots } from '../../src/execution/adapters/ibm-runtime-snapshots.js';
import type { RunInput } from '../../src/execution/drivers/driver.js';
import { FAKE_BACKEND, FakeIbmRuntime, defaultIbmScript } from './fakes/ibm-runtime-fake.js';

/** IBM Quantum Runtime's REST contract (IAM + Sampler V2 jobs + backends) against a local fake of it. */
describe('IBM Quantum Runtime adapter against a fake of its REST API', () => {
  const fake = new FakeIbmRuntime();
  let client: IbmRuntimeClient;
  let driver: IbmRuntimeDriver;
  const profile = deviceProfile('p1-falcon-7')!;
  // x on qubit 0 only: clbit 0 reads 1, clbit 1 reads 0 → "01" in the documented order (clbit 0 rightmost).
  const c = circuit(7, 2, [gate('x', [0]), measure(0, 0), measure(1, 1)]);
  const input = (jobId: string, shots = 4): RunInput => ({ jobId, device: profile, circuit: c, shots, seed: 1 });

  beforeAll(async () => {
    await fake.start();
  });
  afterAll(async () => {
    await fake.close();
  });
  beforeEach(() => {
    fake.script = defaultIbmScript();
    client = new IbmRuntimeClient({ apiKey: 'ibm-test-key', instance: fake.script.instance, baseUrl: fake.baseUrl, iamUrl: fake.origin, timeoutMs: 1_000 });
    driver = new IbmRuntimeDriver(client, { 'p1-falcon-7': FAKE_BACKEND });
  });

  it('submit → poll → results: one Sampler V2 job with our tag; samples become counts in the documented bit order, memory kept', async () => {
    fake.script.samples = ['0x1', '0x1', '0x1', '0x0'];
    fake.script.pollStatuses = ['Running', 'Completed'];
    const tokensBefore = fake.tokens.length;
    const sent = await driver.submit(input('job-a'));
    expect(sent).toMatchObject({ state: 'pending', remoteStatus: 'Queued' });
    const id = (sent as { remoteJobId: string }).remoteJobId;
    const job = fake.jobs.get(id)!;
    expect(job.body).toMatchObject({ program_id: 'sampler', backend: FAKE_BACKEND, params: { version: 2 }, tags: [ibmJobTag('job-a')] });
    const pub = (job.body.params!.pubs as unknown[][])[0]!;
    expect(pub[0]).toMatch(/^OPENQASM 3\.0;\ninclude "stdgates\.inc";/);
    expect(pub[0]).toContain('c[1] = measure $1;');
    expect(pub.slice(1)).toEqual([null, 4]);
    // Every Runtime call carried the bearer token and the instance CRN.
    const runtime = fake.requests.filter((r) => r.path.startsWith('/api/'));
    expect(runtime.every((r) => r.auth === `Bearer ${fake.tokens[tokensBefore]}` && r.crn === fake.script.instance)).toBe(true);

    expect(await driver.poll(id, input('job-a'))).toEqual({ state: 'pending', remoteJobId: id, remoteStatus: 'Running' });
    const done = await driver.poll(id, input('job-a'));
    expect(done).toMatchObject({ state: 'completed', result: { counts: { '01': 3, '00': 1 }, meta: { remote_provider: 'ibm', remote_job_id: id, target: FAKE_BACKEND } } });
    expect((done as unknown as { result: { meta: { memory: string[] } } }).result.meta.memory).toEqual(['0x1', '0x1', '0x1', '0x0']);
    expect(job.resultFetches).toBe(1);
    // One IAM exchange served every call (the token is cached).
    expect(fake.tokens.length - tokensBefore).toBe(1);
  });

  it('cancel asks IBM to stop the job; the next poll reports it Cancelled (REMOTE_JOB_FAILED)', async () => {
    const sent = (await driver.submit(input('job-c'))) as { remoteJobId: string };
    expect(await driver.cancel(sent.remoteJobId)).toBe(true);
    expect(fake.requests.at(-1)).toMatchObject({ method: 'POST', path: `/api/v1/jobs/${sent.remoteJobId}/cancel` });
    expect(await driver.poll(sent.remoteJobId, input('job-c'))).toMatchObject({ state: 'failed', code: 'REMOTE_JOB_FAILED', message: expect.stringContaining('Cancelled') });
    expect(await driver.cancel('no-such-job')).toBe(false);
  });

  it('an expired token (401) is replaced once from IAM and the call goes through', async () => {
    const tokensBefore = fake.tokens.length;
    await driver.submit(input('job-t1'));
    fake.revokeAll();
    const r = await driver.submit(input('job-t2'));
    expect(r.state).toBe('pending');
    expect(fake.tokens.length - tokensBefore).toBe(2);
    // The retried call carried the new token.
    expect(fake.requests.filter((q) => q.path === '/api/v1/jobs').at(-1)!.auth).toBe(`Bearer ${fake.tokens.at(-1)}`);
    // A token IAM says is about to expire is refreshed before use, without a 401.
    fake.script.tokenSeconds = 30;
    const short = new IbmRuntimeClient({ apiKey: 'ibm-test-key', instance: fake.script.instance, baseUrl: fake.baseUrl, iamUrl: fake.origin, timeoutMs: 1_000 });
    const beforeShort = fake.tokens.length;
    await short.request('GET', '/v1/backends');
    await short.request('GET', '/v1/backends');
    expect(fake.tokens.length - beforeShort).toBe(2);
  });

  it('a refused API key at IAM or a wrong instance fails as REMOTE_AUTH_FAILED, not retried', async () => {
    const badKey = new IbmRuntimeDriver(new IbmRuntimeClient({ apiKey: 'wrong', instance: fake.script.instance, baseUrl: fake.baseUrl, iamUrl: fake.origin, timeoutMs: 1_000 }), {
      'p1-falcon-7': FAKE_BACKEND,
    });
    const r = await badKey.submit(input('job-k'));
    expect(r).toMatchObject({ state: 'failed', code: 'REMOTE_AUTH_FAILED', message: expect.stringContaining('BXNIM0415E') });
    const badCrn = new IbmRuntimeDriver(new IbmRuntimeClient({ apiKey: 'ibm-test-key', instance: 'crn:other', baseUrl: fake.baseUrl, iamUrl: fake.origin, timeoutMs: 1_000 }), {
      'p1-falcon-7': FAKE_BACKEND,
    });
    expect(await badCrn.submit(input('job-k2'))).toMatchObject({ state: 'failed', code: 'REMOTE_AUTH_FAILED', message: expect.stringContaining('403') });
  });

  it('429 with Retry-After is a retry that carries the wait; 5xx is a retry; 4xx is a refusal', async () => {
    fake.script.submit = [{ status: 429, retryAfter: '7' }, 503, 400];
    const jobsBefore = fake.jobs.size;
    expect(await driver.submit(input('job-r'))).toMatchObject({ state: 'retry', retryAfterMs: 7000, message: expect.stringContaining('429') });
    const five = await driver.submit(input('job-r'));
    expect(five).toMatchObject({ state: 'retry', message: expect.stringContaining('Internal error') });
    expect(five).not.toHaveProperty('retryAfterMs');
    expect(await driver.submit(input('job-r'))).toMatchObject({ state: 'failed', code: 'REMOTE_REJECTED' });
    expect(fake.jobs.size).toBe(jobsBefore);
    expect(retryAfterMs('Wed, 21 Oct 2026 07:28:00 GMT', Date.parse('Wed, 21 Oct 2026 07:27:00 GMT'))).toBe(60_000);
  });

  it('a timeout after sending is uncertain; findSubmitted then finds the job by its tag (absent for another id; unknown when listing fails)', async () => {
    fake.script.submit = ['accept-then-hang'];
    const r = await driver.submit(input('job-u'));
    expect(r).toMatchObject({ state: 'failed', code: 'REMOTE_SUBMISSION_UNCERTAIN' });
    const accepted = [...fake.jobs.values()].find((j) => j.tags.includes(ibmJobTag('job-u')))!;
    expect(await driver.findSubmitted('job-u')).toEqual({ found: 'present', remoteJobId: accepted.id });
    expect(await driver.findSubmitted('job-never-sent')).toEqual({ found: 'absent' });
    fake.script.list = [503];
    expect(await driver.findSubmitted('job-u')).toEqual({ found: 'unknown' });
    const listing = fake.requests.filter((q) => q.path === '/api/v1/jobs' && q.method === 'GET');
    expect(listing.length).toBeGreaterThanOrEqual(2);
  });

  it('malformed answers: a submission without an id is uncertain; a poll without a status is retried; unreadable results fail the job', async () => {
    fake.script.submit = ['malformed'];
    expect(await driver.submit(input('job-m'))).toMatchObject({ state: 'failed', code: 'REMOTE_SUBMISSION_UNCERTAIN' });
    const sent = (await driver.submit(input('job-m2'))) as { remoteJobId: string };
    fake.script.pollStatuses = ['malformed', 'Completed'];
    expect(await driver.poll(sent.remoteJobId, input('job-m2'))).toMatchObject({ state: 'retry' });
    fake.script.samples = 'malformed';
    expect(await driver.poll(sent.remoteJobId, input('job-m2'))).toMatchObject({ state: 'failed', code: 'REMOTE_JOB_FAILED', message: expect.stringContaining('no samples') });
    fake.script.samples = ['0x1', '0x7', '0x0', '0x0'];
    expect(await driver.poll(sent.remoteJobId, input('job-m2'))).toMatchObject({ state: 'failed', message: expect.stringContaining('bit pattern') });
    fake.script.samples = ['0x1'];
    expect(await driver.poll(sent.remoteJobId, input('job-m2'))).toMatchObject({ state: 'failed', message: expect.stringContaining('1 samples for 4 shots') });
    expect(samplesToCounts(['0x2', '3', 1], 2)).toEqual({ '10': 1, '11': 1, '01': 1 });
  });

  it('a poll that times out or answers 5xx is a retry; a failed job reports its reason', async () => {
    const sent = (await driver.submit(input('job-p'))) as { remoteJobId: string };
    fake.script.pollStatuses = ['hang'];
    expect(await driver.poll(sent.remoteJobId, input('job-p'))).toMatchObject({ state: 'retry', message: expect.stringContaining('1000 ms') });
    fake.script.pollStatuses = [502];
    expect(await driver.poll(sent.remoteJobId, input('job-p'))).toMatchObject({ state: 'retry' });
    fake.script.pollStatuses = ['Failed'];
    expect(await driver.poll(sent.remoteJobId, input('job-p'))).toMatchObject({ state: 'failed', code: 'REMOTE_JOB_FAILED', message: expect.stringContaining('Circuit too deep') });
  });

  it('an unmapped device or a circuit without measurements is refused before anything is sent', async () => {
    const before = fake.submissions;
    expect(await driver.submit({ ...input('job-x'), device: deviceProfile('p1-falcon-27')! })).toMatchObject({
      state: 'failed',
      code: 'REMOTE_REJECTED',
      message: expect.stringContaining('IBM_QUANTUM_BACKENDS'),
    });
    expect(await driver.submit({ ...input('job-x'), circuit: circuit(2, 0, [gate('h', [0])]) })).toMatchObject({ state: 'failed', message: expect.stringContaining('measures nothing') });
    expect(fake.submissions).toBe(before);
  });

  it('snapshots: status, queue length, basis gates, undirected coupling and mean calibration; an unlisted backend is offline; a failed call throws', async () => {
    const source = new IbmRuntimeSnapshots(client, [FAKE_BACKEND, 'ibm_gone'], () => new Date('2026-11-26T07:00:00Z'));
    const [snap, gone] = await source.fetchSnapshots();
    expect(snap).toMatchObject({
      backend: FAKE_BACKEND,
      status: 'online',
      queueLength: 17,
      numQubits: 7,
      nativeGates: ['cx', 'id', 'rz', 'sx', 'x'],
      fetchedAt: '2026-11-26T07:00:00.000Z',
      calibration: { t1Us: 103, t2Us: 83, readoutError: 0.02, error1q: 0.0003, error2q: 0.01, calibratedAt: '2026-11-26T05:10:00.000Z' },
    });
    // The cx of pair 3–5 has gate_error 1 (IBM's mark of a broken pair): listed faulty, left out of routing.
    expect(snap!.couplingMap).toEqual([
      [0, 1],
      [1, 2],
      [1, 3],
      [4, 5],
      [5, 6],
    ]);
    expect(snap).toMatchObject({ faultyQubits: [], faultyEdges: [[3, 5]] });
    expect(gone).toMatchObject({ backend: 'ibm_gone', status: 'offline', calibration: null });
    fake.script.backendStatus = { state: false, status: 'maintenance', length_queue: 0 };
    expect((await source.fetchSnapshots())[0]).toMatchObject({ status: 'maintenance' });
    fake.script.backends = [500];
    await expect(source.fetchSnapshots()).rejects.toThrow(/500/);
    fake.script.backends = ['malformed'];
    await expect(source.fetchSnapshots()).rejects.toThrow(/no devices list/);
  });
});
