/**
 * The matrix-product-state method against the state-vector engine: exact (no truncation) up to 20
 * qubits, probabilities and expectation values within 1e-9, gates on distant qubits included (swap
 * networks); with truncation, the reported fidelity bound ∏(1 − discarded weight) against the exact
 * overlap |⟨ψ_sv|ψ_mps⟩|²; the one-sided Jacobi SVD reconstructs random complex matrices.
 */
import { describe, expect, it } from 'vitest';
import { circuit, gate, measure, type Operation } from '../../src/circuits/ir.js';
import { finalState, simulate } from '../../src/simulation/index.js';
import { gateMatrix } from '../../src/simulation/gate-matrices.js';
import { svd } from '../../src/simulation/mps/jacobi-svd.js';
import { Mps } from '../../src/simulation/mps/mps-state.js';
import { simulateMps } from '../../src/simulation/mps/simulate-mps.js';
import { lcg } from './textbook.js';

const G1 = ['h', 'x', 'y', 's', 't', 'sx'];
const G2 = ['cx', 'cz', 'swap', 'cy', 'ch', 'crz', 'rzz', 'cp'];

function randomOps(n: number, gates: number, rnd: () => number, local: boolean): Operation[] {
  const ops: Operation[] = [];
  for (let i = 0; i < gates; i++) {
    const a = Math.floor(rnd() * n);
    let b = local ? (a + 1) % n : Math.floor(rnd() * (n - 1));
    if (!local && b >= a) b++;
    const r = rnd();
    if (r < 0.35 || n === 1) ops.push(gate(G1[Math.floor(rnd() * G1.length)]!, [a]));
    else if (r < 0.5) ops.push(gate(['rx', 'ry', 'rz'][Math.floor(rnd() * 3)]!, [a], [rnd() * 6 - 3]));
    else {
      const g = G2[Math.floor(rnd() * G2.length)]!;
      ops.push(gate(g, [a, b], g === 'crz' || g === 'rzz' || g === 'cp' ? [rnd() * 6 - 3] : []));
    }
  }
  return ops;
}

describe('one-sided Jacobi SVD', () => {
  it('reconstructs random complex matrices (tall, wide, rank-deficient) with orthonormal factors', () => {
    const rnd = lcg(3);
    for (const [m, n] of [
      [6, 4],
      [4, 6],
      [8, 8],
      [1, 5],
    ] as const) {
      const re = Float64Array.from({ length: m * n }, () => rnd() - 0.5);
      const im = Float64Array.from({ length: m * n }, () => rnd() - 0.5);
      // A repeated row: rank-deficient.
      if (m === 8) {
        re.copyWithin(7 * n, 0, n);
        im.copyWithin(7 * n, 0, n);
      }
      const d = svd(m, n, re, im);
      for (let i = 0; i < m; i++)
        for (let j = 0; j < n; j++) {
          let sr = 0;
          let si = 0;
          for (let k = 0; k < d.k; k++) {
            const ur = d.ure[i * d.k + k]! * d.s[k]!;
            const ui = d.uim[i * d.k + k]! * d.s[k]!;
            sr += ur * d.vhre[k * n + j]! - ui * d.vhim[k * n + j]!;
            si += ur * d.vhim[k * n + j]! + ui * d.vhre[k * n + j]!;
          }
          expect(Math.abs(sr - re[i * n + j]!)).toBeLessThan(1e-12);
          expect(Math.abs(si - im[i * n + j]!)).toBeLessThan(1e-12);
        }
      for (let k = 1; k < d.k; k++) expect(d.s[k]!).toBeLessThanOrEqual(d.s[k - 1]!);
    }
  });
});

describe('matrix-product-state method', () => {
  it('without truncation matches the state vector up to 20 qubits (probabilities and expectations, 1e-9)', () => {
    const rnd = lcg(100);
    for (const [n, local] of [
      [2, false],
      [5, false],
      [8, false],
      [11, true],
      [14, false],
      [20, true],
    ] as const) {
      const ops = randomOps(n, n <= 14 ? 6 * n : 60, rnd, local);
      const c = circuit(n, n, [...ops, ...Array.from({ length: n }, (_, q) => measure(q, q))]);
      const observables = Array.from({ length: 3 }, () => ({ pauli: Array.from({ length: n }, () => 'IXYZ'[Math.floor(rnd() * 4)]!).join(''), coeff: 1 }));
      const sv = simulate(c, { shots: 0, seed: 1, observables });
      const mps = simulateMps(c, { shots: 50, seed: 1, observables });
      expect(mps.truncation.fidelityLowerBound).toBe(1);
      expect(mps.probabilitiesKind).toBe('exact');
      const keys = new Set([...Object.keys(sv.probabilities!), ...Object.keys(mps.probabilities!)]);
      for (const k of keys) expect(Math.abs((sv.probabilities![k] ?? 0) - (mps.probabilities![k] ?? 0)), `${n} ${k}`).toBeLessThan(1e-9);
      mps.expectation!.terms.forEach((v, i) => expect(Math.abs(v - sv.expectation!.terms[i]!)).toBeLessThan(1e-9));
    }
  });

  it('is exact when only some qubits are measured (the others traced out in the distribution walk)', () => {
    const rnd = lcg(21);
    for (const [n, measured] of [
      [7, [1, 4]],
      [10, [0, 5, 9]],
      [12, [11, 3, 6, 2]],
    ] as const) {
      const ops = randomOps(n, 8 * n, rnd, n === 10);
      const c = circuit(n, measured.length, [...ops, ...measured.map((q, k) => measure(q, k))]);
      const sv = simulate(c, { shots: 0, seed: 1 });
      const mps = simulateMps(c, { shots: 10, seed: 1 });
      expect(mps.probabilitiesKind).toBe('exact');
      const keys = new Set([...Object.keys(sv.probabilities!), ...Object.keys(mps.probabilities!)]);
      expect(keys.size).toBeGreaterThan(1);
      for (const k of keys) expect(Math.abs((sv.probabilities![k] ?? 0) - (mps.probabilities![k] ?? 0)), `${n} ${k}`).toBeLessThan(1e-9);
    }
  });

  it('with truncation, the reported fidelity lower bound holds against the exact overlap', () => {
    const rnd = lcg(8);
    let truncated = 0;
    for (let t = 0; t < 8; t++) {
      const n = 10;
      const ops = randomOps(n, 120, rnd, t % 2 === 0);
      const exact = finalState(circuit(n, 0, ops));
      const mps = new Mps(n, { maxBond: 2 + (t % 2), threshold: t >= 4 ? 1e-3 : 0 });
      for (const op of ops) {
        if (op.kind !== 'gate') continue;
        const m = gateMatrix(op.name, op.params)!;
        if (op.qubits.length === 1) mps.apply1(op.qubits[0]!, m);
        else mps.apply2(op.qubits[0]!, op.qubits[1]!, m);
      }
      const v = mps.toStatevector();
      let or = 0;
      let oi = 0;
      for (let i = 0; i < v.re.length; i++) {
        or += exact.re[i]! * v.re[i]! + exact.im[i]! * v.im[i]!;
        oi += exact.re[i]! * v.im[i]! - exact.im[i]! * v.re[i]!;
      }
      const overlap = or * or + oi * oi;
      if (mps.fidelity < 1) truncated++;
      expect(overlap).toBeGreaterThanOrEqual(mps.fidelityLowerBound() - 1e-9);
      expect(mps.fidelityLowerBound()).toBeLessThanOrEqual(mps.fidelity + 1e-12);
    }
    expect(truncated).toBeGreaterThanOrEqual(6);
  });

  it('runs a 100-qubit GHZ and a 100-qubit nearest-neighbour circuit, reporting the bond dimension', () => {
    const n = 100;
    const ghz: Operation[] = [gate('h', [0])];
    for (let q = 1; q < n; q++) ghz.push(gate('cx', [q - 1, q]));
    const r = simulateMps(circuit(n, 3, [...ghz, measure(0, 0), measure(50, 1), measure(99, 2)]), { shots: 200, seed: 2 });
    expect(Object.keys(r.counts).sort()).toEqual(['000', '111']);
    expect(r.probabilities).toEqual({ '000': expect.closeTo(0.5, 12), '111': expect.closeTo(0.5, 12) });
    expect(r.truncation.maxBondDimensionReached).toBe(2);
    const nn = simulateMps(circuit(n, 4, [...randomOps(n, 600, lcg(1), true), measure(0, 0), measure(1, 1), measure(50, 2), measure(99, 3)]), { shots: 100, seed: 3, maxBondDimension: 8 });
    expect(nn.truncation.maxBondDimensionReached).toBeLessThanOrEqual(8);
    expect(Object.values(nn.counts).reduce((a, b) => a + b, 0)).toBe(100);
  });
});
