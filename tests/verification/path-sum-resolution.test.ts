import { describe, expect, it } from 'vitest';
import { circuit, gate, type Operation } from '../../src/circuits/ir.js';
import { pathSumEquivalent } from '../../src/verification/path-sum-equivalence.js';
import { BudgetExceeded, Phase } from '../../src/verification/path-sum/polynomials.js';

// Product-formula circuits (Nam et al.'s pf1_n) rotate by ~1e-10 rad, i.e. ~1.6e-11 turns: below the
// 1e-10-turn tolerance the checker once rounded coefficients with (docs/decisions/verification-path-sum-phase-resolution.md).
const g = (name: string, qubits: number[], params: number[] = []): Operation => gate(name, qubits, params);
const c = (n: number, ops: Operation[]) => circuit(n, 0, ops);
const TINY = 1e-10;

/** e^{-iθ/2·Z⊗Z} on (a, b) as the CNOT sandwich the published circuits use. */
const zz = (a: number, b: number, theta: number): Operation[] => [g('cx', [a, b]), g('rz', [b], [theta]), g('cx', [a, b])];
/** The same on X⊗X: the H-sandwiched form, whose phases meet path variables. */
const xx = (a: number, b: number, theta: number): Operation[] => [g('h', [a]), g('h', [b]), ...zz(a, b, theta), g('h', [a]), g('h', [b])];

describe('path sum: phases of ~1e-10 rad', () => {
  it('proves ten tiny rotations on one parity equal to their merged rotation', () => {
    // Each of A's terms was rounded to zero, B's merged one (1.6e-10 turns) kept: a false refutation.
    const a = c(3, [...Array.from({ length: 10 }, () => zz(0, 1, TINY)).flat(), ...xx(1, 2, TINY), ...xx(1, 2, TINY)]);
    const b = c(3, [...zz(0, 1, 10 * TINY), ...xx(1, 2, 2 * TINY)]);
    const r = pathSumEquivalent(a, b);
    expect(r.reason).toBeUndefined();
    expect(r.equivalent).toBe(true);
  });

  it('proves a merge whose doubles differ only by rounding', () => {
    const [u, v] = [1.234567e-10, 9.87654321e-11];
    const a = c(2, [...xx(0, 1, u), ...xx(0, 1, v)]);
    expect(pathSumEquivalent(a, c(2, xx(0, 1, u + v))).equivalent).toBe(true);
  });

  it('tells two different tiny rotations apart under a tolerance finer than their difference', () => {
    // 1e-10 and 2e-10 rad were both rounded to nothing, so they looked equal at any tolerance.
    const r = pathSumEquivalent(c(2, zz(0, 1, TINY)), c(2, zz(0, 1, 2 * TINY)), { epsilon: 1e-12 });
    expect(r.equivalent).toBe(false);
    expect(r.reason).toMatch(/phases .* turns apart/);
  });

  it('refutes a tiny rotation changed by more than the proof tolerance', () => {
    const r = pathSumEquivalent(c(2, zz(0, 1, TINY)), c(2, zz(0, 1, TINY + 1e-8)));
    expect(r.equivalent).toBe(false);
  });

  it('does not prove a dropped tiny rotation inside a Hadamard sandwich', () => {
    // The residual phase sits on path variables, where no rule may round it away.
    const r = pathSumEquivalent(c(2, [...xx(0, 1, TINY), ...zz(0, 1, TINY)]), c(2, zz(0, 1, TINY)));
    expect(r.equivalent).not.toBe(true);
  });

  it('leaves undecided tiny differences that may add up beyond the tolerance', () => {
    // each phase difference alone is within 1e-9, their sum over eight qubits is not
    const a = c(
      8,
      Array.from({ length: 8 }, (_, q) => g('rz', [q], [4e-10])),
    );
    const r = pathSumEquivalent(a, c(8, []));
    expect(r.equivalent).toBe('unknown');
  });
});

describe('path sum: the clock', () => {
  it('is read inside polynomial work, not only between gates and rules', () => {
    // one substitution into a grown phase can take seconds: Phase itself stops at its deadline
    const late = new Phase(1e9, Date.now() - 1);
    expect(() => late.charge(1)).toThrow(BudgetExceeded);
    expect(() => {
      for (let i = 0; i < 5000; i++) late.add([i], 0.125);
    }).toThrow(/time budget ran out/);
    const open = new Phase(1e9);
    for (let i = 0; i < 5000; i++) open.add([i], 0.125);
    expect(open.terms.size).toBe(5000);
  });
});
