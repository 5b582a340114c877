import type { GateOp } from '../../circuits/ir.js';
import { g, phaseGate, PI } from '../gate-info.js';

/**
 * diag(1, …, 1, e^{iθ}) on `qs` (the phase when every qubit is 1) with CX and one-qubit phase gates:
 * AND(x₁…xₙ) = 2^{1−n} Σ_{S≠∅} (−1)^{|S|−1} ⊕_S x, so each parity gets a phase ±θ/2^{n−1}. The parities
 * that end at pivot qs[p] are walked in Gray-code order over qs[0..p−1] (one CX per step, one to undo),
 * 2^n − 2 CX in all (6 for three qubits, 14 for four, 30 for five). Exact, global phase included.
 */
export function multiControlledPhase(theta: number, qs: readonly number[]): GateOp[] {
  const n = qs.length;
  const unit = theta / 2 ** (n - 1);
  const out: GateOp[] = [];
  const phase = (q: number, weight: number) => {
    const p = phaseGate(q, weight % 2 === 1 ? unit : -unit, 'named', 0);
    if (p) out.push(p.name === 'rz' ? g('p', [q], p.params) : p);
  };
  for (let p = 0; p < n; p++) {
    const pivot = qs[p]!;
    let prev = 0;
    for (let k = 0; k < 1 << p; k++) {
      const code = k ^ (k >> 1);
      const flipped = code ^ prev;
      if (flipped) out.push(g('cx', [qs[31 - Math.clz32(flipped)]!, pivot]));
      prev = code;
      let size = 1;
      for (let c = code; c; c &= c - 1) size++;
      phase(pivot, size);
    }
    if (prev) out.push(g('cx', [qs[31 - Math.clz32(prev)]!, pivot]));
  }
  return out;
}

const T = (name: string, ...q: number[]) => g(name, q);

/** Relative-phase Toffoli as qelib1.inc defines it (u2(0,π) = h, u1(±π/4) = t/tdg). */
function rccx(a: number, b: number, c: number): GateOp[] {
  return [T('h', c), T('t', c), T('cx', b, c), T('tdg', c), T('cx', a, c), T('t', c), T('cx', b, c), T('tdg', c), T('h', c)];
}

/** Relative-phase 3-controlled X as qelib1.inc defines it. */
function rc3x(a: number, b: number, c: number, d: number): GateOp[] {
  return [
    T('h', d),
    T('t', d),
    T('cx', c, d),
    T('tdg', d),
    T('h', d),
    T('cx', a, d),
    T('t', d),
    T('cx', b, d),
    T('tdg', d),
    T('cx', a, d),
    T('t', d),
    T('cx', b, d),
    T('tdg', d),
    T('h', d),
    T('t', d),
    T('cx', c, d),
    T('tdg', d),
    T('h', d),
  ];
}

/** Toffoli with 6 CX and 7 T/T† (the `template:ccx-decompose` instance). */
export function ccxCircuit(a: number, b: number, c: number): GateOp[] {
  return [
    T('h', c),
    T('cx', b, c),
    T('tdg', c),
    T('cx', a, c),
    T('t', c),
    T('cx', b, c),
    T('tdg', c),
    T('cx', a, c),
    T('t', b),
    T('t', c),
    T('h', c),
    T('cx', a, b),
    T('t', a),
    T('tdg', b),
    T('cx', a, b),
  ];
}

/**
 * A gate on three or more qubits written with CX and one-qubit gates (rule `decompose-multi-qubit`:
 * the checker compares the unitaries with its own matrices), or undefined for ccx/ccz (their own
 * templates) and unknown gates. Controls first, target last, as in the catalogue.
 */
export function multiQubitCircuit(op: GateOp): GateOp[] | undefined {
  const q = op.qubits;
  const [a, b, c, d] = q as [number, number, number, number];
  const target = q[q.length - 1]!;
  switch (op.name) {
    case 'cswap':
      return [T('cx', c, b), ...ccxCircuit(a, b, c), T('cx', c, b)];
    case 'rccx':
      return rccx(a, b, c);
    case 'rc3x':
      return rc3x(a, b, c, d);
    // X = H·Z·H and √X = H·S·H exactly, so the controlled forms are H-conjugated controlled phases
    case 'c3x':
    case 'c4x':
      return [T('h', target), ...multiControlledPhase(PI, q), T('h', target)];
    case 'c3sqrtx':
      return [T('h', target), ...multiControlledPhase(PI / 2, q), T('h', target)];
    default:
      return undefined;
  }
}
