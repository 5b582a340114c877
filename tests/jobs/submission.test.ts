import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/http/app-types.js';
import { StoreUnavailableError, type Database, type QueryOptions } from '../../src/store/db.js';
import { buildTestApp } from '../helpers/app.js';
import { expectAllInvariants, key, newAgent, submit, withTestCapabilities, type Agent } from './helpers.js';
import { idempotencyHash } from '../../src/idempotency/idempotency.js';

const echo = (k: string, extra: Record<string, unknown> = {}) => ({ capability_id: 'test.echo', request: { text: 'hello' }, idempotency_key: k, max_total_price: '0.100000', ...extra });

function expectError(r: { statusCode: number; json: () => any }, status: number, code: string) {
  expect(r.statusCode).toBe(status);
  const b = r.json();
  expect(b.error.code).toBe(code);
  expect(typeof b.request_id).toBe('string');
  return b.error;
}

describe('job submission: 400 / 404 / 409 / 503 of spec §7', () => {
  let app: App;
  let a: Agent;
  beforeAll(async () => {
    app = await buildTestApp();
    withTestCapabilities(app);
    a = await newAgent(app, { fundMicros: 1_000_000n });
  });
  afterEach(async () => expectAllInvariants(app));
  afterAll(async () => app.close());

  it('400 for every SubmitJob rule, with paths', async () => {
    const cases: Array<[Record<string, unknown>, string, string]> = [
      [{ ...echo(key()), extra: 1 }, '/extra', 'UNKNOWN_PROPERTY'],
      [{ ...echo(key()), capability_id: '' }, '/capability_id', 'TOO_SHORT'],
      [{ ...echo(key()), capability_id: 'c'.repeat(129) }, '/capability_id', 'TOO_LONG'],
      [{ ...echo(key()), request: 'text' }, '/request', 'WRONG_TYPE'],
      [{ ...echo('-starts-with-dash') }, '/idempotency_key', 'PATTERN_MISMATCH'],
      [{ ...echo('has space') }, '/idempotency_key', 'PATTERN_MISMATCH'],
      [{ ...echo(`k${'x'.repeat(128)}`) }, '/idempotency_key', 'TOO_LONG'],
      [{ ...echo(key()), max_total_price: 0.5 }, '/max_total_price', 'WRONG_TYPE'],
      [{ ...echo(key()), max_total_price: '0.1234567' }, '/max_total_price', 'PATTERN_MISMATCH'],
      [{ ...echo(key()), max_total_price: '01.5' }, '/max_total_price', 'PATTERN_MISMATCH'],
      [{ ...echo(key()), max_total_price: '1.000001' }, '/max_total_price', 'TOO_LARGE'],
      [{ ...echo(key()), max_total_price: '2' }, '/max_total_price', 'TOO_LARGE'],
      [{ ...echo(key()), request: { text: 'hi', nope: true } }, '/request/nope', 'UNKNOWN_PROPERTY'],
      [{ ...echo(key()), request: {} }, '/request/text', 'REQUIRED'],
      [{ ...echo(key()), request: { text: 'invalid' } }, '/request/text', 'BAD_TEXT'],
    ];
    for (const [body, path, code] of cases) {
      const r = await submit(app, a, body);
      expect(r.statusCode, JSON.stringify(body).slice(0, 80)).toBe(400);
      expect(r.json().error.details, path).toContainEqual(expect.objectContaining({ path, code }));
    }
    const missing = await submit(app, a, {});
    expect(
      missing
        .json()
        .error.details.map((d: { path: string }) => d.path)
        .sort(),
    ).toEqual(['/capability_id', '/idempotency_key', '/max_total_price', '/request']);
    const unknown = await submit(app, a, { ...echo(key()), capability_id: 'no.such.thing' });
    expectError(unknown, 400, 'UNKNOWN_CAPABILITY');
    // Exactly 1.000000 is allowed; "1" and "0" too.
    expect((await submit(app, a, echo(key(), { max_total_price: '1.000000' }))).statusCode).toBe(202);
    expect((await submit(app, a, echo(key(), { max_total_price: '1' }))).statusCode).toBe(202);
    const none = await app.db.query<{ n: number }>("SELECT count(*)::int AS n FROM jobs WHERE idempotency_key LIKE '-%'");
    expect(none.rows[0]?.n).toBe(0);
    const q = await app.inject({ method: 'GET', url: `/v1/jobs?idempotency_key=${'k'.repeat(129)}`, headers: a.auth });
    expectError(q, 400, 'VALIDATION_FAILED');
    expectError(await app.inject({ method: 'GET', url: '/v1/jobs/not-a-uuid', headers: a.auth }), 400, 'VALIDATION_FAILED');
    expectError(await app.inject({ method: 'GET', url: '/v1/jobs?limit=101', headers: a.auth }), 400, 'VALIDATION_FAILED');
    expectError(await app.inject({ method: 'GET', url: '/v1/jobs?cursor=bm9wZQ', headers: a.auth }), 400, 'INVALID_CURSOR');
    const raw = await app.inject({ method: 'POST', url: '/v1/jobs', headers: { ...a.auth, 'content-type': 'application/json' }, payload: '{"capability_id":' });
    expectError(raw, 400, 'MALFORMED_JSON');
  });

  it('404 for a job of another account and for an unknown job', async () => {
    const r = await submit(app, a, echo(key()));
    const b = await newAgent(app, { fundMicros: 0n });
    expectError(await app.inject({ method: 'GET', url: `/v1/jobs/${r.json().job_id}`, headers: b.auth }), 404, 'JOB_NOT_FOUND');
    expectError(await app.inject({ method: 'GET', url: `/v1/jobs/${randomUUID()}`, headers: a.auth }), 404, 'JOB_NOT_FOUND');
    // The other account does not see it in its list either, even by key.
    const list = await app.inject({ method: 'GET', url: `/v1/jobs?idempotency_key=${r.json().idempotency_key}`, headers: b.auth });
    expect(list.json().jobs).toEqual([]);
  });

  it('409 PRICE_ABOVE_MAXIMUM, INSUFFICIENT_BALANCE and spend limits; nothing is stored and the key stays usable', async () => {
    const poor = await newAgent(app, { fundMicros: 1_000n });
    const k = key();
    const e = expectError(await submit(app, poor, echo(k, { max_total_price: '0.001' })), 409, 'PRICE_ABOVE_MAXIMUM');
    expect(e.details).toMatchObject({ quoted_price: '0.001050', max_total_price: '0.001000' });
    expectError(await submit(app, poor, echo(k)), 409, 'INSUFFICIENT_BALANCE');
    const jobs = await app.inject({ method: 'GET', url: `/v1/jobs?idempotency_key=${k}`, headers: poor.auth });
    expect(jobs.json().jobs).toEqual([]);

    await app.db.query('UPDATE billing_wallets SET per_job_max_micros = 500 WHERE account_id = $1', [a.accountId]);
    expectError(await submit(app, a, echo(key())), 409, 'SPEND_LIMIT_PER_JOB');
    await app.db.query('UPDATE billing_wallets SET per_job_max_micros = NULL, daily_limit_micros = 1 WHERE account_id = $1', [a.accountId]);
    expectError(await submit(app, a, echo(key())), 409, 'SPEND_LIMIT_DAILY');
    await app.db.query('UPDATE billing_wallets SET daily_limit_micros = NULL, monthly_limit_micros = 1 WHERE account_id = $1', [a.accountId]);
    expectError(await submit(app, a, echo(key())), 409, 'SPEND_LIMIT_MONTHLY');
    await app.db.query('UPDATE billing_wallets SET monthly_limit_micros = NULL WHERE account_id = $1', [a.accountId]);
    // After a top-up the same key goes through.
    const { fundAccount } = await import('../helpers/ledger.js');
    await fundAccount(app, poor.accountId, 10_000n);
    expect((await submit(app, poor, echo(k))).statusCode).toBe(202);
  });

  it('never overdraws under concurrency; limits at their boundary; daily and monthly windows count every hold', async () => {
    // echo "hello" costs 0.001050: a balance for exactly 5 of them.
    const five = await newAgent(app, { fundMicros: 5_250n });
    const rs = await Promise.all(Array.from({ length: 12 }, (_, i) => submit(app, five, echo(key(`od${i}`)))));
    expect(rs.filter((r) => r.statusCode === 202)).toHaveLength(5);
    for (const r of rs.filter((x) => x.statusCode !== 202)) expectError(r, 409, 'INSUFFICIENT_BALANCE');
    const bal = (await app.inject({ method: 'GET', url: '/v1/account/balance', headers: five.auth })).json();
    expect(bal).toMatchObject({ available: '0.000000', held: '0.005250', total: '0.005250' });

    const lim = await newAgent(app, { fundMicros: 1_000_000n });
    // A per-job maximum equal to the price allows it.
    await app.db.query('UPDATE billing_wallets SET per_job_max_micros = 1050, daily_limit_micros = 3150 WHERE account_id = $1', [lim.accountId]);
    for (let i = 0; i < 3; i++) expect((await submit(app, lim, echo(key('day')))).statusCode).toBe(202);
    const day = expectError(await submit(app, lim, echo(key('day'))), 409, 'SPEND_LIMIT_DAILY');
    expect(day.details).toMatchObject({ spent: '0.003150', amount: '0.001050', limit_value: '0.003150' });
    await app.db.query('UPDATE billing_wallets SET daily_limit_micros = NULL, monthly_limit_micros = 4200 WHERE account_id = $1', [lim.accountId]);
    expect((await submit(app, lim, echo(key('month')))).statusCode).toBe(202);
    const month = expectError(await submit(app, lim, echo(key('month'))), 409, 'SPEND_LIMIT_MONTHLY');
    expect(month.details).toMatchObject({ spent: '0.004200' });
  });

  it('409 IDEMPOTENCY_KEY_REUSED for the same key with another body; the same body returns the original job', async () => {
    const k = key();
    const first = await submit(app, a, echo(k));
    expect(first.statusCode).toBe(202);
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    // Same meaning, other key order and another spelling of the same price → the same job.
    const again = await submit(app, a, { max_total_price: '0.1', request: { text: 'hello' }, idempotency_key: k, capability_id: 'test.echo' });
    expect(again.statusCode).toBe(202);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.json().job_id).toBe(first.json().job_id);
    for (const body of [echo(k, { request: { text: 'bye' } }), echo(k, { max_total_price: '0.2' }), { ...echo(k), capability_id: 'test.effectful' }]) {
      const e = expectError(await submit(app, a, body), 409, 'IDEMPOTENCY_KEY_REUSED');
      expect(e.details.job_id).toBe(first.json().job_id);
    }
    // Keys are scoped to the account: another account may use the same key.
    const b = await newAgent(app, { fundMicros: 100_000n });
    const theirs = await submit(app, b, echo(k));
    expect(theirs.statusCode).toBe(202);
    expect(theirs.json().job_id).not.toBe(first.json().job_id);
  });

  it('the 202 Job is the stored Job: GET and a replay answer the same fields', async () => {
    const k = key('same');
    const body = { capability_id: 'test.echo', request: { text: 'hello' }, idempotency_key: k, max_total_price: '0.100000' };
    const created = await submit(app, a, body);
    expect(created.statusCode).toBe(202);
    const got = await app.inject({ method: 'GET', url: `/v1/jobs/${created.json().job_id}`, headers: a.auth });
    expect(got.json()).toEqual(created.json());
    const replay = await submit(app, a, body);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.json()).toEqual(created.json());
    expect(created.json().transitions.map((t: { to: string; note?: string }) => [t.to, t.note ?? null])).toEqual([
      ['quoted', `price ${created.json().quote.price}`],
      ['reserved', expect.stringMatching(/^hold [0-9a-f-]{36}$/)],
      ['queued', null],
    ]);
  });

  it('20 concurrent submissions with one key → one job and one hold', async () => {
    const k = key('burst');
    const rs = await Promise.all(Array.from({ length: 20 }, () => submit(app, a, echo(k))));
    const ok = rs.filter((r) => r.statusCode === 202);
    const inFlight = rs.filter((r) => r.statusCode === 409);
    expect(ok.length + inFlight.length).toBe(20);
    expect(ok.length).toBeGreaterThanOrEqual(1);
    for (const r of inFlight) {
      expect(r.json().error.code).toBe('IDEMPOTENCY_KEY_IN_FLIGHT');
      expect(r.headers['retry-after']).toBe('1');
    }
    expect(new Set(ok.map((r) => r.json().job_id)).size).toBe(1);
    const jobId = ok[0]?.json().job_id as string;
    const jobs = await app.db.query<{ n: number }>('SELECT count(*)::int AS n FROM jobs WHERE account_id = $1 AND idempotency_key = $2', [a.accountId, k]);
    expect(jobs.rows[0]?.n).toBe(1);
    const holds = await app.db.query<{ n: number }>("SELECT count(*)::int AS n FROM billing_holds WHERE kind = 'job' AND ref_id = $1", [jobId]);
    expect(holds.rows[0]?.n).toBe(1);
    // The retry after a 409 in flight returns the job.
    const retry = await submit(app, a, echo(k));
    expect(retry.json().job_id).toBe(jobId);
    expectError(await submit(app, a, echo(k, { request: { text: 'other' } })), 409, 'IDEMPOTENCY_KEY_REUSED');
  });

  it.skipIf(process.env['DATABASE_URL'] === undefined)('409 IDEMPOTENCY_KEY_IN_FLIGHT while another transaction holds the key (PostgreSQL)', async () => {
    const k = key('held');
    const c = new pg.Client({ connectionString: process.env['DATABASE_URL'] });
    await c.connect();
    try {
      await c.query('BEGIN');
      await c.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [`qrail.idempotency:jobs:${a.accountId}:${idempotencyHash(k)}`]);
      expectError(await submit(app, a, echo(k)), 409, 'IDEMPOTENCY_KEY_IN_FLIGHT');
      await c.query('COMMIT');
    } finally {
      await c.end();
    }
    expect((await submit(app, a, echo(k))).statusCode).toBe(202);
  });

  it('503 when draining or when the store is unavailable; the same key then recovers exactly one job', async () => {
    const k = key('s503');
    app.draining = true;
    const d = await submit(app, a, echo(k));
    app.draining = false;
    expectError(d, 503, 'SERVICE_DRAINING');
    expect(d.headers['retry-after']).toBeDefined();

    // The submission is one statement (jobs_submit, called through jobs_submit_in_request or, batched,
    // jobs_submit_many_in_requests): make exactly that one fail.
    const db = app.db as { query: Database['query'] };
    const query = db.query;
    const onSubmit = (f: (sql: string, params?: readonly unknown[]) => Promise<never>) => {
      db.query = ((sql: string, params?: readonly unknown[], options?: QueryOptions) =>
        /\bjobs_submit(_in_request|_many_in_requests)?\(/.test(sql) ? f(sql, params) : query.call(app.db, sql, params, options)) as Database['query'];
    };
    onSubmit(() => Promise.reject(new StoreUnavailableError(new Error('connection refused'))));
    const down = await submit(app, a, echo(k));
    db.query = query;
    expectError(down, 503, 'STORE_UNAVAILABLE');
    // The transaction committed but the connection died before the answer: still one job.
    onSubmit(async (sql, params) => {
      await query.call(app.db, sql, params);
      throw new StoreUnavailableError(new Error('connection reset'));
    });
    const lost = await submit(app, a, echo(k));
    db.query = query;
    expectError(lost, 503, 'STORE_UNAVAILABLE');
    const retry = await submit(app, a, echo(k));
    expect(retry.statusCode).toBe(202);
    const list = await app.inject({ method: 'GET', url: `/v1/jobs?idempotency_key=${k}`, headers: a.auth });
    expect(list.json().jobs).toHaveLength(1);
    expect(list.json().jobs[0].job_id).toBe(retry.json().job_id);
  });

  it('lists newest first with cursor pagination, at most 100 per page, and filters by idempotency_key', async () => {
    const c = await newAgent(app, { fundMicros: 1_000_000n });
    const ids: string[] = [];
    for (let i = 0; i < 7; i++) ids.push((await submit(app, c, echo(`page-${i}`))).json().job_id);
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const url: string = `/v1/jobs?limit=3${cursor === null ? '' : `&cursor=${cursor}`}`;
      const r: { statusCode: number; json: () => { jobs: Array<{ job_id: string }>; next_cursor: string | null } } = await app.inject({ method: 'GET', url, headers: c.auth });
      expect(r.statusCode).toBe(200);
      const body: { jobs: Array<{ job_id: string }>; next_cursor: string | null } = r.json();
      expect(body.jobs.length).toBeLessThanOrEqual(3);
      seen.push(...body.jobs.map((j: { job_id: string }) => j.job_id));
      cursor = body.next_cursor;
    } while (cursor !== null);
    expect(seen).toEqual([...ids].reverse());
    const one = await app.inject({ method: 'GET', url: '/v1/jobs?idempotency_key=page-3', headers: c.auth });
    expect(one.json().jobs.map((j: { job_id: string }) => j.job_id)).toEqual([ids[3]]);
    expect(one.json().next_cursor).toBeNull();
    const all = await app.inject({ method: 'GET', url: '/v1/jobs', headers: c.auth });
    expect(all.json().jobs).toHaveLength(7);
    for (const j of all.json().jobs) {
      expect(j.quoted_price).toMatch(/^(?:0|[1-9]\d*)\.\d{6}$/);
      expect(j.reserved_price).toMatch(/^(?:0|[1-9]\d*)\.\d{6}$/);
      expect(j.payment_rail).toBe('account_core_balance');
    }
  });
});
