import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/http/app-types.js';
import { buildTestApp } from '../helpers/app.js';
import { expectAllInvariants, key, newAgent, submit, withTestCapabilities } from '../jobs/helpers.js';
import { allEvents, createEndpoint, deliverUntil, expectDocumented, startReceiver } from './helpers.js';

// The 3-day windows shrunk to 1 s, retries every 10–20 ms: the test polls, never sleeps.
const ENV = {
  RATE_LIMIT_PER_MINUTE: '1000000',
  WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
  WEBHOOK_RETRY_BASE_MS: '10',
  WEBHOOK_RETRY_MAX_DELAY_MS: '20',
  WEBHOOK_RETRY_WINDOW_SECONDS: '1',
  WEBHOOK_DISABLE_AFTER_SECONDS: '1',
};

describe('an endpoint that keeps failing', () => {
  let app: App;
  beforeAll(async () => {
    app = await buildTestApp(ENV);
    withTestCapabilities(app);
  });
  afterAll(async () => {
    await app.close();
  });

  it('gives the delivery up after the retry window, disables the endpoint and tells the owner; enabling resumes in order', async () => {
    let healthy = false;
    const failing = await startReceiver(() => (healthy ? 200 : 503));
    const watcher = await startReceiver();
    const a = await newAgent(app);
    const bad = await createEndpoint(app, a.session, failing.url, ['job.queued']);
    const good = await createEndpoint(app, a.session, watcher.url, ['webhook_endpoint.disabled']);
    expect((await submit(app, a, { capability_id: 'test.echo', request: { text: 'one' }, idempotency_key: key('dis'), max_total_price: '1' })).statusCode).toBe(202);

    const disabled = await deliverUntil(
      app,
      async () => {
        const e = (await app.inject({ method: 'GET', url: `/v1/webhooks/endpoints/${bad.endpoint_id}`, headers: a.session })).json().data;
        return e.status === 'disabled' && e;
      },
      'the failing endpoint disabled',
    );
    expect(disabled).toMatchObject({ disabled_reason: 'sustained_failure', disabled_at: expect.any(String), failing_since: expect.any(String) });
    expect(failing.received.length).toBeGreaterThan(2);
    expect(failing.received.every((r) => r.status === 503)).toBe(true);

    // The owner hears of it: an event in the API, delivered to the endpoint that subscribed to it.
    const ev = (await allEvents(app, a.session)).find((e) => e.type === 'webhook_endpoint.disabled');
    expect(ev?.data).toMatchObject({ endpoint_id: bad.endpoint_id, url: bad.url, reason: 'sustained_failure' });
    await deliverUntil(app, () => watcher.received.length === 1, 'the disabled event delivered');
    expect(JSON.parse(watcher.received[0]?.body ?? '{}')).toMatchObject({ type: 'webhook_endpoint.disabled', data: { endpoint_id: bad.endpoint_id } });

    const log = (await app.inject({ method: 'GET', url: `/v1/webhooks/endpoints/${bad.endpoint_id}/deliveries`, headers: a.session })).json().data.deliveries;
    expect(log).toHaveLength(1);
    expect(log[0]).toMatchObject({ status: 'failed', last_status_code: 503, next_attempt_at: null });
    expect(log[0].attempt_log.length).toBe(log[0].attempts);

    // While disabled: no new deliveries for it, and no redelivery.
    expect((await submit(app, a, { capability_id: 'test.echo', request: { text: 'two' }, idempotency_key: key('dis'), max_total_price: '1' })).statusCode).toBe(202);
    const red = await app.inject({ method: 'POST', url: `/v1/webhooks/deliveries/${log[0].delivery_id}/redeliver`, headers: a.session });
    expect(red.statusCode).toBe(409);
    expect(red.json().error.code).toBe('WEBHOOK_ENDPOINT_DISABLED');
    await app.services.webhookWorker.runOnce();
    const sent = failing.received.length;

    // Enabled again and healthy: a redelivery of the given-up event goes through; later events flow.
    healthy = true;
    const en = await app.inject({ method: 'POST', url: `/v1/webhooks/endpoints/${bad.endpoint_id}/enable`, headers: a.session });
    expect(en.json().data).toMatchObject({ status: 'enabled', disabled_reason: null, failing_since: null });
    expect((await app.inject({ method: 'POST', url: `/v1/webhooks/deliveries/${log[0].delivery_id}/redeliver`, headers: a.session })).statusCode).toBe(202);
    expect((await submit(app, a, { capability_id: 'test.echo', request: { text: 'three' }, idempotency_key: key('dis'), max_total_price: '1' })).statusCode).toBe(202);
    await deliverUntil(app, () => failing.received.length === sent + 2, 'the redelivery and the next event');
    const types = failing.received.slice(sent).map((r) => JSON.parse(r.body) as { type: string });
    expect(types.every((t) => t.type === 'job.queued')).toBe(true);
    expect(failing.received.slice(sent).every((r) => r.status === 200)).toBe(true);
    expect(good.endpoint_id).not.toBe(bad.endpoint_id);
    await expectDocumented(app, 'GET', '/v1/webhooks/events?limit=100', a.session);
    await expectDocumented(app, 'GET', `/v1/webhooks/endpoints/${bad.endpoint_id}/deliveries`, a.session);
    await failing.close();
    await watcher.close();
    await expectAllInvariants(app);
  });
});
