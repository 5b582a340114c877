import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/http/app-types.js';
import { buildTestApp, signUp } from '../helpers/app.js';
import { openapiDocument, ResponseChecker } from '../helpers/openapi.js';
import { expireDueHolds, fundAccount } from '../helpers/ledger.js';
import { bell, expectWallet } from './helpers.js';

/**
 * Result types on hardware (issue 22 item 2, docs/execution.md#results-on-hardware): memory and
 * expectation on an emulated device (noise off, so the estimate can be checked against the
 * simulator's exact value), one task per qubit-wise commuting group, refusals before anything
 * is taken; the wallet, `ledger check` and the execution invariants after every step.
 */
describe('memory and expectation on hardware', () => {
  let app: App;
  let checker: ResponseChecker;
  beforeAll(async () => {
    app = await buildTestApp({ EXECUTION_EMULATED_NOISE: 'off' });
    checker = new ResponseChecker(await openapiDocument(app));
  });
  afterAll(async () => {
    await app.close();
  });

  type Auth = { authorization: string };
  const SHOTS = 2000;
  // p2-grid-9: $0.30 per task + $0.0009 per shot → $2.10 per task at 2000 shots.
  const PER_TASK = 2_100_000;
  const usd = (m: number) => (m / 1e6).toFixed(6);

  async function hold(auth: Auth, tasks: number, shots = SHOTS, results: Record<string, unknown> = {}) {
    const q = await app.inject({ method: 'POST', url: '/v1/billing/hardware/quote', headers: auth, payload: { provider: 'provider-two', device: 'p2-grid-9', shots, tasks, ...results } });
    expect(q.statusCode, q.body).toBe(200);
    const h = await app.inject({ method: 'POST', url: '/v1/billing/hardware/hold', headers: auth, payload: { quote_id: q.json().data.quote_id } });
    expect(h.statusCode, h.body).toBe(201);
    return h.json().data as { job_id: string; amount: string };
  }
  const cont = (auth: Auth, id: string, payload: Record<string, unknown>) =>
    app.inject({ method: 'POST', url: `/v1/execute/provider-two/held/${id}`, headers: auth, payload: { seed: 11, ...payload } });
  const job = async (auth: Auth, id: string) => {
    const r = await app.inject({ method: 'GET', url: `/v1/execute/provider-two/${id}`, headers: auth });
    expect(checker.check('GET', `/v1/execute/provider-two/${id}`, r.statusCode, r.headers, r.body)).toEqual([]);
    return r.json().data;
  };
  const histogram = (memory: string[]) => memory.reduce<Record<string, number>>((a, k) => ({ ...a, [k]: (a[k] ?? 0) + 1 }), {});

  // A 3-qubit state where X, Y and Z all matter (the unit test's, in the wire format).
  const state = {
    schema: '0.2',
    num_qubits: 3,
    num_clbits: 3,
    gates: [
      { op: 'ry', qubits: [0], params: [0.7] },
      { op: 'cx', qubits: [0, 1] },
      { op: 'rx', qubits: [2], params: [1.1] },
      { op: 'cz', qubits: [1, 2] },
      { op: 'h', qubits: [1] },
      { op: 's', qubits: [2] },
    ],
    measurements: [0, 1, 2].map((q) => ({ qubit: q, clbit: q })),
  };
  // Three qubit-wise commuting groups: {ZZI, IZI}, {XIX}, {IYZ}; III needs none.
  const observable = [
    { pauli: 'ZZI', coeff: 0.5 },
    { pauli: 'XIX', coeff: -0.8 },
    { pauli: 'IYZ', coeff: 1.3 },
    { pauli: 'III', coeff: 0.25 },
    { pauli: 'IZI', coeff: -0.4 },
  ];

  async function exactOnSimulator(auth: Auth, circuit: unknown, observables: unknown) {
    const r = await app.inject({
      method: 'POST',
      url: '/v1/execute/provider-two',
      headers: auth,
      payload: { circuit, shots: 10, result_types: ['expectation'], observables, client_token: `exact-${Math.random()}` },
    });
    expect(r.statusCode, r.body).toBe(200);
    return r.json().data.results.expectation as { value: number; terms: number[]; kind: string };
  }

  it('expectation: one task per group, estimated within 4 standard errors of the exact value; a continuation needing more tasks than left is refused with nothing taken', async () => {
    const u = await signUp(app);
    await fundAccount(app, u.accountId, 30_000_000n);
    const held = await hold(u.auth, 5);
    expect(held.amount).toBe(usd(5 * PER_TASK));
    await expectWallet(app, u.auth, usd(30_000_000 - 5 * PER_TASK), usd(5 * PER_TASK));

    const r = await cont(u.auth, held.job_id, { circuit: state, result_types: ['expectation'], observables: observable, client_token: 'exp-1' });
    expect(r.statusCode, r.body).toBe(202);
    expect(checker.check('POST', `/v1/execute/provider-two/held/${held.job_id}`, r.statusCode, r.headers, r.body)).toEqual([]);
    // Three groups → three tasks, one job holding their price.
    expect(r.json().data).toMatchObject({ job_id: held.job_id, status: 'queued', cost: { estimated: usd(3 * PER_TASK) } });
    const view = await job(u.auth, held.job_id);
    expect(view.cost.actual).toBeNull();
    // The same request under the same token is a replay; nothing more is taken.
    const again = await cont(u.auth, held.job_id, { circuit: state, result_types: ['expectation'], observables: observable, client_token: 'exp-1' });
    expect(again.statusCode).toBe(200);
    expect(again.json().data.job_id).toBe(held.job_id);
    await expectWallet(app, u.auth, usd(30_000_000 - 5 * PER_TASK), usd(5 * PER_TASK));

    // counts + memory + the same expectation: 1 + 3 tasks, only 2 left → 409, nothing taken.
    const over = await cont(u.auth, held.job_id, { circuit: state, result_types: ['counts', 'memory', 'expectation'], observables: observable, client_token: 'exp-over' });
    expect(over.statusCode).toBe(409);
    expect(over.json().error).toMatchObject({ code: 'EXECUTION_HELD_TASKS_EXCEEDED', details: { tasks: 5, tasks_used: 3, tasks_remaining: 2, requested: 4 } });
    await expectWallet(app, u.auth, usd(30_000_000 - 5 * PER_TASK), usd(5 * PER_TASK));

    // counts + memory of a Bell pair: one task.
    const mem = await app.inject({
      method: 'POST',
      url: `/v1/execute/provider-two/held/${held.job_id}/batch`,
      headers: u.auth,
      payload: { circuits: [bell], result_types: ['counts', 'memory'], seed: 3, client_token: 'mem-1' },
    });
    expect(mem.statusCode, mem.body).toBe(202);
    expect(mem.json().data.held_job).toMatchObject({ tasks_used: 4, tasks_remaining: 1 });
    const memId = mem.json().data.jobs[0].job_id as string;

    const steps = await app.services.executionWorker.drain();
    expect(steps.filter((s) => s.outcome === 'completed')).toHaveLength(2);
    const done = await job(u.auth, held.job_id);
    expect(done).toMatchObject({ status: 'completed', cost: { estimated: usd(3 * PER_TASK), actual: usd(3 * PER_TASK) } });
    const e = done.results.expectation;
    expect(done.results.result_types).toEqual(['expectation']);
    expect(done.results.counts).toEqual({});
    expect(e.kind).toBe('estimated');
    expect(e.groups.map((g: { basis: string; terms: number[] }) => [g.basis, g.terms])).toEqual([
      ['ZZI', [0, 4]],
      ['XIX', [1]],
      ['IYZ', [2]],
    ]);
    for (const g of e.groups) {
      expect(g.shots).toBe(SHOTS);
      expect(Object.values(g.counts as Record<string, number>).reduce((a, b) => a + b, 0)).toBe(SHOTS);
    }
    expect(e.terms[3]).toBe(0.25);
    const exact = await exactOnSimulator(u.auth, state, observable);
    expect(exact.kind).toBe('exact');
    expect(e.stderr).toBeGreaterThan(0.005);
    expect(Math.abs(e.value - exact.value)).toBeLessThan(4 * e.stderr);
    expect(e.value).toBeCloseTo(
      e.terms.reduce((a: number, b: number) => a + b, 0),
      12,
    );

    const m = await job(u.auth, memId);
    expect(m).toMatchObject({ status: 'completed', cost: { actual: usd(PER_TASK) } });
    expect(m.results.memory).toHaveLength(SHOTS);
    expect(histogram(m.results.memory)).toEqual(m.results.counts);
    // Noise off: a Bell pair reads 00 or 11 only.
    expect(Object.keys(m.results.counts).sort()).toEqual(['00', '11']);
    await expectWallet(app, u.auth, usd(30_000_000 - 5 * PER_TASK), usd(PER_TASK));
    await expireDueHolds(app.db, { now: new Date(Date.now() + 2 * 24 * 3600 * 1000) });
    await expectWallet(app, u.auth, usd(30_000_000 - 4 * PER_TASK), '0.000000');
  });

  it('a sweep with an expectation: each point one job of two group tasks; the standard error is the theoretical one', async () => {
    const u = await signUp(app);
    await fundAccount(app, u.accountId, 30_000_000n);
    // Quoted as 2 runs of an expectation of Z + X: 2 groups each → 4 tasks.
    const held = await hold(u.auth, 2, SHOTS, {
      result_types: ['expectation'],
      observables: [
        { pauli: 'Z', coeff: 1 },
        { pauli: 'X', coeff: 1 },
      ],
    });
    expect(held.amount).toBe(usd(4 * PER_TASK));
    const rotation = {
      schema: '0.2',
      num_qubits: 1,
      num_clbits: 1,
      parameters: ['theta'],
      gates: [{ op: 'ry', qubits: [0], params: ['theta'] }],
      measurements: [{ qubit: 0, clbit: 0 }],
    };
    const points = [{ theta: Math.PI / 3 }, { theta: 0 }];
    const r = await app.inject({
      method: 'POST',
      url: `/v1/execute/provider-two/held/${held.job_id}/batch`,
      headers: u.auth,
      payload: {
        circuit: rotation,
        parameter_values: points,
        result_types: ['expectation'],
        observables: [
          { pauli: 'Z', coeff: 1 },
          { pauli: 'X', coeff: 1 },
        ],
        seed: 5,
        client_token: 'sweep-exp',
      },
    });
    expect(r.statusCode, r.body).toBe(202);
    expect(checker.check('POST', `/v1/execute/provider-two/held/${held.job_id}/batch`, r.statusCode, r.headers, r.body)).toEqual([]);
    const a = r.json().data;
    expect(a.held_job).toMatchObject({ tasks_used: 4, tasks_remaining: 0, status: 'continued' });
    expect(a.jobs.map((j: { cost: { estimated: string } }) => j.cost.estimated)).toEqual([usd(2 * PER_TASK), usd(2 * PER_TASK)]);
    await app.services.executionWorker.drain();
    const results = [];
    for (const j of a.jobs as { job_id: string }[]) {
      const v = await job(u.auth, j.job_id);
      expect(v).toMatchObject({ status: 'completed', cost: { actual: usd(2 * PER_TASK) } });
      results.push(v.results.expectation);
    }
    // ⟨Z + X⟩ = cos θ + sin θ; Var = (1 − cos²θ) + (1 − sin²θ) = 1 per shot of each group, so SE = 1/√shots at every θ.
    for (const [k, p] of points.entries()) {
      const e = results[k];
      expect(e.groups).toHaveLength(2);
      expect(e.stderr).toBeGreaterThan(0.9 / Math.sqrt(SHOTS));
      expect(e.stderr).toBeLessThan(1.1 / Math.sqrt(SHOTS));
      expect(Math.abs(e.value - (Math.cos(p.theta) + Math.sin(p.theta)))).toBeLessThan(4 * e.stderr);
    }
    // θ = 0: ⟨Z⟩ is exactly 1 (every shot reads 0), its group has no spread.
    expect(results[1].terms[0]).toBe(1);
    expect(results[1].groups[0].stderr).toBe(0);
    await expectWallet(app, u.auth, usd(30_000_000 - 4 * PER_TASK), '0.000000');
  });

  it('a quote counts the tasks of an expectation run: one per group, one more with counts or memory', async () => {
    const u = await signUp(app);
    const quote = (payload: Record<string, unknown>) =>
      app.inject({ method: 'POST', url: '/v1/billing/hardware/quote', headers: u.auth, payload: { provider: 'provider-two', device: 'p2-grid-9', shots: 100, ...payload } });
    const tasksOf = async (payload: Record<string, unknown>) => {
      const r = await quote(payload);
      expect(r.statusCode, r.body).toBe(200);
      return r.json().data.tasks as number;
    };
    expect(await tasksOf({ result_types: ['expectation'], observables: observable })).toBe(3);
    expect(await tasksOf({ result_types: ['counts', 'expectation'], observables: observable, tasks: 2 })).toBe(8);
    expect(await tasksOf({ result_types: ['memory'] })).toBe(1);
    expect(await tasksOf({ result_types: ['expectation'], observables: [{ pauli: 'II', coeff: 2 }] })).toBe(1);
    const bad = await quote({
      result_types: ['expectation'],
      observables: [
        { pauli: 'ZZ', coeff: 1 },
        { pauli: 'Z', coeff: 1 },
      ],
    });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().error).toMatchObject({ code: 'EXECUTION_RESULT_TYPES_INVALID', details: [{ path: '/observables/1/pauli', code: 'OBSERVABLE_INVALID' }] });
    const many = await quote({ result_types: ['expectation'], observables: observable, tasks: 400 });
    expect(many.statusCode).toBe(400);
    expect(many.json().error).toMatchObject({ code: 'VALIDATION_FAILED', details: [{ path: '/tasks', code: 'TOO_MANY_TASKS' }] });
  });

  it('result types hardware cannot give, and malformed ones, are refused before anything is taken', async () => {
    const u = await signUp(app);
    await fundAccount(app, u.accountId, 30_000_000n);
    const held = await hold(u.auth, 2);
    const refuse = async (payload: Record<string, unknown>, status: number, code: string, problem: { path: string; code: string }) => {
      const r = await cont(u.auth, held.job_id, { circuit: bell, client_token: `bad-${Math.random()}`, ...payload });
      expect(r.statusCode, r.body).toBe(status);
      expect(r.json().error.code).toBe(code);
      expect(r.json().error.details).toContainEqual(expect.objectContaining(problem));
    };
    await refuse({ result_types: ['probabilities'] }, 422, 'EXECUTION_RESULT_TYPE_UNSUPPORTED', { path: '/result_types/0', code: 'RESULT_TYPE_UNSUPPORTED' });
    await refuse({ result_types: ['counts', 'statevector'] }, 422, 'EXECUTION_RESULT_TYPE_UNSUPPORTED', { path: '/result_types/1', code: 'RESULT_TYPE_UNSUPPORTED' });
    // A measurement the circuit acts on afterwards cannot be moved into another basis.
    const midCircuit = {
      schema: '0.2',
      num_qubits: 2,
      num_clbits: 2,
      gates: [
        { op: 'h', qubits: [0] },
        { op: 'measure', qubits: [0], clbits: [0] },
        { op: 'cx', qubits: [0, 1] },
      ],
    };
    await refuse({ circuit: midCircuit, result_types: ['expectation'], observables: [{ pauli: 'XZ', coeff: 1 }] }, 422, 'EXECUTION_RESULT_TYPE_UNSUPPORTED', {
      path: '/result_types/0',
      code: 'RESULT_TYPE_UNSUPPORTED',
    });
    await refuse({ result_types: ['expectation'] }, 400, 'EXECUTION_RESULT_TYPES_INVALID', { path: '/observables', code: 'OBSERVABLES_REQUIRED' });
    await refuse({ observables: [{ pauli: 'ZZ', coeff: 1 }] }, 400, 'EXECUTION_RESULT_TYPES_INVALID', { path: '/observables', code: 'OBSERVABLES_WITHOUT_EXPECTATION' });
    await refuse({ result_types: ['expectation'], observables: [{ pauli: 'ZZZ', coeff: 1 }] }, 400, 'EXECUTION_RESULT_TYPES_INVALID', { path: '/observables/0/pauli', code: 'OBSERVABLE_INVALID' });
    const page = await app.inject({ method: 'GET', url: `/v1/execute/provider-two/${held.job_id}`, headers: u.auth });
    expect(page.json().data).toMatchObject({ status: 'held', results: null });
    await expectWallet(app, u.auth, usd(30_000_000 - 2 * PER_TASK), usd(2 * PER_TASK));
  });

  it('memory has the simulator caps (MEMORY_TOO_LARGE) on hardware too', async () => {
    const u = await signUp(app);
    await fundAccount(app, u.accountId, 30_000_000n);
    const held = await hold(u.auth, 1, 10_001);
    const r = await cont(u.auth, held.job_id, { circuit: bell, result_types: ['memory'], client_token: 'mem-big' });
    expect(r.statusCode).toBe(400);
    expect(r.json().error).toMatchObject({ code: 'EXECUTION_RESULT_TYPES_INVALID', details: [{ path: '/result_types', code: 'MEMORY_TOO_LARGE' }] });
    await expectWallet(app, u.auth, usd(30_000_000 - 300_000 - 10_001 * 900), usd(300_000 + 10_001 * 900));
  });
});
