import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/http/app-types.js';
import { buildTestApp, signUp } from '../helpers/app.js';
import { ghz3 } from '../helpers/circuits.js';
import { openapiDocument, ResponseChecker } from '../helpers/openapi.js';
import { fundAccount } from '../helpers/ledger.js';
import { expectExecutionInvariants, expectWallet } from './helpers.js';

/**
 * Error mitigation through the HTTP API (issue #35 items 9–10, docs/execution.md#error-mitigation):
 * the quote prices the folded runs, a held continuation takes one task per group and scale, the
 * answer carries raw counts and expectation beside the mitigated figures; bad requests are
 * refused before anything is taken. On p2-grid-9 with its calibrated noise (the default).
 */
describe('error mitigation on a held hardware job', () => {
  let app: App;
  let checker: ResponseChecker;
  beforeAll(async () => {
    app = await buildTestApp();
    checker = new ResponseChecker(await openapiDocument(app));
  });
  afterAll(async () => {
    await app.close();
  });

  const xxx = [{ pauli: 'XXX', coeff: 1 }];
  const quote = (auth: { authorization: string }, payload: Record<string, unknown>) =>
    app.inject({ method: 'POST', url: '/v1/billing/hardware/quote', headers: auth, payload: { provider: 'provider-two', device: 'p2-grid-9', shots: 500, ...payload } });

  it('prices each scale factor as one more task per measurement group', async () => {
    const u = await signUp(app);
    const tasksOf = async (payload: Record<string, unknown>) => {
      const r = await quote(u.auth, payload);
      expect(r.statusCode, r.body).toBe(200);
      return r.json().data.tasks as number;
    };
    const zne = { zne: { scale_factors: [1, 3, 5], extrapolation: 'linear' } };
    expect(await tasksOf({ result_types: ['expectation'], observables: xxx, mitigation: zne })).toBe(3);
    expect(await tasksOf({ result_types: ['counts', 'expectation'], observables: xxx, mitigation: { readout: true, ...zne } })).toBe(4);
    expect(await tasksOf({ mitigation: { readout: true } })).toBe(1);
    expect(await tasksOf({ result_types: ['expectation'], observables: [...xxx, { pauli: 'ZZI', coeff: 1 }], mitigation: { zne: {} }, tasks: 2 })).toBe(12);
  });

  it('refuses ZNE without observables, bad scale factors and unfoldable gates with stable codes', async () => {
    const u = await signUp(app);
    const noObs = await quote(u.auth, { mitigation: { zne: {} } });
    expect(noObs.statusCode).toBe(400);
    expect(noObs.json().error).toMatchObject({ code: 'EXECUTION_MITIGATION_INVALID', details: [{ path: '/mitigation/zne', code: 'ZNE_NEEDS_EXPECTATION' }] });
    const even = await quote(u.auth, { result_types: ['expectation'], observables: xxx, mitigation: { zne: { scale_factors: [1, 2] } } });
    expect(even.statusCode).toBe(400);
    expect(even.json().error).toMatchObject({ code: 'EXECUTION_MITIGATION_INVALID', details: [{ path: '/mitigation/zne/scale_factors', code: 'SCALE_FACTORS_INVALID' }] });
    const tooMany = await quote(u.auth, { result_types: ['expectation'], observables: xxx, mitigation: { zne: { scale_factors: [1, 3, 5, 7, 9, 11] } } });
    expect(tooMany.statusCode).toBe(400);
    expect(tooMany.json().error.code).toBe('VALIDATION_FAILED');

    await fundAccount(app, u.accountId, 10_000_000n);
    const q = await quote(u.auth, { tasks: 3 });
    const h = await app.inject({ method: 'POST', url: '/v1/billing/hardware/hold', headers: u.auth, payload: { quote_id: q.json().data.quote_id } });
    expect(h.statusCode, h.body).toBe(201);
    const held = h.json().data as { job_id: string; amount: string };
    const csx = { ...ghz3, gates: [...ghz3.gates, { op: 'csx', qubits: [0, 2] }] };
    const r = await app.inject({
      method: 'POST',
      url: `/v1/execute/provider-two/held/${held.job_id}`,
      headers: u.auth,
      payload: { circuit: csx, result_types: ['expectation'], observables: xxx, mitigation: { zne: {} }, client_token: 'fold-1' },
    });
    expect(r.statusCode).toBe(422);
    expect(r.json().error).toMatchObject({ code: 'EXECUTION_MITIGATION_UNSUPPORTED', details: [{ path: '/circuit', code: 'GATE_NOT_FOLDABLE' }] });
    // Nothing was taken.
    await expectWallet(app, u.auth, (10 - Number(held.amount)).toFixed(6), held.amount);
  });

  it('runs readout mitigation and ZNE as tasks of the hold; raw counts and expectation stay beside the mitigated figures', async () => {
    const u = await signUp(app);
    // 4,000 shots: the folded runs' decay on a device with ibm_fez-grade gates is a few hundredths, many standard errors.
    await fundAccount(app, u.accountId, 20_000_000n);
    const payload = { result_types: ['counts', 'expectation'], observables: xxx, mitigation: { readout: true, zne: { scale_factors: [1, 3, 5], extrapolation: 'exponential' } } };
    const q = await quote(u.auth, { ...payload, shots: 4000 });
    expect(q.json().data.tasks).toBe(4);
    const h = await app.inject({ method: 'POST', url: '/v1/billing/hardware/hold', headers: u.auth, payload: { quote_id: q.json().data.quote_id } });
    const held = h.json().data as { job_id: string; amount: string };
    const c = await app.inject({ method: 'POST', url: `/v1/execute/provider-two/held/${held.job_id}`, headers: u.auth, payload: { circuit: ghz3, seed: 5, client_token: 'mit-1', ...payload } });
    expect(c.statusCode, c.body).toBe(202);
    await app.services.executionWorker.drain();
    const r = await app.inject({ method: 'GET', url: `/v1/execute/provider-two/${held.job_id}`, headers: u.auth });
    expect(checker.check('GET', `/v1/execute/provider-two/${held.job_id}`, r.statusCode, r.headers, r.body)).toEqual([]);
    const done = r.json().data;
    expect(done.status).toBe('completed');
    expect(Object.values(done.results.counts as Record<string, number>).reduce((a, b) => a + b, 0)).toBe(4000);
    const m = done.results.mitigation;
    expect(m).toMatchObject({ applied_by: 'qrail', native: false });
    expect(Object.values(m.readout.quasi_probabilities as Record<string, number>).reduce((a, b) => a + b, 0)).toBeCloseTo(1, 9);
    expect(m.readout.confusion).toHaveLength(3);
    // The raw value at scale 1 is the job's expectation; the folded runs decay further.
    const raw = done.results.expectation.value as number;
    expect(m.zne.values.map((v: { scale: number }) => v.scale)).toEqual([1, 3, 5]);
    expect(m.zne.values[2].value).toBeLessThan(m.zne.values[0].value);
    expect(m.readout.expectation.value).toBeGreaterThan(raw);
    expect(Math.abs(1 - m.zne.value)).toBeLessThan(Math.abs(1 - raw));
    expect(m.zne.stderr).toBeGreaterThan(0);
    // All four tasks were captured: the hold is used up.
    await expectWallet(app, u.auth, (20 - Number(held.amount)).toFixed(6), '0.000000');
    await expectExecutionInvariants(app);
  });
});
