/**
 * The device catalogue: what each provider offers, with native gate sets, qubit counts
 * and coupling maps. Pure data plus look-ups; the execution work extends the entries
 * (calibration, pricing, status, queue) without changing these fields.
 *
 * Coupling maps are undirected: an edge [a, b] allows two-qubit gates on (a, b) in
 * either orientation. `couplingMap: null` means all-to-all.
 */
export type ProviderId = 'provider-one' | 'provider-two';

export interface ProviderSpec {
  readonly id: ProviderId;
  readonly name: string;
  readonly description: string;
}

export interface DeviceSpec {
  readonly id: string;
  readonly provider: ProviderId;
  readonly name: string;
  /** `simulator`: exact state-vector simulation; `hardware`: a QPU (emulated or remote). */
  readonly kind: 'simulator' | 'hardware';
  readonly numQubits: number;
  /** Catalogue gate names executed without translation (measure/reset/barrier are listed separately). */
  readonly nativeGates: readonly string[];
  readonly couplingMap: readonly (readonly [number, number])[] | null;
  /** Physical qubits and pairs the provider reports faulty (remote devices, from the snapshot): never routed over. */
  readonly faultyQubits?: readonly number[];
  readonly faultyEdges?: readonly (readonly [number, number])[];
  readonly supportsMidCircuitMeasurement: boolean;
  /**
   * Runs dynamic circuits (a gate conditioned on measured bits, QASM 3 `if`). The simulators do; an
   * IBM backend does when its configuration lists `if_else` (read from the snapshot, false until one
   * arrives); IonQ and the emulated devices do not, so a dynamic circuit is refused at translation
   * (DEVICE_DYNAMIC_CIRCUITS_UNSUPPORTED) rather than run with its conditions dropped.
   */
  readonly supportsDynamicCircuits: boolean;
  readonly supportsReset: boolean;
  /**
   * Remote devices, from the provider's report: every instruction it runs (IBM: `basis_gates` and
   * `supported_instructions`, e.g. `measure`, `reset`, `delay`, `if_else`). The ISA check of what is
   * sent reads it (src/execution/adapters/ibm-isa-check.ts); absent, the native gates stand for it.
   */
  readonly instructions?: readonly string[];
  readonly topology: string;
}

export const PROVIDERS: readonly ProviderSpec[] = Object.freeze([
  Object.freeze({ id: 'provider-one', name: 'Provider One', description: 'Superconducting heavy-hex devices and a simulator' }),
  Object.freeze({ id: 'provider-two', name: 'Provider Two', description: 'Local simulator plus trapped-ion and grid hardware (quote, hold, held jobs)' }),
] as const);

/** Every gate of the catalogue: simulators run them all natively. */
const ALL_GATES = [
  'id',
  'x',
  'y',
  'z',
  'h',
  's',
  'sdg',
  't',
  'tdg',
  'sx',
  'sxdg',
  'rx',
  'ry',
  'rz',
  'p',
  'u0',
  'u1',
  'u2',
  'u3',
  'u',
  'cx',
  'cy',
  'cz',
  'ch',
  'swap',
  'csx',
  'crx',
  'cry',
  'crz',
  'cu1',
  'cp',
  'cu3',
  'cu',
  'rxx',
  'ryy',
  'rzz',
  'ccx',
  'ccz',
  'cswap',
  'rccx',
  'rc3x',
  'c3x',
  'c3sqrtx',
  'c4x',
] as const;

/** The 27-qubit heavy-hex coupling map (Falcon r4 layout). */
const HEAVY_HEX_27: readonly (readonly [number, number])[] = [
  [0, 1],
  [1, 2],
  [1, 4],
  [2, 3],
  [3, 5],
  [4, 7],
  [5, 8],
  [6, 7],
  [7, 10],
  [8, 9],
  [8, 11],
  [10, 12],
  [11, 14],
  [12, 13],
  [12, 15],
  [13, 14],
  [14, 16],
  [15, 18],
  [16, 19],
  [17, 18],
  [18, 21],
  [19, 20],
  [19, 22],
  [21, 23],
  [22, 25],
  [23, 24],
  [24, 25],
  [25, 26],
];

/** The 7-qubit "H" layout. */
const H_7: readonly (readonly [number, number])[] = [
  [0, 1],
  [1, 2],
  [1, 3],
  [3, 5],
  [4, 5],
  [5, 6],
];

function grid(rows: number, cols: number): [number, number][] {
  const edges: [number, number][] = [];
  for (let r = 0; r < rows; r++) {
    for (let c = 0; c < cols; c++) {
      const q = r * cols + c;
      if (c + 1 < cols) edges.push([q, q + 1]);
      if (r + 1 < rows) edges.push([q, q + cols]);
    }
  }
  return edges;
}

const device = (d: DeviceSpec): DeviceSpec =>
  Object.freeze({ ...d, nativeGates: Object.freeze([...d.nativeGates]), couplingMap: d.couplingMap === null ? null : Object.freeze(d.couplingMap.map((e) => Object.freeze([e[0], e[1]] as const))) });

export const DEVICES: readonly DeviceSpec[] = Object.freeze([
  device({
    id: 'p1-simulator',
    provider: 'provider-one',
    name: 'Provider One simulator',
    kind: 'simulator',
    numQubits: 28,
    nativeGates: ALL_GATES,
    couplingMap: null,
    supportsMidCircuitMeasurement: true,
    supportsDynamicCircuits: true,
    supportsReset: true,
    topology: 'all-to-all',
  }),
  device({
    id: 'p1-falcon-7',
    provider: 'provider-one',
    name: 'Falcon 7',
    kind: 'hardware',
    numQubits: 7,
    nativeGates: ['id', 'rz', 'sx', 'x', 'cx'],
    couplingMap: H_7,
    supportsMidCircuitMeasurement: true,
    supportsDynamicCircuits: false,
    supportsReset: true,
    topology: 'H (7 qubits)',
  }),
  device({
    id: 'p1-falcon-27',
    provider: 'provider-one',
    name: 'Falcon 27',
    kind: 'hardware',
    numQubits: 27,
    nativeGates: ['id', 'rz', 'sx', 'x', 'cx'],
    couplingMap: HEAVY_HEX_27,
    supportsMidCircuitMeasurement: true,
    supportsDynamicCircuits: false,
    supportsReset: true,
    topology: 'heavy-hex (27 qubits)',
  }),
  device({
    id: 'p2-local-simulator',
    provider: 'provider-two',
    name: 'Provider Two local simulator',
    kind: 'simulator',
    numQubits: 25,
    nativeGates: ALL_GATES,
    couplingMap: null,
    supportsMidCircuitMeasurement: true,
    supportsDynamicCircuits: true,
    supportsReset: true,
    topology: 'all-to-all',
  }),
  device({
    id: 'p2-ion-11',
    provider: 'provider-two',
    name: 'Ion 11',
    kind: 'hardware',
    numQubits: 11,
    nativeGates: ['rx', 'ry', 'rz', 'rxx'],
    couplingMap: null,
    supportsMidCircuitMeasurement: false,
    supportsDynamicCircuits: false,
    supportsReset: false,
    topology: 'all-to-all (trapped ions)',
  }),
  device({
    id: 'p2-grid-9',
    provider: 'provider-two',
    name: 'Grid 9',
    kind: 'hardware',
    numQubits: 9,
    nativeGates: ['rx', 'rz', 'cz'],
    couplingMap: grid(3, 3),
    supportsMidCircuitMeasurement: false,
    supportsDynamicCircuits: false,
    supportsReset: true,
    topology: '3×3 grid',
  }),
]);

export function getDevice(id: string): DeviceSpec | undefined {
  return DEVICES.find((d) => d.id === id);
}

// ---------------------------------------------------------------------------------------
// Execution extensions (issue 9): calibration, pricing, default status and how each
// device is driven. Kept beside `DEVICES` (not inside DeviceSpec) so the fields above stay
// as they are; `deviceProfile(id)` joins them.
// ---------------------------------------------------------------------------------------

/** A calibration record, in the shape of the simulator's noise model input (src/simulation/noise.ts). */
export interface DeviceCalibration {
  /** Energy relaxation time T1 per qubit, µs. */
  readonly t1_us: readonly number[];
  /** Dephasing time T2 per qubit, µs. */
  readonly t2_us: readonly number[];
  readonly gate_time_1q_ns: number;
  readonly gate_time_2q_ns: number;
  /** Average single-qubit gate error per qubit (randomized benchmarking). */
  readonly error_1q: readonly number[];
  /** Average two-qubit gate error per coupled pair, keyed "a-b" (a < b). All-to-all devices: one number. */
  readonly error_2q: number | Readonly<Record<string, number>>;
  /** Readout assignment error per qubit. */
  readonly readout_error: readonly number[];
  /** When the device was last calibrated (ISO 8601). */
  readonly calibrated_at: string;
}

/** Hardware prices as Amazon Braket prices QPU use: per task plus per shot, integer micro-USD. */
export interface DevicePricing {
  readonly perTaskMicros: bigint;
  readonly perShotMicros: bigint;
}

export type DeviceStatus = 'online' | 'offline' | 'maintenance';

/** How a device runs: the exact simulator, a noisy emulation of the device, or a remote provider's API. */
export type DeviceDriverKind = 'simulator' | 'emulated' | 'remote' | 'unavailable';

export interface DeviceProfile {
  readonly spec: DeviceSpec;
  readonly driver: DeviceDriverKind;
  readonly calibration: DeviceCalibration | null;
  /**
   * Remote devices: the provider's latest per-qubit readout figures (index = physical qubit:
   * [P(read 1 | 0), P(read 0 | 1)], null where it gives none), set from the snapshot by the device
   * directory; what readout mitigation inverts on that device.
   */
  readonly providerReadout?: { readonly perQubit: readonly (readonly [number, number] | null)[]; readonly calibratedAt: string };
  readonly pricing: DevicePricing | null;
  /** Status unless the deployment overrides it (EXECUTION_DEVICE_STATUS) or the remote API reports another. */
  readonly defaultStatus: DeviceStatus;
}

/** Deterministic per-qubit spread around a mean (real calibration data is never uniform). */
function spread(n: number, mean: number, rel: number, salt: number): number[] {
  return Array.from({ length: n }, (_, q) => {
    const x = Math.sin((q + 1) * 12.9898 + salt * 78.233) * 43758.5453;
    const u = x - Math.floor(x); // in [0, 1)
    return Number((mean * (1 + rel * (2 * u - 1))).toPrecision(4));
  });
}

function pairErrors(edges: readonly (readonly [number, number])[], mean: number, salt: number): Record<string, number> {
  const e = spread(edges.length, mean, 0.35, salt);
  return Object.fromEntries(edges.map(([a, b], i) => [`${Math.min(a, b)}-${Math.max(a, b)}`, e[i] as number]));
}

const CALIBRATED_AT = '2026-01-05T06:00:00.000Z';

/**
 * Remote devices (a real provider's REST API, enabled by configuration). Not part of
 * `DEVICES`, whose list circuits analysis reports; execution lists them with the others.
 * `p2-ionq-qpu` speaks IonQ's API v0.4 (ionq.circuit.v1 jobs; QIS gate set, all-to-all) on the
 * system IONQ_TARGET names (default qpu.forte-1, a live system of IonQ's v0.4 document; the
 * retired Aria is not catalogued). Its qubit count, connectivity and calibration are IonQ's own,
 * from GET /backends and the characterization (the snapshot); 36 is Forte-1's until one arrives.
 */
export const REMOTE_DEVICES: readonly DeviceSpec[] = Object.freeze([
  device({
    id: 'p2-ionq-qpu',
    provider: 'provider-two',
    name: 'IonQ QPU (remote)',
    kind: 'hardware',
    numQubits: 36,
    nativeGates: ['x', 'y', 'z', 'h', 's', 'sdg', 't', 'tdg', 'sx', 'sxdg', 'rx', 'ry', 'rz', 'cx', 'swap'],
    couplingMap: null,
    supportsMidCircuitMeasurement: false,
    supportsDynamicCircuits: false,
    supportsReset: false,
    topology: 'all-to-all (trapped ions, remote)',
  }),
]);

const PROFILE_EXTRAS: Readonly<Record<string, Omit<DeviceProfile, 'spec'>>> = {
  'p1-simulator': { driver: 'simulator', calibration: null, pricing: null, defaultStatus: 'online' },
  'p2-local-simulator': { driver: 'simulator', calibration: null, pricing: null, defaultStatus: 'online' },
  // Provider One's QPUs run on IBM Quantum Runtime (src/execution/adapters/ibm-runtime-*.ts) once the
  // deployment maps each to an IBM backend (IBM_QUANTUM_BACKENDS); qubits, gates, coupling and
  // calibration then come from IBM's own report. Priced from IBM's pay-as-you-go rate ($1.60 per
  // QPU second): a task ≈ 2 s of QPU time, a shot ≈ 250 µs (docs/decisions/execution-ibm-runtime.md).
  'p1-falcon-7': { driver: 'remote', calibration: null, pricing: { perTaskMicros: 3_200_000n, perShotMicros: 400n }, defaultStatus: 'online' },
  'p1-falcon-27': { driver: 'remote', calibration: null, pricing: { perTaskMicros: 3_200_000n, perShotMicros: 400n }, defaultStatus: 'online' },
  // Trapped ions (an IonQ-like trapped-ion QPU): seconds of T1, slow gates, ~2 % two-qubit error. Braket-like price.
  'p2-ion-11': {
    driver: 'emulated',
    calibration: {
      t1_us: spread(11, 1.0e7, 0.2, 11),
      t2_us: spread(11, 1.0e6, 0.3, 12),
      gate_time_1q_ns: 10_000,
      gate_time_2q_ns: 200_000,
      error_1q: spread(11, 6e-4, 0.3, 13),
      error_2q: 2.0e-2,
      readout_error: spread(11, 4e-3, 0.4, 14),
      calibrated_at: CALIBRATED_AT,
    },
    pricing: { perTaskMicros: 300_000n, perShotMicros: 30_000n },
    defaultStatus: 'online',
  },
  // A superconducting 3×3 grid (CZ). Coherence, gate times and gate errors are those of a current
  // device: the means of IBM's recorded ibm_fez properties (tests/fixtures/providers/ibm, 2025-02-26:
  // T1 145 µs, T2 90 µs, sx 24 ns at 2.9e-4, cz 84 ns at 5.6e-3 over its working pairs). Its
  // readout error (3.5 % mean) is deliberately at the poor end of real devices (ibm_fez: mean 1.3 %,
  // 10 % of qubits above 2.8 %, worst 10.6 %): the device readout mitigation is shown on. The earlier
  // figures (T1 28 µs, cz 3.5 % at 180 ns) were ten times worse than a current device's gates and
  // buried the readout error under gate error (docs/decisions/execution-mitigation-readout.md).
  'p2-grid-9': {
    driver: 'emulated',
    calibration: {
      t1_us: spread(9, 145, 0.35, 21),
      t2_us: spread(9, 90, 0.4, 22),
      gate_time_1q_ns: 24,
      gate_time_2q_ns: 84,
      error_1q: spread(9, 2.9e-4, 0.4, 23),
      error_2q: pairErrors(grid(3, 3), 5.6e-3, 24),
      readout_error: spread(9, 3.5e-2, 0.4, 25),
      calibrated_at: CALIBRATED_AT,
    },
    pricing: { perTaskMicros: 300_000n, perShotMicros: 900n },
    defaultStatus: 'online',
  },
  // IonQ's own characterization (qubits, fidelities, T1/T2, its date) arrives with the provider's
  // snapshot (src/execution/adapters/ionq-snapshots.ts); the catalogue makes none up.
  'p2-ionq-qpu': { driver: 'remote', calibration: null, pricing: { perTaskMicros: 300_000n, perShotMicros: 30_000n }, defaultStatus: 'online' },
};

/** Every device execution knows: the catalogue's `DEVICES` plus the remote ones. */
export const EXECUTION_DEVICES: readonly DeviceSpec[] = Object.freeze([...DEVICES, ...REMOTE_DEVICES]);

export function deviceProfile(id: string): DeviceProfile | undefined {
  const spec = EXECUTION_DEVICES.find((d) => d.id === id);
  const extra = PROFILE_EXTRAS[id];
  return spec === undefined || extra === undefined ? undefined : { spec, ...extra };
}

export function deviceProfiles(provider?: ProviderId): DeviceProfile[] {
  return EXECUTION_DEVICES.filter((d) => provider === undefined || d.provider === provider).map((d) => deviceProfile(d.id) as DeviceProfile);
}

/** The one price list of hardware (billing's quotes read it): every priced device. */
export function hardwarePriceList(): Array<{ provider: ProviderId; device: string; perTaskMicros: bigint; perShotMicros: bigint }> {
  return deviceProfiles().flatMap((p) => (p.pricing === null ? [] : [{ provider: p.spec.provider, device: p.spec.id, ...p.pricing }]));
}
