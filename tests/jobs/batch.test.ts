import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/http/app-types.js';
import { buildTestApp } from '../helpers/app.js';
import { bell, ghz3 } from '../helpers/circuits.js';
import { expectAllInvariants, key, newAgent, submit } from './helpers.js';

/**
 * Batches on the Account Jobs interface (issue 22 item 3, docs/jobs.md#batches):
 * `circuit.simulate.batch` — one reservation for the whole batch, one receipt with a line per
 * item, a failed item reported on its own with exactly its share released in the transaction
 * that captures the rest; idempotency keys cover the batch as a whole. `ledger check` (the
 * ledger and job invariants) after every test.
 */
describe('circuit.simulate.batch', () => {
  let app: App;
  beforeAll(async () => {
    app = await buildTestApp();
  });
  afterEach(async () => expectAllInvariants(app));
  afterAll(async () => app.close());

  // A cx naming the same qubit twice: passes the request's shape, fails the circuit checks.
  const bad = { schema: '0.2', num_qubits: 2, num_clbits: 2, gates: [{ op: 'cx', qubits: [0, 0] }], measurements: [{ qubit: 0, clbit: 0 }] };
  const balance = async (auth: { authorization: string }) => (await app.inject({ method: 'GET', url: '/v1/account/balance', headers: auth })).json();

  it('one bad circuit among good ones: per-item results and receipt lines, exactly its share released', async () => {
    const a = await newAgent(app, { fundMicros: 1_000_000n });
    const body = { capability_id: 'circuit.simulate.batch', request: { circuits: [bell, bad, ghz3], shots: 1000, seed: 5 }, idempotency_key: key('batch'), max_total_price: '0.01' };
    const r = await submit(app, a, body);
    expect(r.statusCode).toBe(202);
    const job = r.json();
    // Each item priced as circuit.simulate prices it: 0.000100 + 10 shot blocks × 1 = 0.000110; one reservation for all three.
    expect(job).toMatchObject({ status: 'queued', quoted_price: '0.000330', reserved_price: '0.000330' });
    expect(job.quote.breakdown).toMatchObject({ items: 3, items_invalid: 1, item_prices: '0.000110 0.000110 0.000110' });
    expect(await balance(a.auth)).toMatchObject({ available: '0.999670', held: '0.000330' });

    // The same key and body → the same job (the batch as a whole); the same key with another batch → 409.
    const again = await submit(app, a, body);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.json().job_id).toBe(job.job_id);
    const other = await submit(app, a, { ...body, request: { circuits: [bell, ghz3], shots: 1000, seed: 5 } });
    expect(other.statusCode).toBe(409);
    expect(other.json().error.code).toBe('IDEMPOTENCY_KEY_REUSED');

    expect(await app.services.jobsWorker.runOnce()).toEqual({ jobId: job.job_id, status: 'completed' });
    const done = (await app.inject({ method: 'GET', url: `/v1/jobs/${job.job_id}`, headers: a.auth })).json();
    expect(done.status).toBe('completed');
    const items = done.result.items as Array<{ index: number; status: string; result: { counts: Record<string, number> } | null; error: { code: string; message: string } | null }>;
    expect(items.map((x) => [x.index, x.status])).toEqual([
      [0, 'completed'],
      [1, 'failed'],
      [2, 'completed'],
    ]);
    expect(items[1]!.error).toMatchObject({ code: 'CIRCUIT_INVALID' });
    expect(Object.values(items[0]!.result!.counts).reduce((s, n) => s + n, 0)).toBe(1000);
    expect(Object.keys(items[2]!.result!.counts).every((k) => k === '000' || k === '111')).toBe(true);
    expect(done.result).toMatchObject({ completed: 2, failed: 1 });

    // One receipt, a line per item; the failed item's 0.000110 released in the settling capture.
    expect(done.receipt).toMatchObject({ amount_reserved: '0.000330', amount_captured: '0.000220', amount_released: '0.000110', balance_after: '0.999780' });
    expect(done.receipt.lines).toEqual([
      { index: 0, status: 'completed', amount_reserved: '0.000110', amount_captured: '0.000110', amount_released: '0.000000' },
      { index: 1, status: 'failed', amount_reserved: '0.000110', amount_captured: '0.000000', amount_released: '0.000110', error_code: 'CIRCUIT_INVALID' },
      { index: 2, status: 'completed', amount_reserved: '0.000110', amount_captured: '0.000110', amount_released: '0.000000' },
    ]);
    // capture + release of the one hold: two transfers.
    expect(done.receipt.ledger_transfer_ids).toHaveLength(2);
    expect(await balance(a.auth)).toMatchObject({ available: '0.999780', held: '0.000000' });

    // Item 0 ran as circuit.simulate runs the same circuit with the same seed: the same counts at the same price.
    const single = await submit(app, a, { capability_id: 'circuit.simulate', request: { circuit: bell, shots: 1000, seed: 5 }, idempotency_key: key('single'), max_total_price: '0.01' });
    expect(single.json().quoted_price).toBe('0.000110');
    await app.services.jobsWorker.runOnce();
    const s = (await app.inject({ method: 'GET', url: `/v1/jobs/${single.json().job_id}`, headers: a.auth })).json();
    expect(s.result.counts).toEqual(items[0]!.result!.counts);
  });

  it('sizes are bounded: 100 items at most, every item invalid refuses the whole batch, nothing reserved', async () => {
    const a = await newAgent(app, { fundMicros: 1_000_000n });
    const tooMany = await submit(app, a, {
      capability_id: 'circuit.simulate.batch',
      request: { circuits: Array.from({ length: 101 }, () => bell), shots: 10 },
      idempotency_key: key(),
      max_total_price: '1',
    });
    expect(tooMany.statusCode).toBe(400);
    const allBad = await submit(app, a, { capability_id: 'circuit.simulate.batch', request: { circuits: [bad, bad], shots: 10 }, idempotency_key: key(), max_total_price: '1' });
    expect(allBad.statusCode).toBe(400);
    expect(allBad.json().error.code).toBe('CIRCUIT_INVALID');
    expect(allBad.json().error.details[0].path).toMatch(/^\/request\/circuits\/0\//);
    // 100 is allowed: one reservation of 100 × 0.000101.
    const full = await submit(app, a, {
      capability_id: 'circuit.simulate.batch',
      request: { circuits: Array.from({ length: 100 }, () => bell), shots: 10 },
      idempotency_key: key(),
      max_total_price: '1',
    });
    expect(full.statusCode).toBe(202);
    expect(full.json().reserved_price).toBe('0.010100');
    expect(await balance(a.auth)).toMatchObject({ available: '0.989900', held: '0.010100' });
    expect(await app.services.jobsWorker.runOnce()).toMatchObject({ status: 'completed' });
    const done = (await app.inject({ method: 'GET', url: `/v1/jobs/${full.json().job_id}`, headers: a.auth })).json();
    expect(done.receipt.lines).toHaveLength(100);
    expect(done.receipt).toMatchObject({ amount_captured: '0.010100', amount_released: '0.000000' });
    expect(await balance(a.auth)).toMatchObject({ available: '0.989900', held: '0.000000' });
    // The gates of all items together are bounded too (checked at submission, before anything is reserved).
    const cap = app.services.jobs.capabilities.get('circuit.simulate.batch');
    const big = { schema: '0.2', num_qubits: 1, num_clbits: 0, gates: Array.from({ length: 2001 }, () => ({ op: 'x', qubits: [0] })), measurements: [] };
    expect(() => cap?.prepare({ circuits: Array.from({ length: 100 }, () => big), shots: 1 })).toThrow(/200100 gates in all; at most 200000/);
  });
});
