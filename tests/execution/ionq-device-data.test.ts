import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp } from '../helpers/app.js';
import type { App } from '../../src/http/app-types.js';
import { FakeIonq } from './fakes/ionq-v04-fake.js';

type Device = {
  id: string;
  driver: string;
  source: string;
  status: string;
  status_detail: string | null;
  num_qubits: number;
  calibration: { source: string; calibrated_at: string; mean: Record<string, number | null> } | null;
};

/** IonQ's backends and characterizations (API v0.4) reach the device list through the snapshot cache, labelled provider. */
describe('IonQ device data from the provider', () => {
  const fake = new FakeIonq();
  let app: App;
  const devices = async (provider: string) => (await app.inject({ method: 'GET', url: `/v1/execute/${provider}/devices` })).json().data.devices as Device[];

  beforeAll(async () => {
    await fake.start();
    fake.script = { apiKey: 'test-key', submit: [], pollStatuses: ['completed'], histogram: { '0': 1 }, backendStatus: 'available' };
    app = await buildTestApp({ IONQ_BASE_URL: fake.baseUrl, IONQ_API_KEY: 'test-key', IONQ_TIMEOUT_MS: '5000', EXECUTION_STATUS_CACHE_MS: '0' });
  });
  afterAll(async () => {
    await app.close();
    await fake.close();
  });

  it('before the first snapshot the device carries no calibration at all: the catalogue makes none up', async () => {
    const aria = (await devices('provider-two')).find((d) => d.id === 'p2-ionq-qpu')!;
    expect(aria).toMatchObject({ driver: 'remote', source: 'deployment', calibration: null });
  });

  it("after a refresh: IonQ's characterization (date, fidelities as errors, T1/T2 in µs) and its queue time, labelled provider", async () => {
    expect(await app.services.snapshotRefresher.refreshAll()).toEqual([{ provider: 'provider-two', ok: true, nextInMs: 300_000 }]);
    const qpu = (await devices('provider-two')).find((d) => d.id === 'p2-ionq-qpu')!;
    expect(qpu).toMatchObject({
      driver: 'remote',
      source: 'provider',
      status: 'online',
      num_qubits: 36,
      status_detail: 'IonQ reports qpu.forte-1 available, average queue time 120 s',
      calibration: { source: 'provider', calibrated_at: '2026-11-20T06:00:00.000Z', mean: { t1_us: 100e6, t2_us: 1e6, error_1q: 0.0005, error_2q: 0.013, readout_error: 0.0045 } },
    });
    // A backend IonQ reports unavailable is offline here on the next refresh, with IonQ's word for it.
    fake.script.backendStatus = 'unavailable';
    await app.services.snapshotRefresher.refreshAll();
    const down = (await devices('provider-two')).find((d) => d.id === 'p2-ionq-qpu')!;
    expect(down.status).not.toBe('online');
    expect(down.status_detail).toMatch(/IonQ reports qpu\.forte-1 unavailable/);
    fake.script.backendStatus = 'available';
    await app.services.snapshotRefresher.refreshAll();
  });

  it('synthetic calibration nowhere outside emulated devices, on either provider', async () => {
    const all = [...(await devices('provider-one')), ...(await devices('provider-two'))];
    const deployment = all.filter((d) => d.calibration?.source === 'deployment');
    expect(deployment.length).toBeGreaterThan(0);
    for (const d of deployment) expect(d.driver, d.id).toBe('emulated');
    for (const d of all.filter((x) => x.driver === 'remote' && x.calibration !== null)) expect(d.calibration!.source, d.id).toBe('provider');
  });
});

/** A target IonQ no longer lists (Aria, retired in v0.4) reads offline, naming the systems IonQ does list, and nothing is sent to it. */
describe('IonQ target not among the systems GET /backends lists', () => {
  const fake = new FakeIonq();
  let app: App;

  beforeAll(async () => {
    await fake.start();
    app = await buildTestApp({ IONQ_BASE_URL: fake.baseUrl, IONQ_API_KEY: 'test-key', IONQ_TIMEOUT_MS: '5000', EXECUTION_STATUS_CACHE_MS: '0', IONQ_TARGET: 'qpu.aria-1' });
  });
  afterAll(async () => {
    await app.close();
    await fake.close();
  });

  it('after a refresh the device is offline and says which systems to choose from', async () => {
    expect(await app.services.snapshotRefresher.refreshAll()).toEqual([{ provider: 'provider-two', ok: true, nextInMs: 300_000 }]);
    const d = ((await app.inject({ method: 'GET', url: '/v1/execute/provider-two/devices' })).json().data.devices as Device[]).find((x) => x.id === 'p2-ionq-qpu')!;
    expect(d).toMatchObject({ status: 'offline', status_detail: 'IonQ does not list qpu.aria-1; it lists qpu.forte-1, qpu.forte-enterprise-1, simulator (set IONQ_TARGET to one of them)' });
  });
});
