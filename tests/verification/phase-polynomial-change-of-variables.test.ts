import { describe, expect, it } from 'vitest';
import { circuit, gate, type GateOp } from '../../src/circuits/ir.js';
import { phasePolynomialDistance } from '../../src/verification/phase-polynomial-rule.js';
import { unitaryEquivalent } from '../../src/verification/unitary-equivalence.js';

const g = (name: string, qubits: number[]): GateOp => gate(name, qubits);
const equal = (a: readonly GateOp[], b: readonly GateOp[], n: number) => unitaryEquivalent(circuit(n, 0, a), circuit(n, 0, b), { maxQubits: 8, timeBudgetMs: 5_000 }).equivalent;

describe('resynth-phase-polynomial across a change of path variables', () => {
  // CX(a,t)·H(t) = H(t)·CZ(a,t): a CNOT pair around an H-sandwich cancels when the middle commutes with CZ
  const lhs = [g('cx', [0, 1]), g('h', [1]), g('t', [1]), g('t', [0]), g('h', [1]), g('cx', [0, 1])];
  const rhs = [g('h', [1]), g('t', [1]), g('t', [0]), g('h', [1])];

  it('proves the H-sandwiched CNOT pair cancellation', () => {
    expect(equal(lhs, rhs, 2)).toBe(true);
    expect(phasePolynomialDistance(lhs, rhs)).toBeLessThan(1e-12);
    expect(phasePolynomialDistance(rhs, lhs)).toBeLessThan(1e-12);
  });

  it('refuses the same shapes when they differ', () => {
    const wrongPhase = [g('h', [1]), g('tdg', [1]), g('t', [0]), g('h', [1])];
    const oneCx = [g('cx', [0, 1]), g('h', [1]), g('t', [1]), g('t', [0]), g('h', [1])];
    for (const other of [wrongPhase, oneCx]) {
      expect(equal(lhs, other, 2)).toBe(false);
      expect(phasePolynomialDistance(lhs, other)).toBe(Infinity);
    }
  });

  it('never accepts a pair the whole unitary refutes (random H/CX/T/S lists with as many H)', () => {
    let seed = 12345;
    const rand = (k: number) => {
      seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
      return (seed >>> 8) % k;
    };
    const names = ['cx', 'h', 't', 'tdg', 's', 'cx', 'x', 'cz'];
    const random = (n: number, len: number): GateOp[] =>
      Array.from({ length: len }, () => {
        const name = names[rand(names.length)]!;
        const a = rand(n);
        const b = (a + 1 + rand(n - 1)) % n;
        return name === 'cx' || name === 'cz' ? g(name, [a, b]) : g(name, [a]);
      });
    let accepted = 0;
    for (let i = 0; i < 1500; i++) {
      const a = random(3, 8);
      // B: A with one gate removed and one CX inserted somewhere, or A's H-skeleton shuffled
      const b = a.filter((_, k) => k !== rand(a.length));
      b.splice(rand(b.length + 1), 0, g('cx', [rand(3), (rand(2) + 1) % 3]).qubits[0] === 0 ? g('cx', [0, 1 + rand(2)]) : g('cx', [1 + rand(2), 0]));
      // a CX pair around part of A: equal exactly when the part commutes with it (the pass's case)
      const [i0, i1] = [rand(a.length + 1), rand(a.length + 1)].sort((u, v) => u - v) as [number, number];
      const c0 = rand(3);
      const cx = g('cx', [c0, (c0 + 1 + rand(2)) % 3]);
      const paired = [...a.slice(0, i0), cx, ...a.slice(i0, i1), cx, ...a.slice(i1)];
      for (const [x, y] of [
        [a, b],
        [a, [...a.slice(1), a[0]!]],
        [paired, a],
      ] as const) {
        if (phasePolynomialDistance(x, y) < Infinity) {
          accepted++;
          expect(equal(x, y, 3)).toBe(true);
        }
      }
    }
    expect(accepted).toBeGreaterThan(0);
  });
});
