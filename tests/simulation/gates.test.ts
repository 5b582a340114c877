import { describe, expect, it } from 'vitest';
import { circuit, gate } from '../../src/circuits/ir.js';
import type { Operation } from '../../src/circuits/ir.js';
import { GATES } from '../../src/circuits/gates.js';
import { finalState } from '../../src/simulation/index.js';
import { embedTb, lcg, textbook } from './textbook.js';

const rev = (i: number, n: number): number => {
  let r = 0;
  for (let q = 0; q < n; q++) r |= ((i >> q) & 1) << (n - 1 - q);
  return r;
};

describe('every catalogue gate matches its reference matrix', () => {
  const rnd = lcg(42);
  for (const spec of GATES.values()) {
    it(`${spec.name} (${spec.arity} qubit(s), ${spec.params} param(s))`, () => {
      const n = Math.min(spec.arity + 2, 6);
      // Random distinct qubits in random order, so positions and order both matter.
      const pool = Array.from({ length: n }, (_, i) => i);
      for (let i = pool.length - 1; i > 0; i--) {
        const j = Math.floor(rnd() * (i + 1));
        [pool[i], pool[j]] = [pool[j]!, pool[i]!];
      }
      const qs = pool.slice(0, spec.arity);
      const params = Array.from({ length: spec.params }, () => (rnd() * 2 - 1) * 2 * Math.PI);
      const full = embedTb(textbook(spec.name, params), qs, n);
      let worst = 0;
      for (let input = 0; input < 1 << n; input++) {
        const ops: Operation[] = [];
        for (let q = 0; q < n; q++) if ((input >> q) & 1) ops.push(gate('x', [q]));
        ops.push(gate(spec.name, qs, params));
        const st = finalState(circuit(n, 0, ops));
        for (let out = 0; out < 1 << n; out++) {
          const e = full[rev(out, n)]![rev(input, n)]!;
          worst = Math.max(worst, Math.abs(st.re[out]! - e[0]), Math.abs(st.im[out]! - e[1]));
        }
      }
      expect(worst).toBeLessThan(1e-12);
    });
  }

  it('c4x equals its qelib1 decomposition (h, cu1, c3x, c3sqrtx) on every basis state', () => {
    const pi = Math.PI;
    const dec = [
      gate('h', [4]),
      gate('cu1', [3, 4], [pi / 2]),
      gate('h', [4]),
      gate('c3x', [0, 1, 2, 3]),
      gate('h', [4]),
      gate('cu1', [3, 4], [-pi / 2]),
      gate('h', [4]),
      gate('c3x', [0, 1, 2, 3]),
      gate('c3sqrtx', [0, 1, 2, 4]),
    ];
    for (let input = 0; input < 32; input++) {
      const prep: Operation[] = [];
      for (let q = 0; q < 5; q++) if ((input >> q) & 1) prep.push(gate('x', [q]));
      const a = finalState(circuit(5, 0, [...prep, gate('c4x', [0, 1, 2, 3, 4])]));
      const b = finalState(circuit(5, 0, [...prep, ...dec]));
      for (let i = 0; i < 32; i++) {
        expect(Math.abs(a.re[i]! - b.re[i]!)).toBeLessThan(1e-12);
        expect(Math.abs(a.im[i]! - b.im[i]!)).toBeLessThan(1e-12);
      }
    }
  });
});

describe('fused blocks give the same state as direct application', () => {
  const names = [...GATES.values()];
  for (const [n, block] of [
    [8, 5],
    [9, 5],
    [10, 6],
    [11, 7],
  ] as const) {
    it(`random circuits on ${n} qubits, blocks of ${block}`, () => {
      const rnd = lcg(n * 7919);
      for (let trial = 0; trial < 5; trial++) {
        const ops: Operation[] = [];
        for (let g = 0; g < 60; g++) {
          const spec = names[Math.floor(rnd() * names.length)]!;
          const pool = Array.from({ length: n }, (_, i) => i);
          const qs: number[] = [];
          for (let j = 0; j < spec.arity; j++) qs.push(pool.splice(Math.floor(rnd() * pool.length), 1)[0]!);
          ops.push(
            gate(
              spec.name,
              qs,
              Array.from({ length: spec.params }, () => rnd() * 6),
            ),
          );
        }
        const c = circuit(n, 0, ops);
        const direct = finalState(c, { blockQubits: 20 });
        const blocked = finalState(c, { blockQubits: block });
        let worst = 0;
        for (let i = 0; i < 1 << n; i++) worst = Math.max(worst, Math.abs(direct.re[i]! - blocked.re[i]!), Math.abs(direct.im[i]! - blocked.im[i]!));
        expect(worst).toBeLessThan(1e-12);
        let norm = 0;
        for (let i = 0; i < 1 << n; i++) norm += blocked.re[i]! ** 2 + blocked.im[i]! ** 2;
        expect(Math.abs(norm - 1)).toBeLessThan(1e-12);
      }
    });
  }
});
