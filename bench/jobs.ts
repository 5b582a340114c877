/**
 * bench:jobs — Account Jobs submissions/s (p50/p99) and completed jobs/s with 1 and 2
 * worker loops, on embedded PGlite and on PostgreSQL (a scratch database created and
 * dropped on BENCH_PG_URL, default postgres://postgres@127.0.0.1:5432/postgres), each
 * compared in the same run with a bare insert-in-a-transaction on the same database.
 *
 * What each figure covers (all on one app, one connection pool of BENCH_JOBS_POOL
 * connections, BENCH_JOBS_CONCURRENCY requests in flight, in-process HTTP via `app.inject`
 * — Fastify routing, hooks, body parsing and serialisation, but no sockets):
 *   http submit  POST /v1/jobs: bearer auth (machine credential), validation, quote, the one
 *                submission statement (idempotency, spend controls, hold, ledger, job), the Job view.
 *   http bare    POST /bench/bare-insert with the same body: the same HTTP stack, then
 *                BEGIN; INSERT the body; COMMIT. No auth, no validation.
 *   db submit    JobsService.submit called directly: validation, quote, the submission
 *                statement. No HTTP, no auth.
 *   db bare      BEGIN; INSERT; COMMIT through the same pool. No HTTP.
 * The phases run interleaved in BENCH_JOBS_ROUNDS rounds (rotating which goes first) so that
 * load on the shared machine affects them alike. `pg_vs_bare_insert` = http submit / http bare
 * over all rounds (HTTP on both sides); the table also shows db submit / db bare (HTTP on
 * neither side). Each round's own http ratio is printed too ("pairs"), to show how much
 * outside load moved it during the run. A CPU line gives each phase's CPU ms per successful
 * request, of this process and of the PostgreSQL server's processes (bench/lib/cpu.ts; n/a for
 * PGlite, which runs in this process): steadier than rates on a shared machine.
 *
 * Only successes count: a submission counts when it answered 202 with a new job (not a
 * replay), a bare insert when it committed; rates are successes / the phase's wall time and
 * p50/p99 are over successful requests. done/s = jobs whose status is `completed` in the
 * database (checked per job id) / the time from worker start to the last of them reaching a
 * terminal state (seen through the worker's afterTransition hook, so no polling interval).
 * `errors` (table and JSON) = failed requests of every phase, warm-up included (non-202,
 * replay, exception) + jobs that ended `failed` + worker-phase jobs not terminal within
 * BENCH_JOBS_WORKER_TIMEOUT_MS; any error prints a WARNING line and exits 1.
 * Last line: one JSON object.
 */
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { buildApp } from '../src/app.js';
import { grantCredit } from '../src/store/billing/ledger-sql.js';
import { getExample } from '../src/circuits/examples.js';
import { isAppError } from '../src/errors/app-error.js';
import { loadConfig } from '../src/config/config.js';
import type { App } from '../src/http/app-types.js';
import { createJobsWorker } from '../src/jobs/jobs-worker.js';
import { openDatabase } from '../src/store/open-database.js';
import { pgJobsRepository } from '../src/store/jobs/jobs-repository.js';
import { cpuSample } from './lib/cpu.js';

const SUBMISSIONS = Number(process.env['BENCH_JOBS_SUBMISSIONS'] ?? 2000);
const CONCURRENCY = Number(process.env['BENCH_JOBS_CONCURRENCY'] ?? 10);
const POOL = Number(process.env['BENCH_JOBS_POOL'] ?? 10);
const AGENTS = Number(process.env['BENCH_JOBS_AGENTS'] ?? 24);
const ROUNDS = Number(process.env['BENCH_JOBS_ROUNDS'] ?? 4);
const WORKER_JOBS = Number(process.env['BENCH_JOBS_WORKER_JOBS'] ?? 400);
const DRIVERS = (process.env['BENCH_JOBS_DRIVERS'] ?? 'pglite,pg').split(',');
const PG_URL = process.env['BENCH_PG_URL'] ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const WORKER_TIMEOUT_MS = Number(process.env['BENCH_JOBS_WORKER_TIMEOUT_MS'] ?? 300_000);

type Phase = 'httpSubmit' | 'httpBare' | 'dbSubmit' | 'dbBare';
const PHASES: Phase[] = ['httpSubmit', 'httpBare', 'dbSubmit', 'dbBare'];
const LABEL_OF: Record<Phase, string> = { httpSubmit: 'http submit', httpBare: 'http bare', dbSubmit: 'db submit', dbBare: 'db bare' };

interface Stat {
  perS: number;
  p50: number;
  p99: number;
  ok: number;
}
interface WorkerStat {
  perS: number;
  completed: number;
  accepted: number;
}
/** CPU seconds a phase used over all rounds: this process, and the PostgreSQL server (null: not measurable). */
interface Cpu {
  node: number;
  postgres: number | null;
}
interface Result {
  driver: string;
  phases: Record<Phase, Stat>;
  cpu: Record<Phase, Cpu>;
  httpPairs: number[];
  worker1: WorkerStat;
  worker2: WorkerStat;
  errors: Errors;
}

const pct = (sorted: number[], p: number): number => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
const round = (x: number, d = 1) => Math.round(x * 10 ** d) / 10 ** d;

/** Errors of one driver's run, by what went wrong ("http submit: 409", "job failed: CAPABILITY_FAILED", …). */
class Errors {
  readonly byKind = new Map<string, number>();
  add(kind: string, n = 1): void {
    if (n > 0) this.byKind.set(kind, (this.byKind.get(kind) ?? 0) + n);
  }
  get total(): number {
    let n = 0;
    for (const v of this.byKind.values()) n += v;
    return n;
  }
  describe(): string {
    return [...this.byKind].map(([k, v]) => `${v}× ${k}`).join(', ');
  }
}

/** A task's outcome: null on success, else what went wrong. */
type Outcome = string | null;

/**
 * Runs `n` tasks with at most `c` in flight. Only successful tasks count: their latencies
 * (ms) are returned; failures (an error description, or a throw) go to `errors`.
 */
async function load(n: number, c: number, task: (i: number) => Promise<Outcome>, errors: Errors, label: string): Promise<{ lat: number[]; seconds: number }> {
  const lat: number[] = [];
  let next = 0;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: c }, async () => {
      while (next < n) {
        const i = next++;
        const s = performance.now();
        let out: Outcome;
        try {
          out = await task(i);
        } catch (e) {
          out = isAppError(e) ? e.code : e instanceof Error ? e.name : 'exception';
        }
        if (out === null) lat.push(performance.now() - s);
        else errors.add(`${label}: ${out}`);
      }
    }),
  );
  return { lat, seconds: (performance.now() - t0) / 1000 };
}

/** A new job from POST /v1/jobs: 202 and not a replay. Returns its id, or what went wrong. */
function acceptedJob(r: { statusCode: number; headers: Record<string, unknown> }): { id: string } | { error: string } {
  if (r.statusCode !== 202) return { error: String(r.statusCode) };
  if (r.headers['idempotent-replayed'] === 'true') return { error: '202 replay' };
  const location = r.headers['location'];
  const id = typeof location === 'string' ? (location.split('/').pop() ?? '') : '';
  return id === '' ? { error: '202 without location' } : { id };
}

interface BenchAgent {
  authorization: string;
  accountId: string;
  credentialId: string;
}

async function agents(app: App): Promise<BenchAgent[]> {
  const out: BenchAgent[] = [];
  for (let i = 0; i < AGENTS; i++) {
    const email = `bench.${i}.${randomUUID().slice(0, 8)}@example.com`;
    const password = 'bench password 123';
    await app.inject({ method: 'POST', url: '/v1/auth/register', payload: { email, password } });
    const login = (await app.inject({ method: 'POST', url: '/v1/auth/login', payload: { email, password } })).json().data;
    const cred = (
      await app.inject({ method: 'POST', url: '/v1/auth/credentials', headers: { authorization: `Bearer ${login.token}` }, payload: { name: 'bench', scopes: ['jobs:read', 'jobs:write'] } })
    ).json().data;
    await app.db.tx((q) => grantCredit(q, { accountId: login.user.account_id, amountMicros: 1_000_000_000n, reason: 'bench' }));
    out.push({ authorization: `Bearer ${cred.secret}`, accountId: login.user.account_id, credentialId: cred.credential_id });
  }
  return out;
}

/**
 * Submits WORKER_JOBS jobs, then times `loops` worker loops from start until every accepted
 * job is terminal; counts as done only the jobs whose stored status is `completed`.
 */
async function workerRate(app: App, auth: BenchAgent[], loops: number, errors: Errors): Promise<WorkerStat> {
  const label = `worker ${loops}w`;
  const body = (i: number) => ({ capability_id: 'circuit.analyze', request: { circuit: getExample('bell') }, idempotency_key: `w${loops}-${i}-${randomUUID().slice(0, 8)}`, max_total_price: '0.01' });
  const ids = new Set<string>();
  await load(
    WORKER_JOBS,
    CONCURRENCY,
    async (i) => {
      const a = acceptedJob(await app.inject({ method: 'POST', url: '/v1/jobs', headers: { authorization: auth[i % auth.length]?.authorization ?? '' }, payload: body(i) }));
      if ('error' in a) return a.error;
      ids.add(a.id);
      return null;
    },
    errors,
    `${label} submit`,
  );

  // The worker reports each stored transition; the phase ends when the last accepted job is terminal.
  const pending = new Set(ids);
  let lastTerminal = 0;
  let allDone: () => void = () => undefined;
  const done = new Promise<void>((resolve) => {
    allDone = resolve;
  });
  if (pending.size === 0) allDone();
  const w = createJobsWorker(pgJobsRepository(app.db), app.services.jobs.capabilities, {
    id: `bench-${loops}`,
    leaseMs: 60_000,
    pollMs: 5,
    maxAttempts: 3,
    concurrency: loops,
    onError: (e) => errors.add(`${label}: worker error ${e instanceof Error ? e.message.slice(0, 60) : String(e)}`),
    afterTransition: (jobId, status) => {
      if ((status === 'completed' || status === 'failed') && pending.delete(jobId)) {
        lastTerminal = performance.now();
        if (pending.size === 0) allDone();
      }
    },
  });
  const t0 = performance.now();
  w.start();
  let timer: NodeJS.Timeout | undefined;
  const timedOut = await Promise.race([
    done.then(() => false),
    new Promise<boolean>((resolve) => {
      timer = setTimeout(() => resolve(true), WORKER_TIMEOUT_MS);
    }),
  ]);
  clearTimeout(timer);
  await w.stop();
  const seconds = ((timedOut ? performance.now() : lastTerminal) - t0) / 1000;

  // What the database says about exactly these jobs.
  const r = await app.db.query<{ status: string; n: number }>('SELECT status, count(*)::int AS n FROM jobs WHERE id = ANY($1::uuid[]) GROUP BY status', [[...ids]]);
  // Failed and unfinished jobs are counted as errors once, over the whole run, in run().
  const completed = r.rows.filter((row) => row.status === 'completed').reduce((n, row) => n + row.n, 0);
  if (timedOut) process.stderr.write(`${label}: ${ids.size - completed} jobs not completed within ${WORKER_TIMEOUT_MS} ms\n`);
  return { perS: seconds > 0 ? completed / seconds : 0, completed, accepted: ids.size };
}

async function run(driver: 'pglite' | 'pg', databaseUrl?: string): Promise<Result> {
  const config = loadConfig({
    DATA_DIR: 'memory://',
    LOG_LEVEL: 'silent',
    PUBLIC_BASE_URL: 'http://bench.local',
    RATE_LIMIT_PER_MINUTE: '10000000',
    RATE_LIMIT_AUTH_PER_MINUTE: '10000000',
    ...(databaseUrl === undefined ? {} : { DATABASE_URL: databaseUrl }),
    // The submissions' group commit can be varied from outside (docs/configuration.md).
    ...Object.fromEntries(['JOBS_SUBMIT_BATCH_MAX', 'JOBS_SUBMIT_IN_FLIGHT'].flatMap((k) => (process.env[k] === undefined ? [] : [[k, process.env[k]]]))),
  });
  // One pool, sized explicitly, shared by every phase.
  const db = await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir, poolSize: POOL });
  const app = await buildApp({ config, db, logger: false });
  try {
    await app.db.exec('CREATE TABLE IF NOT EXISTS bench_bare (id uuid PRIMARY KEY, account_id uuid NOT NULL, payload jsonb NOT NULL, created_at timestamptz NOT NULL DEFAULT now())');
    const bareInsert = (accountId: string, payload: unknown) =>
      app.db.tx((q) => q.query('INSERT INTO bench_bare (id, account_id, payload) VALUES ($1, $2, $3::jsonb)', [randomUUID(), accountId, JSON.stringify(payload)]));
    // The HTTP baseline: same stack as POST /v1/jobs, a bare insert of the body behind it.
    app.post('/bench/bare-insert', { config: { surface: 'jobs' }, schema: { hide: true } }, async (req, reply) => {
      const body = req.body as { idempotency_key: string };
      await bareInsert(BARE_ACCOUNT, body);
      reply.code(202);
      return { id: body.idempotency_key };
    });
    const auth = await agents(app);
    const circuit = getExample('bell');
    const body = (tag: string, i: number) => ({ capability_id: 'circuit.analyze', request: { circuit }, idempotency_key: `${tag}-${i}`, max_total_price: '0.01' });
    const headers = (i: number) => ({ authorization: auth[i % auth.length]?.authorization ?? '' });
    const agentOf = (i: number) => {
      const a = auth[i % auth.length] as BenchAgent;
      return { accountId: a.accountId, subject: `credential:${a.credentialId}` };
    };
    const http202 = (r: { statusCode: number; headers: Record<string, unknown> }): Outcome => {
      const a = acceptedJob(r);
      return 'error' in a ? a.error : null;
    };
    const tasks: Record<Phase, (i: number) => Promise<Outcome>> = {
      httpSubmit: async (i) => http202(await app.inject({ method: 'POST', url: '/v1/jobs', headers: headers(i), payload: body('http', i) })),
      httpBare: async (i) => {
        const r = await app.inject({ method: 'POST', url: '/bench/bare-insert', headers: headers(i), payload: body('bare', i) });
        return r.statusCode === 202 ? null : String(r.statusCode);
      },
      dbSubmit: async (i) => ((await app.services.jobs.submit(agentOf(i), body('db', i))).replayed ? 'replay' : null),
      dbBare: async (i) => {
        await bareInsert(BARE_ACCOUNT, body('dbbare', i));
        return null;
      },
    };
    const errors = new Errors();
    // Warm-up: JIT, statement plans, the credential cache. Its failures count as errors too.
    for (const p of PHASES) await load(100, CONCURRENCY, (i) => tasks[p](i + 1_000_000), errors, `${LABEL_OF[p]} (warm-up)`);

    const lat: Record<Phase, number[]> = { httpSubmit: [], httpBare: [], dbSubmit: [], dbBare: [] };
    const secs: Record<Phase, number> = { httpSubmit: 0, httpBare: 0, dbSubmit: 0, dbBare: 0 };
    const cpu = Object.fromEntries(PHASES.map((p) => [p, { node: 0, postgres: driver === 'pg' ? 0 : null }])) as Record<Phase, Cpu>;
    // Per round: http submit/s over http bare/s of that round (seconds apart).
    const httpPairs: number[] = [];
    const per = Math.ceil(SUBMISSIONS / ROUNDS);
    for (let r = 0; r < ROUNDS; r++) {
      const rate: Partial<Record<Phase, number>> = {};
      for (let k = 0; k < PHASES.length; k++) {
        const p = PHASES[(r + k) % PHASES.length] as Phase;
        const c0 = cpuSample(driver === 'pg');
        const out = await load(per, CONCURRENCY, (i) => tasks[p](r * per + i), errors, LABEL_OF[p]);
        const c1 = cpuSample(driver === 'pg');
        cpu[p].node += c1.node - c0.node;
        // PostgreSQL on another machine (or /proc unreadable): no figure rather than a wrong one.
        cpu[p].postgres = cpu[p].postgres === null || c0.postgres === null || c1.postgres === null ? null : cpu[p].postgres + c1.postgres - c0.postgres;
        lat[p].push(...out.lat);
        secs[p] += out.seconds;
        rate[p] = out.lat.length / out.seconds;
      }
      httpPairs.push((rate.httpSubmit ?? 0) / (rate.httpBare ?? 1));
    }
    // Successes only: failed requests are neither in the rate nor in the percentiles.
    const phases = Object.fromEntries(
      PHASES.map((p) => {
        const s = [...lat[p]].sort((a, b) => a - b);
        return [p, { perS: s.length / secs[p], p50: pct(s, 50), p99: pct(s, 99), ok: s.length }];
      }),
    ) as Record<Phase, Stat>;

    // Drain what the submission phases queued, then time the worker on fresh jobs.
    const drain = createJobsWorker(pgJobsRepository(app.db), app.services.jobs.capabilities, { id: 'drain', leaseMs: 60_000, pollMs: 5, maxAttempts: 3, concurrency: 2 });
    await drain.drain(100_000);
    const worker1 = await workerRate(app, auth, 1, errors);
    const worker2 = await workerRate(app, auth, 2, errors);
    // Every job of this run (submission phases, drained, worker phases) that ended failed.
    const failed = await app.db.query<{ code: string | null; n: number }>("SELECT error_code AS code, count(*)::int AS n FROM jobs WHERE status = 'failed' GROUP BY error_code");
    for (const f of failed.rows) errors.add(`job failed: ${f.code ?? '?'}`, f.n);
    const left = await app.db.query<{ n: number }>("SELECT count(*)::int AS n FROM jobs WHERE status NOT IN ('completed', 'failed')");
    errors.add(`job not terminal at the end (worker timeout ${WORKER_TIMEOUT_MS} ms)`, left.rows[0]?.n ?? 0);
    return { driver, phases, cpu, httpPairs, worker1, worker2, errors };
  } finally {
    await app.close();
    await db.close();
  }
}

// bench_bare has no foreign key: any account id will do.
const BARE_ACCOUNT = randomUUID();

async function main(): Promise<void> {
  const results: Result[] = [];
  // Runs that did not produce figures at all (e.g. PostgreSQL unreachable): errors too.
  const runErrors = new Errors();
  if (DRIVERS.includes('pglite')) results.push(await run('pglite'));
  if (DRIVERS.includes('pg')) {
    const dbName = `qrail_bench_${randomUUID().replace(/-/g, '').slice(0, 12)}`;
    const admin = new pg.Client({ connectionString: PG_URL });
    let created = false;
    try {
      await admin.connect();
      await admin.query(`CREATE DATABASE ${dbName}`);
      created = true;
      const u = new URL(PG_URL);
      u.pathname = `/${dbName}`;
      results.push(await run('pg', u.toString()));
    } catch (e) {
      process.stderr.write(`PostgreSQL part failed: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
      runErrors.add('pg: the PostgreSQL part did not run (see stderr)');
    } finally {
      if (created) await admin.query(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`).catch(() => undefined);
      await admin.end().catch(() => undefined);
    }
  }

  const rows = results.map((r) => ({
    driver: r.driver,
    'http submit/s': round(r.phases.httpSubmit.perS),
    'p50 ms': round(r.phases.httpSubmit.p50, 2),
    'p99 ms': round(r.phases.httpSubmit.p99, 2),
    'http bare/s': round(r.phases.httpBare.perS),
    'bare p99 ms': round(r.phases.httpBare.p99, 2),
    'http ratio': round(r.phases.httpSubmit.perS / r.phases.httpBare.perS, 3),
    'db submit/s': round(r.phases.dbSubmit.perS),
    'db submit p99': round(r.phases.dbSubmit.p99, 2),
    'db bare/s': round(r.phases.dbBare.perS),
    'db ratio': round(r.phases.dbSubmit.perS / r.phases.dbBare.perS, 3),
    'done/s 1w': round(r.worker1.perS),
    'done/s 2w': round(r.worker2.perS),
    errors: r.errors.total,
  }));
  console.log(
    `bench:jobs — ${SUBMISSIONS} requests per phase in ${ROUNDS} interleaved rounds, ${CONCURRENCY} in flight, pool ${POOL}, ${AGENTS} agents; ` +
      `worker phases ${WORKER_JOBS} jobs (circuit.analyze on a Bell circuit). http = in-process HTTP (app.inject); ratio = submit / bare insert on the same side; pairs = the http ratio of each round; ` +
      'rates and percentiles count successful requests only; done/s counts jobs stored as completed.',
  );
  console.table(rows);
  for (const r of results) {
    console.log(`${r.driver}: pairs (http submit/s ÷ http bare/s, per round): ${r.httpPairs.map((x) => x.toFixed(3)).join(' ')}`);
    const ms = (p: Phase, k: keyof Cpu) => {
      const v = r.cpu[p][k];
      return v === null ? 'n/a' : ((v * 1000) / Math.max(1, r.phases[p].ok)).toFixed(3);
    };
    console.log(`${r.driver}: CPU ms per successful request, this process / postgres: ${PHASES.map((p) => `${LABEL_OF[p]} ${ms(p, 'node')} / ${ms(p, 'postgres')}`).join(', ')}`);
    console.log(
      `${r.driver}: ok requests ${PHASES.map((p) => `${p} ${r.phases[p].ok}`).join(', ')}; ` +
        `worker phases completed ${r.worker1.completed}/${r.worker1.accepted} (1w), ${r.worker2.completed}/${r.worker2.accepted} (2w)`,
    );
  }
  const errors = runErrors.total + results.reduce((n, r) => n + r.errors.total, 0);
  if (errors > 0) {
    const where = [...results.filter((r) => r.errors.total > 0).map((r) => `${r.driver}: ${r.errors.describe()}`), ...(runErrors.total > 0 ? [runErrors.describe()] : [])];
    console.log(`WARNING: ${errors} error(s) — the figures above are not a valid measurement. ${where.join('; ')}`);
    process.exitCode = 1;
  }
  const pgR = results.find((r) => r.driver === 'pg');
  const lite = results.find((r) => r.driver === 'pglite');
  console.log(
    JSON.stringify({
      bench: 'jobs',
      pg_submit_per_s: pgR === undefined ? null : round(pgR.phases.httpSubmit.perS),
      pg_p99_ms: pgR === undefined ? null : round(pgR.phases.httpSubmit.p99, 2),
      pg_vs_bare_insert: pgR === undefined ? null : round(pgR.phases.httpSubmit.perS / pgR.phases.httpBare.perS, 3),
      pglite_submit_per_s: lite === undefined ? null : round(lite.phases.httpSubmit.perS),
      errors,
    }),
  );
}

await main();
