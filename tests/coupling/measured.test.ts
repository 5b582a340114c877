import { describe, expect, it } from 'vitest';
import { measureCoupling } from '../../src/coupling/measured.js';
import { concurrence } from '../../src/coupling/measures.js';
import { pairStateByDefinition, reducedStates, type Pair } from '../../src/coupling/reduced-states.js';
import { bell, fromAmplitudes, ghz, product, randomState, wState } from './states.js';

const allPairs = (n: number): Pair[] => {
  const out: Pair[] = [];
  for (let a = 0; a < n; a++) for (let b = a + 1; b < n; b++) out.push([a, b]);
  return out;
};

describe('measured coupling: known values', () => {
  it('Bell: C = 1, S = 1 per qubit, I = 2 bits', async () => {
    const m = await measureCoupling(bell(), [[0, 1]]);
    expect(m.entropies_bits).toEqual([1, 1]);
    expect(m.pairs[0]!.concurrence).toBeCloseTo(1, 9);
    expect(m.pairs[0]!.mutual_information_bits).toBeCloseTo(2, 9);
    expect(m.pairs[0]!.pair_entropy_bits).toBe(0);
  });

  it('GHZ₃: every pair C = 0, I = 1 bit, S = 1', async () => {
    const m = await measureCoupling(ghz(3), allPairs(3));
    expect(m.entropies_bits).toEqual([1, 1, 1]);
    expect(m.pairs).toHaveLength(3);
    for (const p of m.pairs) {
      expect(p.concurrence).toBe(0);
      expect(p.mutual_information_bits).toBeCloseTo(1, 9);
    }
  });

  it('W₃: C = 2/3 for every pair, S ≈ 0.918', async () => {
    const m = await measureCoupling(wState(3), allPairs(3));
    const s = -(1 / 3) * Math.log2(1 / 3) - (2 / 3) * Math.log2(2 / 3);
    for (const e of m.entropies_bits) expect(e).toBeCloseTo(s, 9);
    expect(s).toBeCloseTo(0.918, 3);
    for (const p of m.pairs) {
      expect(p.concurrence).toBeCloseTo(2 / 3, 7);
      // S(AB) = S(C) for a pure 3-qubit state, so I = S(A) + S(B) − S(C) = S.
      expect(p.mutual_information_bits).toBeCloseTo(s, 9);
    }
  });

  it('product states: all zero', async () => {
    const c = Math.cos(0.3),
      s = Math.sin(0.3);
    const st = product([
      [
        [1, 0],
        [0, 0],
      ],
      [
        [Math.SQRT1_2, 0],
        [0, Math.SQRT1_2],
      ],
      [
        [c, 0],
        [s * Math.cos(1.1), s * Math.sin(1.1)],
      ],
      [
        [0, 0],
        [0, 1],
      ],
    ]);
    const m = await measureCoupling(st, allPairs(4));
    expect(m.entropies_bits).toEqual([0, 0, 0, 0]);
    for (const p of m.pairs) {
      expect(p.concurrence).toBe(0);
      expect(p.mutual_information_bits).toBe(0);
      expect(p.pair_entropy_bits).toBe(0);
    }
  });

  it('pure two-qubit states: C = 2|ad − bc| (closed form)', async () => {
    for (let seed = 1; seed <= 20; seed++) {
      const st = randomState(2, seed);
      const [a, b, c, d] = [0, 1, 2, 3].map((i) => [st.re[i]!, st.im[i]!] as const);
      const det = [a![0] * d![0] - a![1] * d![1] - (b![0] * c![0] - b![1] * c![1]), a![0] * d![1] + a![1] * d![0] - (b![0] * c![1] + b![1] * c![0])];
      const expected = 2 * Math.hypot(det[0]!, det[1]!);
      const m = await measureCoupling(st, [[0, 1]]);
      expect(m.pairs[0]!.concurrence).toBeCloseTo(expected, 7);
      // Pure 2-qubit: S(A) = S(B), I = 2 S(A).
      expect(m.pairs[0]!.mutual_information_bits).toBeCloseTo(2 * m.entropies_bits[0]!, 8);
    }
  });

  it('Bell pair embedded with spectators and a complex phase', async () => {
    // (|00⟩ + i|11⟩)/√2 on qubits 1 and 3 of 4, qubits 0 and 2 in |+⟩ and |1⟩.
    const amps: Record<number, [number, number]> = {};
    for (const q0 of [0, 1]) {
      amps[q0 | 4] = [0.5, 0];
      amps[q0 | 4 | 2 | 8] = [0, 0.5];
    }
    const m = await measureCoupling(fromAmplitudes(4, amps), [
      [3, 1],
      [0, 2],
      [0, 1],
    ]);
    expect(m.pairs.map((p) => p.qubits)).toEqual([
      [1, 3],
      [0, 2],
      [0, 1],
    ]);
    expect(m.pairs[0]!.concurrence).toBeCloseTo(1, 7);
    expect(m.pairs[0]!.mutual_information_bits).toBeCloseTo(2, 9);
    expect(m.pairs[1]!.concurrence).toBe(0);
    expect(m.pairs[2]!.mutual_information_bits).toBe(0);
  });

  it('Werner-like mixed pair: C = 0 below the separability bound, > 0 above', () => {
    // ρ = p|Φ+⟩⟨Φ+| + (1 − p) I/4 is entangled iff p > 1/3, with C = (3p − 1)/2.
    for (const p of [0.2, 1 / 3, 0.5, 0.9]) {
      const re = new Float64Array(16);
      const im = new Float64Array(16);
      for (let i = 0; i < 4; i++) re[i * 4 + i] = (1 - p) / 4;
      re[0] = re[0]! + p / 2;
      re[15] = re[15]! + p / 2;
      re[3] = p / 2;
      re[12] = p / 2;
      expect(concurrence({ n: 4, re, im })).toBeCloseTo(Math.max(0, (3 * p - 1) / 2), 7);
    }
  });
});

describe('reduced states: the folded passes agree with the definition', () => {
  it('every pair of random 6-qubit states', async () => {
    for (const seed of [3, 17, 99]) {
      const st = randomState(6, seed);
      const pairs = allPairs(6).concat([
        [5, 0],
        [2, 1],
      ]);
      const rs = await reducedStates(st, pairs);
      pairs.forEach(([x, y], k) => {
        const ref = pairStateByDefinition(st, Math.min(x, y), Math.max(x, y));
        for (let i = 0; i < 16; i++) {
          expect(rs.pairs[k]!.re[i]).toBeCloseTo(ref.re[i]!, 12);
          expect(rs.pairs[k]!.im[i]).toBeCloseTo(ref.im[i]!, 12);
        }
      });
    }
  });

  it('every tile width (pairs inside a tile, straddling tiles, above the tile) gives the same matrices', async () => {
    const st = randomState(7, 5);
    const pairs = allPairs(7).concat([
      [6, 2],
      [3, 1],
    ]);
    for (const tileBits of [0, 1, 2, 3, 5, 7, 13]) {
      const rs = await reducedStates(st, pairs, () => undefined, tileBits);
      pairs.forEach(([x, y], k) => {
        const ref = pairStateByDefinition(st, Math.min(x, y), Math.max(x, y));
        for (let i = 0; i < 16; i++) {
          expect(rs.pairs[k]!.re[i]).toBeCloseTo(ref.re[i]!, 12);
          expect(rs.pairs[k]!.im[i]).toBeCloseTo(ref.im[i]!, 12);
        }
      });
    }
  });

  it('mutual information is symmetric, non-negative and at most 2 S_min; concurrence ≤ 1', async () => {
    const st = randomState(5, 7);
    const m = await measureCoupling(st, allPairs(5));
    for (const p of m.pairs) {
      expect(p.mutual_information_bits).toBeGreaterThanOrEqual(0);
      expect(p.mutual_information_bits).toBeLessThanOrEqual(2 * Math.min(m.entropies_bits[p.qubits[0]]!, m.entropies_bits[p.qubits[1]]!) + 1e-9);
      expect(p.concurrence).toBeGreaterThanOrEqual(0);
      expect(p.concurrence).toBeLessThanOrEqual(1);
    }
    const swapped = await measureCoupling(
      st,
      allPairs(5).map(([a, b]) => [b, a] as const),
    );
    expect(swapped.pairs).toEqual(m.pairs);
  });
});
