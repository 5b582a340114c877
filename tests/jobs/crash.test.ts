import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/http/app-types.js';
import { buildTestApp } from '../helpers/app.js';
import { expectAllInvariants, key, newAgent, submit, withTestCapabilities, type Agent } from './helpers.js';

const CHILD = new URL('./fixtures/worker-child.ts', import.meta.url).pathname;
const onPg = process.env['DATABASE_URL'] !== undefined;

/** Starts the worker child; resolves once it printed `transition <job> <status>`. */
function startChild(env: Record<string, string>, jobId: string, status: string): { child: ChildProcessWithoutNullStreams; reached: Promise<void>; exited: Promise<NodeJS.Signals | null> } {
  const child = spawn(process.execPath, ['--import', 'tsx', CHILD], { env: { ...process.env, ...env } });
  let err = '';
  child.stderr.on('data', (d) => (err += d));
  const exited = new Promise<NodeJS.Signals | null>((r) => child.on('exit', (_code, signal) => r(signal)));
  const reached = new Promise<void>((resolve, reject) => {
    createInterface({ input: child.stdout }).on('line', (line) => {
      if (line === `transition ${jobId} ${status}`) resolve();
    });
    child.on('exit', (code, signal) => {
      if (signal !== 'SIGKILL') reject(new Error(`child exited (${code}/${signal}) before ${status}: ${err}`));
    });
  });
  return { child, reached, exited };
}

describe('a worker process killed with SIGKILL mid-job', () => {
  const dirs: string[] = [];
  afterAll(() => {
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });

  /**
   * Submits a job, lets a child worker take it to `killAt` (killing it there), then recovers
   * in this process. On PGlite the child owns the on-disk directory while it runs.
   */
  async function scenario(killAt: 'running' | 'result_saved') {
    const dir = mkdtempSync(join(tmpdir(), 'qrail-crash-'));
    dirs.push(dir);
    const open = () => buildTestApp(onPg ? {} : { DATA_DIR: dir });
    let app: App = await open();
    withTestCapabilities(app);
    const a: Agent = await newAgent(app, { fundMicros: 1_000_000n });
    const jobId: string = (await submit(app, a, { capability_id: 'test.echo', request: { text: `kill at ${killAt}` }, idempotency_key: key('crash'), max_total_price: '1' })).json().job_id;
    const schema = onPg ? ((await app.db.query<{ s: string }>('SELECT current_schema() AS s')).rows[0]?.s ?? '') : '';
    if (!onPg) await app.close();

    const env: Record<string, string> = onPg ? { CHILD_DATABASE_URL: process.env['DATABASE_URL'] ?? '', CHILD_SCHEMA: schema } : { CHILD_DATA_DIR: dir, CHILD_DATABASE_URL: '' };
    if (killAt === 'result_saved') env['CHILD_KILL_AT'] = 'result_saved';
    const c = startChild(env, jobId, killAt);
    await c.reached;
    if (killAt === 'running') c.child.kill('SIGKILL');
    expect(await c.exited).toBe('SIGKILL');

    if (!onPg) {
      app = await open();
      withTestCapabilities(app);
    }
    const before = (await app.db.query<{ status: string; lease_owner: string }>('SELECT status, lease_owner FROM jobs WHERE id = $1', [jobId])).rows[0];
    expect(before?.status).toBe(killAt);
    expect(before?.lease_owner).toMatch(/^child-/);
    // The dead worker's lease runs out (made immediate here instead of waiting 60 s).
    await app.db.query("UPDATE jobs SET lease_expires_at = now() - interval '1 second' WHERE id = $1", [jobId]);
    expect(await app.services.jobsWorker.runOnce()).toEqual({ jobId, status: 'completed' });
    expect(await app.services.jobsWorker.runOnce()).toBeNull();

    const j = (await app.inject({ method: 'GET', url: `/v1/jobs/${jobId}`, headers: a.auth })).json();
    expect(j.status).toBe('completed');
    expect(j.result).toMatchObject({ echo: `kill at ${killAt}` });
    const captures = await app.db.query<{ n: number; amount: string }>(
      "SELECT count(*)::int AS n, COALESCE(SUM(t.amount_micros), 0)::text AS amount FROM ledger_transfers t JOIN jobs j ON j.hold_id = t.hold_id WHERE j.id = $1 AND t.kind = 'capture'",
      [jobId],
    );
    const price = 1000 + 10 * `kill at ${killAt}`.length;
    expect(captures.rows[0]).toEqual({ n: 1, amount: String(price) });
    expect(j.receipt.amount_captured).toBe(`0.${String(price).padStart(6, '0')}`);
    const bal = (await app.inject({ method: 'GET', url: '/v1/account/balance', headers: a.auth })).json();
    expect(bal).toMatchObject({ available: `0.${String(1_000_000 - price).padStart(6, '0')}`, held: '0.000000' });
    await expectAllInvariants(app);
    await app.close();
    return j;
  }

  it('killed while running: the next worker runs it again, completes it once and charges once', async () => {
    const j = await scenario('running');
    expect(j.transitions.filter((t: { to: string }) => t.to === 'running')).toHaveLength(2);
    expect(j.attempts).toBe(2);
  });

  it('killed right after result_saved: the next worker completes it without running it again', async () => {
    const j = await scenario('result_saved');
    expect(j.transitions.filter((t: { to: string }) => t.to === 'running')).toHaveLength(1);
    expect(j.result.attempt).toBe(1);
  });
});
