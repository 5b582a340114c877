import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/http/app-types.js';
import { buildTestApp, signUp, verifyEmail, createOrg } from '../helpers/app.js';
import { key, withTestCapabilities } from '../jobs/helpers.js';

type User = Awaited<ReturnType<typeof signUp>>;

/**
 * The Account Jobs interface consults `Qrail-Org` as the platform routes do: a machine credential
 * acts in the one organization it belongs to, so a header naming another is refused (403
 * ORG_HEADER_MISMATCH, in the Jobs error shape) instead of being served in the credential's own
 * wallet; a header naming the credential's organization is accepted.
 */
describe('Account Jobs interface and Qrail-Org', () => {
  let app: App;
  let owner: User;
  let orgId: string;
  let bearer: { authorization: string };

  beforeAll(async () => {
    app = await buildTestApp();
    withTestCapabilities(app);
    owner = await signUp(app);
    await verifyEmail(app, owner);
    orgId = await createOrg(app, owner.auth, 'Jobs Lab');
    const inOrg = { ...owner.auth, 'qrail-org': orgId };
    const pay = await app.inject({ method: 'POST', url: '/v1/billing/processor/payment-intent', headers: inOrg, payload: { amount: '1.00', payment_method: 'pm_card_visa' } });
    expect(pay.statusCode, pay.body).toBe(200);
    const c = await app.inject({ method: 'POST', url: '/v1/auth/credentials', headers: inOrg, payload: { name: 'agent', scopes: ['jobs:read', 'jobs:write'] } });
    expect(c.statusCode, c.body).toBe(201);
    bearer = { authorization: `Bearer ${c.json().data.secret as string}` };
  });
  afterAll(async () => app.close());

  const balance = async (headers: Record<string, string>) => app.inject({ method: 'GET', url: '/v1/account/balance', headers });
  const echo = (k: string) => ({ capability_id: 'test.echo', request: { text: 'hi' }, idempotency_key: k, max_total_price: '0.5' });

  it('a header naming another organization is 403 ORG_HEADER_MISMATCH in the Jobs error shape, on every Jobs route', async () => {
    const other = { ...bearer, 'qrail-org': owner.accountId };
    const first = await app.inject({ method: 'POST', url: '/v1/jobs', headers: bearer, payload: echo(key('mine')) });
    expect(first.statusCode, first.body).toBe(202);
    const jobId = first.json().job_id as string;
    const calls = [
      { method: 'GET' as const, url: '/v1/account/balance' },
      { method: 'GET' as const, url: '/v1/jobs' },
      { method: 'GET' as const, url: `/v1/jobs/${jobId}` },
      { method: 'POST' as const, url: `/v1/jobs/${jobId}/cancel` },
      { method: 'POST' as const, url: '/v1/jobs', payload: echo(key('elsewhere')) },
    ];
    for (const call of calls) {
      const r = await app.inject({ ...call, headers: other });
      expect(r.statusCode, `${call.method} ${call.url}`).toBe(403);
      const body = r.json();
      // The Jobs shape: {error, request_id}, no platform envelope.
      expect(body).toEqual({ error: { code: 'ORG_HEADER_MISMATCH', message: expect.any(String), details: { org_id: owner.accountId } }, request_id: r.headers['x-request-id'] });
      expect(body).not.toHaveProperty('status');
    }
    // The refused submit reserved nothing and the refused cancel canceled nothing.
    const list = await app.inject({ method: 'GET', url: '/v1/jobs', headers: bearer });
    expect(list.json().jobs.map((j: { job_id: string }) => j.job_id)).toEqual([jobId]);
    expect((await app.inject({ method: 'GET', url: `/v1/jobs/${jobId}`, headers: bearer })).json().status).toBe('queued');
    // Only the first job's reservation is held.
    expect((await balance(bearer)).json()).toMatchObject({ account_id: orgId, held: first.json().reserved_price, total: '1.000000' });
    // An organization id that is not even a uuid is refused the same way.
    const junk = await balance({ ...bearer, 'qrail-org': 'not-an-org' });
    expect(junk.statusCode).toBe(403);
    expect(junk.json().error.code).toBe('ORG_HEADER_MISMATCH');
  });

  it("a header naming the credential's own organization (any case) or an empty one is accepted", async () => {
    for (const headers of [
      { ...bearer, 'qrail-org': orgId },
      { ...bearer, 'qrail-org': orgId.toUpperCase() },
      { ...bearer, 'qrail-org': '' },
    ]) {
      const r = await balance(headers);
      expect(r.statusCode, r.body).toBe(200);
      expect(r.json().account_id).toBe(orgId);
    }
    const submitted = await app.inject({ method: 'POST', url: '/v1/jobs', headers: { ...bearer, 'qrail-org': orgId }, payload: echo(key('matching')) });
    expect(submitted.statusCode, submitted.body).toBe(202);
  });

  it('with a matching header a missing scope is still 403 insufficient_scope; a bad token is 401 whatever the header names', async () => {
    const c = await app.inject({ method: 'POST', url: '/v1/auth/credentials', headers: { ...owner.auth, 'qrail-org': orgId }, payload: { name: 'reader', scopes: ['jobs:read'] } });
    const reader = { authorization: `Bearer ${c.json().data.secret as string}` };
    const ok = await app.inject({ method: 'POST', url: '/v1/jobs', headers: { ...reader, 'qrail-org': orgId }, payload: echo(key('reader')) });
    expect(ok.statusCode).toBe(403);
    expect(ok.headers['www-authenticate']).toContain('insufficient_scope');
    const bad = await balance({ authorization: 'Bearer qrj_nope', 'qrail-org': owner.accountId });
    expect(bad.statusCode).toBe(401);
  });
});
