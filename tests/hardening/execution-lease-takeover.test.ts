/**
 * Issue #17 defect 10 on the platform interface: a simulator run (`POST /v1/execute/{provider}`)
 * whose process died leaves its execution job `running`; once its lease has expired, a retry with
 * the same client_token runs it again (same seed, same counts) instead of answering 409
 * EXECUTION_CLIENT_TOKEN_IN_PROGRESS forever. While the lease is live the retry still gets the 409.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { getExample } from '../../src/circuits/examples.js';
import type { App } from '../../src/http/app-types.js';
import { buildTestApp, signUp } from '../helpers/app.js';
import { expectAllInvariants, key } from '../jobs/helpers.js';
import { waitFor } from '../helpers/wait-for.js';

const apps: App[] = [];
afterEach(async () => {
  for (const a of apps.splice(0)) await a.close();
});

describe('a simulator run whose owner died', () => {
  it('is taken over by a retry with the same client_token once its lease expired', async () => {
    const app = await buildTestApp();
    apps.push(app);
    const u = await signUp(app);
    // The first run's simulation hangs until released (its process "dies" meanwhile).
    const run = app.compute.run.bind(app.compute);
    let release!: () => void;
    const released = new Promise<void>((r) => (release = r));
    let calls = 0;
    (app.compute as { run: typeof run }).run = async (task: string, input: never, opts?: never) => {
      if ((task === 'simulate' || task === 'simulate.workload') && calls++ === 0) await released;
      return run(task as never, input, opts);
    };

    const body = { circuit: getExample('bell'), shots: 300, seed: 9, client_token: key('takeover') };
    const first = app.inject({ method: 'POST', url: '/v1/execute/provider-one', headers: u.auth, payload: body });
    const row = await waitFor(async () => (await app.db.query<{ id: string; status: string }>('SELECT id, status FROM execution_jobs WHERE client_token = $1', [body.client_token])).rows[0], {
      what: 'the running job row',
    });
    expect(row.status).toBe('running');

    const live = await app.inject({ method: 'POST', url: '/v1/execute/provider-one', headers: u.auth, payload: body });
    expect(live.statusCode).toBe(409);
    expect(live.json().error.code).toBe('EXECUTION_CLIENT_TOKEN_IN_PROGRESS');

    // Its owner is gone: nobody heartbeats, the lease runs out (made immediate here).
    await app.db.query("UPDATE execution_jobs SET lease_owner = 'api-dead', lease_expires_at = now() - interval '1 second' WHERE id = $1", [row.id]);
    const retry = await app.inject({ method: 'POST', url: '/v1/execute/provider-one', headers: u.auth, payload: body });
    expect(retry.statusCode, retry.body).toBe(200);
    const d = retry.json().data;
    expect(d).toMatchObject({ job_id: row.id, status: 'completed', seed: 9 });
    expect(Object.values(d.results.counts as Record<string, number>).reduce((x, y) => x + y, 0)).toBe(300);

    // The dead owner's late finish changes nothing: it no longer holds the job.
    release();
    const late = await first;
    expect(late.statusCode).toBe(200);
    expect(late.json().data.results.counts).toEqual(d.results.counts);
    const after = (await app.db.query<{ status: string; attempts: number }>('SELECT status, attempts FROM execution_jobs WHERE id = $1', [row.id])).rows[0];
    expect(after).toEqual({ status: 'completed', attempts: 2 });
    await expectAllInvariants(app);
  });
});
