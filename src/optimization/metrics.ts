import type { Circuit, Operation } from '../circuits/ir.js';
import { tCount } from '../circuits/analysis/analyze.js';
import { phaseOf, PI } from './gate-info.js';

export interface CircuitMetrics {
  /** Gates (measure, reset and barrier are not counted). */
  readonly total: number;
  readonly two_qubit: number;
  /** t/tdg plus z-rotations by odd multiples of π/4 (as the circuit analysis counts them). */
  readonly t_count: number;
  /** Longest chain of gates over shared qubits (barriers excluded, measure/reset included). */
  readonly depth: number;
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
  for (const op of c.ops) {
    if (op.kind === 'barrier') continue;
    const qs = op.kind === 'gate' ? op.qubits : [op.qubit];
    const d = Math.max(...qs.map((q) => level[q] ?? 0)) + 1;
    for (const q of qs) level[q] = d;
    if (op.kind !== 'gate') continue;
    total++;
    if (op.qubits.length === 2) twoQ++;
    if (isTGate(op)) t++;
  }
  void t;
  return { total, two_qubit: twoQ, t_count: tCount(c).t, depth: level.length ? Math.max(0, ...level) : 0 };
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
