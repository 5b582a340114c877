import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/http/app-types.js';
import { buildTestApp, signUp } from '../helpers/app.js';
import { openapiDocument, ResponseChecker } from '../helpers/openapi.js';
import { expireDueHolds, fundAccount } from '../helpers/ledger.js';
import { bell, expectWallet, holdGridTasks } from './helpers.js';

/**
 * A hardware sweep (issue 22 items 1 and 4, docs/execution.md#hardware-sweeps): a held job for N
 * tasks continued with one parameterized circuit and k ≤ N points, each point one task priced
 * from the hold, results per point in order; the wallet and `ledger check` after every step.
 */
describe('hardware sweeps over a hold for N tasks', () => {
  let app: App;
  let checker: ResponseChecker;
  beforeAll(async () => {
    app = await buildTestApp();
    checker = new ResponseChecker(await openapiDocument(app));
  });
  afterAll(async () => {
    await app.close();
  });

  // ry(theta) then measure: theta = 0 reads 0, theta = pi reads 1 (up to the emulated device's noise).
  const rotation = {
    schema: '0.2',
    num_qubits: 1,
    num_clbits: 1,
    parameters: ['theta'],
    gates: [{ op: 'ry', qubits: [0], params: ['theta'] }],
    measurements: [{ qubit: 0, clbit: 0 }],
  };

  const holdTasks = (auth: { authorization: string }, tasks: number) => holdGridTasks(app, auth, tasks);
  const sweep = (auth: { authorization: string }, jobId: string, payload: Record<string, unknown>) =>
    app.inject({ method: 'POST', url: `/v1/execute/provider-two/held/${jobId}/batch`, headers: auth, payload: { seed: 7, ...payload } });
  const ones = (counts: Record<string, number>) => counts['1'] ?? 0;

  it('a hold for 5 tasks runs a 3-point sweep, refuses 3 more points, runs 2: each point one task, results in point order', async () => {
    const u = await signUp(app);
    await fundAccount(app, u.accountId, 5_000_000n);
    const held = await holdTasks(u.auth, 5);
    expect(held.amount).toBe('1.950000');
    await expectWallet(app, u.auth, '3.050000', '1.950000');

    const first = await sweep(u.auth, held.job_id, { circuit: rotation, parameter_values: [{ theta: 0 }, { theta: Math.PI }, { theta: Math.PI / 2 }], client_token: 'sweep-1' });
    expect(first.statusCode, first.body).toBe(202);
    expect(checker.check('POST', `/v1/execute/provider-two/held/${held.job_id}/batch`, first.statusCode, first.headers, first.body)).toEqual([]);
    const a = first.json().data;
    expect(a.held_job).toMatchObject({ tasks: 5, tasks_used: 3, tasks_remaining: 2, price_per_task: '0.390000' });
    expect(a.jobs).toHaveLength(3);
    // The same sweep under the same token is a replay: the same jobs, nothing taken again.
    const again = await sweep(u.auth, held.job_id, { circuit: rotation, parameter_values: [{ theta: 0 }, { theta: Math.PI }, { theta: Math.PI / 2 }], client_token: 'sweep-1' });
    expect(again.statusCode).toBe(200);
    expect(again.json().data.jobs.map((j: { job_id: string }) => j.job_id)).toEqual(a.jobs.map((j: { job_id: string }) => j.job_id));

    // More points than tasks left → 409 naming what is left; nothing taken.
    const over = await sweep(u.auth, held.job_id, { circuit: rotation, parameter_values: [{ theta: 1 }, { theta: 2 }, { theta: 3 }], client_token: 'sweep-over' });
    expect(over.statusCode).toBe(409);
    expect(over.json().error).toMatchObject({ code: 'EXECUTION_HELD_TASKS_EXCEEDED', details: { tasks_remaining: 2, requested: 3 } });

    const second = await sweep(u.auth, held.job_id, { circuit: rotation, parameter_values: [{ theta: Math.PI }, { theta: 0 }], client_token: 'sweep-2' });
    expect(second.statusCode).toBe(202);
    const b = second.json().data;
    expect(b.held_job).toMatchObject({ tasks_used: 5, tasks_remaining: 0 });
    await expectWallet(app, u.auth, '3.050000', '1.950000');

    const steps = await app.services.executionWorker.drain();
    expect(steps.filter((s) => s.outcome === 'completed')).toHaveLength(5);
    const results: Record<string, number>[] = [];
    for (const j of [...a.jobs, ...b.jobs] as { job_id: string }[]) {
      const r = (await app.inject({ method: 'GET', url: `/v1/execute/provider-two/${j.job_id}`, headers: u.auth })).json().data;
      expect(r).toMatchObject({ status: 'completed', device: 'p2-grid-9', cost: { actual: '0.390000' } });
      results.push(r.results.counts);
    }
    // Point order: 0, pi, pi/2 | pi, 0.
    expect(ones(results[0]!)).toBeLessThan(20);
    expect(ones(results[1]!)).toBeGreaterThan(80);
    expect(ones(results[2]!)).toBeGreaterThan(20);
    expect(ones(results[2]!)).toBeLessThan(80);
    expect(ones(results[3]!)).toBeGreaterThan(80);
    expect(ones(results[4]!)).toBeLessThan(20);
    await expectWallet(app, u.auth, '3.050000', '0.000000');
  });

  it('bad sweeps are refused before anything is taken; unused tasks are released at expiry', async () => {
    const u = await signUp(app);
    await fundAccount(app, u.accountId, 5_000_000n);
    const held = await holdTasks(u.auth, 2);
    const unbound = await sweep(u.auth, held.job_id, { circuit: rotation, parameter_values: [{ theta: 1 }, { phi: 2 }], client_token: 'bad-1' });
    expect(unbound.statusCode).toBe(400);
    expect(unbound.json().error.code).toBe('EXECUTION_PARAMETERS_INVALID');
    expect(
      unbound
        .json()
        .error.details.map((p: { path: string; code: string }) => `${p.code} ${p.path}`)
        .sort(),
    ).toEqual(['PARAMETER_UNBOUND /parameter_values/1', 'PARAMETER_UNKNOWN /parameter_values/1/phi']);
    const both = await sweep(u.auth, held.job_id, { circuits: [bell], circuit: rotation, parameter_values: [{ theta: 1 }], client_token: 'bad-2' });
    expect(both.statusCode).toBe(400);
    expect(both.json().error.details[0]).toMatchObject({ code: 'SWEEP_FORM_INVALID', path: '/circuits' });
    const plain = await sweep(u.auth, held.job_id, { circuit: bell, parameter_values: [{ theta: 1 }], client_token: 'bad-3' });
    expect(plain.statusCode).toBe(400);
    expect(plain.json().error.details[0]).toMatchObject({ code: 'PARAMETERS_NOT_DECLARED', path: '/parameter_values' });
    const neither = await sweep(u.auth, held.job_id, { client_token: 'bad-4' });
    expect(neither.statusCode).toBe(400);
    expect(neither.json().error.details[0]).toMatchObject({ code: 'SWEEP_FORM_INVALID', path: '/circuits' });
    await expectWallet(app, u.auth, '4.220000', '0.780000');

    // One point used; the other task's money returns at expiry.
    const one = await sweep(u.auth, held.job_id, { circuit: rotation, parameter_values: [{ theta: 0 }], client_token: 'ok-1' });
    expect(one.statusCode).toBe(202);
    await app.services.executionWorker.drain();
    await expectWallet(app, u.auth, '4.220000', '0.390000');
    await expireDueHolds(app.db, { now: new Date(Date.now() + 2 * 24 * 3600 * 1000) });
    await expectWallet(app, u.auth, '4.610000', '0.000000');
  });

  it('a plain hardware run with parameter_values still points to the held sweep', async () => {
    const u = await signUp(app);
    const r = await app.inject({
      method: 'POST',
      url: '/v1/execute/provider-two',
      headers: u.auth,
      payload: { device: 'p2-grid-9', circuit: rotation, parameter_values: [{ theta: 1 }], client_token: 'plain-hw' },
    });
    expect(r.statusCode).toBe(409);
    expect(r.json().error).toMatchObject({ code: 'EXECUTION_SWEEP_NOT_SUPPORTED' });
    expect(r.json().error.message).toMatch(/held\/\{job_id\}\/batch/);
  });
});
