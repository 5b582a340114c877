import { describe, expect, it } from 'vitest';
import { circuit, gate, measure, reset } from '../../src/circuits/ir.js';
import { basisChangeProblem, basisCircuit, estimateFromGroups, groupQubitWise } from '../../src/execution/pauli-groups.js';
import { exactExpectation, simulate } from '../../src/simulation/index.js';

/** Grouping, basis circuits and the shot estimate of src/execution/pauli-groups.ts (pure). */
describe('qubit-wise commuting groups and expectation from shots', () => {
  it('groups greedily in order; identity terms need no circuit', () => {
    const g = groupQubitWise([
      { pauli: 'ZZI', coeff: 0.5 },
      { pauli: 'XII', coeff: 1 },
      { pauli: 'IZZ', coeff: -1 },
      { pauli: 'III', coeff: 2 },
      { pauli: 'XIY', coeff: 0.25 },
      { pauli: 'IIZ', coeff: 1 },
    ]);
    expect(g.identity).toEqual([3]);
    // ZZI + IZZ + IIZ share the Z basis; XII + XIY share X?Y.
    expect(g.groups).toEqual([
      { basis: 'ZZZ', terms: [0, 2, 5] },
      { basis: 'XIY', terms: [1, 4] },
    ]);
    expect(
      groupQubitWise([
        { pauli: 'X', coeff: 1 },
        { pauli: 'Y', coeff: 1 },
        { pauli: 'Z', coeff: 1 },
      ]).groups,
    ).toHaveLength(3);
    expect(groupQubitWise([{ pauli: 'II', coeff: 1 }])).toEqual({ groups: [], identity: [0] });
  });

  it('basis circuits rotate X by H and Y by S† H, and measure qubit q into clbit q', () => {
    const c = circuit(3, 1, [gate('h', [0]), gate('cx', [0, 1]), measure(1, 0)]);
    const b = basisCircuit(c, 'XIY');
    expect(b.numClbits).toBe(3);
    expect(b.ops.map((op) => (op.kind === 'gate' ? `${op.name}${op.qubits.join(',')}` : op.kind === 'measure' ? `m${op.qubit}>${op.clbit}` : op.kind))).toEqual([
      'h0',
      'cx0,1',
      'sdg0',
      'h0',
      'h2',
      'm0>0',
      'm2>2',
    ]);
    expect(basisChangeProblem(c)).toBeNull();
    expect(basisChangeProblem(circuit(1, 1, [measure(0, 0), gate('x', [0])]))).toMatch(/mid-circuit/);
    expect(basisChangeProblem(circuit(1, 1, [reset(0)]))).toMatch(/reset/);
  });

  it('estimates within 4 standard errors of the exact value, with the error of theory for one term', () => {
    // A 3-qubit entangled state with some single-qubit rotations: every Pauli letter matters.
    const prep = circuit(3, 0, [gate('ry', [0], [0.7]), gate('cx', [0, 1]), gate('rx', [2], [1.1]), gate('cz', [1, 2]), gate('h', [1]), gate('s', [2])]);
    const terms = [
      { pauli: 'ZZI', coeff: 0.5 },
      { pauli: 'XIX', coeff: -0.8 },
      { pauli: 'IYZ', coeff: 1.3 },
      { pauli: 'III', coeff: 0.25 },
      { pauli: 'YXZ', coeff: 0.6 },
      { pauli: 'IIZ', coeff: -0.4 },
    ];
    const sv = simulate(prep, { shots: 1, seed: 1, returnStatevector: true }).statevector!;
    const exact = exactExpectation(Float64Array.from(sv.re), Float64Array.from(sv.im), terms);
    const grouping = groupQubitWise(terms);
    const shots = 4000;
    const counts = grouping.groups.map((g, i) => simulate(basisCircuit(prep, g.basis), { shots, seed: 100 + i }).counts);
    const est = estimateFromGroups(terms, grouping, counts);
    expect(est.kind).toBe('estimated');
    expect(est.terms[3]).toBe(0.25);
    expect(est.stderr).toBeGreaterThan(0);
    expect(Math.abs(est.value - exact.value)).toBeLessThan(4 * est.stderr!);
    terms.forEach((_, k) => expect(Math.abs(est.terms[k]! - exact.terms[k]!)).toBeLessThan(0.1));
    expect(est.groups.reduce((a, g) => a + g.shots, 0)).toBe(shots * grouping.groups.length);

    // One term ⟨Z⟩ of ry(θ)|0⟩: Var(±1) = 1 − cos²θ, so the standard error is sin θ / √shots.
    const theta = Math.PI / 3;
    const one = [{ pauli: 'Z', coeff: 1 }];
    const g1 = groupQubitWise(one);
    const c1 = simulate(basisCircuit(circuit(1, 0, [gate('ry', [0], [theta])]), 'Z'), { shots: 10_000, seed: 5 }).counts;
    const e1 = estimateFromGroups(one, g1, [c1]);
    expect(e1.stderr!).toBeCloseTo(Math.sin(theta) / 100, 3);
    expect(Math.abs(e1.value - Math.cos(theta))).toBeLessThan(4 * e1.stderr!);
  });

  it('includes the covariance of terms measured together', () => {
    // ZI + IZ on a Bell state: each shot gives ±2 together, never 0: variance 4, not 1 + 1.
    const bell = circuit(2, 0, [gate('h', [0]), gate('cx', [0, 1])]);
    const terms = [
      { pauli: 'ZI', coeff: 1 },
      { pauli: 'IZ', coeff: 1 },
    ];
    const g = groupQubitWise(terms);
    expect(g.groups).toHaveLength(1);
    const counts = simulate(basisCircuit(bell, g.groups[0]!.basis), { shots: 10_000, seed: 3 }).counts;
    const e = estimateFromGroups(terms, g, [counts]);
    expect(e.stderr!).toBeCloseTo(2 / 100, 3);
  });
});
