/**
 * The checker of a parameterized optimization (src/optimization/symbolic-merge.ts), written apart
 * from it: it replays every `merge-rotation` step on the input's op list — the two ops named are
 * the same additive gate on the same wires, nothing between them touches those wires, and the
 * step's output is the sum of their parameters compared as affine forms (or, for non-affine
 * expressions, as the literal sum) — and then compares the replayed list with the output.
 * A replayed certificate is a proof for every binding: each step instantiates
 * G(a)·G(b) = G(a+b), an identity in a and b (tests/optimization/parameterized.test.ts checks
 * the rule family on matrices). Besides, `randomBindingsCheck` compares whole unitaries at a few
 * random bindings: evidence that is reported, never the proof.
 */
import type { Circuit, GateOp, Operation } from '../circuits/ir.js';
import { opQubits } from '../circuits/ir.js';
import { compileBinder } from '../circuits/parameters.js';
import { affineEqual, affineOf, formatParamExpr, numExpr, parseParamExpr, type ParamExpr } from '../circuits/param-expr.js';
import { unitaryEquivalent } from './unitary-equivalence.js';

/** G(a)·G(b) = G(a+b) exactly and G(0) = I: the one-parameter rotation and phase families (symmetric ones in either qubit order). */
const FAMILIES: ReadonlyMap<string, boolean> = new Map([
  ['rx', false],
  ['ry', false],
  ['rz', false],
  ['p', false],
  ['u1', false],
  ['crx', false],
  ['cry', false],
  ['crz', false],
  ['rxx', true],
  ['ryy', true],
  ['rzz', true],
  ['cp', true],
  ['cu1', true],
]);

export interface MergeStepInput {
  readonly rule: string;
  readonly positions: readonly number[];
  readonly gate: string;
  readonly qubits: readonly number[];
  readonly output: string | number | null;
}

const param = (op: GateOp): ParamExpr => op.exprs?.[0] ?? numExpr(op.params[0]!);

function sumMatches(a: ParamExpr, b: ParamExpr, out: string | number | null, declared: ReadonlySet<string>): boolean {
  const fa = affineOf(a);
  const fb = affineOf(b);
  let target: ParamExpr | null;
  if (out === null) target = null;
  else if (typeof out === 'number') target = numExpr(out);
  else {
    const r = parseParamExpr(out, declared);
    if (!r.ok) return false;
    target = r.expr;
  }
  if (fa !== null && fb !== null) {
    const terms = new Map(fa.terms);
    for (const [n, v] of fb.terms) terms.set(n, (terms.get(n) ?? 0) + v);
    for (const [n, v] of [...terms]) if (v === 0) terms.delete(n);
    const sum = { c0: fa.c0 + fb.c0, cpi: fa.cpi + fb.cpi, terms };
    if (target === null) return sum.c0 === 0 && sum.cpi === 0 && sum.terms.size === 0;
    const ft = affineOf(target);
    return ft !== null && affineEqual(ft, sum);
  }
  // Not affine: only the literal sum a + b is accepted.
  return target !== null && formatParamExpr(target) === formatParamExpr({ k: 'bin', op: '+', a, b });
}

/** True when every step replays and the replayed ops are the output's; otherwise the reason. */
export function checkSymbolicCertificate(before: Circuit, after: Circuit, steps: readonly MergeStepInput[]): true | string {
  const declared = new Set(before.parameters ?? []);
  const ops: Operation[] = [...before.ops];
  for (const [k, s] of steps.entries()) {
    const [i, j] = s.positions as [number, number];
    const a = ops[i];
    const b = ops[j];
    const symmetric = FAMILIES.get(s.gate);
    if (s.rule !== 'merge-rotation' || symmetric === undefined) return `step ${k}: not a rotation merge`;
    if (a?.kind !== 'gate' || b?.kind !== 'gate' || a.name !== s.gate || b.name !== s.gate || !(i < j)) return `step ${k}: the ops at ${i}, ${j} are not two ${s.gate} gates`;
    const same = a.qubits.every((q, x) => b.qubits[x] === q) || (symmetric && a.qubits.length === 2 && a.qubits[0] === b.qubits[1] && a.qubits[1] === b.qubits[0]);
    if (!same || a.qubits.length !== b.qubits.length) return `step ${k}: the two gates act on different wires`;
    const wires = new Set(a.qubits);
    for (let x = i + 1; x < j; x++) if (opQubits(ops[x]!).some((q) => wires.has(q))) return `step ${k}: op ${x} between them touches their wires`;
    if (!sumMatches(param(a), param(b), s.output, declared)) return `step ${k}: the output is not the sum of the two parameters`;
    const merged: Operation | null =
      s.output === null
        ? null
        : typeof s.output === 'number'
          ? { kind: 'gate', name: a.name, qubits: a.qubits, params: [s.output] }
          : { kind: 'gate', name: a.name, qubits: a.qubits, params: [Number.NaN], exprs: [(parseParamExpr(s.output, declared) as { expr: ParamExpr }).expr] };
    ops.splice(j, 1);
    if (merged === null) ops.splice(i, 1);
    else ops[i] = merged;
  }
  if (ops.length !== after.ops.length) return `the replayed circuit has ${ops.length} ops, the output ${after.ops.length}`;
  for (let x = 0; x < ops.length; x++) if (!sameOp(ops[x]!, after.ops[x]!)) return `op ${x} of the replayed circuit differs from the output`;
  return true;
}

function sameOp(a: Operation, b: Operation): boolean {
  if (a.kind !== b.kind || opQubits(a).join() !== opQubits(b).join()) return false;
  if (a.kind === 'measure' && b.kind === 'measure') return a.clbit === b.clbit;
  if (a.kind !== 'gate' || b.kind !== 'gate') return true;
  if (a.name !== b.name || a.params.length !== b.params.length) return false;
  return a.params.every((p, i) => {
    const ea = a.exprs?.[i] ?? null;
    const eb = b.exprs?.[i] ?? null;
    if (ea === null || eb === null) return ea === eb && p === b.params[i];
    return formatParamExpr(ea) === formatParamExpr(eb);
  });
}

/** Random bindings compared by whole unitaries (up to global phase), for circuits of at most `maxQubits` qubits. */
export function randomBindingsCheck(before: Circuit, after: Circuit, count: number, maxQubits = 10, random: () => number = Math.random): { bindings: number; equivalent: boolean | 'unknown' } {
  if (before.numQubits > maxQubits) return { bindings: 0, equivalent: 'unknown' };
  // only unitary circuits are compared: dropping a conditioned gate would compare something else
  if ([...before.ops, ...after.ops].some((o) => o.kind === 'conditioned')) return { bindings: 0, equivalent: 'unknown' };
  const ba = compileBinder(before);
  const bb = compileBinder(after);
  const strip = (c: Circuit): Circuit => ({ ...c, ops: c.ops.filter((o) => o.kind === 'gate') });
  for (let k = 0; k < count; k++) {
    const vs = Float64Array.from(ba.parameters, () => (random() * 2 - 1) * 4 * Math.PI);
    const r = unitaryEquivalent(strip(ba.bind(vs)), strip(bb.bind(vs)));
    if (r.equivalent !== true) return { bindings: k + 1, equivalent: r.equivalent === false ? false : 'unknown' };
  }
  return { bindings: count, equivalent: true };
}
