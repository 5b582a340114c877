import { opQubits, type GateOp, type Operation } from '../circuits/ir.js';
import { APPROX_EPS, reduceAngle } from '../verification/numeric-policy.js';

/**
 * What the passes know about gates. Deliberately a separate table from the certificate
 * checker's (src/verification/certificate-rules.ts): a mistake here produces a step the
 * checker rejects instead of a wrong answer.
 */
export const PI = Math.PI;
/** The passes' rounding tolerance on angles: numeric-policy.ts's, far below the proof's. */
export const EPS = APPROX_EPS;

const NAMED_PHASE: Readonly<Record<string, number>> = { t: PI / 4, s: PI / 2, z: PI, sdg: -PI / 2, tdg: -PI / 4 };

/** θ with gate ≅ diag(1, e^{iθ}), for one-qubit diagonal gates. */
export function phaseOf(op: Operation): number | undefined {
  if (op.kind !== 'gate' || op.qubits.length !== 1) return undefined;
  const n = NAMED_PHASE[op.name];
  if (n !== undefined) return n;
  if (op.name === 'rz' || op.name === 'p' || op.name === 'u1') return op.params[0];
  return undefined;
}

/** Angle reduced exactly to (-π, π] (numeric-policy.ts; huge doubles keep their exact value). */
export function normAngle(a: number): number {
  return reduceAngle(a);
}

/** Whether a phase angle is 0 within `tol` (the recorder's tolerance: 0 once its rounding budget is spent). */
export function isZeroAngle(a: number, tol: number = EPS): boolean {
  return Math.abs(normAngle(a)) <= tol;
}

/** The cheapest single gate for a phase angle: a named Clifford+T gate when there is one (within `tol`). */
export function phaseGate(q: number, angle: number, family: 'named' | 'rz' = 'named', tol: number = EPS): GateOp | undefined {
  const a = normAngle(angle);
  if (Math.abs(a) <= tol) return undefined;
  if (family === 'named') {
    const r = Math.round(a / (PI / 4));
    if (Math.abs(a - r * (PI / 4)) <= tol) {
      const name = ({ 1: 't', 2: 's', 4: 'z', [-4]: 'z', [-2]: 'sdg', [-1]: 'tdg' } as Record<number, string>)[r];
      if (name) return g(name, [q]);
      return g('rz', [q], [r * (PI / 4)]);
    }
  }
  return g('rz', [q], [a]);
}

export function g(name: string, qubits: readonly number[], params: readonly number[] = []): GateOp {
  return Object.freeze({ kind: 'gate', name, qubits: Object.freeze([...qubits]), params: Object.freeze([...params]) });
}

type Axis = 'Z' | 'X' | 'Y';
const AX: Readonly<Record<string, readonly Axis[]>> = {
  z: ['Z'],
  s: ['Z'],
  sdg: ['Z'],
  t: ['Z'],
  tdg: ['Z'],
  rz: ['Z'],
  p: ['Z'],
  u1: ['Z'],
  id: ['Z'],
  x: ['X'],
  sx: ['X'],
  sxdg: ['X'],
  rx: ['X'],
  y: ['Y'],
  ry: ['Y'],
  cx: ['Z', 'X'],
  cz: ['Z', 'Z'],
  cy: ['Z', 'Y'],
  crz: ['Z', 'Z'],
  cp: ['Z', 'Z'],
  cu1: ['Z', 'Z'],
  crx: ['Z', 'X'],
  cry: ['Z', 'Y'],
  csx: ['Z', 'X'],
  rzz: ['Z', 'Z'],
  rxx: ['X', 'X'],
  ryy: ['Y', 'Y'],
  ccx: ['Z', 'Z', 'X'],
  ccz: ['Z', 'Z', 'Z'],
};

export function qubitsOf(op: Operation): readonly number[] {
  return opQubits(op);
}

export function overlaps(a: Operation, b: Operation): boolean {
  const qa = qubitsOf(a);
  return qubitsOf(b).some((q) => qa.includes(q));
}

/** Sufficient condition for commutation: on each shared qubit both gates commute with one Pauli. */
export function commute(a: Operation, b: Operation): boolean {
  if (!overlaps(a, b)) return true;
  if (a.kind !== 'gate' || b.kind !== 'gate') return false;
  const xa = AX[a.name];
  const xb = AX[b.name];
  if (!xa || !xb) return false;
  for (let i = 0; i < a.qubits.length; i++) {
    const j = b.qubits.indexOf(a.qubits[i]!);
    if (j >= 0 && xa[i] !== xb[j]) return false;
  }
  return true;
}

const SELF_INV = new Set(['x', 'y', 'z', 'h', 'cx', 'cy', 'cz', 'ch', 'swap', 'ccx', 'ccz', 'cswap']);
const INV: Readonly<Record<string, string>> = { s: 'sdg', sdg: 's', t: 'tdg', tdg: 't', sx: 'sxdg', sxdg: 'sx' };
const SYM: Readonly<Record<string, number>> = { cz: 2, swap: 2, ccz: 3, ccx: 2 };

function sameSet(a: readonly number[], b: readonly number[]): boolean {
  return a.length === b.length && [...a].sort((x, y) => x - y).join() === [...b].sort((x, y) => x - y).join();
}

export function sameQubits(a: GateOp, b: GateOp): boolean {
  if (a.qubits.length !== b.qubits.length) return false;
  if (a.qubits.every((q, i) => q === b.qubits[i])) return true;
  const k = SYM[a.name];
  if (k === undefined) return false;
  return sameSet(a.qubits.slice(0, k), b.qubits.slice(0, k)) && a.qubits.slice(k).every((q, i) => q === b.qubits[k + i]);
}

export function isInversePair(a: GateOp, b: GateOp): boolean {
  if (a.params.length || b.params.length) return false;
  const ok = (SELF_INV.has(a.name) && a.name === b.name) || INV[a.name] === b.name;
  return ok && sameQubits(a, b);
}

export const ROT_PERIOD: Readonly<Record<string, number>> = {
  rx: 2 * PI,
  ry: 2 * PI,
  rzz: 2 * PI,
  rxx: 2 * PI,
  ryy: 2 * PI,
  cp: 2 * PI,
  cu1: 2 * PI,
  crx: 4 * PI,
  cry: 4 * PI,
  crz: 4 * PI,
};

export function isIdentity(op: GateOp, tol: number = EPS): boolean {
  if (op.name === 'id' || op.name === 'u0') return true;
  const ph = phaseOf(op);
  if (ph !== undefined) return isZeroAngle(ph, tol);
  const per = ROT_PERIOD[op.name];
  if (per !== undefined) return Math.abs(reduceAngle(op.params[0]!, per)) <= tol;
  // u3(θ, φ, λ) is within about (|θ| + |φ+λ|)/2 of the identity up to phase
  if (op.name === 'u3' || op.name === 'u') return Math.abs(normAngle(op.params[0]!)) + Math.abs(normAngle(normAngle(op.params[1]!) + normAngle(op.params[2]!))) <= tol;
  return false;
}
