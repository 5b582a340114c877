import { describe, expect, it } from 'vitest';
import { GATES } from '../../src/circuits/gates.js';
import { circuit, gate, type Circuit } from '../../src/circuits/ir.js';
import { DEVICES, type DeviceSpec } from '../../src/devices/device-catalogue.js';
import { optimizeCircuit } from '../../src/optimization/optimize.js';
import { circuitsEquivalent, gateOps, testEquivalence } from './helpers/matrix.js';

/**
 * Every gate of the catalogue (GET /v1/circuits/schema) reaches every target: each provider's
 * native set, and each device's native set and coupling map. Equivalence is by the tests' own
 * matrices, up to global phase (the optimizer's contract: a global phase is unobservable, and
 * the gate never sits under a control afterwards).
 */
const TARGETS: { label: string; hint: 'provider-one' | 'provider-two'; device?: DeviceSpec; native: readonly string[] }[] = [
  { label: 'provider-one', hint: 'provider-one', native: ['rz', 'sx', 'x', 'cx'] },
  { label: 'provider-two', hint: 'provider-two', native: ['rx', 'ry', 'rz', 'cz'] },
  ...DEVICES.filter((d) => d.kind === 'hardware').map((d) => ({ label: d.id, hint: d.provider, device: d, native: d.nativeGates })),
];

/** Smallest width ≥ n whose wires 0..width−1 are connected on the device (routing uses only the circuit's wires). */
function width(n: number, d?: DeviceSpec): number {
  if (!d?.couplingMap) return n;
  for (let w = n; w <= d.numQubits; w++) {
    const seen = new Set([0]);
    const stack = [0];
    while (stack.length) {
      const x = stack.pop()!;
      for (const [a, b] of d.couplingMap) {
        const y = a === x ? b : b === x ? a : -1;
        if (y >= 0 && y < w && !seen.has(y)) {
          seen.add(y);
          stack.push(y);
        }
      }
    }
    if (seen.size === w) return w;
  }
  return Infinity;
}

const params = (k: number) => [0.37, -1.91, 2.63, 0.58].slice(0, k);

describe('every catalogue gate to every target', () => {
  for (const t of TARGETS) {
    it(`${t.label}: all ${GATES.size} gates translate, exactly`, () => {
      for (const [name, spec] of GATES) {
        const n = width(spec.arity, t.device);
        if (t.device && n > t.device.numQubits) continue;
        // last wire first, so routing has work to do on devices with a coupling map
        const qs = [...Array(spec.arity).keys()].map((i) => (i === 0 ? n - 1 : i - 1));
        const c: Circuit = circuit(n, 0, [gate('h', [qs[0]!]), gate(name, qs, params(spec.params)), gate('t', [qs[spec.arity - 1]!])]);
        const r = optimizeCircuit(c, { profile: 'safe', backendHint: t.hint, ...(t.device ? { device: t.device.id } : {}), equivalence: testEquivalence });
        const ops = gateOps(r.circuit);
        for (const o of ops) expect(t.native, `${name} on ${t.label} left ${o.name}`).toContain(o.name);
        if (t.device?.couplingMap) {
          const edges = new Set(t.device.couplingMap.flatMap(([a, b]) => [`${a},${b}`, `${b},${a}`]));
          for (const o of ops.filter((x) => x.qubits.length === 2)) expect(edges.has(o.qubits.join(',')), `${name}: ${o.qubits.join(',')}`).toBe(true);
        }
        expect(circuitsEquivalent(c, r.circuit), `${name} on ${t.label}`).toBe(true);
      }
    });
  }

  it('the multi-qubit decompositions use few CNOTs (c3x 14, c4x 30, c3sqrtx 14, cswap 8)', () => {
    for (const [name, n, cx] of [
      ['c3x', 4, 14],
      ['c4x', 5, 30],
      ['c3sqrtx', 4, 14],
      ['cswap', 3, 8],
      ['rccx', 3, 3],
      ['rc3x', 4, 6],
    ] as const) {
      const c = circuit(n, 0, [gate(name, [...Array(n).keys()])]);
      const r = optimizeCircuit(c, { profile: 'safe', backendHint: 'provider-one', equivalence: testEquivalence });
      expect(gateOps(r.circuit).filter((o) => o.name === 'cx').length, name).toBe(cx);
    }
  });
});
