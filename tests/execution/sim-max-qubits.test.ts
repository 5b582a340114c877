import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, signUp } from '../helpers/app.js';
import { fundAccount } from '../helpers/ledger.js';
import type { App } from '../../src/http/app-types.js';
import { parseCircuitInput } from '../../src/circuits/wire-format.js';
import { deviceProfile } from '../../src/devices/device-catalogue.js';
import { executionSettings } from '../../src/execution/settings.js';
import { expectWallet, ghz3 } from './helpers.js';

const ghz4 = {
  schema: '0.2',
  num_qubits: 4,
  num_clbits: 4,
  gates: [
    { op: 'h', qubits: [0] },
    { op: 'cx', qubits: [0, 1] },
    { op: 'cx', qubits: [1, 2] },
    { op: 'cx', qubits: [2, 3] },
  ],
  measurements: [0, 1, 2, 3].map((q) => ({ qubit: q, clbit: q })),
};

type Device = { id: string; num_qubits: number; available: boolean; reasons: Array<{ code: string; message: string }> };

async function devices(app: App): Promise<Device[]> {
  const r = await app.inject({ method: 'GET', url: '/v1/execute/provider-two/devices' });
  expect(r.statusCode).toBe(200);
  return r.json().data.devices;
}

/** EXECUTION_SIM_MAX_QUBITS: the simulator limit of the deployment, advertised and enforced alike. */
describe('EXECUTION_SIM_MAX_QUBITS', () => {
  let low: App; // EXECUTION_SIM_MAX_QUBITS=3
  let ten: App; // EXECUTION_SIM_MAX_QUBITS=10: p2-grid-9 (9) fits, p2-ion-11 (11) does not
  beforeAll(async () => {
    [low, ten] = await Promise.all([buildTestApp({ EXECUTION_SIM_MAX_QUBITS: '3' }), buildTestApp({ EXECUTION_SIM_MAX_QUBITS: '10' })]);
  });
  afterAll(async () => {
    await Promise.all([low?.close(), ten?.close()]);
  });

  it('parses 1–30, default 28; anything else is a configuration error', () => {
    expect(executionSettings({}).simMaxQubits).toBe(28);
    expect(executionSettings({ EXECUTION_SIM_MAX_QUBITS: '1' }).simMaxQubits).toBe(1);
    expect(executionSettings({ EXECUTION_SIM_MAX_QUBITS: '30' }).simMaxQubits).toBe(30);
    for (const bad of ['0', '31', 'many', '2.5']) expect(() => executionSettings({ EXECUTION_SIM_MAX_QUBITS: bad }), bad).toThrow(/EXECUTION_SIM_MAX_QUBITS/);
  });

  it('set to 3: the simulator lists 3 qubits; a 4-qubit circuit → 422 naming the limit, on both providers; 3 qubits run', async () => {
    const sim = (await devices(low)).find((d) => d.id === 'p2-local-simulator')!;
    expect(sim).toMatchObject({ num_qubits: 3, available: true });
    const u = await signUp(low);
    for (const provider of ['provider-one', 'provider-two']) {
      // The limit is the statevector method's (issue #36: limits are per method).
      const r = await low.inject({ method: 'POST', url: `/v1/execute/${provider}`, headers: u.auth, payload: { circuit: ghz4, shots: 10, method: 'statevector', client_token: `four-${provider}` } });
      expect(r.statusCode, r.body).toBe(422);
      const e = r.json().error;
      expect(e).toMatchObject({ code: 'EXECUTION_TRANSLATION_FAILED', details: { num_qubits: 4, max_qubits: 3 } });
      expect(e.message).toMatch(/at most 3 qubits.*EXECUTION_SIM_MAX_QUBITS=3/);
      // With method auto the same Clifford circuit runs on the stabilizer method.
      const auto = await low.inject({ method: 'POST', url: `/v1/execute/${provider}`, headers: u.auth, payload: { circuit: ghz4, shots: 10, client_token: `auto-${provider}` } });
      expect(auto.statusCode, auto.body).toBe(200);
      expect(auto.json().data.results.meta.method).toBe('stabilizer');
      const ok = await low.inject({ method: 'POST', url: `/v1/execute/${provider}`, headers: u.auth, payload: { circuit: ghz3, shots: 10, seed: 1, client_token: `three-${provider}` } });
      expect(ok.statusCode, ok.body).toBe(200);
      expect(Object.keys(ok.json().data.results.counts).sort()).toEqual(['000', '111']);
    }
    // Nothing was stored for the refused runs.
    const rows = await low.db.query<{ client_token: string }>('SELECT client_token FROM execution_jobs WHERE account_id = $1 ORDER BY client_token', [u.accountId]);
    expect(rows.rows.map((r) => r.client_token)).toEqual(['auto-provider-one', 'auto-provider-two', 'three-provider-one', 'three-provider-two']);
  });

  it('the local drivers carry the limit (the engine refuses above it even if a run got past the service)', async () => {
    const parsed = parseCircuitInput(ghz4);
    if (!parsed.ok) throw new Error('bad circuit');
    const device = deviceProfile('p2-local-simulator')!;
    const { drivers } = low.services.execution.deps.directory;
    for (const driver of [drivers.simulator, drivers.emulated]) {
      await expect(driver.submit({ jobId: 'x', device, circuit: parsed.circuit, shots: 1, seed: 1 })).rejects.toMatchObject({ code: 'SIMULATION_TOO_MANY_QUBITS', details: { max_qubits: 3 } });
    }
  });

  it('emulated hardware larger than the limit is not available: listed with the reason, holds refused', async () => {
    const list = await devices(ten);
    expect(list.find((d) => d.id === 'p2-local-simulator')).toMatchObject({ num_qubits: 10 });
    expect(list.find((d) => d.id === 'p2-grid-9')).toMatchObject({ num_qubits: 9, available: true, reasons: [] });
    const ion = list.find((d) => d.id === 'p2-ion-11')!;
    expect(ion).toMatchObject({ num_qubits: 11, available: false });
    expect(ion.reasons).toEqual([{ code: 'provider_not_configured', message: expect.stringMatching(/11 simulated qubits.*at most 10 \(EXECUTION_SIM_MAX_QUBITS\)/) }]);

    const u = await signUp(ten);
    await fundAccount(ten, u.accountId, 5_000_000n);
    const q = (await ten.inject({ method: 'POST', url: '/v1/billing/hardware/quote', headers: u.auth, payload: { provider: 'provider-two', device: 'p2-ion-11', shots: 10 } })).json().data;
    expect(q).toMatchObject({ device_available: false });
    const h = await ten.inject({ method: 'POST', url: '/v1/billing/hardware/hold', headers: u.auth, payload: { quote_id: q.quote_id } });
    expect(h.statusCode).toBe(409);
    expect(h.json().error).toMatchObject({ code: 'EXECUTION_PROVIDER_NOT_CONFIGURED', details: { device: 'p2-ion-11' } });
    await expectWallet(ten, u.auth, '5.000000', '0.000000');
  });
});
