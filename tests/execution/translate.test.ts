import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { circuit, gate, measure, type Circuit, type Operation } from '../../src/circuits/ir.js';
import { deviceProfile, getDevice, type DeviceSpec } from '../../src/devices/device-catalogue.js';
import { translateForDevice } from '../../src/execution/translate/translate-for-device.js';
import { sabreRoute } from '../../src/routing/sabre.js';
import { simulate } from '../../src/simulation/index.js';

const dev = (id: string): DeviceSpec => getDevice(id) ?? deviceProfile(id)!.spec;

function coupled(d: DeviceSpec, a: number, b: number): boolean {
  return d.couplingMap === null || d.couplingMap.some(([x, y]) => (x === a && y === b) || (x === b && y === a));
}

function expectRunnable(c: Circuit, d: DeviceSpec): void {
  for (const op of c.ops) {
    if (op.kind !== 'gate') continue;
    expect(d.nativeGates).toContain(op.name);
    if (op.qubits.length === 2) expect(coupled(d, op.qubits[0]!, op.qubits[1]!)).toBe(true);
    expect(op.qubits.length).toBeLessThanOrEqual(2);
  }
}

/** Exact outcome probabilities (noise-free), keyed by clbit string. */
function probs(c: Circuit): Record<string, number> {
  const r = simulate(c, { shots: 0, seed: 1 });
  return r.probabilities ?? {};
}

function expectSameDistribution(a: Circuit, b: Circuit): void {
  const pa = probs(a);
  const pb = probs(b);
  for (const k of new Set([...Object.keys(pa), ...Object.keys(pb)])) expect(Math.abs((pa[k] ?? 0) - (pb[k] ?? 0))).toBeLessThan(1e-9);
}

const ghz = (n: number): Circuit => circuit(n, n, [gate('h', [0]), ...Array.from({ length: n - 1 }, (_, i) => gate('cx', [i, i + 1])), ...Array.from({ length: n }, (_, q) => measure(q, q))]);

describe('translation to devices (routing + native gates)', () => {
  it('routes a 5-qubit GHZ onto the 3×3 grid with native gates, proven equivalent', () => {
    const d = dev('p2-grid-9');
    const c = ghz(5);
    const t = translateForDevice(c, d);
    expectRunnable(t.circuit, d);
    expect(t.verification.equivalent).toBe(true);
    expect(t.verification.method).toBe('unitary');
    expectSameDistribution(c, t.circuit);
    // measurements read the qubit's final physical position
    const ms = t.circuit.ops.filter((op): op is Extract<Operation, { kind: 'measure' }> => op.kind === 'measure');
    for (const m of ms) expect(m.qubit).toBe(t.finalLayout[m.clbit]);
  });

  it('needs SWAPs for an all-pairs interaction on the grid and states the final mapping', () => {
    const d = dev('p2-grid-9');
    const ops: Operation[] = [];
    for (let a = 0; a < 5; a++) for (let b = a + 1; b < 5; b++) ops.push(gate('cz', [a, b]), gate('rx', [b], [0.3 + a]));
    const c = circuit(5, 5, [gate('h', [0]), gate('h', [3]), ...ops, ...Array.from({ length: 5 }, (_, q) => measure(q, q))]);
    const t = translateForDevice(c, d);
    expect(t.swapsInserted).toBeGreaterThan(0);
    expect(Object.values(t.finalLayout)).toHaveLength(5);
    expect(new Set(Object.values(t.finalLayout)).size).toBe(5);
    expectRunnable(t.circuit, d);
    expect(t.verification.equivalent).toBe(true);
    expectSameDistribution(c, t.circuit);
  });

  it('translates to the trapped-ion gate set (rx, ry, rz, rxx) without SWAPs', () => {
    const d = dev('p2-ion-11');
    const c = circuit(3, 3, [gate('h', [0]), gate('ccx', [0, 1, 2]), gate('swap', [0, 2]), gate('t', [1]), gate('cp', [1, 2], [0.7]), measure(0, 0), measure(1, 1), measure(2, 2)]);
    const t = translateForDevice(c, d);
    expect(t.swapsInserted).toBe(0);
    expectRunnable(t.circuit, d);
    expect(t.verification.equivalent).toBe(true);
    expectSameDistribution(c, t.circuit);
  });

  it('routes onto the 27-qubit heavy-hex map (check skipped above the size limit, said so)', () => {
    const d = dev('p1-falcon-27');
    const c = ghz(20);
    const t = translateForDevice(c, d);
    expectRunnable(t.circuit, d);
    expect(t.verification.equivalent).toBe('skipped');
    expect(t.verification.reason).toMatch(/too large/);
  });

  it('refuses what the device cannot run, with the reason', () => {
    expect(() => translateForDevice(ghz(12), dev('p2-ion-11'))).toThrow(/uses 12 qubits/);
    const mid = circuit(2, 2, [gate('h', [0]), measure(0, 0), gate('x', [0]), measure(0, 1)]);
    expect(() => translateForDevice(mid, dev('p2-ion-11'))).toThrow(/mid-circuit/);
  });

  it('random circuits on the grid: every 2q gate coupled, and the same outcome distribution (property)', () => {
    const names1 = ['h', 'x', 's', 't', 'rx', 'ry', 'sx'] as const;
    const names2 = ['cx', 'cz', 'swap', 'rzz', 'cp'] as const;
    const arbOp = (n: number) =>
      fc.oneof(
        fc.record({ g: fc.constantFrom(...names1), q: fc.nat(n - 1), t: fc.double({ min: -3, max: 3, noNaN: true }) }).map(({ g, q, t }) => gate(g, [q], g === 'rx' || g === 'ry' ? [t] : [])),
        fc
          .record({ g: fc.constantFrom(...names2), a: fc.nat(n - 1), b: fc.nat(n - 1), t: fc.double({ min: -3, max: 3, noNaN: true }) })
          .filter(({ a, b }) => a !== b)
          .map(({ g, a, b, t }) => gate(g, [a, b], g === 'rzz' || g === 'cp' ? [t] : [])),
      );
    fc.assert(
      fc.property(
        fc.integer({ min: 2, max: 6 }).chain((n) => fc.tuple(fc.constant(n), fc.array(arbOp(n), { minLength: 1, maxLength: 25 }))),
        ([n, ops]) => {
          const c = circuit(n, n, [...ops, ...Array.from({ length: n }, (_, q) => measure(q, q))]);
          const d = dev('p2-grid-9');
          const t = translateForDevice(c, d);
          expectRunnable(t.circuit, d);
          expect(t.verification.equivalent).toBe(true);
          expectSameDistribution(c, t.circuit);
        },
      ),
      { numRuns: 40, seed: 9 },
    );
  });

  it('SABRE returns consistent layouts (permutations) and adjacency for every 2q op', () => {
    const ring: [number, number][] = Array.from({ length: 8 }, (_, i) => [i, (i + 1) % 8]);
    const ops = [gate('cx', [0, 4]), gate('cx', [1, 5]), gate('cx', [2, 6]), gate('cx', [3, 7]), gate('cx', [0, 7])];
    const r = sabreRoute(ops, 8, 8, ring);
    expect([...r.initialLayout].sort((x, y) => x - y)).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    expect([...r.finalLayout].sort((x, y) => x - y)).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    for (const op of r.ops) {
      if (op.kind === 'gate' && op.qubits.length === 2) {
        const [a, b] = op.qubits as [number, number];
        expect(Math.min((a - b + 8) % 8, (b - a + 8) % 8)).toBe(1);
      }
    }
  });
});
