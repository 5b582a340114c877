/**
 * The WebAssembly SIMD kernels of the MPS split (mps-wasm.ts, eigen-wasm.ts) against the JS code they
 * replace: equal bit for bit (each output accumulated in the same order), so switching them on changes
 * no result. The products on even sizes (the bench's 128×64×128 included; odd sizes must decline), the
 * Hermitian eigen-solver (tridiagonalisation and back-transformation) on even and odd sizes, and a
 * whole truncating MPS run.
 */
import { describe, expect, it } from 'vitest';
import { adjointTimesJs, gramLowerJs, timesJs } from '../../src/simulation/mps/complex-kernels.js';
import { circuit, gate, measure, type Operation } from '../../src/circuits/ir.js';
import { hermitianEigen } from '../../src/simulation/mps/hermitian-eigen.js';
import { adjointTimesWasm, gramLowerWasm, timesWasm, useMpsWasm } from '../../src/simulation/mps/mps-wasm.js';
import { orthonormaliseColumns } from '../../src/simulation/mps/orthonormalise.js';
import { simulateMps } from '../../src/simulation/mps/simulate-mps.js';
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
    // Operands beyond the memory cap (here C alone is 2·2048² f64 = 64 MiB) are left to JS too.
    expect(timesWasm(2048, 2, 2048, a, b, a, b, a, b)).toBe(false);
  });

  it('the eigen-solver gives the same eigenpairs bit for bit with and without WebAssembly', () => {
    const rnd = lcg(5);
    for (const [m, n, kv] of [
      [128, 128, 64],
      [65, 70, 31],
      [40, 40, 40],
      [7, 9, 4],
      [3, 3, 2],
    ] as const) {
      // A Gram matrix with a decaying spectrum, like the MPS cuts'.
      const [tr, ti] = pair(rnd, m * n);
      for (let a = 0; a < m; a++)
        for (let c = 0; c < n; c++) {
          tr[a * n + c]! *= Math.exp(-a / 16);
          ti[a * n + c]! *= Math.exp(-a / 16);
        }
      const [gr, gi] = zeros(m * m);
      gramLowerJs(m, n, tr, ti, gr, gi);
      try {
        useMpsWasm(false);
        const js = hermitianEigen(m, gr.slice(), gi.slice(), kv, () => kv);
        useMpsWasm(true);
        const wasm = hermitianEigen(m, gr.slice(), gi.slice(), kv, () => kv);
        expect(wasm.vectors).toBe(kv);
        expect([wasm.values, wasm.re, wasm.im]).toEqual([js.values, js.re, js.im]);
      } finally {
        useMpsWasm(true);
      }
    }
  });

  it('Gram–Schmidt gives the same Q and R bit for bit with and without WebAssembly (dependent columns too)', () => {
    const rnd = lcg(6);
    for (const [m, q] of [
      [128, 64],
      [10, 7],
      [4, 6],
      [2, 2],
    ] as const) {
      const [re, im] = pair(rnd, m * q);
      // Column 3 (mod q) a combination of columns 0 and 1: it must come out zero on both paths.
      for (let i = 0; i < m; i++) {
        re[(3 % q) * m + i] = 2 * re[i]! - re[m + i]!;
        im[(3 % q) * m + i] = 2 * im[i]! - im[m + i]!;
      }
      const run = (on: boolean): Float64Array[] => {
        const out = [re.slice(), im.slice(), new Float64Array(q * q), new Float64Array(q * q)] as const;
        useMpsWasm(on);
        try {
          orthonormaliseColumns(m, q, out[0], out[1], out[2], out[3]);
        } finally {
          useMpsWasm(true);
        }
        return [...out];
      };
      expect(run(true)).toEqual(run(false));
    }
  });

  it('a truncating MPS run is the same with and without WebAssembly', () => {
    const rnd = lcg(9);
    const n = 24;
    const ops: Operation[] = [];
    for (let layer = 0; layer < 12; layer++) {
      for (let q = 0; q < n; q++) ops.push(gate('u3', [q], [rnd() * 3, rnd() * 3, rnd() * 3]));
      for (let q = layer % 2; q + 1 < n; q += 2) ops.push(gate('cx', [q, q + 1]));
    }
    const c = circuit(n, 3, [...ops, measure(0, 0), measure(11, 1), measure(23, 2)]);
    const run = (): unknown => {
      const r = simulateMps(c, { shots: 500, seed: 3, maxBondDimension: 16 });
      return [r.counts, r.probabilities, r.truncation];
    };
    try {
      useMpsWasm(false);
      const js = run();
      useMpsWasm(true);
      const wasm = run();
      expect((js as [unknown, unknown, { truncations: number }])[2].truncations).toBeGreaterThan(0);
      expect(wasm).toEqual(js);
    } finally {
      useMpsWasm(true);
    }
  });
});
