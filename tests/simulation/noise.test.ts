import { describe, expect, it } from 'vitest';
import { circuit, gate, measure } from '../../src/circuits/ir.js';
import type { Operation } from '../../src/circuits/ir.js';
import { customNoise, depolarizingForError, noiseFromCalibration, relaxationParams, simulate } from '../../src/simulation/index.js';
import type { CalibrationRecord, NoiseModel } from '../../src/simulation/index.js';

/** |observed − expected| within 5 standard deviations of a binomial proportion. */
function expectProportion(count: number, shots: number, p: number): void {
  const sigma = Math.sqrt(Math.max(p * (1 - p), 1e-12) / shots);
  expect(Math.abs(count / shots - p)).toBeLessThan(5 * sigma + 1e-12);
}

const SHOTS = 100_000;

describe('noise channels against analytic expectations', () => {
  it('1-qubit depolarizing: after X, P(0) = p/2; after 10 noisy gates, P(1) = 1/2 + (1-p)^10/2', () => {
    const p = 0.08;
    const noise = customNoise({ depolarizing1q: p });
    const one = simulate(circuit(1, 1, [gate('x', [0]), measure(0, 0)]), { shots: SHOTS, seed: 1, noise });
    expectProportion(one.counts['0'] ?? 0, SHOTS, p / 2);
    const ops: Operation[] = [gate('x', [0])];
    for (let i = 0; i < 9; i++) ops.push(gate('id', [0]));
    const ten = simulate(circuit(1, 1, [...ops, measure(0, 0)]), { shots: SHOTS, seed: 2, noise });
    expectProportion(ten.counts['1'] ?? 0, SHOTS, 0.5 + (1 - p) ** 10 / 2);
  });

  it('2-qubit depolarizing: after CX on |00⟩, P(00) = 1 − 3p/4', () => {
    const p = 0.2;
    const r = simulate(circuit(2, 2, [gate('cx', [0, 1]), measure(0, 0), measure(1, 1)]), {
      shots: SHOTS,
      seed: 3,
      noise: customNoise({ depolarizing2q: p }),
    });
    expectProportion(r.counts['00'] ?? 0, SHOTS, 1 - (3 * p) / 4);
    // The other three outcomes are equally likely (p/4 each).
    for (const k of ['01', '10', '11']) expectProportion(r.counts[k] ?? 0, SHOTS, p / 4);
  });

  it('amplitude damping: |1⟩ survives with probability (1-γ)^m after m noisy gates', () => {
    const g = 0.1;
    const noise = customNoise({ amplitudeDamping: g });
    const ops: Operation[] = [gate('x', [0]), gate('id', [0]), gate('id', [0])];
    const r = simulate(circuit(1, 1, [...ops, measure(0, 0)]), { shots: SHOTS, seed: 4, noise });
    expectProportion(r.counts['1'] ?? 0, SHOTS, (1 - g) ** 3);
  });

  it('amplitude damping of a superposition is state-dependent: H then damping then H', () => {
    // After H: ρ = |+⟩⟨+|; damping γ gives ρ00 = (1+γ)/2, ρ01 = √(1-γ)/2; the second H is also
    // followed by damping: P(0) = ½ + ½·√(1-γ) + ... computed exactly below from the channel.
    const g = 0.3;
    const ad = (r: number[]): number[] => {
      // r = [ρ00, ρ11, Re ρ01]
      return [r[0]! + g * r[1]!, (1 - g) * r[1]!, Math.sqrt(1 - g) * r[2]!];
    };
    const h = (r: number[]): number[] => [0.5 + r[2]!, 0.5 - r[2]!, (r[0]! - r[1]!) / 2];
    const final = ad(h(ad(h([1, 0, 0]))));
    const res = simulate(circuit(1, 1, [gate('h', [0]), gate('h', [0]), measure(0, 0)]), {
      shots: SHOTS,
      seed: 5,
      noise: customNoise({ amplitudeDamping: g }),
    });
    expectProportion(res.counts['0'] ?? 0, SHOTS, final[0]!);
  });

  it('phase damping: H, damping λ, H gives P(0) = (1 + √(1-λ))/2', () => {
    const l = 0.36;
    const r = simulate(circuit(1, 1, [gate('h', [0]), gate('h', [0]), measure(0, 0)]), {
      shots: SHOTS,
      seed: 6,
      noise: customNoise({ phaseDamping: l }),
    });
    expectProportion(r.counts['0'] ?? 0, SHOTS, (1 + Math.sqrt(1 - l)) / 2);
  });

  it('readout error flips reported bits with the given probabilities', () => {
    const noise = customNoise({ readout: [0.1, 0.25] });
    const zero = simulate(circuit(1, 1, [gate('id', [0]), measure(0, 0)]), { shots: SHOTS, seed: 7, noise });
    expectProportion(zero.counts['1'] ?? 0, SHOTS, 0.1);
    const one = simulate(circuit(1, 1, [gate('x', [0]), measure(0, 0)]), { shots: SHOTS, seed: 8, noise });
    expectProportion(one.counts['0'] ?? 0, SHOTS, 0.25);
    expect(one.probabilitiesKind).toBe('estimated');
  });
});

const CAL: CalibrationRecord = {
  t1_us: 20,
  t2_us: 15,
  gate_time_1q_ns: 200,
  gate_time_2q_ns: 400,
  error_1q: 0.02,
  error_2q: { '0-1': 0.05 },
  readout_error: [
    [0.01, 0.03],
    [0.02, 0.04],
  ],
};

describe('noise from a calibration record', () => {
  it('relaxation parameters follow T1 and T2', () => {
    const { gamma, lambda } = relaxationParams(20, 15, 200);
    expect(gamma).toBeCloseTo(1 - Math.exp(-0.2 / 20), 14);
    // coherence √(1-γ)·√(1-λ) = e^{-t/T2}
    expect(Math.sqrt(1 - gamma) * Math.sqrt(1 - lambda)).toBeCloseTo(Math.exp(-0.2 / 15), 14);
    // T2 > 2·T1 is clamped to 2·T1: no pure dephasing left.
    expect(relaxationParams(10, 50, 100).lambda).toBeCloseTo(0, 14);
  });

  it('depolarizing alone: p = 2r for one qubit, 4r/3 for two', () => {
    expect(depolarizingForError(0.01, 2)).toBeCloseTo(0.02, 14);
    expect(depolarizingForError(0.03, 4)).toBeCloseTo(0.04, 14);
  });

  it('the calibrated channel of a 1-qubit gate has average fidelity 1 − error_1q (6-state average)', () => {
    const cal = noiseFromCalibration(CAL);
    // Noise only on the gate under test (rx(0)); preparation and un-preparation are ideal.
    const only: NoiseModel = { afterGate: (n, q) => (n === 'rx' ? cal.afterGate(n, q) : []), readout: () => [0, 0] };
    const preps: [Operation[], Operation[]][] = [
      [[], []],
      [[gate('x', [0])], [gate('x', [0])]],
      [[gate('h', [0])], [gate('h', [0])]],
      [
        [gate('x', [0]), gate('h', [0])],
        [gate('h', [0]), gate('x', [0])],
      ],
      [
        [gate('h', [0]), gate('s', [0])],
        [gate('sdg', [0]), gate('h', [0])],
      ],
      [
        [gate('h', [0]), gate('sdg', [0])],
        [gate('s', [0]), gate('h', [0])],
      ],
    ];
    const shots = 200_000;
    let f = 0;
    preps.forEach(([pre, post], i) => {
      const r = simulate(circuit(1, 1, [...pre, gate('rx', [0], [0]), ...post, measure(0, 0)]), { shots, seed: 10 + i, noise: only });
      f += (r.counts['0'] ?? 0) / shots / preps.length;
    });
    // σ of the mean ≈ √(0.02·0.98/200000)/√6 ≈ 1.3e-4
    expect(Math.abs(f - (1 - 0.02))).toBeLessThan(8e-4);
  });

  it('channels per gate: relaxation on each qubit, then depolarizing; id gets relaxation only', () => {
    const cal = noiseFromCalibration(CAL);
    const kinds = (name: string, qs: number[]): string[] => cal.afterGate(name, qs).map((c) => c.kind);
    expect(kinds('x', [0])).toEqual(['amplitude_damping', 'phase_damping', 'depolarizing']);
    expect(kinds('id', [1])).toEqual(['amplitude_damping', 'phase_damping']);
    expect(kinds('cx', [1, 0])).toEqual(['amplitude_damping', 'phase_damping', 'amplitude_damping', 'phase_damping', 'depolarizing']);
    expect(cal.readout(1)).toEqual([0.02, 0.04]);
  });

  it('an emulated-device run of a Bell circuit is mostly 00/11, seeded and repeatable', () => {
    const noise = noiseFromCalibration(CAL);
    const c = circuit(2, 2, [gate('h', [0]), gate('cx', [0, 1]), measure(0, 0), measure(1, 1)]);
    const a = simulate(c, { shots: 20_000, seed: 42, noise });
    const b = simulate(c, { shots: 20_000, seed: 42, noise });
    expect(a.counts).toEqual(b.counts);
    const good = (a.counts['00'] ?? 0) + (a.counts['11'] ?? 0);
    expect(good / 20_000).toBeGreaterThan(0.85);
    expect(good / 20_000).toBeLessThan(0.99);
    expect(a.probabilitiesKind).toBe('estimated');
    expect(a.stats.trajectories).toBeLessThan(2000);
  });
});
