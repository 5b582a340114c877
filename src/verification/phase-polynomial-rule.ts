import type { GateOp } from '../circuits/ir.js';
import { rotationDistance } from './numeric-policy.js';

/**
 * The checker of rule `resynth-phase-polynomial`: two lists of CNOT, X, SWAP, CZ, H and one-qubit
 * phase gates are equal up to global phase when they give every wire the same affine parity of the
 * inputs and the same phase function. Without H every such list is |x⟩ ↦ e^{i f(x)} |L x ⊕ c⟩ with
 * f(x) = Σ_y θ_y·(y·x) over linear parities y (an affine parity's constant is a global phase and a
 * sign). Each H starts a path variable v of its wire (path sums: Amy 2018, "Towards large-scale
 * functional verification of universal quantum circuits") and adds π·a·v, a the wire's value before
 * it: two lists with as many H gates, the same outputs over the path variables and the same phase
 * function are the same sum, so the same unitary. Phases are compared in two parts: angles that are multiples of π/4 as a function Z₂ⁿ → Z₈,
 * by its unique multilinear expansion (y·x = Σ_{∅≠S⊆y} (−2)^{|S|−1} Π_{i∈S} x_i, where terms of
 * degree ≥ 4 vanish mod 8), so rewrites that only change Clifford terms (TODD) are recognised
 * exactly; other angles parity by parity. This is the checker's own code: passes never import it.
 */

const QUARTER = Math.PI / 4;
/** How far a summed angle may sit from a multiple of π/4 and still be read as one (its distance is counted). */
const SNAP = 1e-9;

interface Poly {
  /** Per output wire: the linear part (bit mask of input wires) and the constant. */
  lin: bigint[];
  cst: boolean[];
  /**
   * Summed angle per linear parity, keyed by its mask in hex (one canonical spelling per mask). Not
   * by the bigint itself: V8 hashes a bigint by its lowest word only, so the masks of path variables
   * past the 64th (all zero there) would share one bucket and every lookup would walk them all.
   */
  angle: Map<string, number>;
  /** Per Hadamard, in order: the affine parity it reads and the path variable it starts. */
  hadamards: { lin: bigint; cst: boolean; v: number }[];
}

/** The polynomial of a list on wires 0 … n−1, or undefined when it holds another gate. */
function polynomial(ops: readonly GateOp[], n: number): Poly | undefined {
  const lin = Array.from({ length: n }, (_, q) => 1n << BigInt(q));
  const cst: boolean[] = Array.from({ length: n }, () => false);
  const angle = new Map<string, number>();
  const hadamards: Poly['hadamards'] = [];
  let vars = n;
  const add = (l: bigint, c: boolean, theta: number) => {
    if (l === 0n) return; // a global phase
    const key = l.toString(16);
    angle.set(key, (angle.get(key) ?? 0) + (c ? -theta : theta));
  };
  for (const op of ops) {
    const [a, b] = op.qubits as [number, number];
    if (new Set(op.qubits).size !== op.qubits.length) return undefined;
    const theta = phaseOf(op);
    if (theta !== undefined) {
      add(lin[a]!, cst[a]!, theta);
      continue;
    }
    switch (op.name) {
      case 'cx':
        lin[b] = lin[b]! ^ lin[a]!;
        cst[b] = cst[b] !== cst[a];
        break;
      case 'x':
        if (op.qubits.length !== 1) return undefined;
        cst[a] = !cst[a];
        break;
      case 'swap':
        [lin[a], lin[b]] = [lin[b]!, lin[a]!];
        [cst[a], cst[b]] = [cst[b]!, cst[a]!];
        break;
      case 'cz':
        // π·ab = π/2·a + π/2·b − π/2·(a ⊕ b)
        add(lin[a]!, cst[a]!, Math.PI / 2);
        add(lin[b]!, cst[b]!, Math.PI / 2);
        add(lin[a]! ^ lin[b]!, cst[a] !== cst[b], -Math.PI / 2);
        break;
      case 'h':
        // a path variable v: the amplitude gets (−1)^{a·v}, a the wire's value before
        hadamards.push({ lin: lin[a]!, cst: cst[a]!, v: vars });
        lin[a] = 1n << BigInt(vars++);
        cst[a] = false;
        break;
      case 'id':
        break;
      default:
        return undefined;
    }
  }
  return { lin, cst, angle, hadamards };
}

const FIXED: Readonly<Record<string, number>> = { z: Math.PI, s: Math.PI / 2, sdg: -Math.PI / 2, t: QUARTER, tdg: -QUARTER };

function phaseOf(op: GateOp): number | undefined {
  if (op.qubits.length !== 1) return undefined;
  const f = FIXED[op.name];
  if (f !== undefined) return f;
  if ((op.name === 'rz' || op.name === 'p' || op.name === 'u1') && op.params.length === 1 && Number.isFinite(op.params[0])) return op.params[0];
  return undefined;
}

/**
 * The set bits of a mask given in hex, ascending: one digit at a time, since shifting the bigint a
 * bit at a time costs a new bigint as wide as the mask per bit (quadratic in the path variables).
 */
const hexBits = (hex: string): number[] => {
  const out: number[] = [];
  for (let i = hex.length - 1, base = 0; i >= 0; i--, base += 4) {
    const c = hex.charCodeAt(i);
    if (c === 48) continue; // '0': most digits of a wide, sparse mask
    const d = c <= 57 ? c - 48 : c - 87; // '1'–'9', 'a'–'f'
    for (let b = 0; b < 4; b++) if ((d >> b) & 1) out.push(base + b);
  }
  return out;
};
const bitsOf = (m: bigint): number[] => hexBits(m.toString(16));

/** Adds k·(y·x) (mod 8) to the multilinear coefficients (keyed by sorted index lists); y in hex. */
function expand(coef: Map<string, number>, y: string, k: number): void {
  const v = hexBits(y);
  const bump = (key: string, d: number) => coef.set(key, ((((coef.get(key) ?? 0) + d) % 8) + 8) % 8);
  for (let i = 0; i < v.length; i++) {
    bump(`${v[i]}`, k);
    for (let j = i + 1; j < v.length; j++) {
      bump(`${v[i]},${v[j]}`, -2 * k);
      if (k % 2 !== 0) for (let l = j + 1; l < v.length; l++) bump(`${v[i]},${v[j]},${v[l]}`, 4);
    }
  }
}

/**
 * How far `rhs` is from `lhs` (a bound on the operator distance up to phase: the rounding of angles
 * read as multiples of π/4, plus the other angles' differences), or Infinity when the lists are not
 * both CNOT+phase lists with the same linear map and the same phase function.
 */
export function phasePolynomialDistance(lhs: readonly GateOp[], rhs: readonly GateOp[]): number {
  const qs = [...new Set([...lhs, ...rhs].flatMap((o) => o.qubits))];
  const wire = new Map(qs.map((q, i) => [q, i] as const));
  const local = (ops: readonly GateOp[]) => ops.map((o) => ({ ...o, qubits: o.qubits.map((q) => wire.get(q)!) }));
  const a = polynomial(local(lhs), qs.length);
  const b = polynomial(local(rhs), qs.length);
  if (!a || !b) return Infinity;
  // the same number of Hadamards gives both sums the same path variables (and the same 2^{-h/2})
  if (a.hadamards.length !== b.hadamards.length) return Infinity;
  for (let q = 0; q < qs.length; q++) if (a.lin[q] !== b.lin[q] || a.cst[q] !== b.cst[q]) return Infinity;
  let deviation = 0;
  const coef = new Map<string, number>();
  const rest = new Map<string, number>();
  const split = (p: Poly, sign: 1 | -1) => {
    for (const [y, theta] of p.angle) {
      const k = Math.round(theta / QUARTER);
      if (Math.abs(theta - k * QUARTER) <= SNAP) {
        deviation += rotationDistance(theta, k * QUARTER);
        if (k % 8 !== 0) expand(coef, y, sign * k);
      } else rest.set(y, (rest.get(y) ?? 0) + sign * theta);
    }
  };
  split(a, 1);
  split(b, -1);
  // a Hadamard's 4·(y·x ⊕ c)·v is 4c·v + Σ_{i∈y} 4·x_i·v mod 8 (the higher terms carry a factor 8)
  const bump = (key: string) => coef.set(key, ((coef.get(key) ?? 0) + 4) % 8);
  for (const h of [...a.hadamards, ...b.hadamards]) {
    if (h.cst) bump(`${h.v}`);
    for (const i of bitsOf(h.lin)) bump(`${i},${h.v}`);
  }
  for (const c of coef.values()) if (c !== 0) return Infinity;
  for (const d of rest.values()) deviation += rotationDistance(d, 0);
  return deviation;
}
