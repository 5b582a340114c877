import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkLedgerInvariants } from '../../src/store/billing/invariants-sql.js';
import type { Database } from '../../src/store/db.js';
import { checkJobInvariants } from '../../src/store/jobs/jobs-invariants.js';
import { openDatabase } from '../../src/store/open-database.js';
import { bell } from '../helpers/circuits.js';
import { waitFor } from '../helpers/wait-for.js';
import { call, runCommand, scratchDatabase, startNode, type Node, type Reply } from './cluster.js';

/**
 * A PostgreSQL restart, failover or pooler recycle ends every server connection at once
 * (57P01 "terminating connection due to administrator command"). A real `serve` process on
 * PostgreSQL takes a burst of Account Jobs submissions while every backend of its database is
 * terminated again and again: the process must live on, each request either succeeds or answers
 * 503 STORE_UNAVAILABLE (which the client retries with the same idempotency key), and every
 * acknowledged job completes exactly once, charged once, with `qrail ledger check` clean.
 * PostgreSQL only (DATABASE_URL): the embedded database has no server connections to lose.
 */
const ADMIN_URL = process.env['DATABASE_URL'];
const TERMINATIONS = 6;
const CLIENTS = 6;
const JOBS_PER_CLIENT = 15;
const PASSWORD = 'terminated backends 1';

describe.skipIf(ADMIN_URL === undefined)('every PostgreSQL backend terminated during a submission burst (PostgreSQL only)', () => {
  let drop: () => Promise<void> = async () => undefined;
  let dbName = '';
  let env: Record<string, string>;
  let node: Node | undefined;
  let db: Database | undefined;

  beforeAll(async () => {
    const scratch = await scratchDatabase(ADMIN_URL ?? '', 'terminate');
    drop = scratch.drop;
    dbName = new URL(scratch.url).pathname.slice(1);
    env = {
      DATABASE_URL: scratch.url,
      REDIS_URL: '',
      PUBLIC_BASE_URL: 'http://qrail-terminate.test',
      LOG_LEVEL: 'warn',
      COMPUTE_THREADS: '1',
      JOBS_POLL_MS: '50',
      EXECUTION_POLL_MS: '50',
      JOBS_LEASE_MS: '5000',
      RATE_LIMIT_AUTH_PER_MINUTE: '1000',
      SHUTDOWN_DRAIN_DELAY_MS: '0',
    };
    const m = await runCommand(['migrate'], env);
    expect(m.code, m.err).toBe(0);
    node = await startNode('all', env);
    db = await openDatabase({ databaseUrl: scratch.url, dataDir: 'unused', poolSize: 2 });
  }, 120_000);

  afterAll(async () => {
    await node?.kill('SIGKILL').catch(() => undefined);
    await db?.close();
    await drop();
  });

  /** Ends every connection to the scratch database but this one; returns how many it ended. */
  async function terminateAll(): Promise<number> {
    const admin = new pg.Client({ connectionString: ADMIN_URL });
    await admin.connect();
    try {
      const r = await admin.query<{ ok: boolean }>('SELECT pg_terminate_backend(pid) AS ok FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()', [dbName]);
      return r.rows.filter((x) => x.ok).length;
    } finally {
      await admin.end();
    }
  }

  /** A request that a client retries, unchanged, while the service answers 503 or the connection drops. */
  async function withRetry(send: () => Promise<Reply>, seen: { unavailable: number }): Promise<Reply> {
    for (let attempt = 0; ; attempt++) {
      const r = await send();
      if (r.status !== 503 || attempt >= 200) return r;
      expect(r.body?.error?.code ?? r.body?.error, JSON.stringify(r.body)).toMatch(/STORE_UNAVAILABLE|store_unavailable/i);
      seen.unavailable += 1;
    }
  }

  it('the process survives, each job is acknowledged once, completes once and is charged once', async () => {
    const n = node!;
    const seen = { unavailable: 0 };
    const tag = randomBytes(3).toString('hex');
    // Accounts with a credential and a Jobs token each.
    const tokens: string[] = [];
    for (let i = 0; i < CLIENTS; i++) {
      const email = `terminate.${tag}.${i}@example.com`;
      const reg = await withRetry(() => call(n.url, 'POST', '/v1/auth/register', { body: { email, password: PASSWORD } }), seen);
      expect(reg.status, JSON.stringify(reg.body)).toBe(201);
      const login = await call(n.url, 'POST', '/v1/auth/login', { body: { email, password: PASSWORD } });
      expect(login.status).toBe(200);
      const auth = { authorization: `Bearer ${login.body.data.token as string}` };
      const pay = await call(n.url, 'POST', '/v1/billing/processor/payment-intent', { body: { amount: '5.00', payment_method: 'pm_card_visa' }, headers: auth });
      expect(pay.status, JSON.stringify(pay.body)).toBeLessThan(300);
      const cred = await call(n.url, 'POST', '/v1/auth/credentials', { body: { name: 'agent', scopes: ['jobs:read', 'jobs:write'] }, headers: auth });
      expect(cred.status).toBe(201);
      const basic = Buffer.from(`${cred.body.data.credential_id as string}:${cred.body.data.secret as string}`).toString('base64');
      const tok = await call(n.url, 'POST', '/v1/oauth/token', { form: 'grant_type=client_credentials', headers: { authorization: `Basic ${basic}` } });
      expect(tok.status).toBe(200);
      tokens.push(tok.body.access_token as string);
    }

    /** idempotency key → job id of every acknowledged submission. */
    const accepted = new Map<string, string>();
    const submitAll = Promise.all(
      tokens.map(async (token, ci) => {
        for (let j = 0; j < JOBS_PER_CLIENT; j++) {
          const key = `term-${tag}-${ci}-${j}`;
          const body = { capability_id: 'circuit.simulate', idempotency_key: key, max_total_price: '0.01', request: { circuit: bell, shots: 32, seed: j } };
          const r = await withRetry(() => call(n.url, 'POST', '/v1/jobs', { body, headers: { authorization: `Bearer ${token}` } }), seen);
          expect([200, 202], JSON.stringify(r.body)).toContain(r.status);
          const id = r.body.job_id as string;
          expect(accepted.get(key) ?? id).toBe(id);
          accepted.set(key, id);
        }
      }),
    );

    // A client whose connection was dropped (the process died) fails the test with the node's last lines.
    let failure: unknown;
    submitAll.catch((e: unknown) => (failure = e));
    // Terminations spread over the burst: each waits for more submissions to have gone through.
    let ended = 0;
    for (let t = 0; t < TERMINATIONS; t++) {
      const target = Math.floor(((t + 1) * CLIENTS * JOBS_PER_CLIENT) / (TERMINATIONS + 2));
      await waitFor(
        () => {
          if (failure !== undefined) throw new Error(`a submission failed: ${failure instanceof Error ? failure.message : JSON.stringify(failure)}\n${n.tail()}`);
          return accepted.size >= target;
        },
        { timeoutMs: 60_000, intervalMs: 5, what: `${target} acknowledged submissions\n${n.tail()}` },
      );
      ended += await terminateAll();
    }
    await submitAll;
    expect(ended, 'backends of the service were terminated').toBeGreaterThanOrEqual(TERMINATIONS);
    expect(accepted.size).toBe(CLIENTS * JOBS_PER_CLIENT);

    // Once more after the burst, while the worker runs the queue.
    await terminateAll();

    // Every acknowledged job completes, exactly once.
    const ids = [...accepted.values()];
    await waitFor(
      async () => {
        const r = await db!.query<{ n: number }>("SELECT count(*)::int AS n FROM jobs WHERE id = ANY($1::uuid[]) AND status IN ('completed', 'failed')", [ids]);
        return r.rows[0]?.n === ids.length;
      },
      { timeoutMs: 90_000, intervalMs: 100, what: `all ${ids.length} jobs terminal\n${n.tail()}` },
    );
    const jobs = await db!.query<{ status: string; n: number }>('SELECT status, count(*)::int AS n FROM jobs GROUP BY status');
    expect(jobs.rows).toEqual([{ status: 'completed', n: ids.length }]);
    const captures = await db!.query<{ n: number; jobs: number }>(
      "SELECT count(*)::int AS n, count(DISTINCT j.id)::int AS jobs FROM ledger_transfers t JOIN jobs j ON j.hold_id = t.hold_id WHERE t.kind = 'capture'",
    );
    expect(captures.rows[0]).toEqual({ n: ids.length, jobs: ids.length });
    expect(await checkJobInvariants(db!)).toEqual([]);
    expect(await checkLedgerInvariants(db!)).toEqual([]);
    const check = await runCommand(['ledger', 'check'], env);
    expect(check.code, check.out + check.err).toBe(0);

    // The process lived through it all and still serves.
    let exited = false;
    void n.exited.then(() => (exited = true));
    await Promise.resolve();
    expect(exited, n.tail()).toBe(false);
    expect((await call(n.url, 'GET', '/readyz')).status).toBe(200);
  }, 240_000);
});
