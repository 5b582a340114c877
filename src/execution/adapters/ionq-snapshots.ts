/**
 * IonQ's read side as a DeviceSnapshotSource (API v0.4):
 *   GET {base}/backends                                   → [{backend, status, qubits, average_queue_time, last_updated, characterization_id?, degraded?, supported_error_mitigations?}]
 *   GET {base}/backends/{backend}/characterizations/{id}  → {date, qubits, connectivity?, fidelity {1q, 2q, spam: {median}}, timing {t1, t2, …} (seconds)}
 *   GET {base}/backends/{backend}/characterizations?limit=1 when a backend names no characterization id
 * Mapping: T1/T2 seconds → µs; error = 1 − median fidelity (1q, 2q; SPAM → readout error);
 * `calibratedAt` = the characterization's `date`. IonQ reports an average queue *time*, not a
 * queue length, so `queueLength` is null and the wait goes into `statusDetail`. Trapped ions
 * are all-to-all: the coupling map is null unless a characterization lists a partial
 * connectivity. `nativeGates` are the QIS gates this integration submits (what the device's
 * translation must produce); IonQ compiles them to its own gpi/gpi2/ms/zz.
 */
import type { DeviceCalibration, DeviceSnapshot, DeviceSnapshotSource } from '../../devices/device-snapshot.js';
import { IONQ_QIS_GATES } from './ionq-circuit.js';
import { ionqStatus } from './ionq-driver.js';
import { describeIonqError, IonqHttp, isObject, type IonqConnection } from './ionq-http.js';

const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);
const median = (f: Record<string, unknown>, k: string): number | null => {
  const m = isObject(f[k]) ? num(f[k]['median']) : null;
  return m === null || m < 0 || m > 1 ? null : m;
};
const error = (fidelity: number | null): number | null => (fidelity === null ? null : Math.max(0, Math.round((1 - fidelity) * 1e9) / 1e9));
const iso = (v: unknown): string | null => {
  if (typeof v !== 'string' && typeof v !== 'number') return null;
  // v0.4 dates are ISO strings; a number is read as Unix seconds (v0.3 style) rather than refused.
  const t = typeof v === 'number' ? v * 1000 : Date.parse(v);
  return Number.isFinite(t) ? new Date(t).toISOString() : null;
};

/** A characterization as our calibration (null when it gives no date, so no figure could be dated). */
export function characterizationToCalibration(c: unknown): DeviceCalibration | null {
  if (!isObject(c)) return null;
  const calibratedAt = iso(c['date']);
  if (calibratedAt === null) return null;
  const fidelity = isObject(c['fidelity']) ? c['fidelity'] : {};
  const timing = isObject(c['timing']) ? c['timing'] : {};
  const us = (k: string) => {
    const s = num(timing[k]);
    return s === null || s < 0 ? null : s * 1e6;
  };
  return {
    t1Us: us('t1'),
    t2Us: us('t2'),
    error1q: error(median(fidelity, '1q')),
    error2q: error(median(fidelity, '2q')),
    readoutError: error(median(fidelity, 'spam')),
    calibratedAt,
  };
}

/** Connectivity → undirected edges, or null when it is absent or complete (all-to-all). */
export function connectivityToCoupling(conn: unknown, numQubits: number): readonly (readonly [number, number])[] | null {
  if (!Array.isArray(conn)) return null;
  const edges = new Set<string>();
  for (const e of conn) {
    if (!Array.isArray(e) || e.length !== 2) continue;
    const [a, b] = e as unknown[];
    if (!Number.isInteger(a) || !Number.isInteger(b) || a === b) continue;
    const [lo, hi] = [Math.min(a as number, b as number), Math.max(a as number, b as number)];
    if (lo < 0 || hi >= numQubits) continue;
    edges.add(`${lo}-${hi}`);
  }
  if (edges.size === 0 || edges.size === (numQubits * (numQubits - 1)) / 2) return null;
  return [...edges].map((k) => k.split('-').map(Number) as [number, number]).sort((x, y) => x[0] - y[0] || x[1] - y[1]);
}

export class IonqSnapshotSource implements DeviceSnapshotSource {
  readonly provider = 'provider-two' as const;
  private readonly http: IonqHttp;

  constructor(
    connection: IonqConnection,
    private readonly now: () => Date = () => new Date(),
  ) {
    this.http = new IonqHttp(connection);
  }

  /** Throws when the backend list cannot be read (the cache keeps its last snapshot and backs off); a missing characterization only nulls that backend's calibration. */
  async fetchSnapshots(): Promise<readonly DeviceSnapshot[]> {
    const r = await this.http.request('GET', '/backends');
    if (r.kind !== 'ok') throw new Error(r.kind === 'timeout' ? 'IonQ did not answer GET /backends in time' : `IonQ could not be reached (${r.message})`);
    if (r.status !== 200) throw new Error(`IonQ answered ${r.status} to GET /backends: ${describeIonqError(r.body)}`);
    if (!Array.isArray(r.body)) throw new Error('IonQ answered GET /backends with something other than a list');
    const fetchedAt = this.now().toISOString();
    const out: DeviceSnapshot[] = [];
    for (const b of r.body as unknown[]) {
      if (!isObject(b) || typeof b['backend'] !== 'string') continue;
      out.push(await this.snapshot(b, b['backend'], fetchedAt));
    }
    return out;
  }

  private async snapshot(b: Record<string, unknown>, backend: string, fetchedAt: string): Promise<DeviceSnapshot> {
    const st = typeof b['status'] === 'string' ? b['status'] : 'unknown';
    const waitMs = num(b['average_queue_time']);
    const characterization = backend === 'simulator' ? null : await this.characterization(backend, typeof b['characterization_id'] === 'string' ? b['characterization_id'] : null);
    const numQubits = Math.max(0, Math.floor(num(b['qubits']) ?? num(characterization?.['qubits']) ?? 0));
    const detail = [`IonQ reports ${backend} ${st}`, b['degraded'] === true ? 'degraded' : null, waitMs === null ? null : `average queue time ${Math.round(waitMs / 1000)} s`]
      .filter(Boolean)
      .join(', ');
    return {
      backend,
      status: ionqStatus(st),
      statusDetail: detail,
      queueLength: null,
      numQubits,
      nativeGates: IONQ_QIS_GATES,
      couplingMap: connectivityToCoupling(characterization?.['connectivity'], numQubits),
      ...(Array.isArray(b['supported_error_mitigations']) ? { supportedMitigations: (b['supported_error_mitigations'] as unknown[]).filter((x): x is string => typeof x === 'string') } : {}),
      calibration: characterizationToCalibration(characterization),
      fetchedAt,
    };
  }

  private async characterization(backend: string, id: string | null): Promise<Record<string, unknown> | null> {
    const b = encodeURIComponent(backend);
    const r = await this.http.request('GET', id === null ? `/backends/${b}/characterizations?limit=1` : `/backends/${b}/characterizations/${encodeURIComponent(id)}`);
    if (r.kind !== 'ok' || r.status !== 200 || !isObject(r.body)) return null;
    if (id !== null) return r.body;
    const list = r.body['characterizations'];
    return Array.isArray(list) && isObject(list[0]) ? list[0] : null;
  }
}

/** The factory the composition root wires (with the IonQ settings it already reads), or null when IonQ is not configured. */
export function ionqSnapshotSource(settings: { baseUrl: string | undefined; apiKey: string | undefined; timeoutMs: number }, now?: () => Date): DeviceSnapshotSource | null {
  if (settings.baseUrl === undefined || settings.apiKey === undefined) return null;
  return new IonqSnapshotSource({ baseUrl: settings.baseUrl, apiKey: settings.apiKey, timeoutMs: settings.timeoutMs }, now);
}
