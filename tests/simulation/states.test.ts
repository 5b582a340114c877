import { describe, expect, it } from 'vitest';
import { circuit, gate, measure, reset, barrier } from '../../src/circuits/ir.js';
import type { Operation } from '../../src/circuits/ir.js';
import { finalState, simulate } from '../../src/simulation/index.js';
import { isAppError } from '../../src/errors/app-error.js';

const EPS = 1e-12;
const measureAll = (n: number): Operation[] => Array.from({ length: n }, (_, q) => measure(q, q));

describe('known states', () => {
  it('Bell state: amplitudes, exact probabilities and counts keys', () => {
    const c = circuit(2, 2, [gate('h', [0]), gate('cx', [0, 1]), ...measureAll(2)]);
    const r = simulate(c, { shots: 2000, seed: 7, returnStatevector: true });
    expect(r.probabilitiesKind).toBe('exact');
    expect(Object.keys(r.probabilities!).sort()).toEqual(['00', '11']);
    expect(r.probabilities!['00']).toBeCloseTo(0.5, 12);
    expect(r.statevector!.re[0]).toBeCloseTo(Math.SQRT1_2, 12);
    expect(r.statevector!.re[3]).toBeCloseTo(Math.SQRT1_2, 12);
    expect(Object.keys(r.counts).sort()).toEqual(['00', '11']);
    expect(r.counts['00']! + r.counts['11']!).toBe(2000);
    // 5σ band around 1000 (σ ≈ 22.4)
    expect(Math.abs(r.counts['00']! - 1000)).toBeLessThan(112);
  });

  it('GHZ on 12 qubits', () => {
    const n = 12;
    const ops: Operation[] = [gate('h', [0])];
    for (let q = 0; q + 1 < n; q++) ops.push(gate('cx', [q, q + 1]));
    const st = finalState(circuit(n, 0, ops));
    expect(st.re[0]).toBeCloseTo(Math.SQRT1_2, 12);
    expect(st.re[(1 << n) - 1]).toBeCloseTo(Math.SQRT1_2, 12);
    let rest = 0;
    for (let i = 1; i < (1 << n) - 1; i++) rest += st.re[i]! ** 2 + st.im[i]! ** 2;
    expect(rest).toBeLessThan(EPS);
  });

  it('W state on 5 qubits: each one-hot amplitude is 1/sqrt(5)', () => {
    const n = 5;
    // Standard construction: ry cascade of controlled rotations then a CX chain.
    const ops: Operation[] = [gate('x', [0])];
    for (let k = 0; k + 1 < n; k++) {
      const theta = 2 * Math.acos(Math.sqrt(1 / (n - k)));
      ops.push(gate('cry', [k, k + 1], [theta]), gate('cx', [k + 1, k]));
    }
    const st = finalState(circuit(n, 0, ops));
    for (let i = 0; i < 1 << n; i++) {
      const oneHot = (i & (i - 1)) === 0 && i !== 0;
      expect(st.re[i]!).toBeCloseTo(oneHot ? 1 / Math.sqrt(n) : 0, 12);
      expect(Math.abs(st.im[i]!)).toBeLessThan(EPS);
    }
  });

  it('QFT of every basis state of 4 qubits gives e^{2πi jk/N}/√N', () => {
    const n = 4;
    const N = 1 << n;
    for (let j = 0; j < N; j++) {
      const ops: Operation[] = [];
      for (let q = 0; q < n; q++) if ((j >> q) & 1) ops.push(gate('x', [q]));
      // Textbook QFT with qubit n-1 most significant, then swaps to restore order.
      for (let t = n - 1; t >= 0; t--) {
        ops.push(gate('h', [t]));
        for (let c = t - 1; c >= 0; c--) ops.push(gate('cp', [c, t], [Math.PI / 2 ** (t - c)]));
      }
      for (let q = 0; q < n / 2; q++) ops.push(gate('swap', [q, n - 1 - q]));
      const st = finalState(circuit(n, 0, ops));
      for (let k = 0; k < N; k++) {
        const ang = (2 * Math.PI * j * k) / N;
        expect(st.re[k]!).toBeCloseTo(Math.cos(ang) / Math.sqrt(N), 12);
        expect(st.im[k]!).toBeCloseTo(Math.sin(ang) / Math.sqrt(N), 12);
      }
    }
  });
});

describe('bit order, seeds and sampling', () => {
  it('clbit 0 is the rightmost character; unmeasured clbits read 0', () => {
    const c = circuit(3, 4, [gate('x', [0]), measure(0, 0), measure(1, 2)]);
    const r = simulate(c, { shots: 10, seed: 1 });
    expect(r.counts).toEqual({ '0001': 10 });
    const c2 = circuit(3, 3, [gate('x', [2]), measure(2, 0)]);
    expect(simulate(c2, { shots: 5, seed: 1 }).counts).toEqual({ '001': 5 });
  });

  it('the same seed gives the same counts; the seed used is reported', () => {
    const ops: Operation[] = [];
    for (let q = 0; q < 6; q++) ops.push(gate('h', [q]), gate('rz', [q], [q * 0.3]), gate('ry', [q], [0.2 + q]));
    const c = circuit(6, 6, [...ops, ...measureAll(6)]);
    const a = simulate(c, { shots: 5000, seed: 123 });
    const b = simulate(c, { shots: 5000, seed: 123 });
    const d = simulate(c, { shots: 5000, seed: 124 });
    expect(a.counts).toEqual(b.counts);
    expect(a.counts).not.toEqual(d.counts);
    expect(a.seed).toBe(123);
    const e = simulate(c, { shots: 10 });
    expect(Number.isInteger(e.seed)).toBe(true);
    expect(simulate(c, { shots: 10, seed: e.seed }).counts).toEqual(e.counts);
  });

  it('counts follow the exact distribution (chi-square on 8 outcomes)', () => {
    const c = circuit(3, 3, [gate('ry', [0], [0.7]), gate('ry', [1], [1.9]), gate('cx', [0, 2]), gate('rx', [2], [0.4]), ...measureAll(3)]);
    const shots = 200_000;
    const r = simulate(c, { shots, seed: 99 });
    let chi = 0;
    for (const [k, p] of Object.entries(r.probabilities!)) chi += ((r.counts[k] ?? 0) - shots * p) ** 2 / (shots * p);
    // 7 degrees of freedom: P(χ² > 29.9) ≈ 1e-4
    expect(chi).toBeLessThan(29.9);
    expect(Object.values(r.counts).reduce((a, b) => a + b, 0)).toBe(shots);
  });

  it('a circuit without clbits gives all shots under the empty key; shots 0 gives no counts', () => {
    const c = circuit(2, 0, [gate('h', [0])]);
    expect(simulate(c, { shots: 4, seed: 1 }).counts).toEqual({ '': 4 });
    expect(simulate(circuit(1, 1, [gate('h', [0]), measure(0, 0)]), { shots: 0, seed: 1 }).counts).toEqual({});
  });

  it('barriers are ignored; terminal measurement of the same qubit twice gives equal bits', () => {
    const c = circuit(1, 2, [gate('h', [0]), barrier([0]), measure(0, 0), measure(0, 1)]);
    const r = simulate(c, { shots: 1000, seed: 5 });
    expect(Object.keys(r.counts).every((k) => k === '00' || k === '11')).toBe(true);
    expect(r.probabilitiesKind).toBe('exact');
  });
});

describe('mid-circuit measurement and reset', () => {
  it('measure then flip on the outcome-correlated qubit gives correlated bits', () => {
    // h q0; measure q0→c0; cx q0,q1; measure q1→c1: c1 == c0 always
    const c = circuit(2, 2, [gate('h', [0]), measure(0, 0), gate('cx', [0, 1]), gate('h', [0]), measure(1, 1)]);
    const r = simulate(c, { shots: 4000, seed: 11 });
    expect(Object.keys(r.counts).sort()).toEqual(['00', '11']);
    expect(r.probabilitiesKind).toBe('estimated');
    expect(Math.abs(r.counts['00']! - 2000)).toBeLessThan(5 * Math.sqrt(1000));
  });

  it('mid-circuit measurement collapses superposition: H, measure, H gives 50/50 on the second readout', () => {
    const c = circuit(1, 2, [gate('h', [0]), measure(0, 0), gate('h', [0]), measure(0, 1)]);
    const r = simulate(c, { shots: 8000, seed: 3 });
    for (const k of ['00', '01', '10', '11']) expect(Math.abs((r.counts[k] ?? 0) - 2000)).toBeLessThan(5 * Math.sqrt(1500));
  });

  it('reset returns a qubit to |0⟩ and keeps its partner mixed', () => {
    const c = circuit(2, 2, [gate('h', [0]), gate('cx', [0, 1]), reset(0), measure(0, 0), measure(1, 1)]);
    const r = simulate(c, { shots: 4000, seed: 8 });
    expect(Object.keys(r.counts).sort()).toEqual(['00', '10']);
    expect(Math.abs(r.counts['00']! - 2000)).toBeLessThan(5 * Math.sqrt(1000));
  });

  it('a reset before any gate is a no-op and keeps the run exact', () => {
    const c = circuit(1, 1, [reset(0), gate('x', [0]), measure(0, 0)]);
    const r = simulate(c, { shots: 3, seed: 1 });
    expect(r.probabilitiesKind).toBe('exact');
    expect(r.counts).toEqual({ '1': 3 });
  });

  it('batches shots whose outcomes agree (few trajectories for many shots)', () => {
    const c = circuit(3, 3, [gate('h', [0]), measure(0, 0), gate('x', [1]), measure(1, 1), gate('h', [2]), measure(2, 2), gate('x', [2])]);
    const r = simulate(c, { shots: 100_000, seed: 2 });
    expect(r.stats.trajectories).toBeLessThanOrEqual(4);
    expect(Object.values(r.counts).reduce((a, b) => a + b, 0)).toBe(100_000);
  });

  it('finalState refuses a circuit with a mid-circuit measurement', () => {
    const c = circuit(1, 1, [gate('h', [0]), measure(0, 0), gate('h', [0])]);
    try {
      finalState(c);
      expect.unreachable();
    } catch (e) {
      expect(isAppError(e) && e.code).toBe('SIMULATION_NOT_UNITARY');
      expect(isAppError(e) && e.statusCode).toBe(422);
    }
    // Terminal measurements are fine.
    expect(finalState(circuit(1, 1, [gate('x', [0]), measure(0, 0)])).re[1]).toBe(1);
  });
});
