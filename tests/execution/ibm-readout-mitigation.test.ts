import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { buildTestApp, signUp } from '../helpers/app.js';
import { fundAccount } from '../helpers/ledger.js';
import { openapiDocument, ResponseChecker } from '../helpers/openapi.js';
import type { App } from '../../src/http/app-types.js';
import { ibmCalibration } from '../../src/execution/adapters/ibm-runtime-snapshots.js';
import { mitigateReadout } from '../../src/execution/mitigation/readout-mitigation.js';
import { settleExecutionJob } from './helpers.js';
import { FakeIbmRuntime, defaultIbmScript, ibmFakeEnv } from './fakes/ibm-runtime-fake.js';
import { faultyFezExcerpt, fezJson, ghzWire } from './fakes/fez-excerpt.js';

/**
 * Readout mitigation on IBM hardware (issue #35 item 9) from IBM's own per-qubit figures: the
 * recorded ibm_fez `/properties` (tests/fixtures/providers/ibm) give each physical qubit's
 * `prob_meas1_prep0` and `prob_meas0_prep1`; the confusion a run inverts is that of the physical
 * qubit each clbit read after layout and routing, never of the clbit's own number.
 */
type Item = { name: string; value: number };
const figure = (q: Item[], name: string) => q.find((x) => x.name === name)!.value;

describe('IBM per-qubit readout calibration', () => {
  it("reads every ibm_fez qubit's prob_meas1_prep0 / prob_meas0_prep1 as [P(1|0), P(0|1)]", () => {
    const props = fezJson('props_fez.json');
    const qubits = props['qubits'] as Item[][];
    const cal = ibmCalibration(props)!;
    expect(cal.readoutPerQubit).toHaveLength(156);
    qubits.forEach((q, i) => expect(cal.readoutPerQubit![i]).toEqual([figure(q, 'prob_meas1_prep0'), figure(q, 'prob_meas0_prep1')]));
    // IBM's readout_error is their mean on this snapshot: the asymmetry is real data, not noise.
    const q0 = qubits[0]!;
    expect((figure(q0, 'prob_meas1_prep0') + figure(q0, 'prob_meas0_prep1')) / 2).toBeCloseTo(figure(q0, 'readout_error'), 12);
  });

  it('falls back to readout_error for both directions when a backend reports only that, and to none without it', () => {
    const cal = ibmCalibration({
      last_update_date: '2026-11-26T05:10:00Z',
      qubits: [[{ name: 'readout_error', unit: '', value: 0.03 }], [{ name: 'T1', unit: 'us', value: 100 }]],
      gates: [],
    })!;
    expect(cal.readoutPerQubit).toEqual([[0.03, 0.03], null]);
  });
});

describe('readout mitigation of a replayed IBM run (qubits 0–4 of the recorded ibm_fez, qubit 4 and pair 0–1 faulty)', () => {
  const fake = new FakeIbmRuntime();
  let app: App;
  let checker: ResponseChecker;

  beforeAll(async () => {
    await fake.start();
    app = await buildTestApp({ ...ibmFakeEnv(fake), EXECUTION_REMOTE_POLL_MS: '1' });
    checker = new ResponseChecker(await openapiDocument(app));
  });
  afterAll(async () => {
    await app.close();
    await fake.close();
  });
  beforeEach(async () => {
    fake.script = { ...defaultIbmScript(), device: faultyFezExcerpt() };
    expect(await app.services.snapshotRefresher.refreshAll()).toEqual([{ provider: 'provider-one', ok: true, nextInMs: 300_000 }]);
  });

  it('the device listing offers readout mitigation from the provider’s calibration, and no IonQ debiasing', async () => {
    const devices = (await app.inject({ method: 'GET', url: '/v1/execute/provider-one/devices' })).json().data.devices as Array<Record<string, unknown>>;
    const props = fezJson('props_fez.json');
    expect(devices.find((d) => d['id'] === 'p1-falcon-7')).toMatchObject({
      backend: 'ibm_fake_h7',
      mitigation: {
        readout: { available: true, calibration: { source: 'provider', calibrated_at: new Date(String(props['last_update_date'])).toISOString() } },
        zne: { available: true },
        debiasing: { available: false },
      },
    });
    expect(devices.find((d) => d['id'] === 'p1-simulator')).toMatchObject({ backend: null, mitigation: null });
  });

  it('inverts the confusion of the physical qubits the routed GHZ measured, from the fixture, beside the raw counts', async () => {
    const u = await signUp(app);
    await fundAccount(app, u.accountId, 20_000_000n);
    const payload = { provider: 'provider-one', device: 'p1-falcon-7', shots: 10, mitigation: { readout: true } };
    const q = await app.inject({ method: 'POST', url: '/v1/billing/hardware/quote', headers: u.auth, payload });
    expect(q.statusCode, q.body).toBe(200);
    const h = await app.inject({ method: 'POST', url: '/v1/billing/hardware/hold', headers: u.auth, payload: { quote_id: q.json().data.quote_id } });
    const jobId = h.json().data.job_id as string;
    // IBM's samples of the 3 clbits: mostly 000 and 111, with a few flipped reads.
    fake.script.samples = ['0x0', '0x0', '0x0', '0x0', '0x7', '0x7', '0x7', '0x7', '0x1', '0x6'];
    fake.script.numBits = 3;
    const c = await app.inject({
      method: 'POST',
      url: `/v1/execute/provider-one/held/${jobId}`,
      headers: u.auth,
      payload: { circuit: ghzWire(3), mitigation: { readout: true }, client_token: 'ro-1' },
    });
    expect(c.statusCode, c.body).toBe(202);
    await settleExecutionJob(app, jobId);
    const r = await app.inject({ method: 'GET', url: `/v1/execute/provider-one/${jobId}`, headers: u.auth });
    expect(checker.check('GET', `/v1/execute/provider-one/${jobId}`, r.statusCode, r.headers, r.body)).toEqual([]);
    const done = r.json().data;
    expect(done.status).toBe('completed');
    const counts = { '000': 4, '111': 4, '001': 1, '110': 1 };
    expect(done.results.counts).toEqual(counts);

    // Which physical qubit each clbit read: GHZ qubit i is measured into clbit i, where routing left it.
    const finalLayout = done.translation.final_layout as Record<string, number>;
    const physical = [0, 1, 2].map((i) => finalLayout[String(i)]!);
    for (const p of physical) expect([1, 2, 3]).toContain(p);
    expect(physical).not.toEqual([0, 1, 2]);
    const props = fezJson('props_fez.json');
    const qubits = props['qubits'] as Item[][];
    const expected = physical.map((p) => ({ qubit: p, p01: figure(qubits[p]!, 'prob_meas1_prep0'), p10: figure(qubits[p]!, 'prob_meas0_prep1') }));

    const m = done.results.mitigation;
    expect(m).toMatchObject({ applied_by: 'qrail', native: false });
    expect(m.readout).toMatchObject({ applied: true, calibration: { source: 'provider', calibrated_at: new Date(String(props['last_update_date'])).toISOString() } });
    expect(m.readout.confusion).toEqual(expected);
    // The quasi-probabilities are those of the fixture's confusion, over the observed strings only.
    const want = mitigateReadout(
      counts,
      expected.map((e) => [e.p01, e.p10] as const),
    );
    expect(Object.keys(m.readout.quasi_probabilities).sort()).toEqual(Object.keys(counts).sort());
    for (const [k, v] of Object.entries(want.quasi)) expect(m.readout.quasi_probabilities[k]).toBeCloseTo(v, 9);
    expect(Object.values(m.readout.quasi_probabilities as Record<string, number>).reduce((a, b) => a + b, 0)).toBeCloseTo(1, 9);
    // Inverting the readout moves weight back to the GHZ strings.
    expect(m.readout.probabilities['000'] + m.readout.probabilities['111']).toBeGreaterThan(0.8);
  });

  it('a device whose report has no readout figures refuses readout mitigation (NO_CALIBRATION) before taking anything', async () => {
    const excerpt = faultyFezExcerpt();
    const props = excerpt.properties as { qubits: Item[][] };
    props.qubits = props.qubits.map((q) => q.filter((x) => !['readout_error', 'prob_meas0_prep1', 'prob_meas1_prep0'].includes(x.name)));
    fake.script = { ...defaultIbmScript(), device: excerpt };
    await app.services.snapshotRefresher.refreshAll();
    const u = await signUp(app);
    await fundAccount(app, u.accountId, 20_000_000n);
    const q = await app.inject({ method: 'POST', url: '/v1/billing/hardware/quote', headers: u.auth, payload: { provider: 'provider-one', device: 'p1-falcon-7', shots: 10 } });
    const h = await app.inject({ method: 'POST', url: '/v1/billing/hardware/hold', headers: u.auth, payload: { quote_id: q.json().data.quote_id } });
    const jobId = h.json().data.job_id as string;
    const c = await app.inject({
      method: 'POST',
      url: `/v1/execute/provider-one/held/${jobId}`,
      headers: u.auth,
      payload: { circuit: ghzWire(3), mitigation: { readout: true }, client_token: 'ro-2' },
    });
    expect(c.statusCode).toBe(422);
    expect(c.json().error).toMatchObject({ code: 'EXECUTION_MITIGATION_UNSUPPORTED', details: [{ path: '/mitigation/readout', code: 'NO_CALIBRATION' }] });
  });
});
