/**
 * Contract tests from the providers' own material (tests/fixtures/providers, source and licence
 * in its README), not from our reading of it:
 *   - every job body the IonQ driver writes validates against IonQ's published v0.4 OpenAPI
 *     document (Ajv), and our IonQ fake's answers validate against the same document;
 *   - the IonQ systems we default to are the live ones the document lists;
 *   - IBM's recorded answers (qiskit-ibm-runtime's ibm_fez) replayed through our
 *     snapshot adapter, and our IBM fake's answers have the shape of the recorded ones;
 *   - IBM's status names read case-insensitively, the region from the instance CRN, the
 *     IBM-API-Version header from configuration.
 */
import { readFileSync } from 'node:fs';
import { Ajv, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { circuit, gate, measure } from '../../src/circuits/ir.js';
import { deviceProfile } from '../../src/devices/device-catalogue.js';
import { IonqDriver } from '../../src/execution/adapters/ionq-driver.js';
import { IbmRuntimeClient } from '../../src/execution/adapters/ibm-runtime-client.js';
import { IbmRuntimeDriver } from '../../src/execution/adapters/ibm-runtime-driver.js';
import { IbmRuntimeSnapshots } from '../../src/execution/adapters/ibm-runtime-snapshots.js';
import type { RunInput } from '../../src/execution/drivers/driver.js';
import { hardwareResultSupport, planHardwareRun } from '../../src/execution/hardware-workload.js';
import { executionSettings } from '../../src/execution/settings.js';
import { fixtureFile } from '../helpers/fixture-file.js';
import { FAKE_BACKEND, FakeIbmRuntime, defaultIbmScript, type IbmJobStatus } from './fakes/ibm-runtime-fake.js';
import { FakeIonq } from './fakes/ionq-v04-fake.js';

const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as (a: Ajv) => Ajv;
const fixture = (path: string) => JSON.parse(readFileSync(fixtureFile(`providers/${path}`), 'utf8')) as Record<string, unknown>;

/** OpenAPI 3.0's `nullable` beside `allOf` (no `type`, which Ajv's `nullable` needs) read as JSON Schema: the schema or null. */
function nullableAsJsonSchema(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(nullableAsJsonSchema);
  if (node === null || typeof node !== 'object') return node;
  const o = Object.fromEntries(Object.entries(node).map(([k, v]) => [k, nullableAsJsonSchema(v)]));
  if (o['nullable'] !== true || 'type' in o) return o;
  const { nullable: _drop, ...rest } = o;
  return { anyOf: [rest, { type: 'null' }] };
}

/** IonQ's document as an Ajv schema: OpenAPI 3.0 keywords (`nullable`, `example`) and its formats (int32, double, unix-timestamp) allowed. */
function ionqSchemas(): (name: string) => ValidateFunction {
  const ajv = addFormats(new Ajv({ strict: false, allErrors: true, formats: { int32: true, double: true, 'unix-timestamp': true } }));
  ajv.addSchema(nullableAsJsonSchema(fixture('ionq/openapi-v0.4-excerpt.json')) as object, 'ionq');
  return (name) => ajv.getSchema(`ionq#/components/schemas/${name}`)!;
}

const bell = circuit(2, 2, [gate('h', [0]), gate('cx', [0, 1]), measure(0, 0), measure(1, 1)]);
const mixed = circuit(3, 3, [gate('h', [0]), gate('sx', [1]), gate('rz', [2], [0.3]), gate('swap', [0, 2]), gate('cx', [1, 2]), gate('sdg', [0]), measure(0, 0)]);

describe('IonQ: our requests and our fake against the published v0.4 document', () => {
  const schema = ionqSchemas();
  const fake = new FakeIonq();
  const input = (c = bell): RunInput => ({ jobId: 'job-1', device: deviceProfile('p2-ionq-qpu')!, circuit: c, shots: 100, seed: 2 ** 40 + 5 });
  beforeAll(async () => fake.start());
  afterAll(async () => fake.close());
  beforeEach(() => fake.reset());

  it('every job body the driver writes (QIS and native, each live backend, noisy simulator) validates against CircuitJobCreationPayload', () => {
    const validate = schema('CircuitJobCreationPayload');
    const bodies = [];
    for (const target of ['qpu.forte-1', 'qpu.forte-enterprise-1', 'simulator'])
      for (const gateset of ['qis', 'native'] as const)
        for (const c of [bell, mixed]) bodies.push(new IonqDriver({ baseUrl: fake.baseUrl, apiKey: 'k', timeoutMs: 1000, target, gateset, noiseModel: 'forte-1' }).requestBody(input(c)));
    // IonQ's debiasing asked (`mitigation: {debiasing: true}`, planned as a continuation plans it) on each QPU.
    const plan = planHardwareRun(bell, 500, { mitigation: { debiasing: true } }, hardwareResultSupport('remote', 'provider-two'), '', { readout: false, debiasing: true });
    const debiased = (target: string) =>
      new IonqDriver({ baseUrl: fake.baseUrl, apiKey: 'k', timeoutMs: 1000, target }).requestBody({ ...input(), shots: 500, hardware: { circuits: [bell], options: plan.runOptions! } });
    for (const target of ['qpu.forte-1', 'qpu.forte-enterprise-1']) {
      const b = debiased(target);
      expect(b['settings']).toEqual({ error_mitigation: { debiasing: true } });
      bodies.push(b);
    }
    expect(bodies.length).toBe(14);
    for (const b of bodies) expect(validate(b) ? null : { body: b, errors: validate.errors }).toBeNull();
    // Without it a QPU job asks debiasing off, so the counts are raw as the answer says.
    expect(bodies[0]!['settings']).toEqual({ error_mitigation: { debiasing: false } });
    // The validator is not vacuous: v0.3's field names and an unknown gate are refused.
    expect(validate({ ...bodies[0], target: 'qpu.forte-1' })).toBe(false);
    expect(validate({ ...bodies[0], input: { gateset: 'qis', qubits: 2, circuit: [{ gate: 'cx', target: 1, control: 0 }] } })).toBe(false);
  });

  it('the default target is a live system of the document; Forte is written with ZZ, never MS', () => {
    const ionq = executionSettings({}).ionq;
    expect(ionq.target).toBe('qpu.forte-1');
    const live = String((fixture('ionq/openapi-v0.4-excerpt.json') as { components: { schemas: { JobBackends: { description: string } } } }).components.schemas.JobBackends.description);
    expect(live).toContain(`\`${ionq.target}\``);
    expect(live).not.toMatch(/aria/);
    const native = new IonqDriver({ baseUrl: fake.baseUrl, apiKey: 'k', timeoutMs: 1000, target: 'qpu.forte-1', gateset: 'native' }).requestBody(input());
    const gates = (native['input'] as { circuit: Array<{ gate: string }> }).circuit.map((g) => g.gate);
    expect(gates).toContain('zz');
    expect(gates).not.toContain('ms');
  });

  it("our fake's GET /backends answers Backend entries and lists only the document's live systems", async () => {
    const list = (await (await fetch(`${fake.baseUrl}/backends`)).json()) as Array<Record<string, unknown>>;
    const validate = schema('Backend');
    for (const b of list) expect(validate(b) ? null : validate.errors).toBeNull();
    expect(list.map((b) => b['backend']).sort((a, b) => String(a).localeCompare(String(b)))).toEqual(['qpu.forte-1', 'qpu.forte-enterprise-1', 'simulator']);
  });

  it("our fake's job, job list, creation, cancel and probabilities answers validate against the document; the driver reads /results/probabilities only", async () => {
    fake.reset({ pollStatuses: ['completed'], histogram: { '0': 0.5, '3': 0.5 } });
    const d = new IonqDriver({ baseUrl: fake.baseUrl, apiKey: 'test-key', timeoutMs: 5000, target: 'qpu.forte-1' });
    const sub = (await d.submit(input())) as { remoteJobId: string };
    const get = async (path: string, method = 'GET') => (await fetch(`${fake.baseUrl}${path}`, { method, headers: { authorization: 'apiKey test-key' } })).json();
    const job = await get(`/jobs/${sub.remoteJobId}`);
    for (const [name, body] of [
      ['SingleCircuitJob', job],
      ['GetJobsResponse', await get('/jobs?limit=5')],
      ['GetResultsResponse', await get(`/jobs/${sub.remoteJobId}/results/probabilities`)],
    ] as const) {
      const v = schema(name);
      expect(v(body) ? null : { name, errors: v.errors }).toBeNull();
    }
    expect(Object.keys((job as { results: object }).results)).toEqual(['ionq.result.probabilities.json.v1']);
    const done = await d.poll(sub.remoteJobId, input());
    expect(done).toMatchObject({ state: 'completed', result: { counts: { '00': 50, '11': 50 } } });
    expect(fake.requests.filter((r) => r.path.includes('/results/')).map((r) => r.path.replace(sub.remoteJobId, 'ID'))).toEqual([
      '/v0.4/jobs/ID/results/probabilities',
      '/v0.4/jobs/ID/results/probabilities',
    ]);
    const cancel = schema('JobCanceledResponse');
    expect(cancel(await get(`/jobs/${sub.remoteJobId}/status/cancel`, 'PUT'))).toBe(true);
  });
});

describe("IonQ: the document's recorded answers replayed through the driver", () => {
  const schema = ionqSchemas();
  const examples = fixture('ionq/openapi-v0.4-examples.json');
  const bellProbabilities = fixture('ionq/bell_probabilities.json');

  it('the recorded examples validate against the excerpt (the excerpt keeps what the document says)', () => {
    for (const [name, key] of [
      ['SingleCircuitJob', 'GetJob.SingleCircuit'],
      ['GetJobsResponse', 'GetJobs.Example1'],
      ['CircuitJobCreationPayload', 'JobCreationPayload.example'],
    ] as const) {
      const v = schema(name);
      expect(v(examples[key]) ? null : { name, errors: v.errors }).toBeNull();
    }
  });

  it('a completed job as IonQ records it, then its recorded Bell probabilities, become counts; a recorded job list without our tag reads absent', async () => {
    const job = examples['GetJob.SingleCircuit'] as { id: string };
    const asked: string[] = [];
    const recorded: typeof fetch = async (url) => {
      const path = new URL(url instanceof Request ? url.url : url).pathname;
      asked.push(path);
      const body = path === `/v0.4/jobs/${job.id}` ? job : path === `/v0.4/jobs/${job.id}/results/probabilities` ? bellProbabilities : path === '/v0.4/jobs' ? examples['GetJobs.Example1'] : null;
      return new Response(JSON.stringify(body ?? { error: 'Not Found', message: path, statusCode: 404 }), { status: body === null ? 404 : 200, headers: { 'content-type': 'application/json' } });
    };
    const d = new IonqDriver({ baseUrl: 'https://api.ionq.co/v0.4', apiKey: 'k', timeoutMs: 1000, target: 'qpu.forte-1', fetch: recorded });
    const run: RunInput = { jobId: 'replay', device: deviceProfile('p2-ionq-qpu')!, circuit: bell, shots: 1000, seed: 1 };
    expect(await d.poll(job.id, run)).toMatchObject({ state: 'completed', result: { counts: { '00': 500, '11': 500 }, meta: { remote_job_id: job.id } } });
    expect(asked).toEqual([`/v0.4/jobs/${job.id}`, `/v0.4/jobs/${job.id}/results/probabilities`]);
    expect(await d.findSubmitted('replay')).toEqual({ found: 'absent' });
  });
});

describe("IBM: the recorded answers of qiskit-ibm-runtime through our adapter, and our fake's shapes", () => {
  const fake = new FakeIbmRuntime();
  const sent: Array<Record<string, string>> = [];
  const client = (apiVersion?: string) =>
    new IbmRuntimeClient({
      apiKey: 'ibm-test-key',
      instance: fake.script.instance,
      baseUrl: fake.baseUrl,
      iamUrl: fake.origin,
      timeoutMs: 2_000,
      ...(apiVersion === undefined ? {} : { apiVersion }),
      fetch: (url, init) => {
        sent.push(Object.fromEntries(Object.entries((init?.headers ?? {}) as Record<string, string>).map(([k, v]) => [k.toLowerCase(), v])));
        return fetch(url, init);
      },
    });
  beforeAll(async () => fake.start());
  afterAll(async () => fake.close());
  beforeEach(() => {
    fake.script = defaultIbmScript();
    sent.length = 0;
  });

  it('ibm_fez as recorded: 156 qubits, basis cz; its seven cz pairs with gate_error 1 leave the coupling map and are listed faulty', async () => {
    const conf = fixture('ibm/conf_fez.json');
    const props = fixture('ibm/props_fez.json');
    fake.script.device = { configuration: conf, properties: props };
    const [snap] = await new IbmRuntimeSnapshots(client(), [FAKE_BACKEND]).fetchSnapshots();
    const broken = [
      [27, 28],
      [31, 32],
      [32, 33],
      [68, 69],
      [80, 81],
      [106, 107],
      [139, 155],
    ];
    expect(snap).toMatchObject({ numQubits: 156, nativeGates: ['cz', 'id', 'rz', 'sx', 'x'], faultyQubits: [], faultyEdges: broken });
    const undirected = new Set((conf['coupling_map'] as number[][]).map(([a, b]) => `${Math.min(a!, b!)}-${Math.max(a!, b!)}`));
    expect(snap!.couplingMap!.length).toBe(undirected.size - broken.length);
    for (const [a, b] of broken) expect(snap!.couplingMap!.some(([x, y]) => x === a && y === b)).toBe(false);
    // Calibration means computed here from the recording, independently of the adapter.
    const t1 = (props['qubits'] as Array<Array<{ name: string; value: number }>>).map((q) => q.find((x) => x.name === 'T1')!.value);
    expect(snap!.calibration!.t1Us).toBeCloseTo(t1.reduce((a, b) => a + b, 0) / t1.length, 2);
    expect(snap!.calibration!.calibratedAt).toBe(new Date(String(props['last_update_date'])).toISOString());
  });

  it("our fake's built-in configuration and properties carry only fields IBM's recorded answers carry, with the same entry shapes", async () => {
    const c = client();
    const got = async (what: string) => ((await c.request('GET', `/v1/backends/${FAKE_BACKEND}/${what}`)) as { body: Record<string, unknown> }).body;
    const conf = await got('configuration');
    const props = await got('properties');
    const realConf = fixture('ibm/conf_fez.json');
    const realProps = fixture('ibm/props_fez.json');
    for (const k of Object.keys(conf)) expect(Object.keys(realConf), `configuration.${k}`).toContain(k);
    for (const k of Object.keys(props)) expect(Object.keys(realProps), `properties.${k}`).toContain(k);
    const keys = (o: unknown) => Object.keys(o as object).sort();
    const realQubit = (realProps['qubits'] as unknown[][])[0]![0];
    for (const q of props['qubits'] as unknown[][]) for (const item of q) expect(keys(realQubit)).toEqual(expect.arrayContaining(keys(item)));
    const realGate = (realProps['gates'] as unknown[])[0];
    for (const g of props['gates'] as unknown[]) expect(keys(realGate)).toEqual(expect.arrayContaining(keys(g)));
  });

  it('job status names are read case-insensitively (the client upper-cases them)', async () => {
    const d = new IbmRuntimeDriver(client(), { 'p1-falcon-7': FAKE_BACKEND });
    const run: RunInput = { jobId: 'case-1', device: deviceProfile('p1-falcon-7')!, circuit: circuit(7, 2, [gate('x', [0]), measure(0, 0), measure(1, 1)]), shots: 4, seed: 1 };
    fake.script.samples = ['0x1', '0x1', '0x1', '0x0'];
    fake.script.pollStatuses = ['RUNNING' as IbmJobStatus, 'COMPLETED' as IbmJobStatus];
    const id = ((await d.submit(run)) as { remoteJobId: string }).remoteJobId;
    expect(await d.poll(id, run)).toMatchObject({ state: 'pending' });
    expect(await d.poll(id, run)).toMatchObject({ state: 'completed', result: { counts: { '01': 3, '00': 1 } } });
    fake.script.pollStatuses = ['cancelled' as IbmJobStatus];
    const id2 = ((await d.submit({ ...run, jobId: 'case-2' })) as { remoteJobId: string }).remoteJobId;
    expect(await d.poll(id2, run)).toMatchObject({ state: 'failed', code: 'REMOTE_JOB_FAILED' });
  });

  it('IBM-API-Version is the configured one (default 2026-04-15, as qiskit-ibm-runtime sends); the region comes from the instance CRN', async () => {
    await client().request('GET', '/v1/backends');
    expect(sent.at(-1)!['ibm-api-version']).toBe('2026-04-15');
    await client('2025-05-01').request('GET', '/v1/backends');
    expect(sent.at(-1)!['ibm-api-version']).toBe('2025-05-01');
    expect(executionSettings({}).ibm.apiVersion).toBe('2026-04-15');
    expect(executionSettings({ IBM_QUANTUM_API_VERSION: '2025-05-01' }).ibm.apiVersion).toBe('2025-05-01');
    expect(() => executionSettings({ IBM_QUANTUM_API_VERSION: 'May 2025' })).toThrow(/IBM_QUANTUM_API_VERSION/);
    const crn = (region: string) => `crn:v1:bluemix:public:quantum-computing:${region}:a/0000:1111::`;
    expect(executionSettings({ IBM_QUANTUM_INSTANCE: crn('us-east') }).ibm.baseUrl).toBe('https://quantum.cloud.ibm.com/api');
    expect(executionSettings({ IBM_QUANTUM_INSTANCE: crn('eu-de') }).ibm.baseUrl).toBe('https://eu-de.quantum.cloud.ibm.com/api');
    expect(executionSettings({ IBM_QUANTUM_INSTANCE: crn('eu-de'), IBM_QUANTUM_BASE_URL: 'http://127.0.0.1:9/api' }).ibm.baseUrl).toBe('http://127.0.0.1:9/api');
  });
});
