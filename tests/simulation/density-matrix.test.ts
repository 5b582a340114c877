/**
 * The density-matrix method against independent references: the state-vector engine on unitary
 * circuits (probabilities and expectation values within 1e-9); the exact enumeration of
 * tests/simulation/dynamic-enumeration.ts with depolarizing noise and readout error (1e-9); and the
 * state-vector engine's noisy trajectories (amplitude damping, a calibrated device's model) with the
 * Bretagnolle–Huber–Carol L1 bound at δ = 1e-6 on 40 000 shots (seeds fixed).
 */
import { describe, expect, it } from 'vitest';
import { circuit, gate, measure, reset, type Operation } from '../../src/circuits/ir.js';
import { isAppError } from '../../src/errors/app-error.js';
import { customNoise, noiseFromCalibration, simulate } from '../../src/simulation/index.js';
import { simulateDensityMatrix } from '../../src/simulation/density-matrix/simulate-density-matrix.js';
import { exactDistribution, l1Bound, l1Distance } from './dynamic-enumeration.js';
import { lcg } from './textbook.js';

const G1 = ['h', 'x', 'y', 'z', 's', 'sdg', 't', 'tdg', 'sx'];
const G2 = ['cx', 'cz', 'swap', 'cy', 'ch'];

function randomCircuit(n: number, gates: number, rnd: () => number): Operation[] {
  const ops: Operation[] = [];
  for (let i = 0; i < gates; i++) {
    const a = Math.floor(rnd() * n);
    let b = Math.floor(rnd() * (n - 1));
    if (b >= a) b++;
    const r = rnd();
    if (r < 0.4 || n === 1) ops.push(gate(G1[Math.floor(rnd() * G1.length)]!, [a]));
    else if (r < 0.6) ops.push(gate(['rx', 'ry', 'rz'][Math.floor(rnd() * 3)]!, [a], [rnd() * 6 - 3]));
    else if (r < 0.65) ops.push(gate('u3', [a], [rnd() * 3, rnd() * 3, rnd() * 3]));
    else ops.push(gate(G2[Math.floor(rnd() * G2.length)]!, [a, b]));
  }
  return ops;
}

const measureAll = (n: number): Operation[] => Array.from({ length: n }, (_, q) => measure(q, q));

describe('density-matrix method', () => {
  it('matches the state vector on unitary circuits up to 10 qubits (probabilities and expectation values, 1e-9)', () => {
    const rnd = lcg(14);
    for (let t = 0; t < 12; t++) {
      const n = 1 + (t % 10);
      const ops = randomCircuit(n, 6 * n, rnd);
      const c = circuit(n, n, [...ops, ...measureAll(n)]);
      const observables = Array.from({ length: 4 }, () => ({ pauli: Array.from({ length: n }, () => 'IXYZ'[Math.floor(rnd() * 4)]!).join(''), coeff: rnd() }));
      const sv = simulate(c, { shots: 0, seed: 1, observables });
      const dm = simulateDensityMatrix(c, { shots: 100, seed: 1, observables });
      expect(dm.probabilitiesKind).toBe('exact');
      const keys = new Set([...Object.keys(sv.probabilities!), ...Object.keys(dm.probabilities!)]);
      for (const k of keys) expect(Math.abs((sv.probabilities![k] ?? 0) - (dm.probabilities![k] ?? 0))).toBeLessThan(1e-9);
      dm.expectation!.terms.forEach((v, i) => expect(Math.abs(v - sv.expectation!.terms[i]!)).toBeLessThan(1e-9));
      expect(Object.values(dm.counts).reduce((a, b) => a + b, 0)).toBe(100);
    }
  });

  it('is exact with depolarizing noise, readout error, resets and overwritten mid-circuit bits (exact enumeration, 1e-9)', () => {
    const rnd = lcg(5);
    for (let t = 0; t < 3; t++) {
      const n = 3;
      const ops: Operation[] = [...randomCircuit(n, 5, rnd).filter((o) => o.kind === 'gate' && o.qubits.length === 1), gate('cx', [0, 1]), measure(2, 2), reset(2), gate('h', [2]), gate('s', [0])];
      const c = circuit(n, n, [...ops, ...measureAll(n)]);
      const exact = exactDistribution(c, { depolarizing1q: 0.1, readout: [0.03, 0.07] });
      const dm = simulateDensityMatrix(c, { shots: 0, seed: 1, noise: customNoise({ depolarizing1q: 0.1, readout: [0.03, 0.07] }) });
      const keys = new Set([...exact.keys(), ...Object.keys(dm.probabilities!)]);
      for (const k of keys) expect(Math.abs((exact.get(k) ?? 0) - (dm.probabilities![k] ?? 0))).toBeLessThan(1e-9);
    }
  });

  it('agrees with the noisy state-vector trajectories (amplitude damping, calibrated device noise) within the L1 bound', () => {
    const cal = { t1_us: 40, t2_us: 30, gate_time_1q_ns: 300, gate_time_2q_ns: 2000, error_1q: 0.01, error_2q: 0.04, readout_error: [0.02, 0.05] as const };
    const models = [customNoise({ amplitudeDamping: 0.15, depolarizing2q: 0.05 }), noiseFromCalibration({ ...cal, readout_error: [[0.02, 0.05]] })];
    const shots = 40_000;
    models.forEach((noise, m) => {
      const n = 4;
      const c = circuit(n, n, [...randomCircuit(n, 16, lcg(50 + m)), ...measureAll(n)]);
      const dm = simulateDensityMatrix(c, { shots: 0, seed: 1, noise });
      const sv = simulate(c, { shots, seed: 9, noise });
      const exact = new Map(Object.entries(dm.probabilities!));
      expect(l1Distance(sv.counts, shots, exact)).toBeLessThan(l1Bound(2 ** n, shots, 1e-6));
    });
  });

  it('refuses more than 14 qubits and conditioned gates, naming the method', () => {
    const big = circuit(15, 0, [gate('h', [0])]);
    expect(() => simulateDensityMatrix(big, { shots: 1 })).toThrow(/density_matrix method takes at most 14/);
    // A measurement of a qubit that is used later but whose bit is overwritten is a dephasing: accepted.
    const p = simulateDensityMatrix(circuit(2, 1, [gate('h', [0]), measure(0, 0), gate('x', [0]), measure(0, 0)]), { shots: 0 }).probabilities!;
    expect(p['0']).toBeCloseTo(0.5, 12);
    expect(p['1']).toBeCloseTo(0.5, 12);
    try {
      simulateDensityMatrix(circuit(2, 2, [gate('h', [0]), measure(0, 0), gate('x', [0]), measure(1, 1)]), { shots: 1 });
      expect.unreachable();
    } catch (e) {
      expect(isAppError(e) && e.code).toBe('SIMULATION_METHOD_UNAVAILABLE');
    }
  });
});
