/**
 * Group commit of submissions (migration 0207, src/store/jobs/group-commit.ts) on the
 * real database: a batch is one transaction (its jobs share one xmin), its items behave as if
 * submitted one after another, a failing batch is retried item by item, and concurrent batches
 * over the same wallets do not deadlock.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isAppError } from '../../src/errors/app-error.js';
import type { App } from '../../src/http/app-types.js';
import type { SubmitInput } from '../../src/jobs/ports.js';
import { pgJobsRepository } from '../../src/store/jobs/jobs-repository.js';
import { buildTestApp } from '../helpers/app.js';
import { expectAllInvariants, key, newAgent, submit, withTestCapabilities, type Agent } from './helpers.js';

/** A test.echo submission as JobsService would build it ("hello" costs 0.001050). */
function input(accountId: string, idempotencyKey: string, o: { text?: string; max?: bigint; id?: string } = {}): SubmitInput {
  const text = o.text ?? 'hello';
  const price = 1000n + 10n * BigInt(text.length);
  return {
    id: o.id ?? randomUUID(),
    accountId,
    idempotencyKey,
    requestHash: `hash:${text}:${o.max ?? 100_000n}`,
    capabilityId: 'test.echo',
    product: 'product-one',
    request: { text },
    maxTotalPriceMicros: o.max ?? 100_000n,
    quotedPriceMicros: price,
    quote: { price: price.toString() },
    holdExpiresAt: new Date(Date.now() + 3_600_000),
    submittedBy: 'test',
    tags: {},
  };
}

const outcome = (r: PromiseSettledResult<{ job: { id: string }; replayed: boolean }>) =>
  r.status === 'fulfilled' ? (r.value.replayed ? `replayed ${r.value.job.id}` : 'created') : isAppError(r.reason) ? r.reason.code : `error: ${String(r.reason)}`;

async function xminOf(app: App, ids: string[]): Promise<Map<string, string>> {
  const r = await app.db.query<{ id: string; x: string }>('SELECT id, xmin::text AS x FROM jobs WHERE id = ANY($1::uuid[])', [ids]);
  return new Map(r.rows.map((row) => [row.id, row.x]));
}

describe('group commit of job submissions', () => {
  let app: App;
  beforeAll(async () => {
    app = await buildTestApp();
    withTestCapabilities(app);
  });
  afterAll(async () => app.close());

  it('items of one batch are one transaction and behave as if submitted one after another', async () => {
    const x = await newAgent(app, { fundMicros: 2_100n }); // two "hello" jobs
    const y = await newAgent(app, { fundMicros: 1_000_000n });
    const repo = pgJobsRepository(app.db, { maxBatch: 16, maxInFlight: 1 });
    const blocker = repo.submit(input(y.accountId, key('blocker')));
    // Sent while the blocker is in the database: these wait and go together.
    const ky = key('y');
    const items = [
      input(x.accountId, key('x1')),
      input(y.accountId, ky),
      input(x.accountId, key('x2')),
      input(x.accountId, key('x3')),
      input(y.accountId, ky), // the same key and body later in the batch: the job from above
      input(y.accountId, ky, { text: 'other' }), // the same key with another body
      input(y.accountId, key('cheap'), { max: 1_000n }),
    ];
    const settled = await Promise.allSettled(items.map((s) => repo.submit(s)));
    const first = await blocker;
    const yJob = (settled[1] as PromiseFulfilledResult<{ job: { id: string } }>).value.job.id;
    expect(settled.map(outcome)).toEqual(['created', 'created', 'created', 'INSUFFICIENT_BALANCE', `replayed ${yJob}`, 'IDEMPOTENCY_KEY_REUSED', 'PRICE_ABOVE_MAXIMUM']);

    const created = [0, 1, 2].map((i) => (settled[i] as PromiseFulfilledResult<{ job: { id: string } }>).value.job.id);
    const xmin = await xminOf(app, [first.job.id, ...created]);
    expect(new Set(created.map((id) => xmin.get(id))).size).toBe(1);
    expect(xmin.get(first.job.id)).not.toBe(xmin.get(created[0] as string));

    const bal = (await app.inject({ method: 'GET', url: '/v1/account/balance', headers: x.auth })).json();
    expect(bal).toMatchObject({ available: '0.000000', held: '0.002100' });
    // The refused key left nothing behind: after a top-up it goes through.
    const { fundAccount } = await import('../helpers/ledger.js');
    await fundAccount(app, x.accountId, 1_050n);
    expect(outcome((await Promise.allSettled([repo.submit(items[3] as SubmitInput)]))[0] as PromiseSettledResult<{ job: { id: string }; replayed: boolean }>)).toBe('created');
    await expectAllInvariants(app);
  });

  it('a batch that fails is rolled back whole and its items retried one by one: only the bad one fails', async () => {
    const a = await newAgent(app, { fundMicros: 1_000_000n });
    const batchErrors: number[] = [];
    const repo = pgJobsRepository(app.db, { maxBatch: 16, maxInFlight: 1, onBatchError: (_e, size) => batchErrors.push(size) });
    const existing = await repo.submit(input(a.accountId, key('existing')));
    const before = (await app.inject({ method: 'GET', url: '/v1/account/balance', headers: a.auth })).json();
    const blocker = repo.submit(input(a.accountId, key('blocker')));
    // Sent while the blocker is in the database, so they go together; the second reuses an
    // existing job's id, so its insert violates the primary key and the batch rolls back.
    const items = [input(a.accountId, key('b1')), input(a.accountId, key('b2'), { id: existing.job.id }), input(a.accountId, key('b3'))];
    const settled = await Promise.allSettled(items.map((s) => repo.submit(s)));
    await blocker;
    expect(settled.map(outcome)).toEqual(['created', expect.stringMatching(/^error: .*(duplicate key|unique)/), 'created']);
    expect(batchErrors).toEqual([3]);
    // The good ones were committed on their own, after the rollback.
    const ids = [0, 2].map((i) => (settled[i] as PromiseFulfilledResult<{ job: { id: string } }>).value.job.id);
    const xmin = await xminOf(app, ids);
    expect(xmin.get(ids[0] as string)).not.toBe(xmin.get(ids[1] as string));
    // Since `before`, three holds of 0.001050 (the blocker, the two good ones); nothing of the bad one.
    const after = (await app.inject({ method: 'GET', url: '/v1/account/balance', headers: a.auth })).json();
    expect(before).toMatchObject({ available: '0.998950', held: '0.001050' });
    expect(after).toMatchObject({ available: '0.995800', held: '0.004200' });
    await expectAllInvariants(app);
  });

  it('concurrent batches over the same wallets neither deadlock nor overdraw', async () => {
    const agents: Agent[] = [];
    for (let i = 0; i < 6; i++) agents.push(await newAgent(app, { fundMicros: 21_000n })); // 20 "hello" jobs each
    const batchErrors: string[] = [];
    const repo = pgJobsRepository(app.db, { maxBatch: 16, maxInFlight: 4, onBatchError: (e) => batchErrors.push(String(e)) });
    // 25 per account, interleaved, so every batch touches several wallets.
    const items = Array.from({ length: 150 }, (_, i) => input((agents[(i * 7) % 6] as Agent).accountId, key('mix')));
    const settled = await Promise.allSettled(items.map((s) => repo.submit(s)));
    expect(batchErrors).toEqual([]);
    const counts = new Map<string, number>();
    for (const o of settled.map(outcome)) counts.set(o, (counts.get(o) ?? 0) + 1);
    expect(Object.fromEntries(counts)).toEqual({ created: 120, INSUFFICIENT_BALANCE: 30 });
    await expectAllInvariants(app);
  });

  it('over HTTP, concurrent submissions are batched and each answers its own Job', async () => {
    const batched = await buildTestApp({ JOBS_SUBMIT_BATCH_MAX: '8', JOBS_SUBMIT_IN_FLIGHT: '1' });
    try {
      withTestCapabilities(batched);
      const agents = [await newAgent(batched), await newAgent(batched), await newAgent(batched)];
      const keys = Array.from({ length: 30 }, () => key('http'));
      const rs = await Promise.all(
        keys.map((k, i) => submit(batched, agents[i % 3] as Agent, { capability_id: 'test.echo', request: { text: 'x'.repeat(i + 1) }, idempotency_key: k, max_total_price: '0.1' })),
      );
      expect(rs.map((r) => r.statusCode)).toEqual(keys.map(() => 202));
      // Each answer is its own job (its key, its price: 0.001000 + 0.000010 × length), as stored.
      for (const [i, r] of rs.entries()) {
        expect(r.json()).toMatchObject({ idempotency_key: keys[i], quoted_price: `0.00${1010 + 10 * i}`, status: 'queued' });
        expect(r.headers['idempotent-replayed']).toBeUndefined();
        const got = await batched.inject({ method: 'GET', url: `/v1/jobs/${r.json().job_id}`, headers: (agents[i % 3] as Agent).auth });
        expect(got.json()).toEqual(r.json());
      }
      const xmin = await xminOf(
        batched,
        rs.map((r) => r.json().job_id as string),
      );
      expect(xmin.size).toBe(30);
      // Fewer transactions than jobs: some went together. Only on PostgreSQL: PGlite runs one
      // query at a time, so each request's authentication query waits behind the submission
      // before it and the submissions never overlap (the repository-level tests above batch there too).
      if (batched.db.driver === 'pg') expect(new Set(xmin.values()).size).toBeLessThan(30);
      await expectAllInvariants(batched);
    } finally {
      await batched.close();
    }
  });
});
