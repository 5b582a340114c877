/**
 * The Account Jobs capabilities `circuit.optimize`, `coupling.analyze` (measured/auto) and
 * `circuit.simulate` run on the app's compute pool (src/compute), off the event loop the HTTP API
 * shares under `serve --role all`: same results as in-process (COMPUTE_THREADS=0), domain errors
 * keep their codes, and a compute thread that dies fails the job like any unexpected error
 * (CAPABILITY_FAILED, nothing charged, the hold released).
 */
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { getExample } from '../../src/circuits/examples.js';
import { ThreadPool } from '../../src/compute/compute-pool.js';
import type { App } from '../../src/http/app-types.js';
import { buildTestApp } from '../helpers/app.js';
import { busyCircuit } from '../helpers/circuits.js';
import { expectAllInvariants, key, newAgent, submit, type Agent } from './helpers.js';

/** Four qubits with rotations: a spread of outcomes, so equal counts mean the same sampling. */
const spread = {
  schema: '0.2',
  num_qubits: 4,
  num_clbits: 4,
  gates: [
    { op: 'h', qubits: [0] },
    { op: 'ry', qubits: [1], params: [0.7] },
    { op: 'cx', qubits: [0, 2] },
    { op: 'rx', qubits: [3], params: [1.3] },
    { op: 'cx', qubits: [1, 3] },
    { op: 'rz', qubits: [2], params: [0.4] },
    { op: 'h', qubits: [2] },
  ],
  measurements: [0, 1, 2, 3].map((q) => ({ qubit: q, clbit: q })),
};

const ghz3 = {
  schema: '0.2',
  num_qubits: 3,
  num_clbits: 0,
  gates: [
    { op: 'h', qubits: [0] },
    { op: 'cx', qubits: [0, 1] },
    { op: 'ry', qubits: [2], params: [0.9] },
    { op: 'cx', qubits: [1, 2] },
  ],
  measurements: [],
};

let pooled: App;
let inProcess: App;
let pa: Agent;
let ia: Agent;
beforeAll(async () => {
  pooled = await buildTestApp({ COMPUTE_THREADS: '1' });
  inProcess = await buildTestApp({ COMPUTE_THREADS: '0' });
  pa = await newAgent(pooled, { fundMicros: 5_000_000n });
  ia = await newAgent(inProcess, { fundMicros: 5_000_000n });
});
afterEach(async () => {
  vi.restoreAllMocks();
  await expectAllInvariants(pooled);
  await expectAllInvariants(inProcess);
});
afterAll(async () => {
  await pooled?.close();
  await inProcess?.close();
});

const balance = async (app: App, agent: Agent) => {
  const b = (await app.inject({ method: 'GET', url: '/v1/account/balance', headers: agent.auth })).json<{ available: string; held: string }>();
  return { available: b.available, held: b.held };
};

/**
 * Submits, lets the worker take it, returns the stored job. `storedRequest` replaces the request in
 * the database before the worker takes it: a job stored before a submission check existed.
 */
async function runJob(app: App, agent: Agent, capability_id: string, request: Record<string, unknown>, storedRequest?: Record<string, unknown>) {
  const s = await submit(app, agent, { capability_id, request, idempotency_key: key(capability_id), max_total_price: '1.000000' });
  expect(s.statusCode, s.body).toBe(202);
  const id = s.json().job_id as string;
  if (storedRequest !== undefined) await app.db.query('UPDATE jobs SET request = $1::jsonb WHERE id = $2', [JSON.stringify(storedRequest), id]);
  const step = await app.services.jobsWorker.runOnce();
  expect(step?.jobId).toBe(id);
  return (await app.inject({ method: 'GET', url: `/v1/jobs/${id}`, headers: agent.auth })).json<Record<string, any>>();
}

/** A copy without `elapsed_ms` fields (at any depth): the only figures allowed to differ between runs. */
function withoutTimings(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(withoutTimings);
  if (v === null || typeof v !== 'object') return v;
  return Object.fromEntries(
    Object.entries(v)
      .filter(([k]) => k !== 'elapsed_ms')
      .map(([k, x]) => [k, withoutTimings(x)]),
  );
}

/** The compute tasks an app ran (the port calls the pool whatever its size). */
const watchTasks = (app: App) => vi.spyOn(app.compute, 'run');

describe('jobs capabilities on the compute pool', () => {
  it('optimize, simulate and measured/auto coupling: the same result object in a thread as in-process', async () => {
    expect(pooled.compute.threads).toBe(1);
    expect(inProcess.compute.threads).toBe(0);
    const requests: Array<[string, Record<string, unknown>]> = [
      ['circuit.optimize', { circuit: getExample('optimizable'), profile: 'balanced' }],
      ['circuit.optimize', { circuit: busyCircuit(5, 120, 3), profile: 'safe', backend_hint: 'provider-one' }],
      ['circuit.simulate', { circuit: spread, shots: 3000, seed: 424242 }],
      [
        'coupling.analyze',
        {
          circuit: ghz3,
          mode: 'measured',
          pairs: [
            [0, 1],
            [0, 2],
          ],
        },
      ],
      ['coupling.analyze', { circuit: ghz3, mode: 'auto' }],
    ];
    const pooledTasks = watchTasks(pooled);
    const inProcessTasks = watchTasks(inProcess);
    for (const [capability, request] of requests) {
      const a = await runJob(pooled, pa, capability, request);
      const b = await runJob(inProcess, ia, capability, request);
      expect(a.status, JSON.stringify(a)).toBe('completed');
      expect(b.status, JSON.stringify(b)).toBe('completed');
      // Only wall-clock figures may differ.
      expect(withoutTimings(a.result)).toEqual(withoutTimings(b.result));
      expect(a.quoted_price).toBe(b.quoted_price);
    }
    const tasks = ['optimize', 'optimize', 'simulate', 'coupling.analyze', 'coupling.analyze'];
    expect(pooledTasks.mock.calls.map((c) => c[0])).toEqual(tasks);
    expect(inProcessTasks.mock.calls.map((c) => c[0])).toEqual(tasks);
    // Spot checks that these are real results.
    const sim = await runJob(pooled, pa, 'circuit.simulate', { circuit: spread, shots: 3000, seed: 424242 });
    expect(Object.values(sim.result.counts as Record<string, number>).reduce((x, y) => x + y, 0)).toBe(3000);
    expect(Object.keys(sim.result.counts).length).toBeGreaterThan(4);
    expect(sim.result.seed).toBe(424242);
  });

  it('qualitative coupling stays on the event loop (structure only)', async () => {
    const tasks = watchTasks(pooled);
    const done = await runJob(pooled, pa, 'coupling.analyze', { circuit: ghz3, mode: 'qualitative' });
    expect(done.status).toBe('completed');
    expect(done.result.mode_used).toBe('qualitative');
    expect(tasks).not.toHaveBeenCalled();
  });

  it('the event loop answers while an aggressive optimize job runs in a thread', async () => {
    let reached!: () => void;
    const started = new Promise<void>((r) => (reached = r));
    const run = pooled.compute.run.bind(pooled.compute);
    vi.spyOn(pooled.compute, 'run').mockImplementation((task, input, opts) => {
      const p = run(task, input, opts);
      if (task === 'optimize') reached();
      return p;
    });
    const s = await submit(pooled, pa, { capability_id: 'circuit.optimize', request: { circuit: busyCircuit(), profile: 'aggressive' }, idempotency_key: key('busy'), max_total_price: '1.000000' });
    expect(s.statusCode, s.body).toBe(202);
    const finished: string[] = [];
    const job = pooled.services.jobsWorker.runOnce().then((r) => {
      finished.push('job');
      return r;
    });
    // In-process the capability would hold the event loop from here to the end of the optimization.
    await Promise.race([started, job]);
    const health = await pooled.inject({ method: 'GET', url: '/healthz' });
    finished.push('healthz');
    expect(health.statusCode).toBe(200);
    expect(await job).toEqual({ jobId: s.json().job_id, status: 'completed' });
    expect(finished).toEqual(['healthz', 'job']);
  });

  it('a domain error of a stored job fails it with the same error_code pooled or in-process; nothing is charged', async () => {
    // Submission refuses pairs outside the circuit; a job stored before that check is refused by the
    // worker's own prepare, before any thread (AppErrors crossing threads: tests/foundation/compute-pool).
    const request = { circuit: ghz3, mode: 'measured', pairs: [[0, 1]] };
    const stored = { ...request, pairs: [[0, 7]] };
    const results = [];
    for (const [app, agent] of [
      [pooled, pa],
      [inProcess, ia],
    ] as const) {
      const tasks = watchTasks(app);
      const before = await balance(app, agent);
      const j = await runJob(app, agent, 'coupling.analyze', request, stored);
      expect(tasks).not.toHaveBeenCalled();
      expect(j).toMatchObject({ status: 'failed', error_code: 'COUPLING_PAIR_INVALID', receipt: null });
      expect(await balance(app, agent)).toEqual(before);
      results.push({ code: j.error_code, message: j.error_message });
    }
    expect(results[0]).toEqual(results[1]);
  });

  it('a compute thread that dies fails the job as CAPABILITY_FAILED: nothing charged, the hold released', async () => {
    // A real thread death: the pool's own handling, on a stand-in worker that exits on "exit".
    const crashing = new ThreadPool({ threads: 1, workerUrl: new URL('../foundation/fixtures/toy-compute-worker.js', import.meta.url) });
    try {
      const tasks = vi.spyOn(pooled.compute, 'run').mockImplementation(() => crashing.run('exit', null) as never);
      const before = await balance(pooled, pa);
      for (const [capability, request] of [
        ['circuit.simulate', { circuit: spread, shots: 100, seed: 1 }],
        ['circuit.optimize', { circuit: getExample('optimizable'), profile: 'safe' }],
        ['coupling.analyze', { circuit: ghz3, mode: 'auto' }],
      ] as const) {
        const j = await runJob(pooled, pa, capability, request);
        expect(j).toMatchObject({ status: 'failed', error_code: 'CAPABILITY_FAILED', receipt: null });
        expect(await balance(pooled, pa)).toEqual(before);
      }
      expect(tasks).toHaveBeenCalledTimes(3);
    } finally {
      await crashing.close();
    }
    // The app's own pool is untouched and keeps serving jobs.
    vi.restoreAllMocks();
    expect((await runJob(pooled, pa, 'circuit.simulate', { circuit: spread, shots: 10, seed: 2 })).status).toBe('completed');
  });
});
