/**
 * The block kernels one by one, against matrices applied by plain loops written here:
 * the WebAssembly SIMD kernels (every target bit, including bit 0 where the pair sits
 * in one vector), the scalar JS fallback, composed X permutations, and op scheduling.
 */
import { describe, expect, it } from 'vitest';
import { makeKOp, pairSingleQubitOps } from '../../src/simulation/compile.js';
import { gateMatrix, matmul } from '../../src/simulation/gate-matrices.js';
import type { DenseMatrix } from '../../src/simulation/gate-matrices.js';
import type { KOp } from '../../src/simulation/kernels.js';
import { K_DH, K_MAT1, K_MAT1X2, K_PERM } from '../../src/simulation/kernels.js';
import { planUnitary, PlanRunner } from '../../src/simulation/plan.js';
import { scheduleOps } from '../../src/simulation/schedule.js';
import { Workspace } from '../../src/simulation/workspace.js';
import { lcg } from './textbook.js';

const rnd = lcg(2024);

function randomState(dim: number): [Float64Array, Float64Array] {
  const re = Float64Array.from({ length: dim }, () => rnd() * 2 - 1);
  const im = Float64Array.from({ length: dim }, () => rnd() * 2 - 1);
  return [re, im];
}

/** out = M applied to bits (bits[j] ↔ matrix bit j), by the definition ψ'(r) = Σ_c M[r][c] ψ(c). */
function applyDense(m: DenseMatrix, bits: readonly number[], re: Float64Array, im: Float64Array): [Float64Array, Float64Array] {
  const dim = re.length;
  const d = 1 << m.k;
  const ore = new Float64Array(dim);
  const oim = new Float64Array(dim);
  const local = (i: number): number => bits.reduce((a, b, j) => a | (((i >> b) & 1) << j), 0);
  const withLocal = (i: number, l: number): number => bits.reduce((a, b, j) => (a & ~(1 << b)) | (((l >> j) & 1) << b), i);
  for (let i = 0; i < dim; i++) {
    const r = local(i);
    for (let c = 0; c < d; c++) {
      const src = withLocal(i, c);
      const mr = m.re[r * d + c]!,
        mi = m.im[r * d + c]!;
      ore[i]! += mr * re[src]! - mi * im[src]!;
      oim[i]! += mr * im[src]! + mi * re[src]!;
    }
  }
  return [ore, oim];
}

function worstDiff(a: [Float64Array, Float64Array], re: Float64Array, im: Float64Array): number {
  let w = 0;
  for (let i = 0; i < re.length; i++) w = Math.max(w, Math.abs(a[0][i]! - re[i]!), Math.abs(a[1][i]! - im[i]!));
  return w;
}

/** Runs ops through a workspace over the whole state. */
function runOps(ws: Workspace, ops: readonly KOp[], re: Float64Array, im: Float64Array): void {
  ws.prepare(ops, re.length);
  ws.re.set(re);
  ws.im.set(im);
  ops.forEach((op, o) => ws.apply(op, o));
  re.set(ws.re);
  im.set(ws.im);
}

const fused = matmul(gateMatrix('rz', [0.9])!, matmul(gateMatrix('ry', [1.3])!, gateMatrix('h', [])!));
const singles: [string, DenseMatrix][] = [
  ['general 2×2', fused],
  ['h', gateMatrix('h', [])!],
  ['rz·h (H then a phase per row)', matmul(gateMatrix('rz', [0.7])!, gateMatrix('h', [])!)],
  ['rz (diagonal)', gateMatrix('rz', [0.7])!],
  ['x', gateMatrix('x', [])!],
  ['s (phase)', gateMatrix('s', [])!],
];

describe('block kernels match their matrices on every bit', () => {
  it('H followed by a diagonal gets the row-phased H kernel, a general 2×2 does not', () => {
    expect(makeKOp(singles[2]![1], [3]).kind).toBe(K_DH);
    expect(makeKOp(fused, [3]).kind).toBe(K_MAT1);
  });
  const n = 7;
  for (const wasm of [true, false]) {
    const ws = new Workspace(wasm);
    it(`${wasm ? 'WebAssembly SIMD' : 'scalar JS'} workspace is what was asked for`, () => {
      expect(ws.usesWasm).toBe(wasm);
    });
    for (const [name, m] of singles)
      it(`${name}, ${wasm ? 'wasm' : 'js'}`, () => {
        for (let t = 0; t < n; t++) {
          const [re, im] = randomState(1 << n);
          const want = applyDense(m, [t], re, im);
          runOps(ws, [makeKOp(m, [t])], re, im);
          expect(worstDiff(want, re, im)).toBeLessThan(1e-13);
        }
      });
    it(`paired single-qubit sweeps on every pair of bits, ${wasm ? 'wasm' : 'js'}`, () => {
      const a = gateMatrix('u', [0.4, 1.1, -0.6])!;
      for (let t = 0; t < n; t++)
        for (let u = 0; u < n; u++) {
          if (t === u) continue;
          const ops = pairSingleQubitOps([makeKOp(fused, [t]), makeKOp(a, [u])]);
          expect(ops.map((op) => op.kind)).toEqual([K_MAT1X2]);
          const [re, im] = randomState(1 << n);
          const want = applyDense(a, [u], ...applyDense(fused, [t], re, im));
          runOps(ws, ops, re, im);
          expect(worstDiff(want, re, im)).toBeLessThan(1e-13);
        }
    });
  }
});

describe('runs of controlled-X ops compose into one permutation', () => {
  const n = 8;
  const xGates: [string, number][] = [
    ['x', 1],
    ['cx', 2],
    ['ccx', 3],
    ['c3x', 4],
  ];
  for (const wasm of [true, false])
    it(`random X/CX/CCX/C3X runs equal their matrices, ${wasm ? 'wasm' : 'js'}`, () => {
      const ws = new Workspace(wasm);
      for (let trial = 0; trial < 40; trial++) {
        const len = 2 + Math.floor(rnd() * 12);
        const placed = [];
        const gates: [DenseMatrix, number[]][] = [];
        for (let g = 0; g < len; g++) {
          // Mostly single-control ops (affine composition), sometimes multi-controlled.
          const [name, k] = xGates[rnd() < 0.7 ? 1 : Math.floor(rnd() * 4)]!;
          const pool = Array.from({ length: n }, (_, i) => i);
          const bits = Array.from({ length: k }, () => pool.splice(Math.floor(rnd() * pool.length), 1)[0]!);
          const m = gateMatrix(name, [])!;
          gates.push([m, bits]);
          placed.push({ op: makeKOp(m, bits), mask: bits.reduce((a, b) => a | (1 << b), 0) });
        }
        const ops = scheduleOps(placed);
        expect(ops.map((o) => o.kind)).toEqual([K_PERM]);
        const [re, im] = randomState(1 << n);
        let want: [Float64Array, Float64Array] = [re.slice(), im.slice()];
        for (const [m, bits] of gates) want = applyDense(m, bits, ...want);
        runOps(ws, ops, re, im);
        expect(worstDiff(want, re, im)).toBe(0);
      }
    });

  it('an X run that is the identity (x·x) leaves the state unchanged', () => {
    const x = gateMatrix('x', [])!;
    for (const wasm of [true, false]) {
      const ops = scheduleOps([
        { op: makeKOp(x, [3]), mask: 8 },
        { op: makeKOp(x, [3]), mask: 8 },
      ]);
      const [re, im] = randomState(1 << 5);
      const want: [Float64Array, Float64Array] = [re.slice(), im.slice()];
      runOps(new Workspace(wasm), ops, re, im);
      expect(worstDiff(want, re, im)).toBe(0);
    }
  });
});

describe('scheduled, composed and wasm plans give the state of the gate-order JS plan', () => {
  const names = ['h', 'rz', 'x', 'cx', 'ccx', 'cz', 'u', 'swap', 'crz', 's', 'rxx'];
  for (const [n, L] of [
    [6, 6],
    [9, 6],
    [12, 8],
    [13, 13],
  ] as const)
    it(`random layered circuits, n = ${n}, blocks of ${L}`, () => {
      for (let trial = 0; trial < 4; trial++) {
        const items = [];
        for (let g = 0; g < 120; g++) {
          const name = names[Math.floor(rnd() * names.length)]!;
          const m = gateMatrix(name, name === 'u' ? [rnd(), rnd(), rnd()] : name === 'rz' || name === 'crz' || name === 'rxx' ? [rnd() * 6] : [])!;
          const pool = Array.from({ length: n }, (_, i) => i);
          const qubits = Array.from({ length: m.k }, () => pool.splice(Math.floor(rnd() * pool.length), 1)[0]!);
          items.push({ qubits, mat: m, gates: 1 });
        }
        const dim = 1 << n;
        const [re0, im0] = randomState(dim);
        const ref: [Float64Array, Float64Array] = [re0.slice(), im0.slice()];
        new PlanRunner(false).run(planUnitary(items, n, L, false), ref[0], ref[1], () => {});
        for (const wasm of [true, false]) {
          const re = re0.slice();
          const im = im0.slice();
          new PlanRunner(wasm).run(planUnitary(items, n, L, true), re, im, () => {});
          expect(worstDiff(ref, re, im)).toBeLessThan(1e-12);
        }
      }
    });
});

describe('a state held in wasm memory', () => {
  it('runs one-gate blocks in place on every qubit, as their matrices', () => {
    const n = 9;
    const dim = 1 << n;
    for (const [, m] of singles)
      for (let q = 0; q < n; q++) {
        const plan = planUnitary([{ qubits: [q], mat: m, gates: 1 }], n, 5);
        const runner = new PlanRunner();
        const st = runner.ws.allocState(dim, PlanRunner.bufferBytes(plan))!;
        expect(runner.ws.holds(st.re, st.im)).toBe(true);
        const [re0, im0] = randomState(dim);
        st.re.set(re0);
        st.im.set(im0);
        const want = applyDense(m, [q], re0, im0);
        runner.run(plan, st.re, st.im, () => {});
        expect(worstDiff(want, st.re, st.im)).toBeLessThan(1e-13);
      }
  });

  it('a reused workspace starts from |0…0⟩ again', () => {
    const runner = new PlanRunner();
    const a = runner.ws.allocState(64, 1 << 16)!;
    a.re.fill(0.5);
    a.im.fill(-0.5);
    const b = runner.ws.allocState(64, 1 << 16)!;
    expect(Array.from(b.re).every((x) => x === 0) && Array.from(b.im).every((x) => x === 0)).toBe(true);
  });
});
