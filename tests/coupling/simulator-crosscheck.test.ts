import { describe, expect, it } from 'vitest';
import { circuit, gate, type GateOp } from '../../src/circuits/ir.js';
import { measureCoupling } from '../../src/coupling/measured.js';
import { allPairs } from '../../src/coupling/qualitative.js';
import { finalState } from '../../src/simulation/index.js';
import { tinyFinalState } from './tiny-sim.js';

/** The service's simulator and the naive test one must give the same coupling on random circuits. */
describe('coupling through the real simulator agrees with the naive test simulator', () => {
  it('random 5-qubit circuits of h, s, t, rx, ry, rz, cx, cz, swap, ch, ccx', async () => {
    let seed = 12345;
    const rnd = () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32;
    const n = 5;
    for (let trial = 0; trial < 15; trial++) {
      const ops: GateOp[] = [];
      for (let k = 0; k < 25; k++) {
        const q = [0, 1, 2, 3, 4].sort(() => rnd() - 0.5);
        const kind = Math.floor(rnd() * 11);
        const name = ['h', 's', 't', 'rx', 'ry', 'rz', 'cx', 'cz', 'swap', 'ch', 'ccx'][kind]!;
        const arity = kind >= 10 ? 3 : kind >= 6 ? 2 : 1;
        ops.push(gate(name, q.slice(0, arity), kind >= 3 && kind <= 5 ? [rnd() * 6.3 - 3.15] : []));
      }
      const c = circuit(n, 0, ops);
      const real = await measureCoupling(finalState(c), allPairs(n));
      const naive = await measureCoupling(tinyFinalState(c), allPairs(n));
      real.entropies_bits.forEach((s, q) => expect(s).toBeCloseTo(naive.entropies_bits[q]!, 8));
      real.pairs.forEach((p, k) => {
        expect(p.concurrence).toBeCloseTo(naive.pairs[k]!.concurrence, 6);
        expect(p.mutual_information_bits).toBeCloseTo(naive.pairs[k]!.mutual_information_bits, 8);
      });
    }
  });
});
