/**
 * An exact reference for dynamic circuits, independent of the simulator: a small dense
 * state-vector evaluator that enumerates every measurement outcome (and, when asked, every
 * readout flip and every Pauli error of a depolarizing channel) with its probability, applies
 * conditioned gates per branch, and sums the probabilities of the final clbit strings.
 * Exponential in the number of branch points: for n ≤ 5 qubits and a few dozen operations.
 * Gate matrices come from the textbook reference (tests/simulation/textbook.ts), not from src/simulation.
 */
import type { Circuit, Condition } from '../../src/circuits/ir.js';
import { textbook, type Mat } from './textbook.js';

/**
 * The matrix of a gate in the basis of its operand list with operand 0 least significant (how
 * `applyMatrix` reads it): the textbook reference has operand 0 most significant, so its operands
 * are taken in reverse.
 */
function gateOn(name: string, params: readonly number[], qubits: readonly number[]): { m: Mat; qubits: readonly number[] } {
  return { m: textbook(name, params), qubits: [...qubits].reverse() };
}

export const REFERENCE_GATES_1Q = ['x', 'y', 'z', 'h', 's', 'sdg', 't'] as const;
export const REFERENCE_ROTATIONS = ['rx', 'ry', 'rz'] as const;
export const REFERENCE_GATES_2Q = ['cx', 'cz', 'swap'] as const;

interface State {
  re: Float64Array;
  im: Float64Array;
}

function applyMatrix(s: State, g: { m: Mat; qubits: readonly number[] }): State {
  const { m, qubits } = g;
  const dim = s.re.length;
  const k = qubits.length;
  const re = new Float64Array(dim);
  const im = new Float64Array(dim);
  for (let i = 0; i < dim; i++) {
    let row = 0;
    for (let j = 0; j < k; j++) row |= ((i >> qubits[j]!) & 1) << j;
    let base = i;
    for (const q of qubits) base &= ~(1 << q);
    for (let col = 0; col < 1 << k; col++) {
      const [mr, mi] = m[row]![col]!;
      if (mr === 0 && mi === 0) continue;
      let src = base;
      for (let j = 0; j < k; j++) if ((col >> j) & 1) src |= 1 << qubits[j]!;
      re[i]! += mr * s.re[src]! - mi * s.im[src]!;
      im[i]! += mr * s.im[src]! + mi * s.re[src]!;
    }
  }
  return { re, im };
}

function project(s: State, q: number, outcome: number): { p: number; state: State } {
  const re = s.re.slice();
  const im = s.im.slice();
  let p = 0;
  for (let i = 0; i < re.length; i++) {
    if (((i >> q) & 1) === outcome) p += re[i]! * re[i]! + im[i]! * im[i]!;
    else {
      re[i] = 0;
      im[i] = 0;
    }
  }
  if (p > 0) {
    const f = 1 / Math.sqrt(p);
    for (let i = 0; i < re.length; i++) {
      re[i]! *= f;
      im[i]! *= f;
    }
  }
  return { p, state: { re, im } };
}

export function conditionHolds(reg: readonly number[], cond: Condition): boolean {
  let v = 0;
  cond.clbits.forEach((b, j) => (v += reg[b]! * 2 ** j));
  return v === cond.value;
}

export interface ReferenceNoise {
  /** [P(report 1 | 0), P(report 0 | 1)] of every measurement (applied to what conditions read and what is reported). */
  readonly readout?: readonly [number, number];
  /** Depolarizing p after every applied single-qubit gate: X, Y, Z each with probability p/4. */
  readonly depolarizing1q?: number;
}

const PAULIS = ['x', 'y', 'z'] as const;

/** Exact distribution over clbit strings (clbit 0 rightmost), outcomes of probability 0 left out. */
export function exactDistribution(circ: Circuit, noise: ReferenceNoise = {}): Map<string, number> {
  const out = new Map<string, number>();
  const dim = 2 ** circ.numQubits;
  const start: State = { re: new Float64Array(dim), im: new Float64Array(dim) };
  start.re[0] = 1;
  const ro = noise.readout ?? [0, 0];
  const dep = noise.depolarizing1q ?? 0;
  const walk = (i: number, s: State, reg: number[], p: number): void => {
    if (p < 1e-300) return;
    if (i === circ.ops.length) {
      const key = reg
        .slice()
        .reverse()
        .map((b) => String(b))
        .join('');
      out.set(key, (out.get(key) ?? 0) + p);
      return;
    }
    const op = circ.ops[i]!;
    switch (op.kind) {
      case 'barrier':
        return walk(i + 1, s, reg, p);
      case 'gate':
      case 'conditioned': {
        const g = op.kind === 'gate' ? op : op.gate;
        if (op.kind === 'conditioned' && !conditionHolds(reg, op.condition)) return walk(i + 1, s, reg, p);
        const next = applyMatrix(s, gateOn(g.name, g.params, g.qubits));
        if (dep > 0 && g.qubits.length === 1) {
          walk(i + 1, next, reg, p * (1 - (3 * dep) / 4));
          for (const e of PAULIS) walk(i + 1, applyMatrix(next, gateOn(e, [], g.qubits)), reg, (p * dep) / 4);
          return;
        }
        return walk(i + 1, next, reg, p);
      }
      case 'measure':
        for (const outcome of [0, 1]) {
          const { p: po, state } = project(s, op.qubit, outcome);
          if (po <= 0) continue;
          const flip = outcome === 0 ? ro[0] : ro[1];
          for (const reported of [outcome, 1 - outcome]) {
            const pr = reported === outcome ? 1 - flip : flip;
            if (pr <= 0) continue;
            const r2 = reg.slice();
            r2[op.clbit] = reported;
            walk(i + 1, state, r2, p * po * pr);
          }
        }
        return;
      case 'reset':
        for (const outcome of [0, 1]) {
          const { p: po, state } = project(s, op.qubit, outcome);
          if (po <= 0) continue;
          walk(i + 1, outcome === 1 ? applyMatrix(state, gateOn('x', [], [op.qubit])) : state, reg, p * po);
        }
        return;
    }
  };
  walk(0, start, new Array<number>(circ.numClbits).fill(0), 1);
  return out;
}

/** Σ |counts/shots − p| over every outcome of either. */
export function l1Distance(counts: Readonly<Record<string, number>>, shots: number, exact: ReadonlyMap<string, number>): number {
  const keys = new Set([...Object.keys(counts), ...exact.keys()]);
  let d = 0;
  for (const k of keys) d += Math.abs((counts[k] ?? 0) / shots - (exact.get(k) ?? 0));
  return d;
}

/**
 * The L1 bound that shots drawn from a distribution over at most `outcomes` values exceed with
 * probability at most `delta` (Bretagnolle–Huber–Carol: P(‖p̂ − p‖₁ ≥ ε) ≤ 2^K·exp(−S·ε²/2)).
 */
export function l1Bound(outcomes: number, shots: number, delta: number): number {
  return Math.sqrt((2 * (outcomes * Math.LN2 + Math.log(1 / delta))) / shots);
}
