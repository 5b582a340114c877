/**
 * The one job queue (issue #18): one worker loop for every kind of durable work, one store
 * implementation of its SQL, the state machines enforced in one place, and no SQL or store
 * access in the domain folders that run on it.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXECUTION_STATE_MACHINE } from '../../src/execution/execution-job.js';
import type { App } from '../../src/http/app-types.js';
import type { Capability } from '../../src/jobs/capability.js';
import { JOB_STATE_MACHINE } from '../../src/jobs/job.js';
import { createJobsWorker } from '../../src/jobs/jobs-worker.js';
import { QueueWorker } from '../../src/queue/queue-worker.js';
import { assertTransition, canTransition, defineStateMachine } from '../../src/queue/state-machine.js';
import { CLAIM_EXECUTION_JOB_SQL, claimJob } from '../../src/store/execution/execution-repository.js';
import { checkJobInvariants } from '../../src/store/jobs/jobs-invariants.js';
import { JOBS_QUEUE, pgJobsRepository } from '../../src/store/jobs/jobs-repository.js';
import { recordTransition } from '../../src/store/queue/pg-queue.js';
import { buildTestApp, signUp } from '../helpers/app.js';
import { explain, inRolledBackTx } from '../helpers/plans.js';
import { expectAllInvariants, key, newAgent, submit, withTestCapabilities, type Agent } from '../jobs/helpers.js';

const SRC = fileURLToPath(new URL('../../src/', import.meta.url));

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((f) => {
    const p = join(dir, f);
    return statSync(p).isDirectory() ? sourceFiles(p) : p.endsWith('.ts') ? [p] : [];
  });
}

const rel = (p: string) => relative(SRC, p).split('\\').join('/');

describe('one queue in the code', () => {
  const files = sourceFiles(SRC).map((p) => ({ path: rel(p), text: readFileSync(p, 'utf8') }));

  it('one worker loop class, one claim', () => {
    // A claim loop (runOnce/drain) is written once; every kind of job plugs a handler into it. Webhook
    // deliveries are not jobs (per-endpoint order, a backoff schedule, no money): their own loop and
    // claim (docs/decisions/webhooks-delivery-loop.md).
    expect(files.filter((f) => /\basync runOnce\(/.test(f.text)).map((f) => f.path)).toEqual(['queue/queue-worker.ts', 'webhooks/delivery-worker.ts']);
    expect(
      files
        .filter((f) => /\bimplements QueueHandler</.test(f.text))
        .map((f) => f.path)
        .sort(),
    ).toEqual(['execution/execution-worker.ts', 'jobs/jobs-worker.ts', 'optimize-jobs/optimize-worker.ts']);
    // The only SQL that claims jobs with SKIP LOCKED is the queue store's; the others are the two outboxes
    // (webhook deliveries, account mail), whose claims are by due time with no state machine or money.
    expect(
      files
        .filter((f) => /SKIP LOCKED/.test(f.text) && !f.path.startsWith('queue/'))
        .map((f) => f.path)
        .sort(),
    ).toEqual(['store/mail/mail-outbox-store.ts', 'store/queue/pg-queue.ts', 'store/webhooks/webhooks-store.ts']);
  });

  it('the domains on the queue hold no SQL and import neither the store nor a database driver', () => {
    const domain = files.filter((f) => /^(jobs|execution|optimize-jobs|queue)\//.test(f.path));
    expect(domain.length).toBeGreaterThan(20);
    const bad = domain.flatMap((f) => [
      ...(/from '(\.\.\/)+store\//.test(f.text) ? [`${f.path}: imports the store`] : []),
      ...(/from '(\.\.\/)+billing\/store\//.test(f.text) ? [`${f.path}: imports billing's SQL`] : []),
      ...(/from '(pg|@electric-sql\/pglite)'/.test(f.text) ? [`${f.path}: imports a database driver`] : []),
      ...(/\b(SELECT [\w*(]|INSERT INTO|UPDATE \w+ SET|DELETE FROM|FOR UPDATE)\b/.test(f.text) ? [`${f.path}: holds SQL`] : []),
    ]);
    expect(bad).toEqual([]);
  });
});

describe('the state machines', () => {
  it('are the only statement of the allowed transitions', () => {
    expect(canTransition(JOB_STATE_MACHINE, null, 'quoted')).toBe(true);
    expect(canTransition(JOB_STATE_MACHINE, null, 'queued')).toBe(false);
    expect(canTransition(JOB_STATE_MACHINE, 'running', 'running')).toBe(true);
    expect(canTransition(JOB_STATE_MACHINE, 'result_saved', 'running')).toBe(false);
    expect(canTransition(JOB_STATE_MACHINE, 'completed', 'failed')).toBe(false);
    expect(canTransition(EXECUTION_STATE_MACHINE, null, 'running')).toBe(true);
    expect(canTransition(EXECUTION_STATE_MACHINE, 'queued', 'completed')).toBe(false);
    expect(() => assertTransition(JOB_STATE_MACHINE, 'failed', 'completed')).toThrow('job: the transition failed → completed is not allowed');
  });

  it('refuse an inconsistent definition where it is declared', () => {
    const base = {
      name: 'x',
      states: ['q', 'r', 'd'] as const,
      initial: ['q'] as const,
      queued: 'q' as const,
      leased: ['r'] as const,
      terminal: ['d'] as const,
      cancel: { to: 'd' as const, now: [] as const, ask: ['r'] as const },
    };
    expect(() => defineStateMachine({ ...base, next: { q: ['r'], r: ['d'], d: ['q'] } })).toThrow(/terminal state d has transitions/);
    expect(() => defineStateMachine({ ...base, next: { q: ['d'], r: ['d'], d: [] } })).toThrow(/claim's q → r is not allowed/);
    expect(defineStateMachine({ ...base, next: { q: ['r'], r: ['d'], d: [] } }).leased).toEqual(['r']);
  });
});

describe('the queue at work', () => {
  let app: App;
  let a: Agent;
  beforeAll(async () => {
    app = await buildTestApp();
    withTestCapabilities(app);
    a = await newAgent(app, { fundMicros: 1_000_000n });
  });
  afterAll(async () => app.close());

  it('Account Jobs, execution jobs and optimize jobs run on the same worker loop', () => {
    expect(app.services.jobsWorker).toBeInstanceOf(QueueWorker);
    expect(app.services.executionWorker).toBeInstanceOf(QueueWorker);
    expect(app.services.optimizeWorker).toBeInstanceOf(QueueWorker);
    expect(
      app.services.workers
        .filter((w) => w instanceof QueueWorker)
        .map((w) => w.name)
        .sort(),
    ).toEqual(['execution-worker', 'jobs-worker', 'optimize-worker']);
  });

  it('the store refuses a transition the state machine does not allow, before writing it', async () => {
    const id = (await submit(app, a, { capability_id: 'test.echo', request: { text: 'sm' }, idempotency_key: key('sm'), max_total_price: '1' })).json().job_id;
    expect(await app.services.jobsWorker.drain()).toEqual([{ jobId: id, status: 'completed' }]);
    const count = async () => (await app.db.query<{ n: number }>('SELECT count(*)::int AS n FROM job_transitions WHERE job_id = $1', [id])).rows[0]?.n;
    const before = await count();
    await expect(recordTransition(app.db, JOBS_QUEUE, id, 'completed', 'running', 'w')).rejects.toThrow(/completed → running is not allowed/);
    // A failure after completion (a late worker) is refused too: completed is terminal.
    expect(await pgJobsRepository(app.db).fail(id, 'late-worker', 'WORKER_LOST', 'late')).toBeNull();
    expect(await count()).toBe(before);
    await expectAllInvariants(app);
  });

  it('the invariants find a stored transition the machine does not allow, whoever wrote it', async () => {
    const id = (await submit(app, a, { capability_id: 'test.echo', request: { text: 'sm2' }, idempotency_key: key('sm2'), max_total_price: '1' })).json().job_id;
    await app.services.jobsWorker.drain();
    const problems = await inRolledBackTx(app, async (q) => {
      // As a SQL function could: bypassing the TypeScript check.
      await q.query(`INSERT INTO job_transitions (job_id, from_status, to_status) VALUES ($1, 'completed', 'running')`, [id]);
      return checkJobInvariants(q);
    });
    expect(problems.join('\n')).toMatch(/completed → running, which the state machine does not allow/);
    expect(problems.join('\n')).toMatch(/last transition is running/);
  });

  it('keeps the lease while a handler runs', async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const reg = app.services.jobs.capabilities;
    const echo = reg.get('test.echo') as Capability;
    reg.register({
      ...echo,
      id: 'test.gated',
      run: async () => {
        await gate;
        return { done: true };
      },
    });
    const id = (await submit(app, a, { capability_id: 'test.gated', request: { text: 'slow' }, idempotency_key: key('gated'), max_total_price: '1' })).json().job_id;
    const w = createJobsWorker(pgJobsRepository(app.db), reg, { id: 'beating', leaseMs: 600, pollMs: 20, maxAttempts: 3, concurrency: 1 });
    const done = w.runOnce();
    const leaseOf = async () => (await app.db.query<{ t: Date | null; owner: string | null }>('SELECT lease_expires_at AS t, lease_owner AS owner FROM jobs WHERE id = $1', [id])).rows[0];
    let first: Date | null = null;
    // Poll until the lease was taken, then until a heartbeat moved its expiry on.
    for (let i = 0; i < 2_000; i++) {
      const l = await leaseOf();
      if (l?.owner === 'beating/once' && l.t !== null) {
        if (first === null) first = new Date(l.t);
        else if (new Date(l.t).getTime() > first.getTime()) break;
      }
      await new Promise((r) => setTimeout(r, 10));
    }
    const renewed = await leaseOf();
    expect(first).not.toBeNull();
    expect(new Date(renewed?.t as Date).getTime()).toBeGreaterThan((first as Date).getTime());
    release();
    expect(await done).toEqual({ jobId: id, status: 'completed' });
    reg.unregister('test.gated');
    await expectAllInvariants(app);
  });

  it('an execution job claim reads one job, not the backlog, and takes a lapsed lease first', async () => {
    const u = await signUp(app);
    const BACKLOG = 5000;
    const { nodes, claimed } = await inRolledBackTx(app, async (q) => {
      const insert = (status: string, n: number, lease: string, age: string) =>
        q.query(
          `INSERT INTO execution_jobs (id, account_id, client_token, request_hash, provider, device, kind, driver, status, shots, seed, circuit, lease_owner, lease_expires_at, created_at)
           SELECT gen_random_uuid(), $1, $2 || g, 'h', 'provider-two', 'p2-local-simulator', 'simulator', 'simulator', $3, 1, 1, '{}'::jsonb,
                  CASE WHEN $3 = 'running' THEN 'someone' END, ${lease}, clock_timestamp() - ${age} + g * interval '1 millisecond'
             FROM generate_series(1, $4::int) g`,
          [u.accountId, `${status}-${lease.length}-`, status, n],
        );
      // Queued jobs older than anything else, and running ones whose owners are alive.
      await insert('queued', BACKLOG, 'NULL', "interval '2 days'");
      await insert('running', 500, "clock_timestamp() + interval '1 hour'", "interval '1 day'");
      const plan = await explain(q, CLAIM_EXECUTION_JOB_SQL, ['plan-test', 60_000], true);
      // A run whose owner died (lease lapsed), newer than the whole queued backlog: taken first.
      await insert('running', 1, "clock_timestamp() - interval '1 second'", "interval '1 minute'");
      const c = await claimJob(q, 'w', 60_000);
      return { nodes: plan, claimed: c };
    });
    const scans = nodes.filter((n) => n['Relation Name'] === 'execution_jobs' && String(n['Node Type']).includes('Scan'));
    expect(scans.length).toBeGreaterThan(0);
    for (const n of scans) expect(Number(n['Actual Rows']), JSON.stringify(n).slice(0, 200)).toBeLessThanOrEqual(1);
    expect(nodes.some((n) => n['Node Type'] === 'Sort')).toBe(false);
    expect(Number(nodes.find((n) => n['Node Type'] === 'ModifyTable' && n['Relation Name'] === 'execution_jobs')?.['Actual Rows'])).toBe(1);
    expect(claimed).toMatchObject({ previousStatus: 'running', attempts: 1, job: { status: 'running', lease_owner: 'w' } });
  });
});
