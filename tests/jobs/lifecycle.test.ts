import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/http/app-types.js';
import { buildTestApp } from '../helpers/app.js';
import { expectAllInvariants, key, newAgent, submit, withTestCapabilities } from './helpers.js';

describe('job lifecycle over HTTP (test capability)', () => {
  let app: App;
  beforeAll(async () => {
    app = await buildTestApp();
    withTestCapabilities(app);
  });
  afterEach(async () => expectAllInvariants(app));
  afterAll(async () => app.close());

  it('submit → 202 queued with a hold → worker → completed with result, receipt and one capture', async () => {
    const a = await newAgent(app, { fundMicros: 1_000_000n });
    const k = key();
    const r = await submit(app, a, { capability_id: 'test.echo', request: { text: 'hello' }, idempotency_key: k, max_total_price: '0.5' });
    expect(r.statusCode).toBe(202);
    const job = r.json();
    expect(job).toMatchObject({
      status: 'queued',
      capability_id: 'test.echo',
      product: 'product-one',
      payment_rail: 'account_core_balance',
      quoted_price: '0.001050',
      reserved_price: '0.001050',
      receipt_reference: null,
      result: null,
      receipt: null,
      error_code: null,
      retrieval_url: `http://qrail.test/v1/jobs/${job.job_id}`,
    });
    expect(job.job_id).toMatch(/^[0-9a-f-]{36}$/);
    expect(job.quote).toMatchObject({ price: '0.001050', currency: 'USD', max_total_price: '0.500000' });
    expect(job.transitions.map((t: { to: string }) => t.to)).toEqual(['quoted', 'reserved', 'queued']);
    expect(r.headers['location']).toBe(`/v1/jobs/${job.job_id}`);

    const bal = await app.inject({ method: 'GET', url: '/v1/account/balance', headers: a.auth });
    expect(bal.statusCode).toBe(200);
    expect(bal.json()).toMatchObject({ available: '0.998950', held: '0.001050', total: '1.000000', currency: 'USD' });

    const step = await app.services.jobsWorker.runOnce();
    expect(step).toEqual({ jobId: job.job_id, status: 'completed' });

    const g = await app.inject({ method: 'GET', url: `/v1/jobs/${job.job_id}`, headers: a.auth });
    expect(g.statusCode).toBe(200);
    const done = g.json();
    expect(done.status).toBe('completed');
    expect(done.result).toEqual({ echo: 'hello', attempt: 1 });
    expect(done.receipt_reference).toMatch(/^rcpt_[0-9a-f]{32}$/);
    expect(done.receipt).toMatchObject({
      receipt_reference: done.receipt_reference,
      amount_captured: '0.001050',
      amount_reserved: '0.001050',
      currency: 'USD',
      balance_after: '0.998950',
    });
    expect(done.receipt.ledger_transfer_ids).toHaveLength(1);
    expect(done.receipt).toMatchObject({ job_id: job.job_id, capability_id: 'test.echo', payment_rail: 'account_core_balance', amount_released: '0.000000' });
    expect(new Date(done.receipt.issued_at).toISOString()).toBe(done.receipt.issued_at);
    // The receipt names the ledger's own capture of this job's hold.
    const t = await app.db.query<{ kind: string; amount: string; hold: string; ref: string }>(
      `SELECT t.kind, t.amount_micros::text AS amount, t.hold_id::text AS hold, h.ref_id AS ref FROM ledger_transfers t JOIN billing_holds h ON h.id = t.hold_id WHERE t.id = $1`,
      [done.receipt.ledger_transfer_ids[0]],
    );
    expect(t.rows).toEqual([{ kind: 'capture', amount: '1050', hold: done.receipt.hold_id, ref: job.job_id }]);
    expect(done.transitions.map((t: { to: string }) => t.to)).toEqual(['quoted', 'reserved', 'queued', 'running', 'result_saved', 'completed']);
    for (const t of done.transitions) expect(Date.parse(t.at)).not.toBeNaN();

    const bal2 = await app.inject({ method: 'GET', url: '/v1/account/balance', headers: a.auth });
    expect(bal2.json()).toMatchObject({ available: '0.998950', held: '0.000000' });
  });

  it('a capability error fails the job with its code and releases the hold', async () => {
    const a = await newAgent(app, { fundMicros: 1_000_000n });
    const r = await submit(app, a, { capability_id: 'test.echo', request: { text: 'x', fail_with: 'SIMULATION_TOO_LARGE' }, idempotency_key: key(), max_total_price: '1' });
    expect(r.statusCode).toBe(202);
    expect((await app.services.jobsWorker.runOnce())?.status).toBe('failed');
    const g = (await app.inject({ method: 'GET', url: `/v1/jobs/${r.json().job_id}`, headers: a.auth })).json();
    expect(g).toMatchObject({ status: 'failed', error_code: 'SIMULATION_TOO_LARGE', result: null, receipt: null, receipt_reference: null });
    const bal = (await app.inject({ method: 'GET', url: '/v1/account/balance', headers: a.auth })).json();
    expect(bal).toMatchObject({ available: '1.000000', held: '0.000000' });
  });
});
