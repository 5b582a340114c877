import { g } from '../gate-info.js';
import type { Recorder } from '../recorder.js';
import { tryRewrite } from './gather.js';

const cxOf = (rec: Recorder, i: number): [number, number] | undefined => {
  const o = rec.ops[i];
  return o && o.kind === 'gate' && o.name === 'cx' ? (o.qubits as [number, number]) : undefined;
};

/**
 * Template rewrites over CNOT triples that save a gate (aggressive profile):
 * CX(a,b) CX(b,c) CX(a,b) → CX(b,c) CX(a,c) and CX(b,c) CX(a,b) CX(b,c) → CX(a,b) CX(a,c).
 * Partners are found through commuting gates; the checker re-checks the gathering.
 */
export function applyTemplates(rec: Recorder): number {
  let n = 0;
  for (let i = 0; i < rec.ops.length && !rec.stopped(); i++) {
    const x = cxOf(rec, i);
    if (!x) continue;
    const [a, b] = x;
    // next gate touching b (through commuting ones on a)
    for (const shared of [b, a]) {
      const j = rec.nextOn(shared, i + 1);
      const y = cxOf(rec, j);
      if (!y) continue;
      let out: ReturnType<typeof g>[] | undefined;
      let rule = '';
      let k = -1;
      if (shared === b && y[0] === b && y[1] !== a) {
        // CX(a,b) CX(b,c) CX(a,b)
        const c = y[1];
        k = rec.nextOn(b, j + 1);
        const z = cxOf(rec, k);
        if (z && z[0] === a && z[1] === b) {
          out = [g('cx', [b, c]), g('cx', [a, c])];
          rule = 'template:cx-chain-shortcut';
        }
      } else if (shared === a && y[1] === a && y[0] !== b) {
        // CX(a,b) = CX(b',c') with b'=a: CX(b,c) CX(a,b) CX(b,c) read with (b,c) = (a,b), a = y[0]
        const aa = y[0];
        k = rec.nextOn(a, j + 1);
        const z = cxOf(rec, k);
        if (z && z[0] === a && z[1] === b) {
          out = [g('cx', [aa, a]), g('cx', [aa, b])];
          rule = 'template:cx-fanout-shortcut';
        }
      }
      if (out && tryRewrite(rec, rule, [i, j, k], out)) {
        n++;
        break;
      }
    }
  }
  return n;
}
