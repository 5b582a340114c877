/**
 * Issue #17 defect 10: a `provider-one.simulate` Account Job whose worker process is SIGKILLed
 * while its execution job runs. The re-run of the Account Job adopts that execution job (runs it
 * again under the same client token once its lease expired; the seed is fixed, so the counts are
 * the same) instead of failing with EXECUTION_CLIENT_TOKEN_IN_PROGRESS; the execution worker
 * reclaims it too; nothing is charged twice. Leases are short here (set through the env).
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, describe, expect, it } from 'vitest';
import { getExample } from '../../src/circuits/examples.js';
import type { App } from '../../src/http/app-types.js';
import { buildTestApp } from '../helpers/app.js';
import { expectAllInvariants, key, newAgent, submit, type Agent } from '../jobs/helpers.js';
import { waitFor } from '../helpers/wait-for.js';

const CHILD = new URL('./fixtures/execution-child.ts', import.meta.url).pathname;
const onPg = process.env['DATABASE_URL'] !== undefined;
const SHORT = { EXECUTION_LEASE_MS: '300', EXECUTION_SIM_TIME_BUDGET_MS: '100', JOBS_LEASE_MS: '300', EXECUTION_POLL_MS: '20' };

/** Runs the child until its simulation started, then SIGKILLs it. */
async function killMidRun(env: Record<string, string>): Promise<void> {
  const child = spawn(process.execPath, ['--import', 'tsx', CHILD], { env: { ...process.env, ...env } });
  let err = '';
  child.stderr.on('data', (d) => (err += d));
  const exited = new Promise<NodeJS.Signals | null>((r) => child.on('exit', (_code, signal) => r(signal)));
  await new Promise<void>((resolve, reject) => {
    createInterface({ input: child.stdout }).on('line', (line) => {
      if (line === 'simulate-started') resolve();
    });
    child.on('exit', (code, signal) => {
      if (signal !== 'SIGKILL') reject(new Error(`child exited (${code}/${signal}) before its simulation started: ${err}`));
    });
  });
  child.kill('SIGKILL');
  expect(await exited).toBe('SIGKILL');
}

/** Polls a step that answers null while nothing is due (a lease not yet expired). */
const untilDue = <T>(step: () => Promise<T | null>) => waitFor(step, { intervalMs: 20, what: 'a due step' });

describe('an execution job whose worker was SIGKILLed mid-run', () => {
  const dirs: string[] = [];
  afterAll(() => {
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });

  async function scenario(recover: 'account-job-rerun' | 'execution-worker-first') {
    const dir = mkdtempSync(join(tmpdir(), 'qrail-exec-crash-'));
    dirs.push(dir);
    const open = () => buildTestApp({ ...(onPg ? {} : { DATA_DIR: dir }), ...SHORT });
    let app: App = await open();
    const a: Agent = await newAgent(app, { fundMicros: 1_000_000n });
    const sub = await submit(app, a, {
      capability_id: 'provider-one.simulate',
      request: { circuit: getExample('bell'), shots: 500, seed: 5 },
      idempotency_key: key('exec-crash'),
      max_total_price: '0.01',
    });
    expect(sub.statusCode, sub.body).toBe(202);
    const jobId: string = sub.json().job_id;
    const schema = onPg ? ((await app.db.query<{ s: string }>('SELECT current_schema() AS s')).rows[0]?.s ?? '') : '';
    if (!onPg) await app.close();

    await killMidRun(onPg ? { CHILD_DATABASE_URL: process.env['DATABASE_URL'] ?? '', CHILD_SCHEMA: schema } : { CHILD_DATA_DIR: dir, CHILD_DATABASE_URL: '' });
    if (!onPg) app = await open();

    const ex = (await app.db.query<{ id: string; status: string; lease_owner: string }>('SELECT id, status, lease_owner FROM execution_jobs WHERE client_token = $1', [`job-${jobId}`])).rows[0];
    expect(ex).toMatchObject({ status: 'running' });
    expect(ex?.lease_owner).toMatch(/^api-/);
    expect((await app.db.query<{ status: string }>('SELECT status FROM jobs WHERE id = $1', [jobId])).rows[0]?.status).toBe('running');

    if (recover === 'execution-worker-first') {
      // The execution worker reclaims the run once its lease expired and finishes it.
      expect(await untilDue(() => app.services.executionWorker.runOnce())).toEqual({ jobId: ex?.id, outcome: 'completed' });
    }
    // The Account Job's re-run (after its own lease) adopts the execution job: no IN_PROGRESS.
    expect(await untilDue(() => app.services.jobsWorker.runOnce())).toEqual({ jobId, status: 'completed' });

    const j = (await app.inject({ method: 'GET', url: `/v1/jobs/${jobId}`, headers: a.auth })).json();
    expect(j.status).toBe('completed');
    expect(j.result).toMatchObject({ execution_job_id: ex?.id, status: 'completed', seed: 5, shots: 500 });
    const counts = j.result.results.counts as Record<string, number>;
    expect(Object.values(counts).reduce((x, y) => x + y, 0)).toBe(500);
    const exAfter = (await app.db.query<{ status: string; attempts: number; lease_owner: string | null }>('SELECT status, attempts, lease_owner FROM execution_jobs WHERE id = $1', [ex?.id])).rows[0];
    expect(exAfter).toEqual({ status: 'completed', attempts: 2, lease_owner: null });
    // One execution job, charged once (the Account Job's price; the execution run itself is free).
    expect((await app.db.query<{ n: number }>('SELECT count(*)::int AS n FROM execution_jobs WHERE client_token = $1', [`job-${jobId}`])).rows[0]?.n).toBe(1);
    const captures = await app.db.query<{ n: number; amount: string }>(
      "SELECT count(*)::int AS n, COALESCE(SUM(t.amount_micros), 0)::text AS amount FROM ledger_transfers t JOIN jobs j ON j.hold_id = t.hold_id WHERE j.id = $1 AND t.kind = 'capture'",
      [jobId],
    );
    expect(captures.rows[0]).toEqual({ n: 1, amount: '205' });
    await expectAllInvariants(app);
    await app.close();
  }

  it('the Account Job re-run restarts it after its lease expired and completes once, charged once', async () => {
    await scenario('account-job-rerun');
  }, 60_000);

  it('the execution worker reclaims the expired run; the Account Job re-run adopts the result', async () => {
    await scenario('execution-worker-first');
  }, 60_000);
});
