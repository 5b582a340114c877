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

  interface Term { idx: number[]; signs: number[]; sum: number; lin: bigint; seg: number; changed: boolean; slot?: { at: number; q: number; cst: boolean } }
  const classes: Term[] = [];
  let table = new Map<string, Term>();
  let virtual = new Map<string, Term>();
  const segments: Map<string, Term>[] = [table];
  const virtuals: Map<string, Term>[] = [virtual];
  /** Wire points whose parity has no rotation yet: a rotation could be created there. */
  const slot = (at: number, q: number) => {
    const key = lin[q]!.toString(36);
    if (!virtual.has(key)) virtual.set(key, { idx: [], signs: [], sum: 0, lin: lin[q]!, seg: segments.length - 1, changed: false, slot: { at, q, cst: cst[q]! } });
  };
  for (let q = 0; q < n; q++) slot(0, q);
  rec.ops.forEach((op, i) => {
    if (op.kind !== 'gate') {
      table = new Map();
      virtual = new Map();
      segments.push(table);
      virtuals.push(virtual);
      const qs = op.kind === 'barrier' ? op.qubits : [op.qubit];
      qs.forEach(fresh);
      for (let q = 0; q < n; q++) slot(i + 1, q);
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
        slot(i + 1, d);
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
        op.qubits.forEach((q) => slot(i + 1, q));
    }
  });

  segments.forEach((seg, k) => {
    const virt = virtuals[k]!;
    for (const key of seg.keys()) virt.delete(key);
    absorbControlledZ(seg, virt);
    for (const [key, t] of virt) if (t.changed && !isZeroAngle(t.sum)) { seg.set(key, t); classes.push(t); }
  });

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
    if (t.idx.length === 0) {
      const sl = t.slot!;
      const gate = phaseGate(sl.q, normAngle(sl.cst ? -t.sum : t.sum));
      if (!gate) continue;
      let at = tags.findIndex((x) => x >= sl.at);
      if (at < 0) at = tags.length;
      rec.move(PHASE_POLYNOMIAL_RULE, [], [gate], at);
      const next = [...tags];
      next.splice(at, 0, -1);
      tags = next;
      changes++;
      continue;
    }
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

/**
 * Weight patterns w on the 7 nonzero vectors v of F₂³ (indexed 1..7) with
 * Σ w_v·(v·x) ≡ 0 (mod 4) for every x: adding (π/2)·w to the seven terms of a 3-dimensional
 * parity subspace leaves the phase function unchanged mod 2π (and the T-count too).
 */
const PATTERNS: readonly (readonly number[])[] = (() => {
  const out: number[][] = [];
  for (let m = 0; m < 128; m++) {
    const w = [...Array(7).keys()].map((i) => ((m >> i) & 1 ? -1 : 1));
    let ok = true;
    for (let x = 1; x < 8 && ok; x++) {
      let s = 0;
      for (let v = 1; v < 8; v++) {
        let dot = 0;
        for (let b = 0; b < 3; b++) dot ^= ((v >> b) & 1) & ((x >> b) & 1);
        if (dot) s += w[v - 1]!;
      }
      ok = ((s % 4) + 4) % 4 === 0;
    }
    if (ok) out.push(w);
  }
  return out;
})();

const zero = (a: number) => Math.abs(normAngle(a)) < 1e-9;

/**
 * Clifford-term absorption: Clifford phase terms (multiples of π/2) left over by merging —
 * typically the controlled-Z of compute/uncompute Toffoli pairs — are cancelled by adding a
 * zero-sum pattern (π/2)·w over a 3-dimensional parity subspace whose seven parities all
 * have a rotation somewhere. Each move lowers the number of nonzero terms; T-count is kept.
 */
function absorbControlledZ(table: Map<string, Coef>, virtual: Map<string, Coef>): void {
  const key = (l: bigint) => l.toString(36);
  const look = (l: bigint) => table.get(key(l)) ?? virtual.get(key(l));
  const terms = [...table.values()];
  const nz = (a: number) => (zero(a) ? 0 : 1);
  for (let guard = 0; guard < 200; guard++) {
    let improved = false;
    const cliff = terms.filter((t) => !zero(t.sum) && zero(4 * t.sum));
    outer: for (const a of cliff) {
      for (const b of terms) {
        if (b === a) continue;
        const ab = look(a.lin ^ b.lin);
        if (!ab) continue;
        for (const c of terms) {
          if (c === a || c === b || c === ab) continue;
          const ac = look(a.lin ^ c.lin);
          const bc = look(b.lin ^ c.lin);
          const abc = look(a.lin ^ b.lin ^ c.lin);
          if (!ac || !bc || !abc) continue;
          // index v = bits (a=1, b=2, c=4)
          const set = [a, b, ab, c, ac, bc, abc];
          if (new Set(set).size !== 7) continue;
          const before = set.reduce((n, t) => n + nz(t.sum), 0);
          let best: readonly number[] | undefined;
          let bestCount = before;
          for (const w of PATTERNS) {
            const count = set.reduce((n, t, i) => n + nz(t.sum + (PI / 2) * w[i]!), 0);
            if (count < bestCount) {
              bestCount = count;
              best = w;
            }
          }
          if (best) {
            set.forEach((t, i) => {
              t.sum = normAngle(t.sum + (PI / 2) * best![i]!);
              t.changed = true;
            });
            improved = true;
            break outer;
          }
        }
      }
    }
    if (!improved) break;
  }
}
