import type { GateOp } from '../../circuits/ir.js';
import { phaseGate, phaseOf, isZeroAngle, normAngle, PI } from '../gate-info.js';
import type { Recorder } from '../recorder.js';

export const PHASE_POLYNOMIAL_RULE = 'global:phase-polynomial';

/**
 * Rotation merging over phase polynomials (Nam, Ross, Su, Childs, Maslov 2018, §4.3),
 * in its path-sum form: every wire carries an affine parity of path variables
 * (CNOT, X and SWAP transform parities; any other non-diagonal gate starts fresh
 * variables on its qubits). A one-qubit phase rotation contributes θ·f to the circuit's
 * phase function, where f is its wire's parity at that point; the phase function does not
 * depend on where a term sits, so all rotations on one parity merge into one. Not a
 * local rule: justified by whole-circuit equivalence (see docs/optimizer.md).
 */
export function mergePhasePolynomial(rec: Recorder, place: 'first' | 'last' = 'first'): number {
  const n = Math.max(0, ...rec.ops.map((o) => (o.kind === 'gate' || o.kind === 'barrier' ? Math.max(...o.qubits) : o.qubit))) + 1;
  const lin: bigint[] = [];
  const cst: boolean[] = [];
  let nextVar = 0;
  const fresh = (q: number) => {
    lin[q] = 1n << BigInt(nextVar++);
    cst[q] = false;
  };
  for (let q = 0; q < n; q++) fresh(q);

  interface Term { idx: number[]; signs: number[]; sum: number; lin: bigint; seg: number; changed: boolean }
  const classes: Term[] = [];
  let table = new Map<string, Term>();
  const segments: Map<string, Term>[] = [table];
  rec.ops.forEach((op, i) => {
    if (op.kind !== 'gate') {
      table = new Map();
      segments.push(table);
      const qs = op.kind === 'barrier' ? op.qubits : [op.qubit];
      qs.forEach(fresh);
      return;
    }
    const a = phaseOf(op);
    if (a !== undefined) {
      const q = op.qubits[0]!;
      const key = lin[q]!.toString(36);
      const sign = cst[q] ? -1 : 1;
      let t = table.get(key);
      if (!t) {
        t = { idx: [], signs: [], sum: 0, lin: lin[q]!, seg: segments.length - 1, changed: false };
        table.set(key, t);
        classes.push(t);
      }
      t.idx.push(i);
      t.signs.push(sign);
      t.sum += sign * a;
      return;
    }
    const [c, d] = op.qubits as [number, number];
    switch (op.name) {
      case 'cx':
        lin[d] = lin[d]! ^ lin[c]!;
        cst[d] = cst[d] !== cst[c];
        return;
      case 'x':
        cst[c] = !cst[c];
        return;
      case 'swap': {
        const l = lin[c]!;
        const k = cst[c]!;
        lin[c] = lin[d]!;
        cst[c] = cst[d]!;
        lin[d] = l;
        cst[d] = k;
        return;
      }
      case 'cz': case 'ccz': case 'crz': case 'cp': case 'cu1': case 'rzz': case 'id':
        return; // diagonal: wire values unchanged
      default:
        op.qubits.forEach(fresh);
    }
  });

  for (const seg of segments) absorbControlledZ(seg);

  // apply: a tag array mirrors the op list so members are found after earlier splices
  let tags = rec.ops.map((_, i) => i);
  const apply = (rule: string, positions: number[], inserted: GateOp[]) => {
    rec.apply(rule, positions, inserted);
    const removed = new Set(positions);
    const next: number[] = [];
    for (let i = 0; i < tags.length; i++) {
      if (i === positions[0]) for (let k = 0; k < inserted.length; k++) next.push(-1);
      if (!removed.has(i)) next.push(tags[i]!);
    }
    tags = next;
  };
  let changes = 0;
  for (const t of classes) {
    if (rec.stopped()) break;
    if (t.idx.length < 2 && !t.changed) continue;
    const keepAt = place === 'first' ? 0 : t.idx.length - 1;
    const keepTag = t.idx[keepAt]!;
    const keepOp = rec.ops[tags.indexOf(keepTag)] as GateOp;
    const others = t.idx.filter((_, k) => k !== keepAt).map((tag) => tags.indexOf(tag)).sort((x, y) => x - y);
    if (others.length) apply(PHASE_POLYNOMIAL_RULE, others, []);
    const pos = tags.indexOf(keepTag);
    const total = normAngle(t.sum * t.signs[keepAt]!);
    const merged = isZeroAngle(total) ? undefined : phaseGate(keepOp.qubits[0]!, total);
    apply(PHASE_POLYNOMIAL_RULE, [pos], merged ? [merged] : []);
    changes++;
  }
  return changes;
}

interface Coef { sum: number; lin: bigint; changed: boolean }
const Q = PI / 4;
const near = (a: number, b: number) => Math.abs(normAngle(a - b)) < 1e-9;

/**
 * Clifford correction absorption: the terms (π/2)(g + h − g⊕h) equal π·g·h (a CZ between
 * parities), and (π/2)(f − f⊕g − f⊕h + f⊕g⊕h) ≡ π·g·h (mod 2π) for any parity f. So a CZ
 * left over by merging (typically from compute/uncompute Toffoli pairs) vanishes when four
 * π/4 terms on f, f⊕g, f⊕h, f⊕g⊕h flip sign: three rotations and a CNOT pair fewer, same T-count.
 */
function absorbControlledZ(table: Map<string, Coef>): void {
  const key = (l: bigint) => l.toString(36);
  const terms = [...table.values()];
  for (const a of terms) {
    if (!(near(a.sum, PI / 2) || near(a.sum, -PI / 2))) continue;
    for (const b of terms) {
      if (b === a || !near(b.sum, a.sum)) continue;
      const c = table.get(key(a.lin ^ b.lin));
      if (!c || !near(c.sum, -a.sum)) continue;
      let done = false;
      for (const f of terms) {
        if (!(near(f.sum, Q) || near(f.sum, -Q))) continue;
        const fa = table.get(key(f.lin ^ a.lin));
        const fb = table.get(key(f.lin ^ b.lin));
        const fab = table.get(key(f.lin ^ a.lin ^ b.lin));
        if (!fa || !fb || !fab || new Set([f, fa, fb, fab, a, b, c]).size !== 7) continue;
        if (!(near(fa.sum, -f.sum) && near(fb.sum, -f.sum) && near(fab.sum, f.sum))) continue;
        for (const t of [f, fa, fb, fab]) {
          t.sum = -t.sum;
          t.changed = true;
        }
        for (const t of [a, b, c]) {
          t.sum = 0;
          t.changed = true;
        }
        done = true;
        break;
      }
      if (done) break;
    }
  }
}
