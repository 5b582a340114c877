import { describe, expect, it } from 'vitest';
import { estimatedExpectation, pauliExpectation } from '../../src/simulation/observables.js';
import { memoryFromCounts, registerKey } from '../../src/simulation/workload.js';

describe('Pauli observables, memory and register keys', () => {
  it('the rightmost Pauli character acts on qubit 0; Y follows Y|0⟩ = i|1⟩', () => {
    // |q1 q0⟩ = |01⟩: qubit 0 is 1 (index 1).
    const re = Float64Array.from([0, 1, 0, 0]);
    const im = new Float64Array(4);
    expect(pauliExpectation(re, im, 'IZ')).toBe(-1);
    expect(pauliExpectation(re, im, 'ZI')).toBe(1);
    // (|0⟩ + i|1⟩)/√2 on one qubit: ⟨Y⟩ = 1, ⟨X⟩ = 0.
    const s = Math.SQRT1_2;
    expect(pauliExpectation(Float64Array.from([s, 0]), Float64Array.from([0, s]), 'Y')).toBeCloseTo(1, 15);
    expect(pauliExpectation(Float64Array.from([s, 0]), Float64Array.from([0, s]), 'X')).toBeCloseTo(0, 15);
  });

  it('estimates ⟨H⟩ of Z strings from counts with a standard error', () => {
    const counts = { '00': 500, '11': 500 };
    const zz = estimatedExpectation(counts, [{ pauli: 'ZZ', coeff: 1 }], [0, 1]);
    expect(zz).toMatchObject({ value: 1, stderr: 0, kind: 'estimated' });
    const zi = estimatedExpectation(counts, [{ pauli: 'ZI', coeff: 2 }], [0, 1]);
    expect(zi.value).toBe(0);
    // Per-shot values ±2, mean 0: sample sd = 2·√(1000/999), stderr = sd/√1000.
    expect(zi.stderr).toBeCloseTo((2 * Math.sqrt(1000 / 999)) / Math.sqrt(1000), 12);
  });

  it('memory is a permutation of the counts; register keys put the last register leftmost', () => {
    const counts = { '001': 3, '110': 5, '111': 1 };
    const m = memoryFromCounts(counts, 42);
    const hist: Record<string, number> = {};
    for (const k of m) hist[k] = (hist[k] ?? 0) + 1;
    expect(hist).toEqual(counts);
    expect(memoryFromCounts(counts, 42)).toEqual(m);
    expect(
      registerKey('100', [
        { name: 'a', size: 1 },
        { name: 'b', size: 2 },
      ]),
    ).toBe('10 0');
    expect(registerKey('100', undefined)).toBe('100');
  });
});
