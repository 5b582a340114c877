/**
 * The outbox survives a SIGKILL: events committed with their state changes are delivered after
 * the process that was delivering them died mid-request (at least once: the interrupted delivery
 * is sent again), still in sequence order.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, describe, expect, it } from 'vitest';
import { verifyWebhookSignature } from '../../packages/client/src/webhooks.js';
import type { App } from '../../src/http/app-types.js';
import { buildTestApp } from '../helpers/app.js';
import { waitFor } from '../helpers/wait-for.js';
import { expectAllInvariants, key, newAgent, submit, withTestCapabilities } from '../jobs/helpers.js';
import { allEvents, createEndpoint, deliverUntil, startReceiver } from './helpers.js';

const CHILD = new URL('./fixtures/service-child.ts', import.meta.url).pathname;
const onPg = process.env['DATABASE_URL'] !== undefined;
const ENV = { RATE_LIMIT_PER_MINUTE: '1000000', WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true', WEBHOOK_RETRY_BASE_MS: '10', WEBHOOK_RETRY_MAX_DELAY_MS: '20' };

describe('webhook outbox across a SIGKILL', () => {
  const dirs: string[] = [];
  afterAll(() => {
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });

  it('a service killed mid-delivery: after the restart every event is delivered, in order, the interrupted one again', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'qrail-webhook-crash-'));
    dirs.push(dir);
    const open = () => buildTestApp({ ...(onPg ? {} : { DATA_DIR: dir }), ...ENV });
    let app: App = await open();
    withTestCapabilities(app);
    // The receiver leaves the first request unanswered: the child is killed while it waits.
    const receiver = await startReceiver((n) => (n === 0 ? 'hang' : 200));
    const a = await newAgent(app, { fundMicros: 5_000_000n });
    const ep = await createEndpoint(app, a.session, receiver.url);
    for (let i = 0; i < 2; i++) expect((await submit(app, a, { capability_id: 'test.echo', request: { text: `crash ${i}` }, idempotency_key: key('whc'), max_total_price: '1' })).statusCode).toBe(202);
    for (let i = 0; i < 2; i++) expect(await app.services.jobsWorker.runOnce()).toMatchObject({ status: 'completed' });
    // Committed with the state changes, not yet numbered nor sent.
    const written = await app.db.query<{ n: number }>('SELECT count(*)::int AS n FROM webhook_events WHERE account_id = $1 AND sequence IS NULL', [a.accountId]);
    expect(written.rows[0]?.n).toBe(6);
    const schema = onPg ? ((await app.db.query<{ s: string }>('SELECT current_schema() AS s')).rows[0]?.s ?? '') : '';
    if (!onPg) await app.close();

    const child = spawn(process.execPath, ['--import', 'tsx', CHILD], {
      env: { ...process.env, ...(onPg ? { CHILD_DATABASE_URL: process.env['DATABASE_URL'] ?? '', CHILD_SCHEMA: schema } : { CHILD_DATA_DIR: dir, CHILD_DATABASE_URL: '' }) },
    });
    let err = '';
    child.stderr.on('data', (d) => (err += d));
    const exited = new Promise<NodeJS.Signals | null>((r) => child.on('exit', (_c, signal) => r(signal)));
    const lines = createInterface({ input: child.stdout });
    lines.on('line', () => undefined);
    await waitFor(() => receiver.received.length === 1 || (child.exitCode !== null && Promise.reject(new Error(`child exited: ${err}`))), { what: 'the first delivery in flight', timeoutMs: 60_000 });
    child.kill('SIGKILL');
    expect(await exited).toBe('SIGKILL');

    if (!onPg) {
      app = await open();
      withTestCapabilities(app);
    }
    const leased = await app.db.query<{ sequence: string; lease_owner: string }>(
      "SELECT sequence::text, lease_owner FROM webhook_deliveries WHERE endpoint_id = $1 AND status = 'pending' AND lease_owner IS NOT NULL",
      [ep.endpoint_id],
    );
    expect(leased.rows).toHaveLength(1);
    expect(leased.rows[0]?.sequence).toBe('1');
    // The dead process's lease runs out (made immediate here instead of waiting for it).
    await app.db.query("UPDATE webhook_deliveries SET lease_expires_at = now() - interval '1 second' WHERE lease_owner IS NOT NULL");

    const events = await deliverUntil(
      app,
      async () => {
        const ev = await allEvents(app, a.session);
        return ev.length === 6 && receiver.received.filter((r) => r.status === 200).length === 6 && ev;
      },
      'every event delivered after the restart',
    );
    const seqs = receiver.received.map((r) => JSON.parse(r.body).sequence as number);
    expect(seqs).toEqual([1, 1, 2, 3, 4, 5, 6]);
    expect(receiver.received[0]?.body).toBe(receiver.received[1]?.body);
    for (const r of receiver.received) expect((await verifyWebhookSignature(r.body, r.headers['qrail-signature'] as string, ep.secret)).ok).toBe(true);
    expect(new Set(events.map((e) => e.id)).size).toBe(6);
    const first = (await app.inject({ method: 'GET', url: `/v1/webhooks/endpoints/${ep.endpoint_id}/deliveries?limit=100`, headers: a.session }))
      .json()
      .data.deliveries.find((d: { sequence: number }) => d.sequence === 1);
    // Two attempts counted; only the one that got an answer is in the log (the killed one left no row).
    expect(first).toMatchObject({ status: 'succeeded', attempts: 2, last_status_code: 200 });
    expect(first.attempt_log.map((x: { status_code: number }) => x.status_code)).toEqual([200]);
    await receiver.close();
    await expectAllInvariants(app);
    await app.close();
  });
});
