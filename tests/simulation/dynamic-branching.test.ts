/**
 * Dynamic circuits on the simulator (issue 22 item 5): conditioned gates with per-shot branching,
 * checked against the exact branch enumeration of dynamic-enumeration.ts. Deterministic facts
 * (teleportation undone, active reset) are checked exactly on every shot; distributions within a
 * stated L1 bound.
 */
import { describe, expect, it } from 'vitest';
import { circuit, conditioned, gate, measure, reset, type Circuit, type Operation } from '../../src/circuits/ir.js';
import { customNoise, finalState, simulate } from '../../src/simulation/index.js';
import { buildProgram } from '../../src/simulation/program.js';
import { exactDistribution, l1Bound, l1Distance } from './dynamic-enumeration.js';

const DELTA = 1e-9;
const cif = (name: string, qubits: number[], clbits: number[], value: number, params: number[] = []): Operation => conditioned(gate(name, qubits, params), { clbits, value });

/** Teleports ry(θ)·rz(φ)|0⟩ from qubit 0 to qubit 2 with feed-forward: if (c1) x; if (c0) z. */
function teleport(theta: number, phi: number, undo: boolean): Circuit {
  const ops: Operation[] = [
    gate('ry', [0], [theta]),
    gate('rz', [0], [phi]),
    gate('h', [1]),
    gate('cx', [1, 2]),
    gate('cx', [0, 1]),
    gate('h', [0]),
    measure(0, 0),
    measure(1, 1),
    cif('x', [2], [1], 1),
    cif('z', [2], [0], 1),
  ];
  if (undo) ops.push(gate('rz', [2], [-phi]), gate('ry', [2], [-theta]));
  ops.push(measure(2, 2));
  return circuit(3, 3, ops);
}

describe('dynamic circuits: teleportation with classical feed-forward', () => {
  it('undoing the prepared state on the receiver gives 0 on every shot (phase included), for several states', () => {
    for (const [theta, phi] of [
      [0.3, 1.1],
      [Math.PI / 2, -0.7],
      [2.5, 2.9],
    ] as const) {
      const r = simulate(teleport(theta, phi, true), { shots: 4000, seed: 11 });
      const bad = Object.entries(r.counts).filter(([k]) => k[0] === '1');
      expect(bad).toEqual([]);
      // The sender's two bits are uniform: all four corrections occur.
      expect(new Set(Object.keys(r.counts).map((k) => k.slice(1))).size).toBe(4);
      expect(r.probabilitiesKind).toBe('estimated');
    }
  });

  it('without the feed-forward the undo fails on some shots (the conditions matter)', () => {
    const c = teleport(0.3, 1.1, true);
    const plain = circuit(
      3,
      3,
      c.ops.filter((op) => op.kind !== 'conditioned'),
    );
    const r = simulate(plain, { shots: 4000, seed: 11 });
    expect(Object.keys(r.counts).some((k) => k[0] === '1')).toBe(true);
  });

  it('the receiver measures 1 with probability sin²(θ/2), matching the exact enumeration', () => {
    const theta = 1.2;
    const c = teleport(theta, 0.4, false);
    const exact = exactDistribution(c);
    let p1 = 0;
    for (const [k, p] of exact) if (k[0] === '1') p1 += p;
    expect(p1).toBeCloseTo(Math.sin(theta / 2) ** 2, 12);
    const shots = 100_000;
    const r = simulate(c, { shots, seed: 5 });
    expect(l1Distance(r.counts, shots, exact)).toBeLessThan(l1Bound(8, shots, DELTA));
  });
});

describe('dynamic circuits: active reset', () => {
  it('measure, if (c) x leaves |0⟩: the second measurement reads 0 on every shot', () => {
    const c = circuit(1, 2, [gate('ry', [0], [1.9]), measure(0, 0), cif('x', [0], [0], 1), measure(0, 1)]);
    const shots = 50_000;
    const r = simulate(c, { shots, seed: 3 });
    for (const k of Object.keys(r.counts)) expect(k[0]).toBe('0');
    const exact = exactDistribution(c);
    expect(exact.get('01')).toBeCloseTo(Math.sin(1.9 / 2) ** 2, 12);
    expect(l1Distance(r.counts, shots, exact)).toBeLessThan(l1Bound(4, shots, DELTA));
  });

  it('a multi-bit condition (c == 2) applies only on its value', () => {
    // q0, q1 in |+⟩, measured; x on q2 only when c0 = 0 and c1 = 1.
    const c = circuit(3, 3, [gate('h', [0]), gate('h', [1]), measure(0, 0), measure(1, 1), cif('x', [2], [0, 1], 2), measure(2, 2)]);
    const r = simulate(c, { shots: 8000, seed: 9 });
    for (const k of Object.keys(r.counts)) expect(k[0] === '1').toBe(k.slice(1) === '10');
    const exact = exactDistribution(c);
    expect([...exact.keys()].sort()).toEqual(['000', '001', '011', '110']);
  });
});

describe('dynamic circuits: the program and the pure-state helpers', () => {
  it('a conditioned gate makes the program branching and dynamic; its mid-circuit measurement stays a step', () => {
    // q0 is measured and never touched again, but the condition reads c0: not a terminal measurement.
    const p = buildProgram(circuit(2, 1, [gate('h', [0]), measure(0, 0), cif('x', [1], [0], 1)]), undefined, 14);
    expect(p.dynamic).toBe(true);
    expect(p.branching).toBe(true);
    expect(p.steps.map((s) => s.kind)).toEqual(['unitary', 'measure', 'conditioned']);
    expect(p.terminal).toEqual([]);
  });

  it('consecutive gates under the same condition run as one step', () => {
    const p = buildProgram(circuit(2, 1, [measure(0, 0), cif('x', [1], [0], 1), cif('h', [1], [0], 1), cif('z', [1], [0], 0)]), undefined, 14);
    expect(p.steps.map((s) => s.kind)).toEqual(['measure', 'conditioned', 'conditioned']);
  });

  it('circuits without conditions keep the pure path: exact probabilities and a state vector', () => {
    const r = simulate(circuit(2, 2, [gate('h', [0]), gate('cx', [0, 1]), measure(0, 0), measure(1, 1)]), { shots: 100, seed: 1, returnStatevector: true });
    expect(r.probabilitiesKind).toBe('exact');
    expect(r.statevector).toBeDefined();
    expect(r.stats.trajectories).toBe(1);
  });

  it('no state vector or expectation for a dynamic run, with a note saying why', () => {
    const r = simulate(teleport(0.3, 0.2, false), { shots: 10, seed: 1, returnStatevector: true, observables: [{ pauli: 'ZII', coeff: 1 }] });
    expect(r.statevector).toBeUndefined();
    expect(r.expectation).toBeUndefined();
    expect(r.notes.join(' ')).toContain('conditioned gates');
  });

  it('finalState refuses a conditioned circuit with SIMULATION_NOT_UNITARY', () => {
    const c = circuit(2, 1, [gate('h', [0]), cif('x', [1], [0], 1)]);
    expect(() => finalState(c)).toThrow(expect.objectContaining({ code: 'SIMULATION_NOT_UNITARY' }));
  });

  it('malformed conditions answer SIMULATION_UNSUPPORTED_OPERATION with the op path', () => {
    const bad = (op: Operation) => () => simulate(circuit(2, 2, [op]), { shots: 1, seed: 1 });
    expect(bad(cif('x', [1], [5], 1))).toThrow(
      expect.objectContaining({ code: 'SIMULATION_UNSUPPORTED_OPERATION', details: [expect.objectContaining({ path: '/ops/0/condition/clbits', code: 'CLBIT_OUT_OF_RANGE' })] }),
    );
    expect(bad(cif('x', [1], [0], -1))).toThrow(expect.objectContaining({ details: [expect.objectContaining({ path: '/ops/0/condition/value', code: 'BAD_CONDITION' })] }));
    expect(bad(cif('x', [7], [0], 1))).toThrow(expect.objectContaining({ details: [expect.objectContaining({ code: 'QUBIT_OUT_OF_RANGE' })] }));
  });

  it('a value no bits can form never applies the gate (and the run stays exact)', () => {
    const r = simulate(circuit(1, 1, [cif('x', [0], [0], 2), measure(0, 0)]), { shots: 100, seed: 1 });
    expect(r.counts).toEqual({ '0': 100 });
  });

  it('an unmeasured clbit reads 0', () => {
    const r = simulate(circuit(2, 2, [cif('x', [1], [0], 0), measure(1, 1)]), { shots: 100, seed: 1 });
    expect(r.counts).toEqual({ '10': 100 });
  });
});

describe('dynamic circuits with noise (emulated hardware)', () => {
  it('a conditioned gate gets its noise only when it is applied', () => {
    // The condition is never true (c0 reads 0), so the heavily depolarizing x never happens.
    const noise = customNoise({ depolarizing1q: 0.9 });
    const off = circuit(2, 2, [measure(0, 0), cif('x', [1], [0], 1), measure(1, 1)]);
    expect(simulate(off, { shots: 2000, seed: 2, noise }).counts).toEqual({ '00': 2000 });
    const on = circuit(2, 2, [measure(0, 0), cif('x', [1], [0], 0), measure(1, 1)]);
    const shots = 100_000;
    const r = simulate(on, { shots, seed: 2, noise });
    const exact = exactDistribution(on, { depolarizing1q: 0.9 });
    expect(exact.get('00')).toBeCloseTo(0.45, 12); // X or Y undo the x: 2 · 0.9/4
    expect(l1Distance(r.counts, shots, exact)).toBeLessThan(l1Bound(4, shots, DELTA));
  });

  it('readout error of a mid-circuit measurement is what the condition sees (as on hardware)', () => {
    // q0 is |0⟩; its reported bit is 1 with probability 0.1 and then q1 is flipped: c1 always equals the reported c0.
    const noise = customNoise({ readout: [0.1, 0.2] });
    const c = circuit(2, 2, [measure(0, 0), cif('x', [1], [0], 1), measure(1, 1)]);
    const shots = 100_000;
    const r = simulate(c, { shots, seed: 8, noise });
    const exact = exactDistribution(c, { readout: [0.1, 0.2] });
    expect(l1Distance(r.counts, shots, exact)).toBeLessThan(l1Bound(4, shots, DELTA));
    // c1's own readout error makes 01 and 10 possible too; in the exact model P(c0 = 1) = 0.1.
    const p0 = Object.entries(r.counts).reduce((a, [k, v]) => a + (k[1] === '1' ? v : 0), 0) / shots;
    expect(Math.abs(p0 - 0.1)).toBeLessThan(0.01);
  });

  it('reset and conditioned gates with gate noise match the exact enumeration', () => {
    const c = circuit(2, 3, [gate('h', [0]), measure(0, 0), reset(0), gate('ry', [0], [0.8]), measure(0, 1), cif('h', [1], [0, 1], 3), cif('s', [1], [1], 1), measure(1, 2)]);
    const shots = 100_000;
    const r = simulate(c, { shots, seed: 21, noise: customNoise({ depolarizing1q: 0.2, readout: [0.05, 0.03] }) });
    const exact = exactDistribution(c, { depolarizing1q: 0.2, readout: [0.05, 0.03] });
    expect(l1Distance(r.counts, shots, exact)).toBeLessThan(l1Bound(8, shots, DELTA));
  });
});
