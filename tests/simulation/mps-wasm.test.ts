/**
 * The WebAssembly SIMD products of the MPS split (mps-wasm.ts) against the JS kernels they replace:
 * equal bit for bit (each output accumulated in the same order), so switching them on changes no
 * result. Even sizes, including the bench's 128×64×128; odd sizes must decline and leave it to JS.
 */
import { describe, expect, it } from 'vitest';
import { adjointTimesJs, gramLowerJs, timesJs } from '../../src/simulation/mps/complex-kernels.js';
import { adjointTimesWasm, gramLowerWasm, timesWasm } from '../../src/simulation/mps/mps-wasm.js';
import { lcg } from './textbook.js';

const SIZES: readonly (readonly [number, number, number])[] = [
  [2, 2, 2],
  [4, 6, 8],
  [8, 2, 12],
  [64, 64, 128],
  [128, 64, 128],
];

function pair(rnd: () => number, n: number): [Float64Array, Float64Array] {
  return [Float64Array.from({ length: n }, () => rnd() - 0.5), Float64Array.from({ length: n }, () => rnd() - 0.5)];
}
const zeros = (n: number): [Float64Array, Float64Array] => [new Float64Array(n), new Float64Array(n)];

describe('MPS WebAssembly products', () => {
  it('A·B, U†θ and the Gram lower triangle equal the JS kernels bit for bit', () => {
    const rnd = lcg(11);
    for (const [m, p, q] of SIZES) {
      const [ar, ai] = pair(rnd, m * p);
      const [br, bi] = pair(rnd, p * q);
      const [tr, ti] = pair(rnd, m * q);
      const w = zeros(m * q);
      const j = zeros(m * q);
      expect(timesWasm(m, p, q, ar, ai, br, bi, w[0], w[1])).toBe(true);
      timesJs(m, p, q, ar, ai, br, bi, j[0], j[1]);
      expect(w).toEqual(j);
      const rw = zeros(p * q);
      const rj = zeros(p * q);
      expect(adjointTimesWasm(m, p, q, ar, ai, tr, ti, rw[0], rw[1])).toBe(true);
      adjointTimesJs(m, p, q, ar, ai, tr, ti, rj[0], rj[1]);
      expect(rw).toEqual(rj);
      const gw = zeros(m * m);
      const gj = zeros(m * m);
      const totalW = gramLowerWasm(m, q, tr, ti, gw[0], gw[1]);
      expect(totalW).toBe(gramLowerJs(m, q, tr, ti, gj[0], gj[1]));
      expect(gw).toEqual(gj);
      expect(Number.isFinite(totalW) && totalW! > 0).toBe(true);
    }
  });

  it('declines odd sizes (the JS kernels handle them)', () => {
    const [a, b] = zeros(15);
    expect(timesWasm(3, 5, 1, a, b, a, b, a, b)).toBe(false);
    expect(adjointTimesWasm(4, 3, 2, a, b, a, b, a, b)).toBe(false);
    expect(gramLowerWasm(3, 5, a, b, a, b)).toBeNull();
  });
});
