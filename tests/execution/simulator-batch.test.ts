import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/http/app-types.js';
import { buildTestApp, signUp } from '../helpers/app.js';
import { openapiDocument, ResponseChecker } from '../helpers/openapi.js';
import { bell, expectExecutionInvariants, ghz3 } from './helpers.js';

/**
 * Batches on the platform interface (issue 22 item 3, docs/execution.md#batches): up to 100
 * circuits on a simulator device in one request, each its own job, each result or error per
 * item; the client_token covers the batch as a whole. (Simulator runs are free; the paid batch
 * is a hold for N tasks continued by …/held/{job_id}/batch, tests/execution/held-tasks.test.ts.)
 */
describe('POST /v1/execute/{provider}/batch', () => {
  let app: App;
  let checker: ResponseChecker;
  beforeAll(async () => {
    app = await buildTestApp();
    checker = new ResponseChecker(await openapiDocument(app));
  });
  afterAll(async () => {
    await app.close();
  });

  const bad = { schema: '0.2', num_qubits: 2, num_clbits: 2, gates: [{ op: 'cx', qubits: [0, 0] }], measurements: [{ qubit: 0, clbit: 0 }] };
  const post = (auth: { authorization: string }, provider: string, payload: Record<string, unknown>) => app.inject({ method: 'POST', url: `/v1/execute/${provider}/batch`, headers: auth, payload });

  it('one bad circuit among good ones: per-item jobs and errors; a replay returns the same jobs', async () => {
    const u = await signUp(app);
    const body = { circuits: [bell, bad, ghz3], shots: 200, seed: 3, client_token: 'sb-1' };
    const r = await post(u.auth, 'provider-two', body);
    expect(r.statusCode).toBe(200);
    expect(checker.check('POST', '/v1/execute/provider-two/batch', r.statusCode, r.headers, r.body)).toEqual([]);
    const d = r.json().data;
    expect(d).toMatchObject({ provider: 'provider-two', device: 'p2-local-simulator', completed: 2, failed: 1, replayed: false });
    expect(d.items.map((x: { index: number; status: string }) => [x.index, x.status])).toEqual([
      [0, 'completed'],
      [1, 'failed'],
      [2, 'completed'],
    ]);
    expect(d.items[1]).toMatchObject({ job: null, error: { code: 'CIRCUIT_INVALID' } });
    for (const i of [0, 2]) {
      const job = d.items[i].job;
      expect(job).toMatchObject({ status: 'completed', seed: 3 + i, cost: { actual: '0.000000' }, client_token: `sb-1#${i}` });
      expect(Object.values(job.results.counts as Record<string, number>).reduce((s, n) => s + n, 0)).toBe(200);
    }
    // The same batch and token → the same jobs; another batch under the token → 409.
    const again = (await post(u.auth, 'provider-two', body)).json().data;
    expect(again.replayed).toBe(true);
    expect(again.items.map((x: { job: { job_id: string } | null }) => x.job?.job_id ?? null)).toEqual(d.items.map((x: { job: { job_id: string } | null }) => x.job?.job_id ?? null));
    const other = await post(u.auth, 'provider-two', { ...body, circuits: [bell, ghz3] });
    expect(other.statusCode).toBe(409);
    expect(other.json().error.code).toBe('EXECUTION_CLIENT_TOKEN_REUSED');
    // A single run with the same circuit and seed gives the same counts.
    const single = (await app.inject({ method: 'POST', url: '/v1/execute/provider-two', headers: u.auth, payload: { circuit: ghz3, shots: 200, seed: 5, client_token: 'sb-single' } })).json().data;
    expect(single.results.counts).toEqual(d.items[2].job.results.counts);
    await expectExecutionInvariants(app);
  });

  it('bounded to 100 circuits; a hardware device answers the hold steps for the whole batch', async () => {
    const u = await signUp(app);
    expect((await post(u.auth, 'provider-one', { circuits: Array.from({ length: 101 }, () => bell), shots: 10, client_token: 'sb-big' })).statusCode).toBe(400);
    const hw = await post(u.auth, 'provider-two', { circuits: [bell, ghz3], device: 'p2-ion-11', shots: 10, client_token: 'sb-hw' });
    expect(hw.statusCode).toBe(409);
    expect(hw.json().error.code).toBe('EXECUTION_HOLD_REQUIRED');
    const full = await post(u.auth, 'provider-one', { circuits: Array.from({ length: 100 }, () => bell), shots: 10, client_token: 'sb-100' });
    expect(full.statusCode).toBe(200);
    expect(full.json().data).toMatchObject({ device: 'p1-simulator', completed: 100, failed: 0 });
    await expectExecutionInvariants(app);
  });
});
