import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient, QrailApiError, type QrailClient } from '../../packages/client/src/index.js';
import type { App } from '../../src/http/app-types.js';
import { buildTestApp, PASSWORD, uniqueEmail } from '../helpers/app.js';
import { bell, ghz3 } from '../helpers/circuits.js';

/**
 * The flows of docs/api-guide.md through @qrail/client against a live app on a listening port,
 * its background workers running as in a deployment: register → circuits → coupling →
 * execution → billing (sandbox processor) → Account Jobs (credential → token → submit → wait →
 * receipt). Every value is read through the generated types: this file has no casts
 * (tests/client/no-casts.test.ts checks it) and type-checks under `npm run typecheck` (strict).
 */

function total(counts: Record<string, number>): number {
  return Object.values(counts).reduce((a, b) => a + b, 0);
}

describe('@qrail/client drives the api-guide flows against a live app', () => {
  let app: App;
  let qrail: QrailClient;
  const email = uniqueEmail('client');

  beforeAll(async () => {
    app = await buildTestApp({ JOBS_POLL_MS: '20' });
    for (const w of app.services.workers) w.start();
    await app.listen({ port: 0, host: '127.0.0.1' });
    const address = app.server.address();
    if (address === null || typeof address === 'string') throw new Error('no TCP address');
    qrail = createClient({ baseUrl: `http://127.0.0.1:${address.port}` });
  });
  afterAll(async () => {
    await app.close();
  });

  it('1. account: register, then login keeps the session token', async () => {
    const bad = await qrail.auth.register('not-an-email', 'x').catch((e: unknown) => e);
    expect(bad).toBeInstanceOf(QrailApiError);
    if (!QrailApiError.is(bad, 'VALIDATION_FAILED')) throw new Error('expected VALIDATION_FAILED');
    expect(bad.status).toBe(400);
    expect(bad.shape).toBe('platform');
    expect(bad.requestId).toMatch(/.+/);
    expect(bad.problems.map((p) => p.path)).toEqual(expect.arrayContaining(['/email', '/password']));

    const user = await qrail.auth.register(email, PASSWORD);
    expect(user.email).toBe(email);
    const session = await qrail.auth.login(email, PASSWORD);
    expect(session.token).toMatch(/^qrs_/);
    expect(qrail.auth.token).toBe(session.token);
    expect((await qrail.auth.me()).user.email).toBe(email);
  });

  it('2. circuits: validate, analyze, an example optimized with its proof', async () => {
    const valid = await qrail.circuits.validate({ circuit: bell });
    expect(valid.valid).toBe(true);
    expect(valid.summary?.depth).toBe(3);
    // A broken circuit, typed without a cast (validate's request admits any circuit-shaped object).
    const broken = await qrail.circuits.validate({
      circuit: {
        schema: '0.2',
        num_qubits: 2,
        gates: [
          { op: 'hadamard', qubits: [0] },
          { op: 'cx', qubits: [0, 2] },
          { op: 'x', qubits: [1], param: [1] },
        ],
      },
    });
    expect(broken.valid).toBe(false);
    expect(broken.errors.map((e) => `${e.path} ${e.code}`).sort()).toEqual([
      '/circuit/gates/0/op UNKNOWN_GATE',
      '/circuit/gates/1/qubits/1 QUBIT_OUT_OF_RANGE',
      '/circuit/gates/2/param UNKNOWN_PROPERTY',
    ]);

    const analysis = await qrail.circuits.analyze({ circuit: { ...bell, gates: [...bell.gates, { op: 't', qubits: [1] }] }, devices: ['p2-grid-9'] });
    expect(analysis.t_count).toBe(1);
    expect(analysis.compatibility[0]?.devices[0]?.status).toBe('needs_translation');

    const example = await qrail.circuits.examples({ name: 'optimizable' });
    if (example.circuit === undefined) throw new Error('no example circuit');
    const optimized = await qrail.circuits.optimize({ profile: 'balanced', circuit: example.circuit });
    expect(optimized.metrics_before.total).toBe(13);
    expect(optimized.metrics_after.total).toBe(4);
    expect(optimized.proof.verified).toBe(true);
  });

  it('3. coupling: the measured Bell pair is maximally entangled', async () => {
    const report = await qrail.coupling.analyze({ mode: 'measured', circuit: { schema: '0.2', num_qubits: 2, gates: bell.gates } });
    expect(report.mode_used).toBe('measured');
    expect(report.measured?.pairs[0]?.concurrence).toBeCloseTo(1, 9);
  });

  it('4. execution: simulators answer with counts (client_token made by the client)', async () => {
    const caps = await qrail.execution.capabilities();
    expect(caps.provider_one.simulator.ready).toBe(true);
    const p1 = await qrail.execution.runProviderOne({ circuit: bell, shots: 1000, seed: 7 });
    expect(p1.status).toBe('completed');
    expect(p1.client_token).toMatch(/.+/);
    const counts = p1.results?.counts ?? {};
    expect(total(counts)).toBe(1000);
    expect(Object.keys(counts).sort()).toEqual(['00', '11']);

    const again = await qrail.execution.runProviderOne({ circuit: bell, shots: 1000, seed: 7, client_token: p1.client_token ?? undefined });
    expect(again.job_id).toBe(p1.job_id);

    const devices = await qrail.execution.devices();
    expect(devices.devices.map((d) => d.id)).toContain('p2-grid-9');
  });

  it('5. billing: top-ups through the sandbox processor, then a hardware run quote → hold → continue → wait', async () => {
    expect((await qrail.billing.wallet()).available).toBe('0.000000');
    const intent = await qrail.billing.paymentIntent({ amount: '10.00', payment_method: 'pm_card_visa' });
    expect(intent.credited).toBe(true);

    const checkout = await qrail.billing.checkoutSession({ amount: '20.00', success_url: 'https://app.example/paid' });
    const paid = await qrail.billing.paySandboxCheckout(checkout.session_id);
    expect(paid).toEqual({ status: 303, location: 'https://app.example/paid' });
    const reconciled = await qrail.billing.reconcileCheckout({ session_id: checkout.session_id });
    expect(reconciled.payment_status).toBe('paid');
    expect((await qrail.billing.wallet()).available).toBe('30.000000');

    const direct = await qrail.execution.runProviderTwo({ circuit: ghz3, device: 'p2-grid-9', shots: 1000 }).catch((e: unknown) => e);
    expect(QrailApiError.is(direct, 'EXECUTION_HOLD_REQUIRED')).toBe(true);

    const quote = await qrail.billing.quote({ provider: 'provider-two', device: 'p2-grid-9', shots: 1000 });
    expect(quote.total).toBe('1.200000');
    const hold = await qrail.billing.hold({ quote_id: quote.quote_id });
    expect(hold.status).toBe('held');
    const queued = await qrail.execution.continueHeldJob(hold.job_id, { circuit: ghz3, seed: 42 });
    expect(queued.status).toBe('queued');
    const seen: string[] = [];
    const done = await qrail.execution.waitForJob('provider-two', hold.job_id, { intervalMs: 20, onProgress: (j) => seen.push(j.status) });
    expect(done.status).toBe('completed');
    expect(seen.at(-1)).toBe('completed');
    expect(total(done.results?.counts ?? {})).toBe(1000);
    expect(done.cost.actual).toBe('1.200000');
    expect((await qrail.billing.dashboard({ days: 7 })).totals.jobs).toBe(1);
    const ledger = await qrail.billing.ledger({ kind: 'topup' });
    expect(ledger.entries.length).toBeGreaterThanOrEqual(2);
  });

  it('6. Account Jobs: credential → access token → submit → waitForJob → receipt', async () => {
    const credential = await qrail.auth.createCredential({ name: 'client flow', scopes: ['jobs:read', 'jobs:write'] });
    // A session token is not a Jobs credential: the Jobs error shape, typed.
    const refused = await qrail.request('get', '/v1/account/balance', { headers: { authorization: `Bearer ${qrail.auth.token ?? ''}` } }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(QrailApiError);

    qrail.auth.useClientCredentials({ clientId: credential.client_id, clientSecret: credential.secret });
    expect(await qrail.auth.jobsToken()).toMatch(/^ey/);
    const catalog = await qrail.jobs.catalog();
    expect(catalog.capabilities.map((c) => c.capability_id)).toContain('circuit.simulate');

    const job = await qrail.jobs.submit({ capability_id: 'circuit.simulate', max_total_price: '0.01', request: { shots: 1000, seed: 11, circuit: bell } });
    expect(job.quoted_price).toBe('0.000110');
    const progress: string[] = [];
    const done = await qrail.jobs.waitForJob(job.job_id, { intervalMs: 20, onProgress: (j) => progress.push(j.status) });
    expect(done.status).toBe('completed');
    expect(progress.at(-1)).toBe('completed');
    const result = done.result;
    if (result === null || !('counts' in result)) throw new Error('expected a simulation result');
    expect(result.counts).toEqual({ '00': 475, '11': 525 });
    expect(result.bit_order).toBe('clbit 0 rightmost');
    expect(done.receipt?.amount_captured).toBe('0.000110');

    // The same key with another body: 409 in the Account Jobs error shape.
    const reused = await qrail.jobs
      .submit({ capability_id: 'circuit.simulate', idempotency_key: job.idempotency_key, max_total_price: '0.01', request: { shots: 2000, circuit: bell } })
      .catch((e: unknown) => e);
    if (!QrailApiError.is(reused, 'IDEMPOTENCY_KEY_REUSED')) throw new Error('expected IDEMPOTENCY_KEY_REUSED');
    expect(reused.shape).toBe('jobs');
    expect(reused.status).toBe(409);
    expect(reused.requestId).toMatch(/.+/);

    const balance = await qrail.jobs.balance();
    expect(balance.available).toBe('28.799890');
    expect((await qrail.jobs.list({ limit: 10 })).jobs.map((j) => j.job_id)).toContain(job.job_id);
  });

  it('7. a person reads Account Jobs with the session exchanged for a Jobs token; both end at logout', async () => {
    const exchanged = await qrail.auth.exchangeSession();
    expect(exchanged.scope).toBe('jobs:read jobs:write circuits:run execute:simulator execute:hardware billing:read');
    expect((await qrail.jobs.list()).jobs).toHaveLength(1);

    await qrail.auth.logout();
    expect(qrail.auth.token).toBeUndefined();
    const me = await qrail.request('get', '/v1/auth/me').catch((e: unknown) => e);
    expect(QrailApiError.is(me, 'UNAUTHENTICATED')).toBe(true);
    const jobs = await qrail.jobs.list().catch((e: unknown) => e);
    expect(QrailApiError.is(jobs, 'UNAUTHENTICATED')).toBe(true);
  });
});
