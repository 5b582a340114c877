import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { gate, opQubits, type Operation } from '../../src/circuits/ir.js';
import { Recorder } from '../../src/optimization/recorder.js';

/** The scan the wire index replaces: the first op from `from` on (or back) touching q. */
const scan = (ops: readonly Operation[], q: number, from: number, dir: 1 | -1): number => {
  for (let i = from; i >= 0 && i < ops.length; i += dir) if (opQubits(ops[i]!).includes(q)) return i;
  return -1;
};

describe('Recorder.nextOn / prevOn (per-wire index)', () => {
  it('find what a scan of the list finds, also after steps replace the list', () => {
    const op = fc.oneof(
      fc
        .tuple(fc.nat(4), fc.nat(4))
        .filter(([a, b]) => a !== b)
        .map(([a, b]) => gate('cx', [a, b])),
      fc.nat(4).map((a) => gate('h', [a])),
      fc.nat(4).map((a): Operation => ({ kind: 'measure', qubit: a, clbit: 0 })),
    );
    fc.assert(
      fc.property(fc.array(op, { minLength: 1, maxLength: 30 }), fc.array(fc.nat(29), { maxLength: 4 }), (ops, cuts) => {
        const rec = new Recorder(ops);
        const check = () => {
          for (let q = 0; q < 6; q++)
            for (let i = -1; i <= rec.ops.length; i++) {
              if (i >= 0) expect(rec.nextOn(q, i)).toBe(scan(rec.ops, q, i, 1));
              if (i < rec.ops.length) expect(rec.prevOn(q, i)).toBe(scan(rec.ops, q, i, -1));
            }
        };
        check();
        for (const c of cuts) {
          if (c >= rec.ops.length || rec.ops[c]!.kind !== 'gate') continue;
          rec.apply('drop-identity', [c], []);
          check();
        }
      }),
      { numRuns: 200 },
    );
  });
});
