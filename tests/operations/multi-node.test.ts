import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkLedgerInvariants } from '../../src/store/billing/invariants-sql.js';
import type { Database } from '../../src/store/db.js';
import { checkJobInvariants } from '../../src/store/jobs/jobs-invariants.js';
import { openDatabase } from '../../src/store/open-database.js';
import { bell, ghz3 } from '../helpers/circuits.js';
import { parsePrometheus, sampleValue } from '../helpers/prometheus.js';
import { waitFor } from '../helpers/wait-for.js';
import { expectExecutionInvariants } from '../execution/helpers.js';
import { call, reachable, runCommand, scratchDatabase, startNode, type Node, type Reply } from './cluster.js';

/**
 * The scale-out runbook, proven on this machine: 2 API (`serve --role api`) and 2 worker
 * (`serve --role worker`) processes of bin/qrail.js on one PostgreSQL database and one Redis. A
 * mixed load (logins, Account Jobs through machine credentials, simulator executions, hardware
 * quote → hold → continue on an emulated device) goes through both APIs; one worker and one API are
 * SIGKILLed mid-way. Then: every accepted job is terminal (nothing lost), each ran to completion
 * and was charged once (nothing run twice but what the dead worker held), `qrail ledger check`
 * is clean, tokens and sessions from one node work on the other, rate limits are shared.
 * PostgreSQL only (DATABASE_URL): embedded PGlite is one process by design.
 */
const ADMIN_URL = process.env['DATABASE_URL'];
const REDIS = { host: '127.0.0.1', port: 6379 };
const redisUp = ADMIN_URL !== undefined && (await reachable(REDIS.host, REDIS.port));
const AUTH_LIMIT = 5;
const USERS = 4;
const JOBS_PER_USER = 20;
const PASSWORD = 'multi node password 1';

// Each client has its own forwarded address (TRUST_PROXY): the load stays under the limits, and
// keys in a Redis shared with other runs do not collide (random per run).
const run = randomBytes(2);
const addr = (i: number) => `10.${run[0]}.${run[1]}.${i + 1}`;

interface User {
  readonly ip: string;
  readonly email: string;
  session: string;
  readonly token: string;
  readonly credential: { id: string; secret: string };
}

describe.skipIf(!redisUp)('several nodes on one PostgreSQL and one Redis (2 API + 2 workers, one of each SIGKILLed; skipped without DATABASE_URL or a Redis on 127.0.0.1:6379)', () => {
  let drop: () => Promise<void> = async () => undefined;
  let db: Database | undefined;
  let env: Record<string, string>;
  const apis: Node[] = [];
  const workers: Node[] = [];
  const users: User[] = [];
  /** idempotency key → job id, for every submission an API accepted. */
  const accepted = new Map<string, string>();
  let retried = 0;
  const heldJobs: string[] = [];

  beforeAll(async () => {
    const scratch = await scratchDatabase(ADMIN_URL ?? '', 'multinode');
    drop = scratch.drop;
    env = {
      DATABASE_URL: scratch.url,
      REDIS_URL: `redis://${REDIS.host}:${REDIS.port}`,
      // Generous: on a loaded machine the breaker must not open (and count per node) while sharing is checked.
      REDIS_TIMEOUT_MS: '5000',
      PUBLIC_BASE_URL: 'http://qrail-cluster.test',
      TRUST_PROXY: 'true',
      LOG_LEVEL: 'warn',
      COMPUTE_THREADS: '1',
      SESSION_CACHE_MS: '0',
      RATE_LIMIT_AUTH_PER_MINUTE: String(AUTH_LIMIT),
      JOBS_LEASE_MS: '5000',
      EXECUTION_LEASE_MS: '5000',
      JOBS_POLL_MS: '50',
      EXECUTION_POLL_MS: '50',
      BILLING_LEDGER_CHECK_INTERVAL_SECONDS: '2',
      SHUTDOWN_DRAIN_DELAY_MS: '0',
    };
    // The runbook: migrate once per release, then start the nodes.
    const m = await runCommand(['migrate'], env);
    expect(m.code, m.err).toBe(0);
    const nodes = await Promise.all([startNode('api', env), startNode('api', env), startNode('worker', env), startNode('worker', env)]);
    apis.push(nodes[0], nodes[1]);
    workers.push(nodes[2], nodes[3]);
    db = await openDatabase({ databaseUrl: scratch.url, dataDir: 'unused', poolSize: 2 });
  }, 120_000);

  afterAll(async () => {
    for (const n of [...apis, ...workers]) await n.kill('SIGKILL').catch(() => undefined);
    await db?.close();
    await drop();
  });

  const api = (i: number) => apis[i % 2]!;
  const as = (u: User, extra: Record<string, string> = {}) => ({ 'x-forwarded-for': u.ip, ...extra });

  it('sessions, Jobs tokens and rate limits are shared by the API nodes', async () => {
    for (let i = 0; i < USERS; i++) {
      const ip = addr(i);
      const email = `node.${run.toString('hex')}.${i}@example.com`;
      const reg = await call(api(i).url, 'POST', '/v1/auth/register', { body: { email, password: PASSWORD }, headers: { 'x-forwarded-for': ip } });
      expect(reg.status, JSON.stringify(reg.body)).toBe(201);
      // Logged in on the other node; the session works on both.
      const login = await call(api(i + 1).url, 'POST', '/v1/auth/login', { body: { email, password: PASSWORD }, headers: { 'x-forwarded-for': ip } });
      expect(login.status).toBe(200);
      const session = login.body.data.token as string;
      const auth = { 'x-forwarded-for': ip, authorization: `Bearer ${session}` };
      expect((await call(api(i).url, 'GET', '/v1/auth/me', { headers: auth })).status).toBe(200);
      const pay = await call(api(i).url, 'POST', '/v1/billing/processor/payment-intent', { body: { amount: '20.00', payment_method: 'pm_card_visa' }, headers: auth });
      expect(pay.status, JSON.stringify(pay.body)).toBeLessThan(300);
      const cred = await call(api(i + 1).url, 'POST', '/v1/auth/credentials', { body: { name: 'agent', scopes: ['jobs:read', 'jobs:write'] }, headers: auth });
      expect(cred.status).toBe(201);
      const credential = { id: cred.body.data.credential_id as string, secret: cred.body.data.secret as string };
      // A Jobs token issued by one node is valid on the other (one issuer: PUBLIC_BASE_URL; keys in the database).
      const basic = Buffer.from(`${credential.id}:${credential.secret}`).toString('base64');
      const tok = await call(api(i).url, 'POST', '/v1/oauth/token', { form: 'grant_type=client_credentials', headers: { 'x-forwarded-for': ip, authorization: `Basic ${basic}` } });
      expect(tok.status).toBe(200);
      const token = tok.body.access_token as string;
      const bal = await call(api(i + 1).url, 'GET', '/v1/account/balance', { headers: { 'x-forwarded-for': ip, authorization: `Bearer ${token}` } });
      expect(bal.status, JSON.stringify(bal.body)).toBe(200);
      expect(bal.body.available).toBe('20.000000');
      users.push({ ip, email, session, token, credential });
    }

    // Logout on one node ends the session on the other at once (SESSION_CACHE_MS=0).
    const u0 = users[0]!;
    const spare = await call(api(1).url, 'POST', '/v1/auth/login', { body: { email: u0.email, password: PASSWORD }, headers: { 'x-forwarded-for': addr(20) } });
    const spareAuth = { 'x-forwarded-for': u0.ip, authorization: `Bearer ${spare.body.data.token as string}` };
    expect((await call(api(0).url, 'POST', '/v1/auth/logout', { headers: spareAuth })).status).toBeLessThan(300);
    expect((await call(api(1).url, 'GET', '/v1/auth/me', { headers: spareAuth })).status).toBe(401);

    // One client's auth bucket, filled through both nodes: the counts add up in Redis.
    const ip = addr(30);
    const login = (n: Node) => call(n.url, 'POST', '/v1/auth/login', { body: { email: u0.email, password: PASSWORD }, headers: { 'x-forwarded-for': ip } });
    const remaining: string[] = [];
    for (const n of [apis[0]!, apis[0]!, apis[1]!, apis[0]!, apis[1]!]) {
      const r = await login(n);
      expect(r.status).toBe(200);
      remaining.push(r.headers.get('ratelimit-remaining') ?? '');
    }
    expect(remaining).toEqual(['4', '3', '2', '1', '0']);
    for (const n of apis) {
      const refused = await login(n);
      expect(refused.status).toBe(429);
      expect(refused.body.error.code).toBe('RATE_LIMITED');
    }
  }, 90_000);

  /** Submits through `first`, and on a connection error (node killed) once more through `other`, with the same key. */
  async function submit(u: User, key: string, first: Node, other: Node): Promise<void> {
    const body = { capability_id: 'circuit.simulate', idempotency_key: key, max_total_price: '0.01', request: { circuit: bell, shots: 64, seed: 5 } };
    const send = (n: Node) => call(n.url, 'POST', '/v1/jobs', { body, headers: as(u, { authorization: `Bearer ${u.token}` }) });
    let r: Reply;
    try {
      r = await send(first);
    } catch {
      retried += 1;
      r = await send(other);
    }
    expect([200, 202], JSON.stringify(r.body)).toContain(r.status);
    const id = r.body.job_id as string;
    expect(accepted.get(key) ?? id).toBe(id);
    accepted.set(key, id);
  }

  it('a mixed load through both APIs survives a worker and an API killed mid-way', async () => {
    const [a0, a1] = [apis[0]!, apis[1]!];
    const [w0, w1] = [workers[0]!, workers[1]!];
    // Hardware: quote and hold on one node, continue on the other; the workers run them.
    for (const [i, u] of users.entries()) {
      const auth = as(u, { authorization: `Bearer ${u.session}` });
      const q = await call(api(i).url, 'POST', '/v1/billing/hardware/quote', { body: { provider: 'provider-two', device: 'p2-ion-11', shots: 20 }, headers: auth });
      expect(q.status, JSON.stringify(q.body)).toBe(200);
      const h = await call(api(i + 1).url, 'POST', '/v1/billing/hardware/hold', { body: { quote_id: q.body.data.quote_id }, headers: auth });
      expect(h.status).toBe(201);
      const c = await call(api(i).url, 'POST', `/v1/execute/provider-two/held/${h.body.data.job_id as string}`, { body: { circuit: ghz3, client_token: `hw-${i}`, seed: 7 }, headers: auth });
      expect(c.status, JSON.stringify(c.body)).toBe(202);
      heldJobs.push(h.body.data.job_id as string);
      // A simulator execution answers at once, on either node.
      const sim = await call(api(i + 1).url, 'POST', '/v1/execute/provider-one', { body: { circuit: bell, shots: 100, client_token: `sim-${i}` }, headers: auth });
      expect(sim.status).toBe(200);
      expect(sim.body.data.status).toBe('completed');
    }

    // Worker 0 is killed while it holds a job: stopped (SIGSTOP) now and then during the load until the
    // database shows it holding one, then SIGKILLed at once (a stopped worker may hold row locks).
    const holds = async () =>
      (await db!.query<{ n: number }>("SELECT count(*)::int AS n FROM jobs WHERE status IN ('running', 'result_saved') AND lease_owner LIKE $1", [`${w0.pid}-%`])).rows[0]?.n ?? 0;
    const caught = waitFor(
      async () => {
        process.kill(w0.pid, 'SIGSTOP');
        if ((await holds()) > 0) {
          process.kill(w0.pid, 'SIGKILL');
          return true;
        }
        process.kill(w0.pid, 'SIGCONT');
        return false;
      },
      { timeoutMs: 30_000, intervalMs: 5, what: 'worker 0 holding a job' },
    );

    // First half of the jobs, alternating the APIs.
    const keys = users.flatMap((u, ui) => Array.from({ length: JOBS_PER_USER }, (_, j) => ({ u, ui, key: `mn-${run.toString('hex')}-${ui}-${j}` })));
    const half = keys.length / 2;
    await Promise.all(keys.slice(0, half).map(({ u, ui, key }, n) => submit(u, key, api(ui + n), api(ui + n + 1))));
    await caught;
    expect((await w0.exited).signal).toBe('SIGKILL');
    // The second half: one client per user submitting in turn, alternating the APIs; API 1 dies mid-way.
    let sent = 0;
    const clients = users.map(async (u, ui) => {
      const mine = keys.slice(half).filter((k) => k.ui === ui);
      for (const [n, { key }] of mine.entries()) {
        await submit(u, key, n % 2 === 0 ? a1 : a0, a0);
        sent += 1;
      }
    });
    await waitFor(() => sent >= 8, { timeoutMs: 30_000, what: 'submissions through both APIs' });
    await a1.kill('SIGKILL');
    await Promise.all(clients);
    expect(accepted.size).toBe(keys.length);
    // The clients' requests to the dead API failed and were sent again, same key, to the other.
    expect(retried).toBeGreaterThan(0);

    // A token issued by the dead API is still valid on the surviving one.
    const u1 = users[1]!;
    expect((await call(a0.url, 'GET', '/v1/jobs?limit=5', { headers: as(u1, { authorization: `Bearer ${u1.token}` }) })).status).toBe(200);

    // Nothing lost: every accepted job and every continued hardware job reaches a terminal state.
    const ids = [...accepted.values()];
    await waitFor(
      async () => {
        const r = await db!.query<{ n: number }>("SELECT count(*)::int AS n FROM jobs WHERE id = ANY($1::uuid[]) AND status IN ('completed', 'failed')", [ids]);
        const h = await db!.query<{ n: number }>("SELECT count(*)::int AS n FROM execution_jobs WHERE id = ANY($1::uuid[]) AND status IN ('completed', 'failed')", [heldJobs]);
        return r.rows[0]?.n === ids.length && h.rows[0]?.n === heldJobs.length;
      },
      { timeoutMs: 60_000, intervalMs: 100, what: `all ${ids.length} jobs and ${heldJobs.length} hardware runs terminal\n${w1.tail()}` },
    );
    const jobs = await db!.query<{ status: string; n: number }>('SELECT status, count(*)::int AS n FROM jobs GROUP BY status');
    expect(jobs.rows).toEqual([{ status: 'completed', n: keys.length }]); // one job per key, none failed
    const hw = await db!.query<{ status: string }>('SELECT status FROM execution_jobs WHERE id = ANY($1::uuid[])', [heldJobs]);
    expect(hw.rows.map((r) => r.status)).toEqual(heldJobs.map(() => 'completed'));

    // Nothing run twice: a job ran again only after the killed worker's lease on it expired, and
    // whatever ran twice was captured once (the invariants: one capture per completed job).
    const reruns = await db!.query<{ job_id: string; workers: string[] }>(
      "SELECT job_id, array_agg(worker ORDER BY id) AS workers FROM job_transitions WHERE to_status = 'running' GROUP BY job_id HAVING count(*) > 1",
    );
    for (const r of reruns.rows) for (const w of r.workers.slice(0, -1)) expect(w, r.job_id).toMatch(new RegExp(`^${w0.pid}-`));
    const taken = await db!.query<{ n: number }>(
      'SELECT count(DISTINCT job_id)::int AS n FROM job_transitions WHERE worker LIKE $1 AND job_id IN (SELECT job_id FROM job_transitions WHERE worker NOT LIKE $1)',
      [`${w0.pid}-%`],
    );
    expect(taken.rows[0]?.n, 'jobs the killed worker held were finished by the other').toBeGreaterThanOrEqual(1);
    expect(await checkJobInvariants(db!)).toEqual([]);
    expect(await checkLedgerInvariants(db!)).toEqual([]);
    await expectExecutionInvariants({ db: db! });

    // The operator's check agrees.
    const check = await runCommand(['ledger', 'check'], env);
    expect(check.code, check.out + check.err).toBe(0);

    // The surviving worker took the dead one's items over, and its periodic ledger check is clean.
    const s = await waitFor(
      async () => {
        const m = parsePrometheus((await call(w1.metricsUrl, 'GET', '')).body as string);
        return (sampleValue(m, 'qrail_ledger_checks_total', { outcome: 'ok' }) ?? 0) >= 1 ? m : undefined;
      },
      { timeoutMs: 20_000, intervalMs: 200, what: 'a periodic ledger check on the surviving worker' },
    );
    expect(sampleValue(s, 'qrail_ledger_check_violations')).toBe(0);
    // A job taken over while running is run again (a re-run claim); one taken over after its result was saved is only completed.
    expect(sampleValue(s, 'qrail_queue_claims_total', { queue: 'jobs', outcome: 'rerun' }) ?? 0).toBe(reruns.rows.length);
    expect(sampleValue(s, 'qrail_queue_depth', { queue: 'jobs' })).toBe(0);
  }, 150_000);
});

describe('startup refuses a configuration that would break several nodes', () => {
  it('serve with a PostgreSQL DATABASE_URL and no PUBLIC_BASE_URL: one line naming it, exit 2, nothing opened', async () => {
    // An unreachable server: the refusal comes before any connection.
    for (const role of ['api', 'worker']) {
      const r = await runCommand(['serve', '--role', role], { DATABASE_URL: 'postgres://qrail@127.0.0.1:1/qrail', PUBLIC_BASE_URL: '', PORT: '0', LOG_LEVEL: 'info' });
      expect(r.code).toBe(2);
      const lines = r.err.trim().split('\n');
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatch(/^Invalid configuration: PUBLIC_BASE_URL must be set when DATABASE_URL selects PostgreSQL: it is the issuer of Jobs tokens/);
      expect(r.out).toBe('');
    }
  }, 60_000);
});
