import type { Operation } from '../../circuits/ir.js';
import { phaseGate, phaseOf, qubitsOf } from '../gate-info.js';
import type { Recorder } from '../recorder.js';
import { PHASE_POLYNOMIAL_RULE } from './phase-polynomial.js';
import { TaggedMoves } from './tagged-move.js';

interface Parity { lin: bigint; cst: boolean; seg: number }
interface Point extends Parity { at: number; q: number }

const keyOf = (p: Parity) => `${p.seg}:${p.lin.toString(36)}`;

/** Affine parity of every wire point, the control parity before each CNOT, and each phase gate's parity. */
function scan(ops: readonly Operation[]): { points: Map<string, Point[]>; control: Map<number, Parity>; phase: Map<number, Parity>; tPoints: Map<number, Point[]> } {
  const n = Math.max(0, ...ops.map((o) => Math.max(...qubitsOf(o)))) + 1;
  const lin: bigint[] = [];
  const cst: boolean[] = [];
  let v = 0;
  let seg = 0;
  const fresh = (q: number) => { lin[q] = 1n << BigInt(v++); cst[q] = false; };
  const points = new Map<string, Point[]>();
  const tPoints = new Map<number, Point[]>();
  const add = (at: number, q: number) => {
    const p: Point = { at, q, lin: lin[q]!, cst: cst[q]!, seg };
    const k = keyOf(p);
    const list = points.get(k);
    if (list) list.push(p);
    else points.set(k, [p]);
    const byQ = tPoints.get(q);
    if (byQ) byQ.push(p);
    else tPoints.set(q, [p]);
  };
  for (let q = 0; q < n; q++) { fresh(q); add(0, q); }
  const control = new Map<number, Parity>();
  const phase = new Map<number, Parity>();
  ops.forEach((op, i) => {
    if (op.kind !== 'gate') {
      seg++;
      qubitsOf(op).forEach(fresh);
      for (let q = 0; q < n; q++) add(i + 1, q);
      return;
    }
    const [c, d] = op.qubits as [number, number];
    if (phaseOf(op) !== undefined) {
      phase.set(i, { lin: lin[c]!, cst: cst[c]!, seg });
      return;
    }
    switch (op.name) {
      case 'cx':
        control.set(i, { lin: lin[c]!, cst: cst[c]!, seg });
        lin[d] = lin[d]! ^ lin[c]!;
        cst[d] = cst[d] !== cst[c];
        break;
      case 'x': cst[c] = !cst[c]; break;
      case 'swap': { const l = lin[c]!; const k = cst[c]!; lin[c] = lin[d]!; cst[c] = cst[d]!; lin[d] = l; cst[d] = k; break; }
      case 'cz': case 'ccz': case 'crz': case 'cp': case 'cu1': case 'rzz': case 'id': break;
      default: op.qubits.forEach(fresh);
    }
    for (const q of op.qubits) add(i + 1, q);
  });
  return { points, control, phase, tPoints };
}

type Plan = { from: number; at: number; q: number; negate: boolean }[];

/**
 * Where the phase gates on t between CNOTs i and j can go once both CNOTs are removed:
 * each needs a wire point (anywhere in its segment) carrying its original parity. Points
 * on t strictly inside the pair carry the parity shifted by the control parity P.
 */
function planMoves(s: ReturnType<typeof scan>, i: number, j: number, t: number, P: Parity, phases: readonly number[]): Plan | undefined {
  const inside = (p: Point) => p.q === t && p.at > i && p.at <= j;
  const shifted = (s.tPoints.get(t) ?? []).filter(inside).map((p) => ({ ...p, lin: p.lin ^ P.lin, cst: p.cst !== P.cst }));
  const plan: Plan = [];
  for (const from of phases) {
    const want = s.phase.get(from)!;
    const cands = [...(s.points.get(keyOf(want)) ?? []).filter((p) => !inside(p)), ...shifted.filter((p) => p.lin === want.lin && p.seg === want.seg)];
    if (cands.length === 0) return undefined;
    let best = cands[0]!;
    for (const c of cands) if (Math.abs(c.at - from) < Math.abs(best.at - from)) best = c;
    plan.push({ from, at: best.at, q: best.q, negate: best.cst !== want.cst });
  }
  return plan;
}

/**
 * CNOT cancellation by parity (the "floating" of phase gates in Nam et al. 2018's heavy
 * setting, generalised): two CNOTs onto the same target t whose controls carry the same
 * parity cancel if, between them, t is only a CNOT target or carries phase gates / X — the
 * CNOTs between still compose, t's parity is shifted by P, and each phase gate on t is moved
 * to a wire point that carries its original parity. The phase polynomial and the linear
 * map are unchanged; recorded as global phase-polynomial steps (whole-circuit proof).
 */
export function cancelCnotsByParity(rec: Recorder, maxPairs = 2_000): number {
  let pairs = 0;
  outer: while (pairs < maxPairs && !rec.stopped()) {
    const ops = rec.ops;
    const s = scan(ops);
    for (let i = 0; i < ops.length; i++) {
      const a = ops[i]!;
      if (a.kind !== 'gate' || a.name !== 'cx') continue;
      const t = a.qubits[1]!;
      const P = s.control.get(i)!;
      const phases: number[] = [];
      for (let j = i + 1; j < ops.length; j++) {
        const b = ops[j]!;
        if (!qubitsOf(b).includes(t)) continue;
        if (b.kind !== 'gate') break;
        if (b.name === 'cx' && b.qubits[1] === t) {
          const Q = s.control.get(j)!;
          if (Q.lin === P.lin && Q.cst === P.cst && Q.seg === P.seg) {
            const plan = planMoves(s, i, j, t, P, phases);
            if (plan) {
              execute(rec, i, j, plan);
              pairs++;
              continue outer;
            }
          }
          continue;
        }
        if (b.name === 'x') continue;
        if (phaseOf(b) !== undefined && phases.length < 12) { phases.push(j); continue; }
        break;
      }
    }
    break;
  }
  return pairs;
}

function execute(rec: Recorder, i: number, j: number, plan: Plan): void {
  const moves = new TaggedMoves(rec);
  for (const m of plan) {
    const angle = phaseOf(rec.ops[moves.pos(m.from)]!)!;
    moves.move(m.from, phaseGate(m.q, m.negate ? -angle : angle), m.at);
  }
  rec.apply(PHASE_POLYNOMIAL_RULE, [moves.pos(i), moves.pos(j)], []);
}
