import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/http/app-types.js';
import { buildTestApp, signUp } from '../helpers/app.js';
import { expectLedgerInvariants } from '../helpers/ledger.js';
import { allEvents, createEndpoint, deliverUntil, expectDocumented, startReceiver } from './helpers.js';

const ENV = { RATE_LIMIT_PER_MINUTE: '1000000', WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true', WEBHOOK_RETRY_BASE_MS: '10' };

describe('events of execution jobs and auto-recharge', () => {
  let app: App;
  beforeAll(async () => {
    app = await buildTestApp(ENV);
  });
  afterAll(async () => {
    await app.close();
  });

  it('a simulator run emits execution_job events; auto-recharge outcomes and its pause are events', async () => {
    const receiver = await startReceiver();
    const u = await signUp(app);
    const ep = await createEndpoint(app, u.auth, receiver.url, ['execution_job.completed', 'execution_job.queued', 'auto_recharge.succeeded', 'auto_recharge.failed', 'auto_recharge.paused']);
    const run = await app.inject({
      method: 'POST',
      url: '/v1/execute/provider-one',
      headers: u.auth,
      payload: {
        circuit: { schema: '0.2', num_qubits: 1, num_clbits: 1, gates: [{ op: 'h', qubits: [0] }], measurements: [{ qubit: 0, clbit: 0 }], metadata: {} },
        shots: 10,
        seed: 1,
        client_token: 'wh-1',
      },
    });
    expect(run.statusCode).toBe(200);

    const patch = (body: object) => app.inject({ method: 'PATCH', url: '/v1/billing/spend-controls', headers: u.auth, payload: body });
    expect((await patch({ auto_recharge: { enabled: true, threshold: '1.00', recharge_to: '2.00', payment_method: 'pm_card_visa' } })).statusCode).toBe(200);
    expect((await app.inject({ method: 'POST', url: '/v1/billing/auto-recharge/test', headers: u.auth })).json().data.attempt.status).toBe('succeeded');
    expect((await patch({ auto_recharge: { payment_method: 'pm_card_chargeDeclined' } })).statusCode).toBe(200);
    for (let i = 0; i < 3; i++) expect((await app.inject({ method: 'POST', url: '/v1/billing/auto-recharge/test', headers: u.auth })).json().data.attempt.status).toBe('failed');

    const events = await allEvents(app, u.auth);
    const types = events.map((e) => e.type).reverse();
    expect(types.filter((t) => t.startsWith('execution_job.'))).toEqual(expect.arrayContaining(['execution_job.completed']));
    // The third failure and the pause are written by one transaction, with one timestamp: the list (newest first by
    // time, then id) may show them either way round; their deliveries follow the sequence (checked below).
    const recharge = types.filter((t) => t.startsWith('auto_recharge.'));
    expect(recharge.slice(0, 3)).toEqual(['auto_recharge.succeeded', 'auto_recharge.failed', 'auto_recharge.failed']);
    expect([...recharge.slice(3)].sort()).toEqual(['auto_recharge.failed', 'auto_recharge.paused']);
    const completed = events.find((e) => e.type === 'execution_job.completed');
    expect(completed?.data).toMatchObject({ provider: 'provider-one', kind: 'simulator', status: 'completed', shots: 10 });
    expect(events.find((e) => e.type === 'auto_recharge.failed')?.data).toMatchObject({ status: 'failed', failure_code: 'card_declined', amount: '0.500000', trigger: 'test' });

    // Delivered: only the subscribed types, in sequence order.
    const subscribed = events.filter((e) => e.type !== 'execution_job.running');
    await deliverUntil(app, () => receiver.received.length === subscribed.length, 'the subscribed events delivered');
    const seqs = receiver.received.map((r) => JSON.parse(r.body).sequence as number);
    expect(seqs).toEqual([...seqs].sort((x, y) => x - y));
    expect(new Set(receiver.received.map((r) => JSON.parse(r.body).type))).toEqual(new Set(subscribed.map((e) => e.type)));
    // The event list filters by type and pages with a cursor.
    const page1 = (await app.inject({ method: 'GET', url: '/v1/webhooks/events?type=auto_recharge.failed&limit=2', headers: u.auth })).json().data;
    expect(page1.events).toHaveLength(2);
    expect(page1.has_more).toBe(true);
    const page2 = (await app.inject({ method: 'GET', url: `/v1/webhooks/events?type=auto_recharge.failed&limit=2&cursor=${page1.next_cursor}`, headers: u.auth })).json().data;
    expect(page2).toMatchObject({ has_more: false, next_cursor: null });
    expect(page2.events).toHaveLength(1);
    expect(new Set([...page1.events, ...page2.events].map((e: { id: string }) => e.id)).size).toBe(3);
    // Every answer as documented: the event data of each type, the delivery log, the endpoints.
    await expectDocumented(app, 'GET', '/v1/webhooks/events?limit=100', u.auth);
    await expectDocumented(app, 'GET', `/v1/webhooks/endpoints/${ep.endpoint_id}/deliveries?limit=100`, u.auth);
    await expectDocumented(app, 'GET', '/v1/webhooks/endpoints', u.auth);
    await expectDocumented(app, 'GET', `/v1/webhooks/endpoints/${ep.endpoint_id}`, u.auth);
    await receiver.close();
    await expectLedgerInvariants(app);
  });
});
