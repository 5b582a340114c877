/**
 * Catalogue gates as sequences of the stabilizer primitives (H, S, S†, X, Y, Z, CX, CZ, SWAP), up to
 * global phase, or null when the gate is not Clifford at its parameters. A rotation is Clifford when
 * its angle is a multiple of π/2 within FLOAT_NOISE as a rotation distance (the project's numeric
 * policy, src/verification/numeric-policy.ts), angles reduced exactly; see
 * docs/decisions/simulation-stabilizer-clifford-recognition.md.
 */
import { addAngles, angleDifference, quarterTurns } from '../../verification/numeric-policy.js';

export const P_H = 0;
export const P_S = 1;
export const P_SDG = 2;
export const P_X = 3;
export const P_Y = 4;
export const P_Z = 5;
export const P_CX = 6;
export const P_CZ = 7;
export const P_SWAP = 8;

/** One primitive: its code and qubits (b unused for one-qubit primitives). */
export interface Prim {
  readonly g: number;
  readonly a: number;
  readonly b: number;
}

const p1 = (g: number, a: number): Prim => ({ g, a, b: -1 });
const p2 = (g: number, a: number, b: number): Prim => ({ g, a, b });

/** S^k for k quarter turns. */
function phaseTurns(k: number, a: number): Prim[] {
  return k === 0 ? [] : k === 1 ? [p1(P_S, a)] : k === 2 ? [p1(P_Z, a)] : [p1(P_SDG, a)];
}

/** rz/p/u1 by θ: null when θ is no multiple of π/2. */
function rz(theta: number, a: number): Prim[] | null {
  const k = quarterTurns(theta);
  return k === undefined ? null : phaseTurns(k, a);
}

function rx(theta: number, a: number): Prim[] | null {
  const r = rz(theta, a);
  return r === null ? null : r.length === 0 ? [] : [p1(P_H, a), ...r, p1(P_H, a)];
}

/** RY(θ) = S·RX(θ)·S†. */
function ry(theta: number, a: number): Prim[] | null {
  const r = rx(theta, a);
  return r === null ? null : r.length === 0 ? [] : [p1(P_SDG, a), ...r, p1(P_S, a)];
}

/** u3(θ, φ, λ) = RZ(φ)·RY(θ)·RZ(λ) up to phase; θ ≡ 0 or π lets φ and λ combine. */
function u3(theta: number, phi: number, lambda: number, a: number): Prim[] | null {
  const k = quarterTurns(theta);
  if (k === undefined) return null;
  if (k === 0) return rz(addAngles(phi, lambda), a);
  if (k === 2) {
    const r = rz(angleDifference(lambda, phi), a);
    return r === null ? null : [...r, p1(P_Y, a)];
  }
  const first = rz(lambda, a);
  const mid = ry(theta, a);
  const last = rz(phi, a);
  return first === null || mid === null || last === null ? null : [...first, ...mid, ...last];
}

/** diag(1, 1, 1, e^{iθ}): identity or CZ. */
function cp(theta: number, a: number, b: number): Prim[] | null {
  const k = quarterTurns(theta);
  return k === 0 ? [] : k === 2 ? [p2(P_CZ, a, b)] : null;
}

/** CRZ(θ) = P_c(−θ/2)·CP(θ). */
function crz(theta: number, c: number, t: number): Prim[] | null {
  const phase = rz(-theta / 2, c);
  const ctl = cp(theta, c, t);
  return phase === null || ctl === null ? null : [...ctl, ...phase];
}

function rzz(theta: number, a: number, b: number): Prim[] | null {
  const r = rz(theta, b);
  return r === null ? null : r.length === 0 ? [] : [p2(P_CX, a, b), ...r, p2(P_CX, a, b)];
}

const around = (pre: Prim[], body: Prim[] | null, post: Prim[]): Prim[] | null => (body === null ? null : body.length === 0 ? [] : [...pre, ...body, ...post]);

/** The primitives of a catalogue gate, or null when it is not Clifford (at these parameters). */
export function cliffordPrims(name: string, q: readonly number[], p: readonly number[]): Prim[] | null {
  const a = q[0]!;
  const b = q[1] ?? -1;
  const t0 = p[0] ?? 0;
  switch (name) {
    case 'id':
    case 'u0':
      return [];
    case 'h':
      return [p1(P_H, a)];
    case 's':
      return [p1(P_S, a)];
    case 'sdg':
      return [p1(P_SDG, a)];
    case 'x':
      return [p1(P_X, a)];
    case 'y':
      return [p1(P_Y, a)];
    case 'z':
      return [p1(P_Z, a)];
    case 'sx':
      return [p1(P_H, a), p1(P_S, a), p1(P_H, a)];
    case 'sxdg':
      return [p1(P_H, a), p1(P_SDG, a), p1(P_H, a)];
    case 'rz':
    case 'p':
    case 'u1':
      return rz(t0, a);
    case 'rx':
      return rx(t0, a);
    case 'ry':
      return ry(t0, a);
    case 'u2':
      return u3(Math.PI / 2, t0, p[1] ?? 0, a);
    case 'u3':
    case 'u':
      return u3(t0, p[1] ?? 0, p[2] ?? 0, a);
    case 'cx':
      return [p2(P_CX, a, b)];
    case 'cz':
      return [p2(P_CZ, a, b)];
    case 'cy':
      return [p1(P_SDG, b), p2(P_CX, a, b), p1(P_S, b)];
    case 'swap':
      return [p2(P_SWAP, a, b)];
    case 'cp':
    case 'cu1':
      return cp(t0, a, b);
    case 'crz':
      return crz(t0, a, b);
    case 'crx':
      return around([p1(P_H, b)], crz(t0, a, b), [p1(P_H, b)]);
    case 'cry':
      return around([p1(P_SDG, b), p1(P_H, b)], crz(t0, a, b), [p1(P_H, b), p1(P_S, b)]);
    case 'rzz':
      return rzz(t0, a, b);
    case 'rxx':
      return around([p1(P_H, a), p1(P_H, b)], rzz(t0, a, b), [p1(P_H, a), p1(P_H, b)]);
    case 'ryy':
      return around([p1(P_SDG, a), p1(P_SDG, b), p1(P_H, a), p1(P_H, b)], rzz(t0, a, b), [p1(P_H, a), p1(P_H, b), p1(P_S, a), p1(P_S, b)]);
    default:
      return null;
  }
}

/** A primitive is a Pauli (a frame passes it unchanged; a conditioned Pauli is a frame flip). */
export const isPauliPrim = (g: number): boolean => g === P_X || g === P_Y || g === P_Z;
