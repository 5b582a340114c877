/**
 * Every catalogue gate as a sequence of path-sum primitives: classical reversible gates
 * (x, multi-controlled x, swap), Hadamard, and diagonal phases e^{2πi·turns·q₁q₂…}.
 * Decompositions are exact up to a global phase only where the gate is never controlled
 * here (a global phase of the whole circuit is irrelevant); each one is checked against
 * the checker's own matrices in tests/verification.
 */
import type { GateOp } from '../../circuits/ir.js';
import { turnsOf } from '../numeric-policy.js';

export type Prim =
  | { readonly k: 'x'; readonly q: number }
  | { readonly k: 'mcx'; readonly cs: readonly number[]; readonly t: number }
  | { readonly k: 'swap'; readonly a: number; readonly b: number }
  | { readonly k: 'h'; readonly q: number }
  /** Multiplies by e^{2πi·turns} when every qubit in qs is 1. */
  | { readonly k: 'ph'; readonly qs: readonly number[]; readonly turns: number };

const x = (q: number): Prim => ({ k: 'x', q });
const cx = (c: number, t: number): Prim => ({ k: 'mcx', cs: [c], t });
const h = (q: number): Prim => ({ k: 'h', q });
/**
 * A phase whose turns are a multiple of 2^-16 up to the rounding of converting its angle
 * (rz(3π/4) is 0.375 only to within an ulp) is that multiple: a change of a few ulps of the
 * angle, below numeric-policy's FLOAT_NOISE, that keeps Clifford+T arithmetic exact.
 */
function snapDyadic(turns: number): number {
  const d = Math.round(turns * 65536) / 65536;
  return Math.abs(turns - d) <= 4 * 2 ** -53 * Math.max(Math.abs(turns), 2 ** -16) ? d : turns;
}
const ph = (turns: number, ...qs: number[]): Prim => ({ k: 'ph', qs, turns: snapDyadic(turns) });
/** rz(θ) up to global phase, i.e. p(θ). Turns come from the exact reduction, so huge angles keep their value. */
const rz = (theta: number, q: number): Prim => ph(turnsOf(theta), q);
const rx = (theta: number, q: number): Prim[] => [h(q), rz(theta, q), h(q)];
// ry = S·rx·S†: in time order S†, rx, S.
const ry = (theta: number, q: number): Prim[] => [ph(-0.25, q), ...rx(theta, q), ph(0.25, q)];
/** crz(θ): with the control set, −θ/2 on target 0 and +θ/2 on target 1. */
const crz = (theta: number, c: number, t: number): Prim[] => [ph(-turnsOf(theta, 0.5), c), ph(turnsOf(theta), c, t)];
const cry = (theta: number, c: number, t: number): Prim[] => [ph(-0.25, t), h(t), ...crz(theta, c, t), h(t), ph(0.25, t)];
/** Controlled e^{iγ}·u3(θ,φ,λ), with u3 = e^{i(φ+λ)/2} rz(φ) ry(θ) rz(λ). */
const cu = (theta: number, phi: number, lambda: number, gamma: number, c: number, t: number): Prim[] => [
  ph(turnsOf(gamma) + turnsOf(phi, 0.5) + turnsOf(lambda, 0.5), c),
  ...crz(lambda, c, t),
  ...cry(theta, c, t),
  ...crz(phi, c, t),
];
/** rzz(θ) up to global phase: e^{iθ} on odd parity. */
const rzz = (theta: number, a: number, b: number): Prim[] => [cx(a, b), rz(theta, b), cx(a, b)];

/** The primitives of a gate in time order, or undefined for an unknown gate or bad arity. */
export function gatePrims(g: GateOp): Prim[] | undefined {
  const q = g.qubits;
  const p = g.params;
  const [a = 0, b = 0, c = 0, d = 0, e = 0] = q;
  const [t0 = 0, t1 = 0, t2 = 0, t3 = 0] = p;
  const want = (arity: number, params: number): boolean => q.length === arity && p.length === params;
  switch (g.name) {
    case 'id':
      return want(1, 0) ? [] : undefined;
    case 'u0':
      return want(1, 1) ? [] : undefined;
    case 'x':
      return want(1, 0) ? [x(a)] : undefined;
    case 'y':
      return want(1, 0) ? [ph(0.5, a), x(a)] : undefined; // Y = i·X·Z
    case 'z':
      return want(1, 0) ? [ph(0.5, a)] : undefined;
    case 'h':
      return want(1, 0) ? [h(a)] : undefined;
    case 's':
      return want(1, 0) ? [ph(0.25, a)] : undefined;
    case 'sdg':
      return want(1, 0) ? [ph(-0.25, a)] : undefined;
    case 't':
      return want(1, 0) ? [ph(0.125, a)] : undefined;
    case 'tdg':
      return want(1, 0) ? [ph(-0.125, a)] : undefined;
    case 'sx':
      return want(1, 0) ? [h(a), ph(0.25, a), h(a)] : undefined;
    case 'sxdg':
      return want(1, 0) ? [h(a), ph(-0.25, a), h(a)] : undefined;
    case 'rx':
      return want(1, 1) ? rx(t0, a) : undefined;
    case 'ry':
      return want(1, 1) ? ry(t0, a) : undefined;
    case 'rz':
    case 'p':
    case 'u1':
      return want(1, 1) ? [rz(t0, a)] : undefined;
    case 'u2':
      return want(1, 2) ? [rz(t1, a), ...ry(Math.PI / 2, a), rz(t0, a)] : undefined;
    case 'u3':
    case 'u':
      return want(1, 3) ? [rz(t2, a), ...ry(t0, a), rz(t1, a)] : undefined;
    case 'cx':
      return want(2, 0) ? [cx(a, b)] : undefined;
    case 'cy':
      return want(2, 0) ? [ph(-0.25, b), cx(a, b), ph(0.25, b)] : undefined;
    case 'cz':
      return want(2, 0) ? [ph(0.5, a, b)] : undefined;
    case 'ch':
      return want(2, 0) ? [ph(0.25, b), h(b), ph(0.125, b), cx(a, b), ph(-0.125, b), h(b), ph(-0.25, b)] : undefined;
    case 'swap':
      return want(2, 0) ? [{ k: 'swap', a, b }] : undefined;
    case 'csx':
      return want(2, 0) ? [h(b), ph(0.25, a, b), h(b)] : undefined;
    case 'crx':
      return want(2, 1) ? [h(b), ...crz(t0, a, b), h(b)] : undefined;
    case 'cry':
      return want(2, 1) ? cry(t0, a, b) : undefined;
    case 'crz':
      return want(2, 1) ? crz(t0, a, b) : undefined;
    case 'cu1':
    case 'cp':
      return want(2, 1) ? [ph(turnsOf(t0), a, b)] : undefined;
    case 'cu3':
      return want(2, 3) ? cu(t0, t1, t2, 0, a, b) : undefined;
    case 'cu':
      return want(2, 4) ? cu(t0, t1, t2, t3, a, b) : undefined;
    case 'rzz':
      return want(2, 1) ? rzz(t0, a, b) : undefined;
    case 'rxx':
      return want(2, 1) ? [h(a), h(b), ...rzz(t0, a, b), h(a), h(b)] : undefined;
    case 'ryy':
      return want(2, 1) ? [ph(-0.25, a), ph(-0.25, b), h(a), h(b), ...rzz(t0, a, b), h(a), h(b), ph(0.25, a), ph(0.25, b)] : undefined;
    case 'ccx':
      return want(3, 0) ? [{ k: 'mcx', cs: [a, b], t: c }] : undefined;
    case 'ccz':
      return want(3, 0) ? [ph(0.5, a, b, c)] : undefined;
    case 'cswap':
      return want(3, 0) ? [cx(c, b), { k: 'mcx', cs: [a, b], t: c }, cx(c, b)] : undefined;
    case 'rccx':
      return want(3, 0) ? [h(c), ph(0.125, c), cx(b, c), ph(-0.125, c), cx(a, c), ph(0.125, c), cx(b, c), ph(-0.125, c), h(c)] : undefined;
    case 'rc3x':
      return want(4, 0)
        ? [
            h(d),
            ph(0.125, d),
            cx(c, d),
            ph(-0.125, d),
            h(d),
            cx(a, d),
            ph(0.125, d),
            cx(b, d),
            ph(-0.125, d),
            cx(a, d),
            ph(0.125, d),
            cx(b, d),
            ph(-0.125, d),
            h(d),
            ph(0.125, d),
            cx(c, d),
            ph(-0.125, d),
            h(d),
          ]
        : undefined;
    case 'c3x':
      return want(4, 0) ? [{ k: 'mcx', cs: [a, b, c], t: d }] : undefined;
    case 'c3sqrtx':
      return want(4, 0) ? [h(d), ph(0.25, a, b, c, d), h(d)] : undefined;
    case 'c4x':
      return want(5, 0) ? [{ k: 'mcx', cs: [a, b, c, d], t: e }] : undefined;
    default:
      return undefined;
  }
}

/** The inverse of a primitive sequence: reversed, phases negated (the rest are self-inverse). */
export function invertPrims(prims: readonly Prim[]): Prim[] {
  return [...prims].reverse().map((p) => (p.k === 'ph' ? { ...p, turns: -p.turns } : p));
}
