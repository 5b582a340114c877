import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/http/app-types.js';
import { buildTestApp, signUp, verifyEmail, createOrg } from '../helpers/app.js';
import { randomUUID } from 'node:crypto';
import type { SubmitInput } from '../../src/jobs/ports.js';
import { pgJobsRepository } from '../../src/store/jobs/jobs-repository.js';
import { key, withTestCapabilities } from '../jobs/helpers.js';

interface Event {
  action: string;
  target: string | null;
  request_id: string | null;
}

/**
 * A job's reservation (`money.hold`) carries the id of the POST /v1/jobs request that made it,
 * also when submissions are group-committed (several requests in one transaction); the capture
 * the worker makes later has no request and records none; a cancel's release names the cancel request.
 */
describe('request ids of job money events', () => {
  let app: App;
  let orgId: string;
  let owner: Awaited<ReturnType<typeof signUp>>;
  let bearer: { authorization: string };

  beforeAll(async () => {
    app = await buildTestApp();
    withTestCapabilities(app);
    owner = await signUp(app);
    await verifyEmail(app, owner);
    orgId = await createOrg(app, owner.auth, 'Money Lab');
    const inOrg = { ...owner.auth, 'qrail-org': orgId };
    const pay = await app.inject({ method: 'POST', url: '/v1/billing/processor/payment-intent', headers: inOrg, payload: { amount: '1.00', payment_method: 'pm_card_visa' } });
    expect(pay.statusCode, pay.body).toBe(200);
    const c = await app.inject({ method: 'POST', url: '/v1/auth/credentials', headers: inOrg, payload: { name: 'agent', scopes: ['jobs:read', 'jobs:write'] } });
    bearer = { authorization: `Bearer ${c.json().data.secret as string}` };
  });
  afterAll(async () => app.close());

  const events = async (action: string): Promise<Event[]> =>
    (await app.inject({ method: 'GET', url: `/v1/orgs/${orgId}/audit?action=${action}&limit=200`, headers: owner.auth })).json().data.events as Event[];
  const holdOf = (job: { transitions?: ReadonlyArray<{ to: string; note?: string | null }> | undefined }) => job.transitions?.find((t) => t.to === 'reserved')?.note?.replace(/^hold /, '');

  it('each reservation names its own submit request, concurrent ones included; the worker capture names none', async () => {
    const submits = await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        app.inject({ method: 'POST', url: '/v1/jobs', headers: bearer, payload: { capability_id: 'test.echo', request: { text: `n${i}` }, idempotency_key: key(`r${i}`), max_total_price: '0.5' } }),
      ),
    );
    const expected = new Map<string, string>();
    for (const r of submits) {
      expect(r.statusCode, r.body).toBe(202);
      const hold = holdOf(r.json());
      expect(hold).toMatch(/^[0-9a-f-]{36}$/);
      expect(expected.has(hold as string)).toBe(false);
      expected.set(hold as string, r.headers['x-request-id'] as string);
    }
    const holds = await events('money.hold');
    expect(new Map(holds.map((e) => [e.target as string, e.request_id]))).toEqual(expected);

    // The worker charges one job: no request made that movement.
    const step = await app.services.jobsWorker.runOnce();
    expect(step?.status).toBe('completed');
    const captures = await events('money.capture');
    expect(captures.length).toBe(1);
    expect(captures[0]?.request_id).toBeNull();

    // Canceling a queued job releases its reservation in the cancel request's transaction: that request's id.
    const queued = (await app.inject({ method: 'GET', url: '/v1/jobs?status=queued', headers: bearer })).json().jobs[0] as { job_id: string };
    const cancel = await app.inject({ method: 'POST', url: `/v1/jobs/${queued.job_id}/cancel`, headers: bearer });
    expect(cancel.statusCode, cancel.body).toBe(200);
    const releases = await events('money.release');
    expect(releases.map((e) => [e.target, e.request_id])).toEqual([[holdOf(cancel.json()), cancel.headers['x-request-id']]]);
  });

  it('submissions group-committed in one transaction each keep their own request id', async () => {
    const input = (requestId: string | null): SubmitInput => ({
      id: randomUUID(),
      accountId: orgId,
      idempotencyKey: key('batch'),
      requestHash: `hash:${requestId}`,
      capabilityId: 'test.echo',
      product: 'product-one',
      request: { text: 'hello' },
      maxTotalPriceMicros: 100_000n,
      quotedPriceMicros: 1_050n,
      quote: { price: '1050' },
      holdExpiresAt: new Date(Date.now() + 3_600_000),
      submittedBy: 'credential:test',
      tags: {},
      requestId,
    });
    // One submission in flight at a time: those sent while the first is in the database go together.
    const repo = pgJobsRepository(app.db, { maxBatch: 16, maxInFlight: 1 });
    const blocker = repo.submit(input('req-blocker'));
    const ids = ['req-a', null, 'req-c'];
    const done = await Promise.all(ids.map((id) => repo.submit(input(id))));
    await blocker;
    const jobIds = done.map((d) => d.job.id);
    const xmins = await app.db.query<{ x: string }>('SELECT DISTINCT xmin::text AS x FROM jobs WHERE id = ANY($1::uuid[])', [jobIds]);
    expect(xmins.rows).toHaveLength(1); // one transaction
    const byHold = new Map((await events('money.hold')).map((e) => [e.target, e.request_id]));
    expect(done.map((d) => byHold.get(holdOf(d.job) ?? ''))).toEqual(ids);
  });
});
