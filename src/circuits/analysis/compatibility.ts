/**
 * Compatibility of a circuit with devices: `compatible` (runs as is), `needs_translation`
 * (gate decomposition into the native set, routing with SWAPs, or relabelling unused
 * qubits), or `incompatible` (cannot run at all), with one reason per finding.
 * Devices are passed in (structurally typed) so circuits does not depend on execution.
 */
import { opQubits, type Circuit } from '../ir.js';

export interface CompatDevice {
  readonly id: string;
  readonly provider: string;
  readonly numQubits: number;
  readonly nativeGates: readonly string[];
  readonly couplingMap: readonly (readonly [number, number])[] | null;
  readonly supportsMidCircuitMeasurement: boolean;
  readonly supportsReset: boolean;
  /** Runs gates conditioned on measured bits (QASM 3 `if`). */
  readonly supportsDynamicCircuits: boolean;
}

export type CompatStatus = 'compatible' | 'needs_translation' | 'incompatible';

export interface DeviceCompatibility {
  readonly device: string;
  readonly provider: string;
  readonly status: CompatStatus;
  readonly reasons: string[];
  readonly non_native_gates: string[];
  readonly uncoupled_pairs: [number, number][];
}

export interface ProviderCompatibility {
  readonly provider: string;
  /** The best status over the provider's devices. */
  readonly status: CompatStatus;
  readonly compatible_devices: string[];
  readonly devices: DeviceCompatibility[];
}

const RANK: Record<CompatStatus, number> = { compatible: 0, needs_translation: 1, incompatible: 2 };

export function deviceCompatibility(c: Circuit, d: CompatDevice): DeviceCompatibility {
  const reasons: string[] = [];
  let status: CompatStatus = 'compatible';
  const worsen = (s: CompatStatus, reason: string): void => {
    if (RANK[s] > RANK[status]) status = s;
    reasons.push(reason);
  };
  const used = new Set<number>();
  const names = new Set<string>();
  const pairs = new Map<string, [number, number]>();
  let midMeasure = false;
  let anyReset = false;
  let dynamic = false;
  const lastOp = new Map<number, number>();
  c.ops.forEach((op, i) => {
    if (op.kind !== 'barrier') for (const q of opQubits(op)) lastOp.set(q, i);
  });
  c.ops.forEach((o, i) => {
    if (o.kind === 'conditioned') dynamic = true;
    // a conditioned gate needs what its gate needs (native name, coupling) besides the condition
    const op = o.kind === 'conditioned' ? o.gate : o;
    if (op.kind === 'gate') {
      names.add(op.name);
      op.qubits.forEach((q) => used.add(q));
      for (let a = 0; a < op.qubits.length; a++) {
        for (let b = a + 1; b < op.qubits.length; b++) {
          const x = Math.min(op.qubits[a]!, op.qubits[b]!);
          const y = Math.max(op.qubits[a]!, op.qubits[b]!);
          pairs.set(`${x},${y}`, [x, y]);
        }
      }
    } else if (op.kind === 'measure') {
      used.add(op.qubit);
      if (lastOp.get(op.qubit) !== i) midMeasure = true;
    } else if (op.kind === 'reset') {
      used.add(op.qubit);
      anyReset = true;
    }
  });
  if (used.size > d.numQubits) {
    worsen('incompatible', `the circuit uses ${used.size} qubits; ${d.id} has ${d.numQubits}`);
  } else if (c.numQubits > d.numQubits) {
    worsen('needs_translation', `the circuit declares ${c.numQubits} qubits but uses ${used.size}; they must be relabelled onto ${d.id}'s ${d.numQubits}`);
  }
  if (midMeasure && !d.supportsMidCircuitMeasurement) worsen('incompatible', `${d.id} does not support mid-circuit measurement`);
  if (anyReset && !d.supportsReset) worsen('incompatible', `${d.id} does not support reset`);
  if (dynamic && !d.supportsDynamicCircuits) worsen('incompatible', `${d.id} does not run dynamic circuits (gates conditioned on measured bits)`);
  const native = new Set(d.nativeGates);
  const nonNative = [...names].filter((n) => !native.has(n)).sort();
  if (nonNative.length > 0) {
    worsen('needs_translation', `gates not native on ${d.id} must be decomposed into {${d.nativeGates.join(', ')}}: ${nonNative.join(', ')}`);
  }
  const uncoupled: [number, number][] = [];
  if (d.couplingMap !== null) {
    const edges = new Set(d.couplingMap.map(([a, b]) => `${Math.min(a, b)},${Math.max(a, b)}`));
    for (const [key, p] of pairs) if (!edges.has(key)) uncoupled.push(p);
    uncoupled.sort((p, q) => p[0] - q[0] || p[1] - q[1]);
    if (uncoupled.length > 0) {
      const shown = uncoupled
        .slice(0, 8)
        .map(([a, b]) => `(${a},${b})`)
        .join(', ');
      worsen(
        'needs_translation',
        `${uncoupled.length} interacting qubit pair${uncoupled.length === 1 ? ' is' : 's are'} not coupled on ${d.id} with the identity layout and need routing: ${shown}${uncoupled.length > 8 ? ', …' : ''}`,
      );
    }
  }
  if (reasons.length === 0) reasons.push(`runs on ${d.id} as is`);
  return { device: d.id, provider: d.provider, status, reasons, non_native_gates: nonNative, uncoupled_pairs: uncoupled };
}

export function providerCompatibility(c: Circuit, devices: readonly CompatDevice[]): ProviderCompatibility[] {
  const byProvider = new Map<string, DeviceCompatibility[]>();
  for (const d of devices) {
    const list = byProvider.get(d.provider) ?? [];
    list.push(deviceCompatibility(c, d));
    byProvider.set(d.provider, list);
  }
  return [...byProvider].map(([provider, list]) => {
    const best = list.reduce<CompatStatus>((s, x) => (RANK[x.status] < RANK[s] ? x.status : s), 'incompatible');
    return { provider, status: best, compatible_devices: list.filter((x) => x.status === 'compatible').map((x) => x.device), devices: list };
  });
}
