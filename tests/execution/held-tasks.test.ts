import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/http/app-types.js';
import { buildTestApp, signUp } from '../helpers/app.js';
import { openapiDocument, ResponseChecker } from '../helpers/openapi.js';
import { expireDueHolds, fundAccount } from '../helpers/ledger.js';
import { bell, expectWallet, ghz3, holdGridTasks } from './helpers.js';

/**
 * Holds for N tasks (issue 22 item 4, docs/execution.md#holds-for-n-tasks): a hold for `tasks: N`
 * is continued with up to N circuits in one or several continuations; each run captures one task
 * price, the untaken tasks stay held and are released at expiry; racing continuations never
 * take more than N. The wallet and the ledger invariants (`ledger check`) after every step.
 */
describe('holds for N tasks', () => {
  let app: App;
  let checker: ResponseChecker;
  beforeAll(async () => {
    app = await buildTestApp();
    checker = new ResponseChecker(await openapiDocument(app));
  });
  afterAll(async () => {
    await app.close();
  });

  const holdTasks = (auth: { authorization: string }, tasks: number) => holdGridTasks(app, auth, tasks);
  const cont = (auth: { authorization: string }, jobId: string, circuit: unknown, token: string) =>
    app.inject({ method: 'POST', url: `/v1/execute/provider-two/held/${jobId}`, headers: auth, payload: { circuit, client_token: token, seed: 1 } });
  const batch = (auth: { authorization: string }, jobId: string, circuits: unknown[], token: string) =>
    app.inject({ method: 'POST', url: `/v1/execute/provider-two/held/${jobId}/batch`, headers: auth, payload: { circuits, client_token: token, seed: 1 } });

  it('continued in two continuations, each run captures one task price, the rest released at expiry', async () => {
    const u = await signUp(app);
    await fundAccount(app, u.accountId, 5_000_000n);
    const held = await holdTasks(u.auth, 3);
    expect(held.amount).toBe('1.170000');
    await expectWallet(app, u.auth, '3.830000', '1.170000');

    // First continuation: one circuit, the held job's first task (its run keeps the held job's id).
    const one = await cont(u.auth, held.job_id, bell, 'n-first');
    expect(one.statusCode).toBe(202);
    expect(one.json().data).toMatchObject({ job_id: held.job_id, status: 'queued', cost: { estimated: '0.390000' } });
    await expectWallet(app, u.auth, '3.830000', '1.170000');

    // More circuits than tasks left → 409 naming what is left; nothing taken.
    const over = await batch(u.auth, held.job_id, [bell, ghz3, bell], 'n-over');
    expect(over.statusCode).toBe(409);
    expect(over.json().error).toMatchObject({ code: 'EXECUTION_HELD_TASKS_EXCEEDED', details: { tasks: 3, tasks_used: 1, tasks_remaining: 2, requested: 3 } });

    // Second continuation: one more through the batch route; one task stays held.
    const two = await batch(u.auth, held.job_id, [ghz3], 'n-second');
    expect(two.statusCode).toBe(202);
    expect(checker.check('POST', `/v1/execute/provider-two/held/${held.job_id}/batch`, two.statusCode, two.headers, two.body)).toEqual([]);
    // Location names the held job, whose tasks show what the batch took.
    expect(two.headers['location']).toBe(`/v1/execute/provider-two/${held.job_id}`);
    expect((await app.inject({ method: 'GET', url: String(two.headers['location']), headers: u.auth })).json().data).toMatchObject({ job_id: held.job_id });
    const b = two.json().data;
    expect(b.held_job).toMatchObject({ status: 'held', tasks: 3, tasks_used: 2, tasks_remaining: 1, price_per_task: '0.390000' });
    expect(b.jobs).toHaveLength(1);
    expect(b.jobs[0].job_id).not.toBe(held.job_id);
    await expectWallet(app, u.auth, '3.830000', '1.170000');

    // Both run: each captures exactly one task price.
    const steps = await app.services.executionWorker.drain();
    expect(steps.map((s) => s.outcome)).toEqual(['completed', 'completed']);
    for (const id of [held.job_id, b.jobs[0].job_id]) {
      const j = (await app.inject({ method: 'GET', url: `/v1/execute/provider-two/${id}`, headers: u.auth })).json().data;
      expect(j).toMatchObject({ status: 'completed', cost: { actual: '0.390000' } });
    }
    await expectWallet(app, u.auth, '3.830000', '0.390000');

    // The third task is never used: its money returns when the hold expires.
    await expireDueHolds(app.db, { now: new Date(Date.now() + 2 * 24 * 3600 * 1000) });
    await expectWallet(app, u.auth, '4.220000', '0.000000');
    const late = await cont(u.auth, held.job_id, bell, 'n-late');
    expect(late.statusCode).toBe(409);
    expect(late.json().error).toMatchObject({ code: 'EXECUTION_HELD_JOB_NOT_CONTINUABLE', details: { status: 'expired' } });
  });

  it('one batch takes every task: a canceled run releases exactly its share; a replay returns the batch', async () => {
    const u = await signUp(app);
    await fundAccount(app, u.accountId, 5_000_000n);
    const held = await holdTasks(u.auth, 3);
    const r = await batch(u.auth, held.job_id, [bell, ghz3, bell], 'all-three');
    expect(r.statusCode).toBe(202);
    const b = r.json().data;
    expect(b.held_job).toMatchObject({ status: 'continued', tasks_used: 3, tasks_remaining: 0 });
    expect(b.jobs.map((j: { job_id: string }) => j.job_id)[0]).toBe(held.job_id);
    expect(new Set(b.jobs.map((j: { job_id: string }) => j.job_id)).size).toBe(3);
    await expectWallet(app, u.auth, '3.830000', '1.170000');

    // The same token and batch → the same jobs; the same token with another batch → 409.
    const again = await batch(u.auth, held.job_id, [bell, ghz3, bell], 'all-three');
    expect(again.statusCode).toBe(200);
    expect(again.json().data.replayed).toBe(true);
    expect(again.json().data.jobs.map((j: { job_id: string }) => j.job_id)).toEqual(b.jobs.map((j: { job_id: string }) => j.job_id));
    expect((await batch(u.auth, held.job_id, [bell, bell, bell], 'all-three')).json().error.code).toBe('EXECUTION_CLIENT_TOKEN_REUSED');
    // Used up: nothing more can be continued, and the held job cannot be released any more.
    expect((await cont(u.auth, held.job_id, bell, 'after')).json().error).toMatchObject({ code: 'EXECUTION_HELD_JOB_NOT_CONTINUABLE', details: { status: 'continued' } });

    // The middle run is canceled before it runs: its task's money returns at once.
    const middle = b.jobs[1].job_id as string;
    const c = await app.inject({ method: 'POST', url: `/v1/execute/provider-two/${middle}/cancel`, headers: u.auth });
    expect(c.json().data).toMatchObject({ status: 'failed', failure: { code: 'CANCELED' }, cost: { actual: '0.000000' } });
    await expectWallet(app, u.auth, '4.220000', '0.780000');
    expect((await app.services.executionWorker.drain()).map((s) => s.outcome)).toEqual(['completed', 'completed']);
    await expectWallet(app, u.auth, '4.220000', '0.000000');
  });

  it('racing continuations never take more than N tasks', async () => {
    const u = await signUp(app);
    await fundAccount(app, u.accountId, 10_000_000n);
    const held = await holdTasks(u.auth, 5);
    // Six requests of two circuits each (12 tasks asked) against a hold for 5: two win (4 tasks), the rest 409.
    const answers = await Promise.all(Array.from({ length: 6 }, (_, i) => batch(u.auth, held.job_id, [bell, ghz3], `race-${i}`)));
    const won = answers.filter((a) => a.statusCode === 202);
    expect(won).toHaveLength(2);
    for (const a of answers.filter((x) => x.statusCode !== 202)) {
      expect(a.statusCode).toBe(409);
      expect(['EXECUTION_HELD_TASKS_EXCEEDED', 'EXECUTION_HELD_JOB_NOT_CONTINUABLE']).toContain(a.json().error.code);
    }
    // And single circuits racing for the one task left: exactly one wins.
    const singles = await Promise.all(Array.from({ length: 4 }, (_, i) => cont(u.auth, held.job_id, bell, `single-${i}`)));
    expect(singles.filter((a) => a.statusCode === 202)).toHaveLength(1);
    const rows = await app.db.query<{ tasks_used: number; status: string }>('SELECT tasks_used, status FROM billing_held_jobs WHERE job_id = $1', [held.job_id]);
    expect(rows.rows[0]).toEqual({ tasks_used: 5, status: 'continued' });
    await expectWallet(app, u.auth, '8.050000', '1.950000');
    const steps = await app.services.executionWorker.drain();
    expect(steps.filter((s) => s.outcome === 'completed')).toHaveLength(5);
    // 5 × 0.39 captured; nothing left held.
    await expectWallet(app, u.auth, '8.050000', '0.000000');
  });

  it('a partly used hold can be released: only the untaken tasks return', async () => {
    const u = await signUp(app);
    await fundAccount(app, u.accountId, 5_000_000n);
    const held = await holdTasks(u.auth, 4);
    expect((await batch(u.auth, held.job_id, [bell], 'rel-1')).statusCode).toBe(202);
    const rel = await app.inject({ method: 'POST', url: `/v1/billing/hardware/hold/${held.job_id}/release`, headers: u.auth });
    expect(rel.statusCode).toBe(200);
    await expectWallet(app, u.auth, '4.610000', '0.390000');
    expect((await app.services.executionWorker.drain()).map((s) => s.outcome)).toEqual(['completed']);
    await expectWallet(app, u.auth, '4.610000', '0.000000');
  });
});
