import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/config/env-parser.js';
import { DeviceDirectory } from '../../src/execution/device-directory.js';
import type { DeviceDriver } from '../../src/execution/drivers/driver.js';
import { executionSettings } from '../../src/execution/settings.js';
import type { DeviceSnapshot } from '../../src/devices/device-snapshot.js';
import { backoffMs } from '../../src/devices/snapshot-refresher.js';

const local: DeviceDriver = { kind: 'simulator', submit: () => Promise.reject(new Error('not run here')) };
const remote: DeviceDriver = { kind: 'remote', submit: () => Promise.reject(new Error('not run here')) };
const store = { deviceStatusOverrides: async () => new Map(), queueDepths: async () => new Map() };

function directory(env: Record<string, string>, snaps: DeviceSnapshot[] = [], now = Date.parse('2026-11-26T07:00:00Z')) {
  const settings = executionSettings(env);
  const configured = settings.ibm.apiKey !== undefined && settings.ibm.instance !== undefined;
  return new DeviceDirectory(store, settings, { simulator: local, emulated: local, remote: configured ? { 'provider-one': remote } : {} }, () => now, {
    snapshots: async () => new Map(snaps.map((s) => [`provider-one/${s.backend}`, s])),
  });
}

const reasonsOf = async (d: DeviceDirectory, id: string) => (await d.get(id))!.reasons.map((r) => r.code);

const snap = (over: Partial<DeviceSnapshot> = {}): DeviceSnapshot => ({
  backend: 'ibm_torino',
  status: 'online',
  statusDetail: 'IBM Quantum reports ibm_torino active',
  queueLength: 3,
  numQubits: 133,
  nativeGates: ['cz', 'id', 'rx', 'rz', 'rzz', 'sx', 'x'],
  couplingMap: [[0, 1]],
  calibration: null,
  fetchedAt: '2026-11-26T06:58:00.000Z',
  ...over,
});

describe('Provider One (IBM Quantum) readiness and configuration', () => {
  it('reasons: nothing set, only one credential, no backend mapped, no report yet', async () => {
    expect(await reasonsOf(directory({}), 'p1-falcon-27')).toEqual(['provider_not_configured', 'provider_not_configured']);
    expect(await reasonsOf(directory({ IBM_QUANTUM_API_KEY: 'k', IBM_QUANTUM_BACKENDS: 'p1-falcon-27=ibm_torino' }), 'p1-falcon-27')).toEqual(['credentials_missing']);
    expect(await reasonsOf(directory({ IBM_QUANTUM_INSTANCE: 'crn:x', IBM_QUANTUM_BACKENDS: 'p1-falcon-27=ibm_torino' }), 'p1-falcon-27')).toEqual(['credentials_missing']);
    const configured = { IBM_QUANTUM_API_KEY: 'k', IBM_QUANTUM_INSTANCE: 'crn:x', IBM_QUANTUM_BACKENDS: 'p1-falcon-27=ibm_torino' };
    expect(await reasonsOf(directory(configured), 'p1-falcon-7')).toEqual(['provider_not_configured']);
    const none = (await directory(configured).get('p1-falcon-27'))!;
    expect(none).toMatchObject({ status: 'offline', available: false, providerUnreachable: true, statusDetail: "no report from Provider One's API yet", snapshot: null });
  });

  it("a fresh report makes it ready with IBM's qubits, gates and coupling; a stale one is an outage; an ECR-only basis says why", async () => {
    const configured = { IBM_QUANTUM_API_KEY: 'k', IBM_QUANTUM_INSTANCE: 'crn:x', IBM_QUANTUM_BACKENDS: 'p1-falcon-27=ibm_torino', EXECUTION_SNAPSHOT_REFRESH_MS: '60000' };
    const ready = (await directory(configured, [snap()]).get('p1-falcon-27'))!;
    expect(ready).toMatchObject({ available: true, status: 'online', providerUnreachable: false });
    expect(ready.profile.spec).toMatchObject({ numQubits: 133, nativeGates: ['cz', 'id', 'rx', 'rz', 'rzz', 'sx', 'x'], couplingMap: [[0, 1]] });
    const stale = (await directory(configured, [snap({ fetchedAt: '2026-11-26T06:50:00.000Z' })]).get('p1-falcon-27'))!;
    expect(stale).toMatchObject({ available: false, status: 'offline', providerUnreachable: true });
    expect(stale.statusDetail).toMatch(/has not answered since 2026-11-26T06:50:00.000Z/);
    const eagle = (await directory(configured, [snap({ nativeGates: ['ecr', 'id', 'rz', 'sx', 'x'] })]).get('p1-falcon-27'))!;
    expect(eagle.available).toBe(false);
    expect(eagle.reasons[0]!.message).toMatch(/ecr.*no two-qubit gate qrail translates to/);
  });

  it('the backend map is checked at start; backoff doubles from min(interval, 30 s) up to the cap', () => {
    expect(() => executionSettings({ IBM_QUANTUM_BACKENDS: 'p2-grid-9=ibm_torino' })).toThrow(ConfigError);
    expect(() => executionSettings({ IBM_QUANTUM_BACKENDS: 'p1-falcon-7' })).toThrow(/device=ibm_backend_name/);
    expect(() => executionSettings({ IBM_QUANTUM_BASE_URL: 'ftp://x' })).toThrow(/http\(s\)/);
    expect(executionSettings({}).ibm).toMatchObject({ baseUrl: 'https://quantum.cloud.ibm.com/api', iamUrl: 'https://iam.cloud.ibm.com', backends: {} });
    const o = { intervalMs: 300_000, maxBackoffMs: 200_000 };
    expect([0, 1, 2, 3, 4, 10].map((f) => backoffMs(f, o))).toEqual([300_000, 30_000, 60_000, 120_000, 200_000, 200_000]);
  });
});
