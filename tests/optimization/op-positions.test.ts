import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { gate, opQubits, type Operation } from '../../src/circuits/ir.js';
import { Recorder } from '../../src/optimization/recorder.js';
import { TagPositions } from '../../src/optimization/passes/tag-positions.js';

/** The scan the wire index replaces: the first op from `from` on (or back) touching q. */
const scan = (ops: readonly Operation[], q: number, from: number, dir: 1 | -1): number => {
  for (let i = from; i >= 0 && i < ops.length; i += dir) if (opQubits(ops[i]!).includes(q)) return i;
  return -1;
};

describe('Recorder.nextOn / prevOn (per-wire index)', () => {
  it('find what a scan of the list finds, also after steps replace the list', () => {
    const op = fc.oneof(
      fc
        .tuple(fc.nat(9), fc.nat(9))
        .filter(([a, b]) => a !== b)
        .map(([a, b]) => gate('cx', [a, b])),
      fc.nat(9).map((a) => gate('h', [a])),
      fc.nat(9).map((a): Operation => ({ kind: 'measure', qubit: a, clbit: 0 })),
    );
    fc.assert(
      fc.property(fc.array(op, { minLength: 1, maxLength: 200 }), fc.array(fc.nat(199), { maxLength: 4 }), (ops, cuts) => {
        const rec = new Recorder(ops);
        const check = () => {
          for (let q = 0; q < 11; q++)
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

describe('TagPositions (the phase-polynomial merge plan applied step by step)', () => {
  it('gives the positions a tag array mirroring the list gives, and the same list', () => {
    const action = fc.tuple(fc.constantFrom('remove', 'replace', 'drop', 'insert'), fc.nat(19));
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 20 }), fc.array(action, { maxLength: 25 }), (n, actions) => {
        const ops = Array.from({ length: n }, (_, i) => gate('t', [i % 3]));
        const list = new TagPositions(ops);
        // the model it replaces: current ops and their tags (-1 for gates put there by the pass)
        let cur: Operation[] = [...ops];
        let tags = ops.map((_, i) => i);
        for (const [kind, x] of actions) {
          if (kind === 'insert') {
            const g = gate('s', [x % 3]);
            let at = tags.findIndex((t) => t >= x);
            if (at < 0) at = tags.length;
            expect(list.insertBefore(x, g)).toBe(at);
            cur = [...cur.slice(0, at), g, ...cur.slice(at)];
            tags = [...tags.slice(0, at), -1, ...tags.slice(at)];
            continue;
          }
          const at = tags.indexOf(x);
          if (at < 0) continue;
          expect(list.pos(x)).toBe(at);
          const by = kind === 'replace' ? gate('z', [x % 3]) : undefined;
          if (kind === 'remove') list.remove(x);
          else list.replace(x, by);
          cur = [...cur.slice(0, at), ...(by ? [by] : []), ...cur.slice(at + 1)];
          tags = [...tags.slice(0, at), ...(by ? [-1] : []), ...tags.slice(at + 1)];
        }
        expect(list.toOps()).toEqual(cur);
      }),
      { numRuns: 300 },
    );
  });
});
