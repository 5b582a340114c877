/**
 * Contract tests of the IonQ v0.4 driver against the local fake of IonQ's published API
 * (tests/execution/fakes/ionq-v04-fake.ts): the request shapes it sends, submit → poll →
 * result → cancel, refusals (401, 400), 429 with Retry-After, 5xx, a timeout after send that
 * `findSubmitted` then finds by our client tag, and malformed answers (a failure code, never a throw).
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { circuit, gate, measure } from '../../src/circuits/ir.js';
import { deviceProfile } from '../../src/devices/device-catalogue.js';
import { IonqDriver, type IonqSettings } from '../../src/execution/adapters/ionq-driver.js';
import { largestRemainder, probabilitiesToCounts, readStateMap } from '../../src/execution/adapters/ionq-circuit.js';
import { parseRetryAfter } from '../../src/execution/adapters/ionq-http.js';
import type { RunInput } from '../../src/execution/drivers/driver.js';
import { executionSettings } from '../../src/execution/settings.js';
import { FakeIonq } from './fakes/ionq-v04-fake.js';

const bell = circuit(2, 2, [gate('h', [0]), gate('cx', [0, 1]), measure(0, 0), measure(1, 1)]);
const input = (jobId: string, over: Partial<RunInput> = {}): RunInput => ({ jobId, device: deviceProfile('p2-ionq-qpu')!, circuit: bell, shots: 100, seed: 2 ** 40 + 5, ...over });

describe('IonQ v0.4 driver contract (against the local fake)', () => {
  const fake = new FakeIonq();
  let settings: IonqSettings;
  const driver = (over: Partial<IonqSettings> = {}) => new IonqDriver({ ...settings, ...over });

  beforeAll(async () => {
    await fake.start();
    // Generous: a loaded machine must not turn an answer into a timeout; the timeout test sets its own.
    settings = { baseUrl: fake.baseUrl, apiKey: 'test-key', target: 'qpu.forte-1', timeoutMs: 5000 };
  });
  afterAll(async () => fake.close());
  beforeEach(() => fake.reset());

  it('submit sends an ionq.circuit.v1 job with our client tag and the apiKey header; poll walks the statuses; results become counts', async () => {
    fake.reset({ pollStatuses: ['submitted', 'started', 'completed'], histogram: { '0': 0.5, '3': 0.5 } });
    const d = driver();
    const sub = await d.submit(input('job-a'));
    expect(sub).toMatchObject({ state: 'pending', remoteStatus: 'submitted' });
    const id = (sub as { remoteJobId: string }).remoteJobId;
    const sent = fake.jobs.get(id)!.body;
    expect(sent).toEqual({
      type: 'ionq.circuit.v1',
      backend: 'qpu.forte-1',
      shots: 100,
      name: 'qrail-job-a',
      metadata: { qrail_job_id: 'job-a' },
      input: {
        gateset: 'qis',
        qubits: 2,
        circuit: [
          { gate: 'h', target: 0 },
          { gate: 'cnot', control: 0, target: 1 },
        ],
      },
      // A QPU job asks IonQ's own debiasing off: the counts stay raw (docs/decisions/execution-mitigation-native.md).
      settings: { error_mitigation: { debiasing: false } },
    });
    expect(fake.requests.at(-1)).toMatchObject({ method: 'POST', path: '/v0.4/jobs', authorization: 'apiKey test-key' });

    expect(await d.poll(id, input('job-a'))).toEqual({ state: 'pending', remoteJobId: id, remoteStatus: 'submitted' });
    expect(await d.poll(id, input('job-a'))).toEqual({ state: 'pending', remoteJobId: id, remoteStatus: 'started' });
    const done = await d.poll(id, input('job-a'));
    expect(done).toMatchObject({ state: 'completed', result: { counts: { '00': 50, '11': 50 }, meta: { remote_job_id: id, counts_source: expect.stringMatching(/largest remainder/) } } });
    expect(fake.requests.at(-1)!.path).toBe(`/v0.4/jobs/${id}/results/probabilities`);
  });

  it('probabilities → counts sum exactly to the shots (largest remainder, where rounding would lose one)', () => {
    const thirds = readStateMap({ '0': 1 / 3, '1': 1 / 3, '3': 1 / 3 })!;
    const counts = probabilitiesToCounts(thirds, bell, 100);
    expect(Object.values(counts).reduce((a, b) => a + b, 0)).toBe(100);
    expect(counts).toEqual({ '00': 34, '01': 33, '11': 33 }); // ties go to the smallest key
    // Naive rounding of each share would give 33 + 33 + 33 = 99.
    expect([1 / 3, 1 / 3, 1 / 3].map((p) => Math.round(p * 100)).reduce((a, b) => a + b)).toBe(99);
    expect(
      largestRemainder(
        new Map([
          ['a', 0.125],
          ['b', 0.875],
        ]),
        3,
      ),
    ).toEqual({ b: 3 });
  });

  it('the simulator target carries a per-job noise model seeded from the job; a QPU never does', async () => {
    fake.reset({ pollStatuses: ['completed'] });
    const sim = driver({ target: 'simulator', noiseModel: 'aria-1' });
    const sub = await sim.submit(input('job-n'));
    expect(sub.state).toBe('pending');
    expect(fake.jobs.get((sub as { remoteJobId: string }).remoteJobId)!.body).toMatchObject({ backend: 'simulator', noise: { model: 'aria-1', seed: (2 ** 40 + 5) % 2 ** 31 } });
    expect(driver({ noiseModel: 'aria-1' }).requestBody(input('job-q'))).not.toHaveProperty('noise');
  });

  it('cancel asks IonQ to stop the job; the next poll reports it canceled (REMOTE_JOB_FAILED for the worker to read)', async () => {
    fake.reset({ pollStatuses: ['started'] });
    const d = driver();
    const id = ((await d.submit(input('job-c'))) as { remoteJobId: string }).remoteJobId;
    expect(await d.cancel(id)).toBe(true);
    expect(fake.requests.at(-1)).toMatchObject({ method: 'PUT', path: `/v0.4/jobs/${id}/status/cancel` });
    expect(await d.poll(id, input('job-c'))).toMatchObject({ state: 'failed', code: 'REMOTE_JOB_FAILED', message: expect.stringMatching(/canceled/) });
    fake.reset({ cancel: 'refuse' });
    expect(await d.cancel(id)).toBe(false);
  });

  it('a job IonQ failed carries its failure code and message', async () => {
    fake.reset({ pollStatuses: ['failed'] });
    const d = driver();
    const id = ((await d.submit(input('job-f'))) as { remoteJobId: string }).remoteJobId;
    expect(await d.poll(id, input('job-f'))).toEqual({
      state: 'failed',
      code: 'REMOTE_JOB_FAILED',
      message: `IonQ job ${id} failed (QuantumComputerError): An error occurred on the quantum computer.`,
    });
  });

  it('401 (bad key) → REMOTE_AUTH_FAILED; 400 → REMOTE_REJECTED quoting IonQ’s error body', async () => {
    expect(await driver({ apiKey: 'wrong' }).submit(input('job-401'))).toMatchObject({
      state: 'failed',
      code: 'REMOTE_AUTH_FAILED',
      message: 'IonQ answered 401 to the submission: Unauthorized: Invalid API key',
    });
    fake.reset({ submit: [400] });
    expect(await driver().submit(input('job-400'))).toMatchObject({ state: 'failed', code: 'REMOTE_REJECTED', message: expect.stringMatching(/400 .*Bad Request: scripted 400/) });
  });

  it('429 is a retry that carries Retry-After; 5xx is a retry; nothing was stored at IonQ', async () => {
    fake.reset({ submit: [429, 503, 502], retryAfterSeconds: 7 });
    const before = fake.jobs.size;
    expect(await driver().submit(input('job-429'))).toEqual({ state: 'retry', message: expect.stringMatching(/429.*Too Many Requests/), retryAfterMs: 7000 });
    expect(await driver().submit(input('job-503'))).toMatchObject({ state: 'retry', message: expect.stringMatching(/503/) });
    expect(await driver().submit(input('job-502'))).toMatchObject({ state: 'retry' });
    expect(fake.jobs.size).toBe(before);
    expect(parseRetryAfter('120')).toBe(120_000);
    expect(parseRetryAfter('Thu, 26 Nov 2026 10:00:30 GMT', Date.parse('Thu, 26 Nov 2026 10:00:00 GMT'))).toBe(30_000);
    expect(parseRetryAfter('soon')).toBeNull();
  });

  it('a timeout after send is uncertain; findSubmitted then finds the job IonQ accepted, by our tag', async () => {
    fake.reset({ submit: ['accept-hang'] });
    const d = driver();
    expect(await driver({ timeoutMs: 300 }).submit(input('job-t'))).toMatchObject({ state: 'failed', code: 'REMOTE_SUBMISSION_UNCERTAIN', message: expect.stringMatching(/300 ms/) });
    const accepted = [...fake.jobs.values()].find((j) => (j.body['metadata'] as Record<string, string>)['qrail_job_id'] === 'job-t')!;
    expect(await d.findSubmitted('job-t')).toEqual({ found: 'present', remoteJobId: accepted.id });
    expect(await d.findSubmitted('never-sent')).toEqual({ found: 'absent' });
    fake.reset({ listDown: true });
    expect(await d.findSubmitted('job-t')).toEqual({ found: 'unknown' });
  });

  it('findSubmitted pages through the list; a list longer than it reads is unknown, never absent', async () => {
    const d = driver();
    const first = ((await d.submit(input('job-old'))) as { remoteJobId: string }).remoteJobId;
    for (let i = 0; i < 120; i++)
      fake.jobs.set(`filler-${i}`, { id: `filler-${i}`, body: { type: 'ionq.circuit.v1', backend: 'simulator', name: `other-${i}` }, polls: 0, submittedAt: new Date().toISOString() });
    expect(await d.findSubmitted('job-old')).toEqual({ found: 'present', remoteJobId: first }); // on the second page
    expect(await driver({ lookupPages: 1 }).findSubmitted('not-there')).toEqual({ found: 'unknown' });
    expect(await d.findSubmitted('not-there')).toEqual({ found: 'absent' });
  });

  it('malformed answers are failures with a code, never a throw', async () => {
    fake.reset({ submit: ['no-id'] });
    const d = driver();
    expect(await d.submit(input('job-m1'))).toMatchObject({ state: 'failed', code: 'REMOTE_SUBMISSION_UNCERTAIN', message: expect.stringMatching(/no job id/) });
    fake.reset({ pollStatuses: ['garbage'] });
    const id = ((await d.submit(input('job-m2'))) as { remoteJobId: string }).remoteJobId;
    expect(await d.poll(id, input('job-m2'))).toMatchObject({ state: 'failed', code: 'REMOTE_MALFORMED_RESPONSE', message: expect.stringMatching(/gateway says hello/) });
    for (const resultsBody of [['0', 1], { '0': 'half' }, { '0b1': 1 }, { '0': -1 }, {}, 'plain text']) {
      fake.reset({ pollStatuses: ['completed'], resultsBody });
      expect(await d.poll(id, input('job-m2'))).toMatchObject({ state: 'failed', code: 'REMOTE_MALFORMED_RESPONSE' });
    }
  });

  it('a refused connection is a retry (nothing sent); an unknown job is a refusal', async () => {
    // A port nothing listens on any more (a server opened and closed).
    const gone = createServer();
    await new Promise<void>((r) => gone.listen(0, '127.0.0.1', r));
    const port = (gone.address() as AddressInfo).port;
    await new Promise<void>((r) => gone.close(() => r()));
    const closed = driver({ baseUrl: `http://127.0.0.1:${port}/v0.4` });
    expect(await closed.submit(input('job-x'))).toMatchObject({ state: 'retry', message: expect.stringMatching(/could not be reached/) });
    expect(await driver().poll('no-such-job', input('job-x'))).toMatchObject({ state: 'failed', code: 'REMOTE_REJECTED', message: expect.stringMatching(/404/) });
  });

  it('settings speak v0.4: a v0.3 base URL is refused with the URL to use', () => {
    expect(() => executionSettings({ IONQ_BASE_URL: 'https://api.ionq.co/v0.3' })).toThrow(/v0\.4/);
    expect(() => executionSettings({ IONQ_GATESET: 'openqasm' })).toThrow(/IONQ_GATESET.*qis or native/);
    expect(executionSettings({}).ionq.gateset).toBe('qis');
    expect(executionSettings({ IONQ_BASE_URL: 'https://api.ionq.co/v0.4/', IONQ_NOISE_MODEL: 'aria-1' }).ionq).toMatchObject({ baseUrl: 'https://api.ionq.co/v0.4/', noiseModel: 'aria-1' });
  });
});
