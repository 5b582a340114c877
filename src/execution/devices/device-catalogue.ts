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
  readonly supportsMidCircuitMeasurement: boolean;
  readonly supportsReset: boolean;
  readonly topology: string;
}

export const PROVIDERS: readonly ProviderSpec[] = Object.freeze([
  Object.freeze({ id: 'provider-one', name: 'Provider One', description: 'Superconducting heavy-hex devices and a simulator' }),
  Object.freeze({ id: 'provider-two', name: 'Provider Two', description: 'Local simulator plus trapped-ion and grid hardware (quote, hold, held jobs)' }),
] as const);

/** Every gate of the catalogue: simulators run them all natively. */
const ALL_GATES = [
  'id', 'x', 'y', 'z', 'h', 's', 'sdg', 't', 'tdg', 'sx', 'sxdg', 'rx', 'ry', 'rz', 'p', 'u0', 'u1', 'u2', 'u3', 'u',
  'cx', 'cy', 'cz', 'ch', 'swap', 'csx', 'crx', 'cry', 'crz', 'cu1', 'cp', 'cu3', 'cu', 'rxx', 'ryy', 'rzz',
  'ccx', 'ccz', 'cswap', 'rccx', 'rc3x', 'c3x', 'c3sqrtx', 'c4x',
] as const;

/** The 27-qubit heavy-hex coupling map (Falcon r4 layout). */
const HEAVY_HEX_27: readonly (readonly [number, number])[] = [
  [0, 1], [1, 2], [1, 4], [2, 3], [3, 5], [4, 7], [5, 8], [6, 7], [7, 10], [8, 9], [8, 11], [10, 12], [11, 14],
  [12, 13], [12, 15], [13, 14], [14, 16], [15, 18], [16, 19], [17, 18], [18, 21], [19, 20], [19, 22], [21, 23],
  [22, 25], [23, 24], [24, 25], [25, 26],
];

/** The 7-qubit "H" layout. */
const H_7: readonly (readonly [number, number])[] = [[0, 1], [1, 2], [1, 3], [3, 5], [4, 5], [5, 6]];

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
    id: 'p1-simulator', provider: 'provider-one', name: 'Provider One simulator', kind: 'simulator', numQubits: 28,
    nativeGates: ALL_GATES, couplingMap: null, supportsMidCircuitMeasurement: true, supportsReset: true, topology: 'all-to-all',
  }),
  device({
    id: 'p1-falcon-7', provider: 'provider-one', name: 'Falcon 7', kind: 'hardware', numQubits: 7,
    nativeGates: ['id', 'rz', 'sx', 'x', 'cx'], couplingMap: H_7, supportsMidCircuitMeasurement: true, supportsReset: true, topology: 'H (7 qubits)',
  }),
  device({
    id: 'p1-falcon-27', provider: 'provider-one', name: 'Falcon 27', kind: 'hardware', numQubits: 27,
    nativeGates: ['id', 'rz', 'sx', 'x', 'cx'], couplingMap: HEAVY_HEX_27, supportsMidCircuitMeasurement: true, supportsReset: true, topology: 'heavy-hex (27 qubits)',
  }),
  device({
    id: 'p2-local-simulator', provider: 'provider-two', name: 'Provider Two local simulator', kind: 'simulator', numQubits: 25,
    nativeGates: ALL_GATES, couplingMap: null, supportsMidCircuitMeasurement: true, supportsReset: true, topology: 'all-to-all',
  }),
  device({
    id: 'p2-ion-11', provider: 'provider-two', name: 'Ion 11', kind: 'hardware', numQubits: 11,
    nativeGates: ['rx', 'ry', 'rz', 'rxx'], couplingMap: null, supportsMidCircuitMeasurement: false, supportsReset: false, topology: 'all-to-all (trapped ions)',
  }),
  device({
    id: 'p2-grid-9', provider: 'provider-two', name: 'Grid 9', kind: 'hardware', numQubits: 9,
    nativeGates: ['rx', 'rz', 'cz'], couplingMap: grid(3, 3), supportsMidCircuitMeasurement: false, supportsReset: true, topology: '3×3 grid',
  }),
]);

export function listDevices(provider?: ProviderId): readonly DeviceSpec[] {
  return provider === undefined ? DEVICES : DEVICES.filter((d) => d.provider === provider);
}

export function getDevice(id: string): DeviceSpec | undefined {
  return DEVICES.find((d) => d.id === id);
}
