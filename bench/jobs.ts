/**
 * bench:jobs — Account Jobs submissions/s (p50/p99) and completed jobs/s with 1 and 2
 * worker loops, on embedded PGlite and on PostgreSQL (a scratch database created and
 * dropped on BENCH_PG_URL, default postgres://postgres@127.0.0.1:5432/postgres), each
 * compared in the same run with a bare insert-in-a-transaction on the same database.
 *
 * Submissions go through the whole HTTP stack in process (`app.inject`: routing, auth,
 * validation, quote, the one submission transaction with its hold), from several agents
 * so that they do not all queue on one wallet lock. Last line: one JSON object.
 */
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { buildApp } from '../src/app.js';
import { grantCredit } from '../src/billing/ledger.js';
import { getExample } from '../src/circuits/examples.js';
import { loadConfig } from '../src/config/config.js';
import type { App } from '../src/http/app-types.js';
import { JobsWorker } from '../src/jobs/jobs-worker.js';
import { pgJobsRepository } from '../src/store/repositories/jobs-repository.js';

const SUBMISSIONS = Number(process.env['BENCH_JOBS_SUBMISSIONS'] ?? 2000);
const CONCURRENCY = Number(process.env['BENCH_JOBS_CONCURRENCY'] ?? 10);
const AGENTS = Number(process.env['BENCH_JOBS_AGENTS'] ?? 24);
const WORKER_JOBS = Number(process.env['BENCH_JOBS_WORKER_JOBS'] ?? 400);
const PG_URL = process.env['BENCH_PG_URL'] ?? 'postgres://postgres@127.0.0.1:5432/postgres';

interface Result {
  driver: string;
  submitPerS: number;
  p50: number;
  p99: number;
  barePerS: number;
  bareP99: number;
  worker1PerS: number;
  worker2PerS: number;
  errors: number;
}

const pct = (xs: number[], p: number): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] ?? 0;
};
const round = (x: number, d = 1) => Math.round(x * 10 ** d) / 10 ** d;

/** Runs `n` tasks with at most `c` in flight; returns each latency (ms) and the wall time (s). */
async function load(n: number, c: number, task: (i: number) => Promise<boolean>): Promise<{ lat: number[]; seconds: number; errors: number }> {
  const lat: number[] = [];
  let next = 0;
  let errors = 0;
  const t0 = performance.now();
  await Promise.all(Array.from({ length: c }, async () => {
    while (next < n) {
      const i = next++;
      const s = performance.now();
      if (!(await task(i))) errors++;
      lat.push(performance.now() - s);
    }
  }));
  return { lat, seconds: (performance.now() - t0) / 1000, errors };
}

async function agents(app: App): Promise<Array<{ authorization: string }>> {
  const out: Array<{ authorization: string }> = [];
  for (let i = 0; i < AGENTS; i++) {
    const email = `bench.${i}.${randomUUID().slice(0, 8)}@example.com`;
    const password = 'bench password 123';
    await app.inject({ method: 'POST', url: '/v1/auth/register', payload: { email, password } });
    const login = (await app.inject({ method: 'POST', url: '/v1/auth/login', payload: { email, password } })).json().data;
    const cred = (await app.inject({ method: 'POST', url: '/v1/auth/credentials', headers: { authorization: `Bearer ${login.token}` }, payload: { name: 'bench', scopes: ['jobs:read', 'jobs:write'] } })).json().data;
    await app.db.tx((q) => grantCredit(q, { accountId: login.user.account_id, amountMicros: 1_000_000_000n, reason: 'bench' }));
    out.push({ authorization: `Bearer ${cred.secret}` });
  }
  return out;
}

async function workerRate(app: App, auth: Array<{ authorization: string }>, loops: number): Promise<number> {
  const body = (i: number) => ({ capability_id: 'circuit.analyze', request: { circuit: getExample('bell') }, idempotency_key: `w${loops}-${i}-${randomUUID().slice(0, 8)}`, max_total_price: '0.01' });
  await load(WORKER_JOBS, CONCURRENCY, async (i) => (await app.inject({ method: 'POST', url: '/v1/jobs', headers: auth[i % auth.length] ?? {}, payload: body(i) })).statusCode === 202);
  const w = new JobsWorker(pgJobsRepository(app.db), app.services.jobs.capabilities, { id: `bench-${loops}`, leaseMs: 60_000, pollMs: 5, maxAttempts: 3, concurrency: loops });
  const t0 = performance.now();
  w.start();
  for (;;) {
    const r = await app.db.query<{ n: number }>("SELECT count(*)::int AS n FROM jobs WHERE status NOT IN ('completed', 'failed')");
    if ((r.rows[0]?.n ?? 0) === 0) break;
    await new Promise((res) => setTimeout(res, 20));
  }
  const s = (performance.now() - t0) / 1000;
  await w.stop();
  return WORKER_JOBS / s;
}

async function run(driver: 'pglite' | 'pg', databaseUrl?: string): Promise<Result> {
  const config = loadConfig({
    DATA_DIR: 'memory://', LOG_LEVEL: 'silent', PUBLIC_BASE_URL: 'http://bench.local', RATE_LIMIT_PER_MINUTE: '10000000', RATE_LIMIT_AUTH_PER_MINUTE: '10000000',
    ...(databaseUrl === undefined ? {} : { DATABASE_URL: databaseUrl }),
  });
  const app = await buildApp({ config, logger: false });
  try {
    const auth = await agents(app);
    const circuit = getExample('bell');
    // Warm-up: JIT, statement plans, the credential cache.
    await load(100, CONCURRENCY, async (i) => (await app.inject({ method: 'POST', url: '/v1/jobs', headers: auth[i % auth.length] ?? {}, payload: { capability_id: 'circuit.analyze', request: { circuit }, idempotency_key: `warm-${i}`, max_total_price: '0.01' } })).statusCode === 202);
    const sub = await load(SUBMISSIONS, CONCURRENCY, async (i) => {
      const r = await app.inject({ method: 'POST', url: '/v1/jobs', headers: auth[i % auth.length] ?? {}, payload: { capability_id: 'circuit.analyze', request: { circuit }, idempotency_key: `bench-${i}`, max_total_price: '0.01' } });
      return r.statusCode === 202;
    });

    await app.db.exec('CREATE TABLE IF NOT EXISTS bench_bare (id uuid PRIMARY KEY, account_id uuid NOT NULL, payload jsonb NOT NULL, created_at timestamptz NOT NULL DEFAULT now())');
    const account = randomUUID();
    const payload = JSON.stringify({ circuit });
    const bare = await load(SUBMISSIONS, CONCURRENCY, async () => {
      await app.db.tx((q) => q.query('INSERT INTO bench_bare (id, account_id, payload) VALUES ($1, $2, $3::jsonb)', [randomUUID(), account, payload]));
      return true;
    });

    // Drain what the submission phase queued, then time the worker on fresh jobs.
    const drain = new JobsWorker(pgJobsRepository(app.db), app.services.jobs.capabilities, { id: 'drain', leaseMs: 60_000, pollMs: 5, maxAttempts: 3, concurrency: 2 });
    await drain.drain();
    const worker1PerS = await workerRate(app, auth, 1);
    const worker2PerS = await workerRate(app, auth, 2);
    return {
      driver, submitPerS: SUBMISSIONS / sub.seconds, p50: pct(sub.lat, 50), p99: pct(sub.lat, 99), barePerS: SUBMISSIONS / bare.seconds,
      bareP99: pct(bare.lat, 99), worker1PerS, worker2PerS, errors: sub.errors,
    };
  } finally {
    await app.close();
  }
}

async function main(): Promise<void> {
  const results: Result[] = [await run('pglite')];
  let pgResult: Result | undefined;
  const dbName = `qrail_bench_${randomUUID().replace(/-/g, '').slice(0, 12)}`;
  const admin = new pg.Client({ connectionString: PG_URL });
  let created = false;
  try {
    await admin.connect();
    await admin.query(`CREATE DATABASE ${dbName}`);
    created = true;
    const u = new URL(PG_URL);
    u.pathname = `/${dbName}`;
    pgResult = await run('pg', u.toString());
    results.push(pgResult);
  } catch (e) {
    process.stderr.write(`PostgreSQL part skipped: ${e instanceof Error ? e.message : String(e)}\n`);
  } finally {
    if (created) await admin.query(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`).catch(() => undefined);
    await admin.end().catch(() => undefined);
  }

  const lite = results[0] as Result;
  const rows = results.map((r) => ({
    driver: r.driver,
    'submit/s': round(r.submitPerS),
    'p50 ms': round(r.p50, 2),
    'p99 ms': round(r.p99, 2),
    'bare insert/s': round(r.barePerS),
    'bare p99 ms': round(r.bareP99, 2),
    'submit vs bare': round(r.submitPerS / r.barePerS, 3),
    'completed/s 1 worker': round(r.worker1PerS),
    'completed/s 2 workers': round(r.worker2PerS),
    'errors': r.errors,
  }));
  console.log(`bench:jobs — ${SUBMISSIONS} submissions, ${CONCURRENCY} in flight, ${AGENTS} agents; worker phases ${WORKER_JOBS} jobs (circuit.analyze on a Bell circuit)`);
  console.table(rows);
  console.log(JSON.stringify({
    bench: 'jobs',
    pg_submit_per_s: pgResult === undefined ? null : round(pgResult.submitPerS),
    pg_p99_ms: pgResult === undefined ? null : round(pgResult.p99, 2),
    pg_vs_bare_insert: pgResult === undefined ? null : round(pgResult.submitPerS / pgResult.barePerS, 3),
    pglite_submit_per_s: round(lite.submitPerS),
  }));
}

await main();
