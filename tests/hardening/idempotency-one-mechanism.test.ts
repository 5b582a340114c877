/**
 * One idempotency mechanism (issue 18 item 3; docs/decisions/foundation-idempotency-one-mechanism.md):
 * every POST that creates an object or moves money is keyed through it, and each scope — the
 * Idempotency-Key header, Account Jobs' idempotency_key, execution's client_token, ledger credits —
 * answers replay, reuse (409) and in flight (409, or a wait where the scope waits) through the same
 * table and functions. In flight needs two connections, so its lock tests run on PostgreSQL; on
 * PGlite (one connection) concurrent requests are serialised and see replays instead.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/http/app-types.js';
import { idempotencyHash } from '../../src/idempotency/idempotency.js';
import { creditPayment, grantCredit } from '../../src/store/billing/ledger-sql.js';
import type { Database, Queryable } from '../../src/store/db.js';
import { listMigrations, migrate } from '../../src/store/migrate.js';
import { openDatabase } from '../../src/store/open-database.js';
import { buildTestApp, signUp } from '../helpers/app.js';
import { expectLedgerInvariants } from '../helpers/ledger.js';
import { expectAllInvariants, key, newAgent, submit, withTestCapabilities } from '../jobs/helpers.js';
import { bell } from '../execution/helpers.js';

const url = process.env['DATABASE_URL'];
const onPg = url !== undefined;
const OPERATOR = 'op-token-for-one-mechanism-tests-0123456789';

/**
 * POST routes that take no key, and why: they create nothing a retry could duplicate and move no
 * money, or another unique key already makes them idempotent. Any other POST must be keyed.
 */
const NOT_KEYED: Record<string, string> = {
  'POST /v1/auth/register': 'creates the account itself (no owner to scope a key to); a repeat is refused by the unique email',
  'POST /v1/auth/login': 'a session per login is the point; no money',
  'POST /v1/auth/logout': 'revoking a session twice is revoking it once',
  'POST /v1/auth/email/verification': 'mails a new link; repeats are throttled, no money',
  'POST /v1/auth/email/verify': 'a single-use token: a repeat finds it used (400), the email stays verified',
  'POST /v1/auth/password/forgot': 'mails a link; repeats are throttled and answer the same, no money',
  'POST /v1/auth/password/reset': 'a single-use token: a repeat finds it used (400)',
  'POST /v1/auth/password': 'setting the same new password twice leaves it set; no money',
  'POST /v1/auth/sessions/revoke-all': 'revoking every session twice is revoking them once',
  'POST /v1/auth/mfa/totp': 'a new pending secret replaces the last one; nothing to duplicate',
  'POST /v1/auth/mfa/totp/confirm': 'a repeat finds two-factor on (409); a code is accepted once',
  'POST /v1/auth/mfa/totp/disable': 'a repeat finds two-factor off (409)',
  'POST /v1/auth/login/mfa': 'a challenge completes once; a session per sign-in is the point',
  'POST /v1/auth/account/close': 'closes once: a repeat finds its session revoked (401); the settlement hold is unique per account (kind, ref)',
  'POST /v1/oauth/token': 'issues a signed access token; nothing stored, no money',
  'POST /v1/orgs/:org_id/close': 'closes once: a repeat finds the organization closed (404 ORG_NOT_FOUND); the settlement hold is unique per organization (kind, ref)',
  'POST /v1/orgs/:org_id/invitations/:invitation_id/accept': 'an invitation is single use: a repeat finds it accepted (404 ORG_INVITATION_NOT_USABLE), the membership stays one',
  'POST /v1/chat': 'computes an answer; nothing stored, no money',
  'POST /v1/tts': 'computes audio; nothing stored, no money',
  'POST /v1/circuits/validate': 'pure computation',
  'POST /v1/circuits/analyze': 'pure computation',
  'POST /v1/analysis/coupling': 'pure computation',
  'POST /v1/analysis/coupling/compare': 'pure computation',
  'POST /v1/billing/processor/webhook': 'deduplicated by the processor event id; its credits are keyed by the payment (ledger scope)',
  'POST /v1/billing/processor/sandbox/checkout/:id/pay': 'the sandbox processor’s hosted page (Stripe’s in production); the payment is credited by its checkout reference (ledger scope)',
  'POST /v1/billing/processor/sandbox/portal/:id/payment-method': 'the sandbox processor’s hosted page; sets the default payment method',
  'POST /v1/jobs/:job_id/cancel': 'idempotent by the job’s state: a repeat finds the job canceled (or asked to stop) and answers the same, moving nothing',
  'POST /v1/execute/provider-one/:job_id/cancel': 'idempotent by the job’s state: a repeat finds it canceled (or asked to stop) and answers the same, moving nothing',
  'POST /v1/execute/provider-two/:job_id/cancel': 'idempotent by the job’s state: a repeat finds it canceled (or asked to stop) and answers the same, moving nothing',
  'POST /v1/circuits/optimize/jobs/:job_id/cancel': 'idempotent by the job’s state: a repeat finds it canceled (or asked to stop) and answers the same, moving nothing',
  'POST /mcp': 'the MCP transport (JSON-RPC): moves nothing itself; its submit_job tool requires an idempotency_key and sends it to POST /v1/jobs (the jobs scope)',
  'POST /v1/webhooks/endpoints/:endpoint_id/enable': 'idempotent by the endpoint’s state: a repeat finds it enabled and answers the same',
  'POST /v1/operator/backup': 'reads a snapshot and stores nothing; a repeat is another snapshot, no money',
};

describe('every POST that creates an object or moves money goes through the one mechanism', () => {
  let app: App;
  beforeAll(async () => {
    app = await buildTestApp({ QRAIL_OPERATOR_TOKEN: OPERATOR });
    await app.ready();
  });
  afterAll(async () => app.close());

  it('each POST route is keyed by the Idempotency-Key header or a required body key, or is listed with its reason', () => {
    const posts = app.qrailRoutes.filter((r) => r.method === 'POST').map((r) => `POST ${r.url}`);
    expect(posts.length).toBeGreaterThan(20);
    // The plugin saw every POST route as it was registered.
    expect([...app.idempotentRoutes.keys()].sort()).toEqual([...new Set(posts)].sort());
    const unkeyed = [...app.idempotentRoutes].filter(([, r]) => r.header === null && r.field === null).map(([k]) => k);
    expect(
      unkeyed.filter((k) => NOT_KEYED[k] === undefined),
      'POST routes neither keyed nor listed in NOT_KEYED',
    ).toEqual([]);
    expect(
      Object.keys(NOT_KEYED).filter((k) => !unkeyed.includes(k)),
      'NOT_KEYED entries that are keyed or gone',
    ).toEqual([]);
    // The body keys of each scope, and the header where money moves.
    expect(app.idempotentRoutes.get('POST /v1/jobs')).toEqual({ header: null, field: 'idempotency_key' });
    for (const r of ['POST /v1/execute/provider-one', 'POST /v1/execute/provider-two', 'POST /v1/execute/provider-two/held/:job_id']) {
      expect(app.idempotentRoutes.get(r), r).toEqual({ header: 'account', field: 'client_token' });
    }
    expect(app.idempotentRoutes.get('POST /v1/billing/operator/credit-grant')?.header).toBe('operator');
    expect(app.idempotentRoutes.get('POST /v1/billing/processor/payment-intent')?.header).toBe('account');
  });

  it('a route declaring a body key its schema does not require is refused at registration', async () => {
    const other = await buildTestApp();
    expect(() =>
      other.post('/v1/test/unkeyed', { config: { idempotencyField: 'client_token' }, schema: { body: { type: 'object', properties: { client_token: { type: 'string' } } } } }, async () => ({})),
    ).toThrow(/client_token' is not a required body field/);
    await other.close();
  });

  it('the key hash is the same in TypeScript and SQL', async () => {
    for (const k of ['a', 'tok-Ω-1', 'x'.repeat(255)]) {
      const r = await app.db.query<{ h: string }>('SELECT idempotency_hash($1) AS h', [k]);
      expect(r.rows[0]?.h).toBe(idempotencyHash(k));
    }
  });

  it('the scopes keep their retention: header 24 h, jobs, execution and ledger as long as their object', async () => {
    const r = await app.db.query<{ scope: string; r: string | null }>("SELECT s AS scope, idempotency_retention(s)::text AS r FROM unnest(ARRAY['header', 'jobs', 'execution', 'ledger']) s");
    expect(Object.fromEntries(r.rows.map((x) => [x.scope, x.r]))).toEqual({ header: '24:00:00', jobs: null, execution: null, ledger: null });
  });
});

/** Runs `fn` while another transaction holds the claim lock of a key (PostgreSQL: a second connection). */
async function whileClaimed<T>(app: App, k: { owner: string; scope: string; keyHash: string }, fn: () => Promise<T>): Promise<T> {
  let out: T | undefined;
  await app.db.tx(async (q: Queryable) => {
    const c = await q.query<{ outcome: string }>('SELECT outcome FROM idempotency_claim($1, $2, $3, $4, NULL, NULL, false)', [k.owner, k.scope, k.keyHash, 'held-by-test']);
    expect(c.rows[0]?.outcome).toBe('new');
    out = await fn();
  });
  return out as T;
}

describe('each scope: replay, reuse (409), in flight (409)', () => {
  let app: App;
  beforeAll(async () => {
    app = await buildTestApp({ QRAIL_OPERATOR_TOKEN: OPERATOR, RATE_LIMIT_AUTH_PER_MINUTE: '1000' });
    withTestCapabilities(app);
  });
  afterAll(async () => app.close());

  const keyRow = async (owner: string, scope: string, raw: string) =>
    (await app.db.query<{ state: string; ref: string | null }>('SELECT state, ref::text FROM idempotency_keys WHERE owner = $1 AND scope = $2 AND key_hash = $3', [owner, scope, idempotencyHash(raw)]))
      .rows[0];

  it('header: replay, reuse with another body, in flight while a run holds the lease', async () => {
    const u = await signUp(app);
    const quote = (k: string, shots: number) =>
      app.inject({ method: 'POST', url: '/v1/billing/hardware/quote', headers: { ...u.auth, 'idempotency-key': k }, payload: { provider: 'provider-two', device: 'p2-ion-11', shots } });
    const first = await quote('hdr-1', 10);
    expect(first.statusCode).toBe(200);
    const again = await quote('hdr-1', 10);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body).toBe(first.body);
    const other = await quote('hdr-1', 11);
    expect(other.statusCode).toBe(409);
    expect(other.json().error).toMatchObject({ code: 'IDEMPOTENCY_KEY_REUSED', details: { original_route: 'POST /v1/billing/hardware/quote' } });
    expect(await keyRow(u.accountId, 'header', 'hdr-1')).toMatchObject({ state: 'done', ref: null });
    await app.db.query("UPDATE idempotency_keys SET state = 'in_progress', locked_until = now() + interval '1 hour' WHERE owner = $1 AND scope = 'header'", [u.accountId]);
    const busy = await quote('hdr-1', 10);
    expect(busy.statusCode).toBe(409);
    expect(busy.json().error.code).toBe('IDEMPOTENCY_KEY_IN_FLIGHT');
    expect(busy.headers['retry-after']).toBe('1');
  });

  it('jobs: replay (202, same job), reuse (409 with the job), and a refused submission leaves no key', async () => {
    const a = await newAgent(app, { fundMicros: 1_000_000n });
    const k = key('one-jobs');
    const body = { capability_id: 'test.echo', request: { text: 'one' }, idempotency_key: k, max_total_price: '0.1' };
    const first = await submit(app, a, body);
    expect(first.statusCode, first.body).toBe(202);
    const again = await submit(app, a, body);
    expect(again.statusCode).toBe(202);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.json().job_id).toBe(first.json().job_id);
    const other = await submit(app, a, { ...body, request: { text: 'two' } });
    expect(other.statusCode).toBe(409);
    expect(other.json().error).toMatchObject({ code: 'IDEMPOTENCY_KEY_REUSED', details: { job_id: first.json().job_id } });
    expect(await keyRow(a.accountId, 'jobs', k)).toEqual({ state: 'done', ref: first.json().job_id });

    const refusedKey = key('one-jobs-refused');
    const refused = await submit(app, a, { ...body, idempotency_key: refusedKey, max_total_price: '0.000001' });
    expect(refused.statusCode).toBe(409);
    expect(refused.json().error.code).toBe('PRICE_ABOVE_MAXIMUM');
    expect(await keyRow(a.accountId, 'jobs', refusedKey)).toBeUndefined();
    await expectAllInvariants(app);
  });

  it.runIf(onPg)('jobs: in flight while another transaction holds the key (409 IDEMPOTENCY_KEY_IN_FLIGHT, Retry-After); then it goes through', async () => {
    const a = await newAgent(app, { fundMicros: 1_000_000n });
    const k = key('one-jobs-busy');
    const body = { capability_id: 'test.echo', request: { text: 'busy' }, idempotency_key: k, max_total_price: '0.1' };
    const busy = await whileClaimed(app, { owner: a.accountId, scope: 'jobs', keyHash: idempotencyHash(k) }, () => submit(app, a, body));
    expect(busy.statusCode).toBe(409);
    expect(busy.json().error.code).toBe('IDEMPOTENCY_KEY_IN_FLIGHT');
    expect(busy.headers['retry-after']).toBe('1');
    expect((await submit(app, a, body)).statusCode).toBe(202);
  });

  it('execution: replay (same job), reuse (409 with the job)', async () => {
    const u = await signUp(app);
    const run = (shots: number) => app.inject({ method: 'POST', url: '/v1/execute/provider-two', headers: u.auth, payload: { circuit: bell, shots, seed: 3, client_token: 'one-exec' } });
    const first = await run(100);
    expect(first.statusCode, first.body).toBe(200);
    const again = await run(100);
    expect(again.json().data).toMatchObject({ job_id: first.json().data.job_id, replayed: true });
    const other = await run(101);
    expect(other.statusCode).toBe(409);
    expect(other.json().error).toMatchObject({ code: 'EXECUTION_CLIENT_TOKEN_REUSED', details: { job_id: first.json().data.job_id } });
    expect(await keyRow(u.accountId, 'execution', 'one-exec')).toEqual({ state: 'done', ref: first.json().data.job_id });
    const n = await app.db.query<{ n: number }>('SELECT count(*)::int AS n FROM execution_jobs WHERE account_id = $1', [u.accountId]);
    expect(n.rows[0]?.n).toBe(1);
  });

  it.runIf(onPg)('execution: in flight while another transaction holds the token (409 EXECUTION_CLIENT_TOKEN_IN_PROGRESS); then it runs', async () => {
    const u = await signUp(app);
    const run = () => app.inject({ method: 'POST', url: '/v1/execute/provider-two', headers: u.auth, payload: { circuit: bell, shots: 100, seed: 3, client_token: 'one-exec-busy' } });
    const busy = await whileClaimed(app, { owner: u.accountId, scope: 'execution', keyHash: idempotencyHash('one-exec-busy') }, run);
    expect(busy.statusCode).toBe(409);
    expect(busy.json().error.code).toBe('EXECUTION_CLIENT_TOKEN_IN_PROGRESS');
    expect((await run()).statusCode).toBe(200);
  });

  it('ledger: a grant replays (credited once), another amount under its key is 409 IDEMPOTENCY_KEY_REUSED; a payment reference keeps its first credit', async () => {
    const u = await signUp(app);
    const grant = (amount: string) =>
      app.inject({ method: 'POST', url: '/v1/billing/operator/credit-grant', headers: { authorization: `Bearer ${OPERATOR}` }, payload: { email: u.email, amount, idempotency_key: 'welcome' } });
    const first = await grant('5.00');
    expect(first.statusCode, first.body).toBe(200);
    expect(first.json().data.credited).toBe(true);
    const again = await grant('5.00');
    expect(again.json().data.credited).toBe(false);
    const other = await grant('7.00');
    expect(other.statusCode).toBe(409);
    expect(other.json().error).toMatchObject({ code: 'IDEMPOTENCY_KEY_REUSED', details: { idempotency_key: 'welcome' } });
    const row = await keyRow(u.accountId, 'ledger', 'welcome');
    expect(row?.state).toBe('done');
    expect(other.json().error.details.transfer_id).toBe(row?.ref);

    const ref = `payment_intent:pi_test_${randomBytes(4).toString('hex')}`;
    const p1 = await app.db.tx((q) => creditPaymentSql(q, u.accountId, 2_000_000n, ref));
    const p2 = await app.db.tx((q) => creditPaymentSql(q, u.accountId, 3_000_000n, ref));
    expect(p1.credited).toBe(true);
    expect(p2).toMatchObject({ credited: false, transferId: p1.transferId });
    expect((await keyRow('processor', 'ledger', ref))?.ref).toBe(p1.transferId);
    const w = await app.inject({ method: 'GET', url: '/v1/billing/wallet', headers: u.auth });
    expect(w.json().data.available).toBe('7.000000');
    await expectLedgerInvariants(app);
  });

  it('ledger: concurrent credits with one key wait for each other and credit once', async () => {
    const u = await signUp(app);
    const outs = await Promise.all(Array.from({ length: 6 }, () => app.db.tx((q) => grantCredit(q, { accountId: u.accountId, amountMicros: 1_000_000n, reason: 'race', idempotencyKey: 'race-1' }))));
    expect(outs.filter((o) => o.credited)).toHaveLength(1);
    expect(new Set(outs.map((o) => o.transferId)).size).toBe(1);
    const w = await app.inject({ method: 'GET', url: '/v1/billing/wallet', headers: u.auth });
    expect(w.json().data.available).toBe('1.000000');
    await expectLedgerInvariants(app);
  });
});

describe('upgrade: keys written before the one mechanism are recognised after it', { timeout: 180_000 }, () => {
  const schema = `t_${randomBytes(6).toString('hex')}`;
  let db: Database;
  beforeAll(async () => {
    db = await openDatabase({ databaseUrl: url, dataDir: 'memory://', baseline: false, ...(url === undefined ? {} : { schema }) });
  });
  afterAll(async () => {
    await db.close();
    if (url !== undefined) {
      const c = new pg.Client({ connectionString: url });
      await c.connect();
      await c.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
      await c.end();
    }
  });

  it('job keys, client tokens, ledger keys and header keys answer replay and reuse as before', async () => {
    await migrate(
      db,
      listMigrations().filter((m) => m.id < '0500'),
    );
    const account = randomUUID();
    const job = randomUUID();
    const exec = randomUUID();
    const grantT = randomUUID();
    const payT = randomUUID();
    await db.query('INSERT INTO accounts (id) VALUES ($1)', [account]);
    await db.query(
      `INSERT INTO jobs (id, account_id, idempotency_key, request_hash, capability_id, request, max_total_price_micros, quoted_price_micros, reserved_price_micros, quote, status, submitted_by)
       VALUES ($1, $2, 'old-job-key', 'job-hash', 'test.echo', '{}', 0, 0, 0, '{}', 'queued', 'test')`,
      [job, account],
    );
    await db.query("INSERT INTO job_idempotency_keys (account_id, idempotency_key, job_id) VALUES ($1, 'old-job-key', $2)", [account, job]);
    await db.query(
      `INSERT INTO execution_jobs (id, account_id, client_token, request_hash, provider, device, kind, driver, status, shots, seed, circuit)
       VALUES ($1, $2, 'old-token', 'exec-hash', 'provider-two', 'p2-local-simulator', 'simulator', 'simulator', 'queued', 10, 1, '{}')`,
      [exec, account],
    );
    await db.query(
      `INSERT INTO ledger_transfers (id, kind, from_account, to_account, amount_micros, account_id, description, idempotency_key) VALUES
       ($1, 'grant', 'platform:promotional', $3, 5000000, $2, 'welcome', $5),
       ($4, 'topup', 'processor:clearing', $3, 2000000, $2, 'top-up', 'payment_intent:pi_old')`,
      [grantT, account, `acct:${account}:available`, payT, `grant:${account}:old-grant`],
    );
    await db.query(
      `INSERT INTO idempotency_keys (owner, key_hash, request_hash, route, state, run_token, locked_until, status_code, response)
       VALUES ($1, $2, 'hdr-hash', 'POST /v1/billing/hardware/quote', 'done', $3, now(), 200, 'sealed')`,
      [account, idempotencyHash('old-header'), randomUUID()],
    );

    await migrate(db);
    const lookup = async (owner: string, scope: string, raw: string, requestHash: string) =>
      (
        await db.query<{ outcome: string; ref: string | null; status_code: number | null }>('SELECT outcome, ref::text, status_code FROM idempotency_lookup($1, $2, $3, $4)', [
          owner,
          scope,
          idempotencyHash(raw),
          requestHash,
        ])
      ).rows[0];
    expect(await lookup(account, 'jobs', 'old-job-key', 'job-hash')).toMatchObject({ outcome: 'replay', ref: job });
    expect(await lookup(account, 'jobs', 'old-job-key', 'other')).toMatchObject({ outcome: 'reused', ref: job });
    expect(await lookup(account, 'execution', 'old-token', 'exec-hash')).toMatchObject({ outcome: 'replay', ref: exec });
    expect(await lookup(account, 'execution', 'old-token', 'other')).toMatchObject({ outcome: 'reused', ref: exec });
    expect(await lookup(account, 'header', 'old-header', 'hdr-hash')).toMatchObject({ outcome: 'replay', status_code: 200 });
    expect(await lookup(account, 'jobs', 'new-key', 'job-hash')).toMatchObject({ outcome: 'new' });
    // The ledger's own calls recognise the old keys: nothing is credited again.
    const again = await db.tx((q) => grantCredit(q, { accountId: account, amountMicros: 5_000_000n, reason: 'welcome', idempotencyKey: 'old-grant' }));
    expect(again).toMatchObject({ credited: false, transferId: grantT });
    const paid = await db.tx((q) => creditPaymentSql(q, account, 2_000_000n, 'payment_intent:pi_old'));
    expect(paid).toMatchObject({ credited: false, transferId: payT });
    const left = await db.query<{ n: number }>("SELECT count(*)::int AS n FROM pg_tables WHERE tablename = 'job_idempotency_keys' AND schemaname = current_schema()");
    expect(left.rows[0]?.n).toBe(0);
  });
});

function creditPaymentSql(q: Queryable, accountId: string, amountMicros: bigint, externalRef: string) {
  return creditPayment(q, { accountId, amountMicros, externalRef, description: 'test top-up' });
}
