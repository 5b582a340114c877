/**
 * IonQ's device snapshots (backends + characterizations, API v0.4) against the local fake:
 * status, queue, qubits, gates, coupling and calibration mapped onto DeviceSnapshot.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { characterizationToCalibration, connectivityToCoupling, ionqSnapshotSource } from '../../src/execution/adapters/ionq-snapshots.js';
import { FakeIonq } from './fakes/ionq-v04-fake.js';

describe('IonQ device snapshots (v0.4 backends + characterizations)', () => {
  const fake = new FakeIonq();
  const now = () => new Date('2026-11-26T12:00:00.000Z');
  beforeAll(async () => fake.start());
  afterAll(async () => fake.close());
  beforeEach(() => fake.reset());

  const source = (apiKey = 'test-key') => ionqSnapshotSource({ baseUrl: fake.baseUrl, apiKey, timeoutMs: 5000 }, now)!;

  it('not configured → no source; configured → provider-two', () => {
    expect(ionqSnapshotSource({ baseUrl: undefined, apiKey: 'k', timeoutMs: 1000 })).toBeNull();
    expect(ionqSnapshotSource({ baseUrl: 'https://api.ionq.co/v0.4', apiKey: undefined, timeoutMs: 1000 })).toBeNull();
    expect(source().provider).toBe('provider-two');
  });

  it('maps each backend with its current characterization', async () => {
    const snaps = await source().fetchSnapshots();
    expect(snaps.map((s) => s.backend)).toEqual(['qpu.forte-1', 'qpu.forte-enterprise-1', 'simulator']);
    const [forte, enterprise, sim] = snaps;
    expect(forte).toEqual({
      backend: 'qpu.forte-1',
      status: 'online',
      statusDetail: 'IonQ reports qpu.forte-1 available, average queue time 120 s',
      queueLength: null, // IonQ gives a wait time, not a queue length
      numQubits: 36,
      nativeGates: ['x', 'y', 'z', 'h', 's', 'sdg', 't', 'tdg', 'sx', 'sxdg', 'rx', 'ry', 'rz', 'cx', 'swap'],
      couplingMap: null, // all-to-all
      supportedMitigations: ['debiasing'], // IonQ's supported_error_mitigations
      calibration: { t1Us: 100_000_000, t2Us: 1_000_000, error1q: 0.0005, error2q: 0.013, readoutError: 0.0045, calibratedAt: '2026-11-20T06:00:00.000Z' },
      fetchedAt: '2026-11-26T12:00:00.000Z',
    });
    // No characterization id on the backend: the newest of the list is used; a partial connectivity is kept.
    expect(enterprise).toMatchObject({
      status: 'online',
      statusDetail: expect.stringMatching(/degraded/),
      numQubits: 36,
      couplingMap: [
        [0, 1],
        [0, 2],
        [1, 2],
        [2, 3],
      ],
    });
    expect(enterprise!.calibration).toMatchObject({ error2q: 0.0048, readoutError: 0.0038, calibratedAt: '2026-11-19T06:00:00.000Z' });
    expect(sim).toMatchObject({ status: 'online', numQubits: 29, calibration: null });
    // A backend that lists no mitigations has none recorded (absent, not an empty list).
    expect(enterprise).not.toHaveProperty('supportedMitigations');
    expect(fake.requests.filter((r) => r.path.includes('characterizations')).map((r) => r.path)).toEqual([
      '/v0.4/backends/qpu.forte-1/characterizations/char-forte-1',
      '/v0.4/backends/qpu.forte-enterprise-1/characterizations',
    ]);
  });

  it('backend states: unavailable/retired → offline, calibrating → maintenance', async () => {
    for (const [st, want] of [
      ['unavailable', 'offline'],
      ['retired', 'offline'],
      ['calibrating', 'maintenance'],
    ] as const) {
      fake.reset({ backendStatus: st });
      expect((await source().fetchSnapshots())[0]).toMatchObject({ backend: 'qpu.forte-1', status: want });
    }
  });

  it('a refused key or an unreadable list throws (the cache keeps its last snapshot); odd characterizations give null figures', async () => {
    await expect(source('wrong').fetchSnapshots()).rejects.toThrow(/401.*Invalid API key/);
    expect(characterizationToCalibration({ fidelity: {} })).toBeNull(); // no date: nothing can be dated
    expect(characterizationToCalibration({ date: '2026-11-01T00:00:00Z', fidelity: { '1q': { median: 1.5 } }, timing: { t1: -1 } })).toEqual({
      t1Us: null,
      t2Us: null,
      error1q: null,
      error2q: null,
      readoutError: null,
      calibratedAt: '2026-11-01T00:00:00.000Z',
    });
    expect(
      connectivityToCoupling(
        [
          [0, 1],
          [1, 2],
          [0, 2],
        ],
        3,
      ),
    ).toBeNull(); // complete = all-to-all
    expect(connectivityToCoupling([[1, 0], [0, 1], [0, 9], 'x'], 3)).toEqual([[0, 1]]);
  });
});
