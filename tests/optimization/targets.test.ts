import { describe, expect, it } from 'vitest';
import { circuit, gate, type GateOp } from '../../src/circuits/ir.js';
import { getDevice } from '../../src/devices/device-catalogue.js';
import { isAppError } from '../../src/errors/app-error.js';
import { optimizeCircuit } from '../../src/optimization/optimize.js';
import { replayCertificate } from '../../src/verification/certificate-replay.js';
import { circuitsEquivalent, gateOps, testEquivalence } from './helpers/matrix.js';

const input = circuit(5, 0, [
  gate('h', [0]),
  gate('ccx', [0, 1, 4]),
  gate('t', [2]),
  gate('cz', [2, 4]),
  gate('swap', [1, 3]),
  gate('ry', [3], [0.3]),
  gate('cx', [0, 4]),
  gate('rzz', [0, 2], [0.5]),
  gate('y', [1]),
  gate('cp', [3, 0], [0.9]),
]);

const names = (ops: GateOp[]) => new Set(ops.map((o) => o.name));

describe('backend hints and devices', () => {
  for (const [hint, native] of [
    ['provider-one', ['rz', 'sx', 'x', 'cx']],
    ['provider-two', ['rx', 'ry', 'rz', 'cz']],
  ] as const) {
    for (const profile of ['safe', 'balanced', 'aggressive'] as const) {
      it(`${hint} / ${profile}: only native gates, equivalent`, () => {
        const r = optimizeCircuit(input, { profile, backendHint: hint, equivalence: testEquivalence });
        for (const n of names(gateOps(r.circuit))) expect(native).toContain(n);
        expect(circuitsEquivalent(input, r.circuit)).toBe(true);
        expect(r.passes).toContain(`translate:${hint}`);
      });
    }
  }

  for (const id of ['p1-falcon-7', 'p2-grid-9', 'p2-ion-11']) {
    it(`device ${id}: native gates and coupling map respected`, () => {
      const d = getDevice(id)!;
      const wide = circuit(7, 0, input.ops); // falcon-7's wire 4 reaches the others only through 5
      const r = optimizeCircuit(wide, { profile: 'balanced', backendHint: d.provider, device: id, equivalence: testEquivalence });
      const ops = gateOps(r.circuit);
      for (const n of names(ops)) expect(d.nativeGates).toContain(n);
      if (d.couplingMap) {
        const edges = new Set(d.couplingMap.flatMap(([a, b]) => [`${a},${b}`, `${b},${a}`]));
        for (const o of ops.filter((x) => x.qubits.length === 2)) expect(edges.has(o.qubits.join(','))).toBe(true);
      }
      expect(circuitsEquivalent(wide, r.circuit)).toBe(true);
    });
  }

  it('qubits connected only through wires the circuit does not have: those device wires are borrowed and given back', () => {
    for (const profile of ['safe', 'balanced'] as const) {
      const r = optimizeCircuit(input, { profile, backendHint: 'provider-one', device: 'p1-falcon-7', equivalence: testEquivalence });
      // falcon-7's wire 4 reaches the others only through 5: the output has 6 wires, the 6th idle at both ends
      expect(r.circuit.numQubits).toBe(6);
      const edges = new Set(getDevice('p1-falcon-7')!.couplingMap!.flatMap(([a, b]) => [`${a},${b}`, `${b},${a}`]));
      for (const o of gateOps(r.circuit).filter((x) => x.qubits.length === 2)) expect(edges.has(o.qubits.join(','))).toBe(true);
      expect(circuitsEquivalent(circuit(6, 0, input.ops), r.circuit)).toBe(true);
      expect(r.proof.certificate.steps!.some((st) => st.rule === 'widen' && st.numQubits === 6)).toBe(true);
      expect(r.notes.join(' ')).toMatch(/borrowed wires 5–5/);
    }
  });

  it('a widen step only adds idle wires: the replayer refuses one that narrows, carries ops, or comes without numQubits', () => {
    const c = circuit(2, 0, [gate('cx', [0, 1])]);
    const base = { rule: 'widen', positions: [], replaced: [], inserted: [] };
    expect(replayCertificate(c, { steps: [{ ...base, numQubits: 3 }] }, circuit(3, 0, c.ops)).ok).toBe(true);
    expect(replayCertificate(c, { steps: [{ ...base, numQubits: 3 }] }, c).ok).toBe(false);
    for (const bad of [{ ...base, numQubits: 1 }, { ...base }, { ...base, numQubits: 3, positions: [0], replaced: [c.ops[0]!] }, { ...base, numQubits: 2.5 }]) {
      expect(replayCertificate(c, { steps: [bad as never] }).ok).toBe(false);
    }
    expect(replayCertificate(c, { steps: [{ rule: 'cancel-inverse', positions: [0], replaced: [c.ops[0]!], inserted: [], numQubits: 3 }] }).ok).toBe(false);
  });

  it('unknown device or a device of the other provider: 400 OPTIMIZATION_DEVICE_UNKNOWN', () => {
    for (const [hint, device] of [
      ['generic', 'nope'],
      ['provider-one', 'p2-grid-9'],
    ] as const) {
      try {
        optimizeCircuit(input, { backendHint: hint, device, equivalence: testEquivalence });
        throw new Error('accepted');
      } catch (e) {
        expect(isAppError(e) && e.code).toBe('OPTIMIZATION_DEVICE_UNKNOWN');
      }
    }
  });

  it('more qubits than the device: 422 OPTIMIZATION_TARGET_UNSUPPORTED', () => {
    const big = circuit(8, 0, [gate('cx', [0, 7])]);
    try {
      optimizeCircuit(big, { backendHint: 'provider-one', device: 'p1-falcon-7', equivalence: testEquivalence });
      throw new Error('accepted');
    } catch (e) {
      expect(isAppError(e) && e.code).toBe('OPTIMIZATION_TARGET_UNSUPPORTED');
    }
  });
});
