import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { buildTestApp, signUp } from '../helpers/app.js';
import { fundAccount } from '../helpers/ledger.js';
import type { App } from '../../src/http/app-types.js';
import { FakeIbmRuntime, defaultIbmScript, ibmFakeEnv } from './fakes/ibm-runtime-fake.js';
import { faultyFezExcerpt, ghzWire as ghz } from './fakes/fez-excerpt.js';

/**
 * Faulty qubits and pairs on IBM hardware are never routed over (qiskit-ibm-runtime's
 * `check_faulty`: a qubit or gate whose properties say `operational` 0; and a basis two-qubit
 * gate with `gate_error` 1). Five qubits of IBM's own recorded ibm_fez answers
 * (tests/fixtures/providers/ibm), with qubit 4 and the cz of pair 0–1 marked non-operational the
 * way qiskit-ibm-runtime's tests do it, stand behind the fake: a circuit that fits the healthy part
 * runs there; one that needs a faulty qubit or pair is refused with a 422 naming it.
 */
describe('IBM faulty qubits and pairs (qubits 0–4 of the recorded ibm_fez, qubit 4 and pair 0–1 faulty)', () => {
  const fake = new FakeIbmRuntime();
  let app: App;

  beforeAll(async () => {
    await fake.start();
    app = await buildTestApp({
      ...ibmFakeEnv(fake),
    });
  });
  afterAll(async () => {
    await app.close();
    await fake.close();
  });
  beforeEach(async () => {
    fake.script = { ...defaultIbmScript(), device: faultyFezExcerpt() };
    expect(await app.services.snapshotRefresher.refreshAll()).toEqual([{ provider: 'provider-one', ok: true, nextInMs: 300_000 }]);
  });

  async function held() {
    const u = await signUp(app);
    await fundAccount(app, u.accountId, 20_000_000n);
    const q = await app.inject({ method: 'POST', url: '/v1/billing/hardware/quote', headers: u.auth, payload: { provider: 'provider-one', device: 'p1-falcon-7', shots: 10 } });
    const h = await app.inject({ method: 'POST', url: '/v1/billing/hardware/hold', headers: u.auth, payload: { quote_id: q.json().data.quote_id } });
    expect(h.statusCode).toBe(201);
    return { u, jobId: h.json().data.job_id as string };
  }

  it('the device lists no faulty pair and no pair of a faulty qubit in its coupling map', async () => {
    const devices = (await app.inject({ method: 'GET', url: '/v1/execute/provider-one/devices' })).json().data.devices as Array<Record<string, unknown>>;
    expect(devices.find((d) => d['id'] === 'p1-falcon-7')).toMatchObject({
      num_qubits: 5,
      coupling_map: [
        [1, 2],
        [2, 3],
      ],
      faulty: { qubits: [4], pairs: [[0, 1]] },
    });
    // Devices without a provider report of faulty parts say so with empty lists.
    expect(devices.find((d) => d['id'] === 'p1-simulator')).toMatchObject({ faulty: { qubits: [], pairs: [] } });
  });

  it('a 3-qubit GHZ is placed on healthy qubits only (never 0, whose only pair is faulty, nor 4)', async () => {
    const { u, jobId } = await held();
    const r = await app.inject({ method: 'POST', url: `/v1/execute/provider-one/held/${jobId}`, headers: u.auth, payload: { circuit: ghz(3), client_token: 'ok-1' } });
    expect(r.statusCode).toBe(202);
    const job = (await app.inject({ method: 'GET', url: `/v1/execute/provider-one/${jobId}`, headers: u.auth })).json().data;
    const placed = [...Object.values(job.translation.initial_layout), ...Object.values(job.translation.final_layout)] as number[];
    expect(placed.length).toBe(6);
    for (const q of placed) expect([1, 2, 3]).toContain(q);
  });

  it('a circuit needing more qubits than are healthy is refused with a 422 naming the faulty qubit', async () => {
    const { u, jobId } = await held();
    const r = await app.inject({ method: 'POST', url: `/v1/execute/provider-one/held/${jobId}`, headers: u.auth, payload: { circuit: ghz(5), client_token: 'five' } });
    expect(r.statusCode).toBe(422);
    expect(r.json().error).toMatchObject({ code: 'EXECUTION_FAULTY_QUBITS', details: { device: 'p1-falcon-7', faulty_qubits: [4], healthy_qubits: 4, qubits_used: 5 } });
    expect(r.json().error.message).toMatch(/qubit 4/);
  });

  it('a circuit that can only be routed over a faulty pair is refused with a 422 naming the pair', async () => {
    const { u, jobId } = await held();
    const r = await app.inject({ method: 'POST', url: `/v1/execute/provider-one/held/${jobId}`, headers: u.auth, payload: { circuit: ghz(4), client_token: 'four' } });
    expect(r.statusCode).toBe(422);
    expect(r.json().error).toMatchObject({ code: 'EXECUTION_FAULTY_QUBITS', details: { device: 'p1-falcon-7', faulty_qubits: [4], faulty_edges: [[0, 1]] } });
    expect(r.json().error.message).toMatch(/0–1/);
  });
});
