/**
 * Provider One's device data (the `DeviceSnapshotSource` of src/devices/device-snapshot.ts) from
 * IBM Quantum Runtime, for each backend this deployment maps a device to:
 *   GET /v1/backends                         {devices: [...]}  which backends the instance sees
 *   GET /v1/backends/{name}/status           {state, status, message, length_queue}
 *   GET /v1/backends/{name}/configuration    {n_qubits, basis_gates, supported_instructions, coupling_map (directed pairs)}
 *   GET /v1/backends/{name}/properties       {last_update_date, qubits: [[{name: T1|T2|readout_error|prob_meas0_prep1|prob_meas1_prep0, unit, value}]], gates: [{gate, qubits, parameters: [{name: gate_error, value}]}]}
 * Figures are averaged over qubits (and over coupled pairs for two-qubit errors); the per-qubit
 * readout figures are also kept whole, for readout mitigation (`readoutPerQubit`). Faulty parts
 * are the ones qiskit-ibm-runtime's `check_faulty` refuses (`operational` 0 on a qubit, or on a
 * gate) plus a basis two-qubit gate whose `gate_error` is 1 (IBM's mark of a broken pair: the
 * recorded ibm_fez has seven such cz pairs); they leave the coupling map, so routing never uses
 * them, and are listed in the snapshot so a circuit that needs them is refused by name. Its
 * instructions (`basis_gates` with `supported_instructions`) are kept for the ISA check, and
 * `if_else` among them means it runs dynamic circuits (docs/decisions/execution-ibm-dynamic-circuits.md).
 * A backend the instance does not list is reported offline; a failed call fails the whole refresh (the
 * refresher backs off and keeps the last good snapshots).
 */
import type { DeviceCalibration, DeviceSnapshot, DeviceSnapshotSource } from '../../devices/device-snapshot.js';
import type { IbmHttp, IbmRuntimeClient } from './ibm-runtime-client.js';
import { describeIbmError } from './ibm-runtime-client.js';
import { ibmStatus } from './ibm-runtime-driver.js';
import { ibmInstructions, ibmSupportsDynamicCircuits } from './ibm-isa-target.js';

/** Instructions of IBM's basis that are not gates (qrail lists measure/reset separately). */
const NOT_GATES = new Set(['measure', 'reset', 'delay', 'init', 'if_else', 'for_loop', 'while_loop', 'switch_case', 'barrier']);

type Param = { name?: unknown; unit?: unknown; value?: unknown };

const mean = (xs: readonly number[]): number | null => (xs.length === 0 ? null : Number((xs.reduce((a, b) => a + b, 0) / xs.length).toPrecision(6)));

/** A time in microseconds from IBM's (value, unit). */
function micros(p: Param): number | null {
  if (typeof p.value !== 'number' || !Number.isFinite(p.value)) return null;
  const scale: Record<string, number> = { s: 1e6, ms: 1e3, us: 1, µs: 1, ns: 1e-3 };
  const f = scale[typeof p.unit === 'string' ? p.unit : 'us'];
  return f === undefined ? null : p.value * f;
}

const probability = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) && v >= 0 && v <= 1 ? v : null);

/**
 * One qubit's readout figures [P(read 1 | 0), P(read 0 | 1)]: IBM's `prob_meas1_prep0` and
 * `prob_meas0_prep1` (the asymmetry matters: relaxation during readout makes 1 → 0 the likelier
 * flip), or `readout_error` for both when a backend reports only that; null when it reports none.
 */
export function ibmQubitReadout(items: unknown): readonly [number, number] | null {
  const list = Array.isArray(items) ? (items as Param[]) : [];
  const value = (name: string) => probability(list.find((x) => x?.name === name)?.value);
  const p01 = value('prob_meas1_prep0');
  const p10 = value('prob_meas0_prep1');
  if (p01 !== null && p10 !== null) return [p01, p10];
  const e = value('readout_error');
  return e === null ? null : [e, e];
}

export function ibmCalibration(properties: unknown): DeviceCalibration | null {
  const p = properties as { last_update_date?: unknown; qubits?: unknown; gates?: unknown } | null;
  if (p === null || typeof p !== 'object' || typeof p.last_update_date !== 'string' || Number.isNaN(Date.parse(p.last_update_date))) return null;
  const t1: number[] = [];
  const t2: number[] = [];
  const ro: number[] = [];
  for (const q of Array.isArray(p.qubits) ? (p.qubits as unknown[]) : []) {
    for (const item of Array.isArray(q) ? (q as Param[]) : []) {
      if (item?.name === 'T1') t1.push(...[micros(item)].filter((x): x is number => x !== null));
      else if (item?.name === 'T2') t2.push(...[micros(item)].filter((x): x is number => x !== null));
      else if (item?.name === 'readout_error' && typeof item.value === 'number') ro.push(item.value);
    }
  }
  const e1: number[] = [];
  const e2: number[] = [];
  for (const g of Array.isArray(p.gates) ? (p.gates as Array<{ gate?: unknown; qubits?: unknown; parameters?: unknown }>) : []) {
    const err = (Array.isArray(g?.parameters) ? (g.parameters as Param[]) : []).find((x) => x?.name === 'gate_error')?.value;
    // An error of 1 marks a broken gate or pair in IBM's data, not a figure to average.
    if (typeof err !== 'number' || !Array.isArray(g.qubits) || err >= 1) continue;
    if (g.qubits.length === 1 && g.gate !== 'id') e1.push(err);
    else if (g.qubits.length === 2) e2.push(err);
  }
  const readoutPerQubit = (Array.isArray(p.qubits) ? (p.qubits as unknown[]) : []).map(ibmQubitReadout);
  return {
    t1Us: mean(t1),
    t2Us: mean(t2),
    error1q: mean(e1),
    error2q: mean(e2),
    readoutError: mean(ro),
    ...(readoutPerQubit.some((r) => r !== null) ? { readoutPerQubit } : {}),
    calibratedAt: new Date(p.last_update_date).toISOString(),
  };
}

const isOff = (v: unknown) => v === 0 || v === false;

/** The qubits and pairs IBM's properties mark unusable (see the header), pairs as sorted [a, b]. */
export function ibmFaulty(properties: unknown, basisGates: readonly string[]): { qubits: number[]; edges: Array<[number, number]> } {
  const p = properties as { qubits?: unknown; gates?: unknown } | null;
  const qubits = new Set<number>();
  const edges = new Map<string, [number, number]>();
  if (p === null || typeof p !== 'object') return { qubits: [], edges: [] };
  (Array.isArray(p.qubits) ? (p.qubits as unknown[]) : []).forEach((q, i) => {
    if (Array.isArray(q) && (q as Param[]).some((x) => x?.name === 'operational' && isOff(x.value))) qubits.add(i);
  });
  const basis = new Set(basisGates);
  for (const g of Array.isArray(p.gates) ? (p.gates as Array<{ gate?: unknown; qubits?: unknown; parameters?: unknown }>) : []) {
    const params = Array.isArray(g?.parameters) ? (g.parameters as Param[]) : [];
    const qs = Array.isArray(g?.qubits) ? (g.qubits as unknown[]).filter((q): q is number => Number.isInteger(q)) : [];
    const off = params.some((x) => x?.name === 'operational' && isOff(x.value));
    // gate_error 1 counts only for a gate of the basis we translate to (a fractional rzz is not sent).
    const broken = typeof g.gate === 'string' && basis.has(g.gate) && params.some((x) => x?.name === 'gate_error' && typeof x.value === 'number' && x.value >= 1);
    if (!off && !broken) continue;
    if (qs.length === 1 && off) qubits.add(qs[0]!);
    else if (qs.length === 2 && qs[0] !== qs[1]) {
      const [a, b] = [Math.min(qs[0]!, qs[1]!), Math.max(qs[0]!, qs[1]!)];
      edges.set(`${a}-${b}`, [a, b]);
    }
  }
  const sorted = [...edges.values()].sort((x, y) => x[0] - y[0] || x[1] - y[1]);
  return { qubits: [...qubits].sort((a, b) => a - b), edges: sorted };
}

export class IbmSnapshotError extends Error {}

export class IbmRuntimeSnapshots implements DeviceSnapshotSource {
  readonly provider = 'provider-one' as const;

  constructor(
    private readonly client: IbmRuntimeClient,
    /** The backends to report (the device map's values). */
    private readonly backends: readonly string[],
    private readonly now: () => Date = () => new Date(),
  ) {}

  private async get(path: string): Promise<unknown> {
    const r: IbmHttp = await this.client.request('GET', path);
    if (r.kind !== 'ok') throw new IbmSnapshotError(`GET ${path}: ${r.kind === 'timeout' ? 'no answer in time' : r.message}`);
    if (r.status !== 200) throw new IbmSnapshotError(`GET ${path}: ${r.status} ${describeIbmError(r.body)}`);
    if (r.body === null || typeof r.body !== 'object') throw new IbmSnapshotError(`GET ${path}: the answer is not a JSON object`);
    return r.body;
  }

  async fetchSnapshots(): Promise<readonly DeviceSnapshot[]> {
    const listed = (await this.get('/v1/backends')) as { devices?: unknown };
    if (!Array.isArray(listed.devices)) throw new IbmSnapshotError('GET /v1/backends: no devices list');
    // Entries are names, or objects with a name, depending on the API version.
    const names = new Set(listed.devices.map((d: unknown) => (typeof d === 'string' ? d : ((d as { name?: unknown } | null)?.name ?? null))).filter((x): x is string => typeof x === 'string'));
    const fetchedAt = this.now().toISOString();
    const out: DeviceSnapshot[] = [];
    for (const backend of [...new Set(this.backends)]) {
      if (!names.has(backend)) {
        out.push({
          backend,
          status: 'offline',
          statusDetail: `IBM Quantum does not list ${backend} for this instance`,
          queueLength: null,
          numQubits: 0,
          nativeGates: [],
          couplingMap: [],
          calibration: null,
          fetchedAt,
        });
        continue;
      }
      const name = encodeURIComponent(backend);
      const [status, config, props] = await Promise.all([this.get(`/v1/backends/${name}/status`), this.get(`/v1/backends/${name}/configuration`), this.get(`/v1/backends/${name}/properties`)]);
      const st = ibmStatus(backend, status);
      if (st === null) throw new IbmSnapshotError(`GET /v1/backends/${backend}/status: unreadable`);
      const c = config as { n_qubits?: unknown; basis_gates?: unknown; coupling_map?: unknown };
      if (typeof c.n_qubits !== 'number' || !Number.isInteger(c.n_qubits) || c.n_qubits < 1 || !Array.isArray(c.basis_gates)) {
        throw new IbmSnapshotError(`GET /v1/backends/${backend}/configuration: no n_qubits or basis_gates`);
      }
      const basisGates = (c.basis_gates as unknown[]).filter((g): g is string => typeof g === 'string');
      const faulty = ibmFaulty(props, basisGates);
      const faultyEdge = new Set(faulty.edges.map(([a, b]) => `${a}-${b}`));
      const faultyQubit = new Set(faulty.qubits);
      const edges = new Map<string, [number, number]>();
      for (const e of Array.isArray(c.coupling_map) ? (c.coupling_map as unknown[]) : []) {
        if (!Array.isArray(e) || e.length !== 2) continue;
        const [x, y] = e as unknown[];
        const n = c.n_qubits;
        const ok = (q: unknown): q is number => typeof q === 'number' && Number.isInteger(q) && q >= 0 && q < n;
        if (!ok(x) || !ok(y)) continue;
        const [a, b] = [Math.min(x, y), Math.max(x, y)];
        if (a === b || faultyQubit.has(a) || faultyQubit.has(b) || faultyEdge.has(`${a}-${b}`)) continue;
        edges.set(`${a}-${b}`, [a, b]);
      }
      out.push({
        backend,
        status: st.status,
        statusDetail: st.detail,
        queueLength: st.queueLength,
        numQubits: c.n_qubits,
        nativeGates: basisGates.filter((g) => !NOT_GATES.has(g)),
        couplingMap: c.coupling_map === null ? null : [...edges.values()].sort((x, y) => x[0] - y[0] || x[1] - y[1]),
        faultyQubits: faulty.qubits,
        faultyEdges: faulty.edges,
        instructions: ibmInstructions(c),
        supportsDynamicCircuits: ibmSupportsDynamicCircuits(c),
        calibration: ibmCalibration(props),
        fetchedAt,
      });
    }
    return out;
  }
}
