import { parsePrometheus, sampleValue } from '../helpers/prometheus.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/http/app-types.js';
import { verifyWebhookSignature } from '../../packages/client/src/webhooks.js';
import { buildTestApp } from '../helpers/app.js';
import { expectAllInvariants, key, newAgent, submit, withTestCapabilities } from '../jobs/helpers.js';
import { allEvents, createEndpoint, deliverUntil, expectDocumented, startReceiver } from './helpers.js';

const FAST = { RATE_LIMIT_PER_MINUTE: '1000000', WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true', WEBHOOK_RETRY_BASE_MS: '10', WEBHOOK_RETRY_MAX_DELAY_MS: '20' };

async function runJobs(app: App, n: number) {
  for (let i = 0; i < n; i++) expect(await app.services.jobsWorker.runOnce()).toMatchObject({ status: 'completed' });
}

describe('webhook delivery to a local receiver', () => {
  let app: App;
  beforeAll(async () => {
    app = await buildTestApp(FAST);
    withTestCapabilities(app);
  });
  afterAll(async () => {
    await app.close();
  });

  it('retries the first event after two 500s, then delivers every event once more in sequence order, signed', async () => {
    const receiver = await startReceiver((n) => (n < 2 ? 500 : 200));
    // 1.000500 USD: the first hold takes the balance below the 1 USD low-balance threshold.
    const a = await newAgent(app, { fundMicros: 1_000_500n });
    const ep = await createEndpoint(app, a.session, receiver.url);
    expect(ep.secret).toMatch(/^whsec_[0-9a-f]{64}$/);
    for (let i = 0; i < 3; i++) expect((await submit(app, a, { capability_id: 'test.echo', request: { text: `job ${i}` }, idempotency_key: key('wh'), max_total_price: '1' })).statusCode).toBe(202);
    await runJobs(app, 3);

    const events = await deliverUntil(
      app,
      async () => {
        const ev = await allEvents(app, a.session);
        return ev.length > 0 && ev.every((e) => e.sequence !== null) && receiver.received.filter((r) => r.status === 200).length === ev.length && ev;
      },
      'every event accepted by the receiver',
    );
    const types = events.map((e) => e.type);
    expect(types.filter((t) => t === 'job.queued')).toHaveLength(3);
    expect(types.filter((t) => t === 'job.running')).toHaveLength(3);
    expect(types.filter((t) => t === 'job.completed')).toHaveLength(3);
    expect(types.filter((t) => t === 'wallet.low_balance')).toHaveLength(1);
    expect(types).not.toContain('job.result_saved');

    // Every request is signed with the endpoint's secret over the exact body.
    for (const r of receiver.received) {
      const v = await verifyWebhookSignature(r.body, r.headers['qrail-signature'] as string, ep.secret);
      expect(v.ok).toBe(true);
      expect((await verifyWebhookSignature(r.body, r.headers['qrail-signature'] as string, 'whsec_wrong')).ok).toBe(false);
      expect(r.headers['content-type']).toBe('application/json');
      const body = JSON.parse(r.body);
      expect(r.headers['qrail-event-id']).toBe(body.id);
      expect(Number(r.headers['qrail-event-sequence'])).toBe(body.sequence);
      expect(body).toMatchObject({ account_id: a.accountId, type: expect.any(String), created_at: expect.any(String), data: expect.any(Object) });
    }
    // Ordering: the first event held the rest back until it went through; then 2, 3, … once each.
    const seqs = receiver.received.map((r) => JSON.parse(r.body).sequence as number);
    expect(seqs.slice(0, 3)).toEqual([1, 1, 1]);
    expect(receiver.received.slice(0, 3).map((r) => r.status)).toEqual([500, 500, 200]);
    expect(seqs.slice(2)).toEqual(Array.from({ length: events.length }, (_, i) => i + 1));
    // A job's events arrive in the order its states changed.
    const firstJob = receiver.received.map((r) => JSON.parse(r.body)).filter((b) => b.type.startsWith('job.') && b.data.job_id === events.find((e) => e.type === 'job.completed')?.data['job_id']);
    expect(firstJob.map((b) => b.type)).toEqual(['job.queued', 'job.running', 'job.completed']);
    expect(firstJob[2].data).toMatchObject({ status: 'completed', previous_status: 'result_saved', amount_captured: expect.stringMatching(/^0\.\d{6}$/) });
    const low = receiver.received.map((r) => JSON.parse(r.body)).find((b) => b.type === 'wallet.low_balance');
    expect(low.data).toMatchObject({ threshold: '1.000000', available: expect.stringMatching(/^0\.99\d{4}$/) });

    // The delivery log has the response codes of every attempt.
    const log = (await app.inject({ method: 'GET', url: `/v1/webhooks/endpoints/${ep.endpoint_id}/deliveries?limit=100`, headers: a.session })).json().data;
    expect(log.deliveries).toHaveLength(events.length);
    const first = log.deliveries.find((d: { sequence: number }) => d.sequence === 1);
    expect(first).toMatchObject({ status: 'succeeded', attempts: 3, last_status_code: 200, manual: false });
    expect(first.attempt_log.map((x: { status_code: number }) => x.status_code)).toEqual([500, 500, 200]);
    expect(first.attempt_log[0].response_excerpt).toBe('receiver says no');
    // The metrics count the same attempts: two retried, one success per event.
    const metrics = parsePrometheus((await app.inject({ method: 'GET', url: '/metrics' })).body);
    expect(sampleValue(metrics, 'qrail_webhook_deliveries_total', { outcome: 'retry' })).toBe(2);
    expect(sampleValue(metrics, 'qrail_webhook_deliveries_total', { outcome: 'succeeded' })).toBe(events.length);
    for (const d of log.deliveries.filter((x: { sequence: number }) => x.sequence > 1)) expect(d.attempt_log.map((x: { status_code: number }) => x.status_code)).toEqual([200]);

    // Manual redelivery: a new delivery of the same event, sent once more.
    const before = receiver.received.length;
    const red = await app.inject({ method: 'POST', url: `/v1/webhooks/deliveries/${first.delivery_id}/redeliver`, headers: a.session });
    expect(red.statusCode).toBe(202);
    // Location: the endpoint's delivery log, where the new delivery shows its attempts.
    expect(red.headers['location']).toBe(`/v1/webhooks/endpoints/${ep.endpoint_id}/deliveries`);
    expect(red.json().data).toMatchObject({ manual: true, status: 'pending', sequence: 1, event_id: first.event_id });
    await deliverUntil(app, () => receiver.received.length > before, 'the redelivery');
    expect(JSON.parse(receiver.received[before]?.body ?? '{}').id).toBe(first.event_id);
    const again = (await app.inject({ method: 'GET', url: `/v1/webhooks/endpoints/${ep.endpoint_id}/deliveries?limit=1`, headers: a.session })).json().data;
    expect(again.deliveries[0]).toMatchObject({ delivery_id: red.json().data.delivery_id, status: 'succeeded', attempts: 1, last_status_code: 200 });
    expect(again.has_more).toBe(true);
    const unknown = await app.inject({ method: 'POST', url: `/v1/webhooks/deliveries/00000000-0000-4000-8000-000000000000/redeliver`, headers: a.session });
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json().error.code).toBe('WEBHOOK_DELIVERY_NOT_FOUND');

    await expectDocumented(app, 'GET', '/v1/webhooks/events?limit=100', a.session);
    await expectDocumented(app, 'GET', `/v1/webhooks/endpoints/${ep.endpoint_id}/deliveries?limit=100`, a.session);
    await receiver.close();
    await expectAllInvariants(app);
  });

  it('several workers at once, receivers failing at random: each endpoint still gets its events in sequence order, each acknowledged once', async () => {
    let seed = 7;
    const flaky = () => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed % 3 === 0 ? 500 : 200;
    };
    const r1 = await startReceiver(flaky);
    const r2 = await startReceiver(flaky);
    const a = await newAgent(app);
    await createEndpoint(app, a.session, r1.url);
    await createEndpoint(app, a.session, r2.url, ['job.completed', 'job.queued']);
    for (let i = 0; i < 6; i++) expect((await submit(app, a, { capability_id: 'test.echo', request: { text: `many ${i}` }, idempotency_key: key('wh'), max_total_price: '1' })).statusCode).toBe(202);
    await runJobs(app, 6);
    const accepted = (r: { received: Array<{ status: number; body: string }> }) => r.received.filter((x) => x.status === 200).map((x) => JSON.parse(x.body).sequence as number);
    // Three delivery passes race each other (as three worker processes would).
    const pass = () => deliverUntil(app, () => accepted(r1).length >= 18 && accepted(r2).length >= 12, 'both endpoints served');
    await Promise.all([pass(), pass(), pass()]);
    const events = await allEvents(app, a.session);
    expect(events).toHaveLength(18);
    expect(accepted(r1)).toEqual(Array.from({ length: 18 }, (_, i) => i + 1));
    const wanted = events
      .filter((e) => e.type !== 'job.running')
      .map((e) => e.sequence as number)
      .sort((x, y) => x - y);
    expect(accepted(r2)).toEqual(wanted);
    expect(r1.received.some((x) => x.status === 500)).toBe(true);
    await r1.close();
    await r2.close();
    await expectAllInvariants(app);
  });

  it('an account without endpoints writes no events', async () => {
    const a = await newAgent(app);
    expect((await submit(app, a, { capability_id: 'test.echo', request: { text: 'quiet' }, idempotency_key: key('wh'), max_total_price: '1' })).statusCode).toBe(202);
    await runJobs(app, 1);
    const n = await app.db.query<{ n: number }>('SELECT count(*)::int AS n FROM webhook_events WHERE account_id = $1', [a.accountId]);
    expect(n.rows[0]?.n).toBe(0);
    await expectAllInvariants(app);
  });

  it('an expired hold emits hold.expired; events of one endpoint type only go to subscribers', async () => {
    const receiver = await startReceiver();
    const a = await newAgent(app, { fundMicros: 5_000_000n });
    const ep = await createEndpoint(app, a.session, receiver.url, ['hold.expired']);
    const q = await app.inject({ method: 'POST', url: '/v1/billing/hardware/quote', headers: a.session, payload: { provider: 'provider-two', device: 'p2-ion-11', shots: 10 } });
    expect(q.statusCode).toBe(200);
    const h = await app.inject({ method: 'POST', url: '/v1/billing/hardware/hold', headers: a.session, payload: { quote_id: q.json().data.quote_id } });
    expect(h.statusCode).toBe(201);
    const { expireDueHolds } = await import('../helpers/ledger.js');
    expect(await expireDueHolds(app.db, { now: new Date(Date.now() + 365 * 86_400_000) })).toHaveLength(1);
    await deliverUntil(app, () => receiver.received.length === 1, 'hold.expired delivered');
    const body = JSON.parse(receiver.received[0]?.body ?? '{}');
    expect(body).toMatchObject({ type: 'hold.expired', data: { kind: 'hardware', amount: expect.stringMatching(/^\d+\.\d{6}$/) } });
    expect((await verifyWebhookSignature(receiver.received[0]?.body ?? '', receiver.received[0]?.headers['qrail-signature'] as string, ep.secret)).ok).toBe(true);
    await expectDocumented(app, 'GET', '/v1/webhooks/events?limit=100', a.session);
    await receiver.close();
    await expectAllInvariants(app);
  });
});
