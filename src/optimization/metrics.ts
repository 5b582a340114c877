import { opQubits, type Circuit, type Operation } from '../circuits/ir.js';
import { tCount, zRotationKind } from '../circuits/analysis/analyze.js';
import { phaseOf, PI } from './gate-info.js';

export interface CircuitMetrics {
  /** Gates (measure, reset and barrier are not counted). */
  readonly total: number;
  readonly two_qubit: number;
  /** t/tdg plus z-rotations by odd multiples of π/4 (as the circuit analysis counts them). */
  readonly t_count: number;
  /** Longest chain of gates over shared qubits (barriers excluded, measure/reset included). */
  readonly depth: number;
  /** Most T gates (as counted by t_count) on any chain of gates over shared qubits. */
  readonly t_depth: number;
}

/** A gate t_count counts: t/tdg, or a z-rotation by an odd multiple of π/4. */
function countsAsT(op: Operation): boolean {
  if (op.kind !== 'gate') return false;
  if (op.name === 't' || op.name === 'tdg') return true;
  return (op.name === 'rz' || op.name === 'p' || op.name === 'u1') && zRotationKind(op.params[0] ?? 0) === 't';
}

export function isTGate(op: Operation): boolean {
  const a = phaseOf(op);
  if (a === undefined) return false;
  const k = a / (PI / 2);
  return Math.abs(k - Math.round(k)) > 1e-9;
}

export function circuitMetrics(c: Circuit): CircuitMetrics {
  let total = 0;
  let twoQ = 0;
  let t = 0;
  const level = new Array<number>(c.numQubits).fill(0);
  const tLevel = new Array<number>(c.numQubits).fill(0);
  for (const o of c.ops) {
    if (o.kind === 'barrier') continue;
    // a conditioned gate counts as its gate (the optimizer keeps it as it is)
    const op = o.kind === 'conditioned' ? o.gate : o;
    const qs = opQubits(op);
    const d = Math.max(...qs.map((q) => level[q] ?? 0)) + 1;
    for (const q of qs) level[q] = d;
    const td = Math.max(...qs.map((q) => tLevel[q] ?? 0)) + (countsAsT(op) ? 1 : 0);
    for (const q of qs) tLevel[q] = td;
    if (op.kind !== 'gate') continue;
    total++;
    if (op.qubits.length === 2) twoQ++;
    if (isTGate(op)) t++;
  }
  void t;
  const maxOf = (xs: readonly number[]) => xs.reduce((m, x) => Math.max(m, x), 0);
  return { total, two_qubit: twoQ, t_count: tCount(c).t, depth: maxOf(level), t_depth: maxOf(tLevel) };
}

/** Cost used to rank candidates: gate count first, then two-qubit gates, then T. */
export function cost(ops: readonly Operation[]): number {
  let total = 0;
  let twoQ = 0;
  for (const op of ops) {
    if (op.kind !== 'gate') continue;
    total++;
    if (op.qubits.length >= 2) twoQ++;
  }
  return total * 1000 + twoQ;
}
