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
  /** Summed angle per linear parity (keyed by its mask). */
  angle: Map<bigint, number>;
  /** Per Hadamard, in order: its wire, the affine parity it reads and the path variable it starts (as an affine parity: 1 << v). */
  hadamards: { q: number; lin: bigint; cst: boolean; v: bigint; vc: boolean }[];
}

/** The polynomial of a list on wires 0 … n−1, or undefined when it holds another gate. */
function polynomial(ops: readonly GateOp[], n: number): Poly | undefined {
  const lin = Array.from({ length: n }, (_, q) => 1n << BigInt(q));
  const cst: boolean[] = Array.from({ length: n }, () => false);
  const angle = new Map<bigint, number>();
  const hadamards: Poly['hadamards'] = [];
  let vars = n;
  const add = (l: bigint, c: boolean, theta: number) => {
    if (l === 0n) return; // a global phase
    angle.set(l, (angle.get(l) ?? 0) + (c ? -theta : theta));
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
        hadamards.push({ q: a, lin: lin[a]!, cst: cst[a]!, v: 1n << BigInt(vars), vc: false });
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

const bitsOf = (m: bigint): number[] => {
  const out: number[] = [];
  for (let i = 0, x = m; x !== 0n; x >>= 1n, i++) if (x & 1n) out.push(i);
  return out;
};

/** Adds k·(y·x) (mod 8) to the multilinear coefficients (keyed by sorted index lists). */
function expand(coef: Map<string, number>, y: bigint, k: number): void {
  const v = bitsOf(y);
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
  const direct = compare(a, b, qs.length);
  if (direct < Infinity) return direct;
  // Otherwise B's path variables may be A's under an invertible affine change (a CNOT moved across
  // an H-sandwich): re-indexing a sum by a bijection leaves it unchanged, so B with its variables
  // substituted is compared instead. How the change is guessed does not matter for soundness.
  const sigma = changeOfVariables(a, b, qs.length);
  return sigma ? compare(a, substitute(b, sigma), qs.length) : Infinity;
}

/** Compares two polynomials over the same variables (see phasePolynomialDistance). */
function compare(a: Poly, b: Poly, n: number): number {
  for (let q = 0; q < n; q++) if (a.lin[q] !== b.lin[q] || a.cst[q] !== b.cst[q]) return Infinity;
  let deviation = 0;
  const coef = new Map<string, number>();
  const rest = new Map<bigint, number>();
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
  // a Hadamard's 4·[l ⊕ c]·[v ⊕ d] mod 8 is 4·Σ_{i∈l, j∈v} x_i·x_j + 4d·Σ_{i∈l} x_i + 4c·Σ_{j∈v} x_j
  // (every other term of the expansion carries a factor 8; the constant is a global phase)
  const bump = (i: number, j: number) => {
    const key = i === j ? `${i}` : i < j ? `${i},${j}` : `${j},${i}`;
    coef.set(key, ((coef.get(key) ?? 0) + 4) % 8);
  };
  for (const h of [...a.hadamards, ...b.hadamards]) {
    const ls = bitsOf(h.lin);
    const vs = bitsOf(h.v);
    for (const i of ls) for (const j of vs) bump(i, j);
    if (h.vc) for (const i of ls) bump(i, i);
    if (h.cst) for (const j of vs) bump(j, j);
  }
  for (const c of coef.values()) if (c !== 0) return Infinity;
  for (const d of rest.values()) deviation += rotationDistance(d, 0);
  return deviation;
}

interface Affine {
  m: bigint;
  c: boolean;
}

/**
 * A guess of B's path variables as affine functions of the inputs and A's path variables, or
 * undefined: variables read by no output pair with A's by wire and order of their Hadamards; the
 * others are solved from the outputs (B's output parities must equal A's). Undefined also when the
 * map is not invertible in A's path variables (then it is no change of summation variables).
 */
function changeOfVariables(a: Poly, b: Poly, n: number): Map<number, Affine> | undefined {
  const h = a.hadamards.length;
  const pathMask = ((1n << BigInt(h)) - 1n) << BigInt(n);
  const sigma = new Map<number, Affine>();
  const seen = new Map<number, number>();
  const byWire = new Map<string, bigint>();
  for (const x of a.hadamards) {
    const k = seen.get(x.q) ?? 0;
    seen.set(x.q, k + 1);
    byWire.set(`${x.q}:${k}`, x.v);
  }
  seen.clear();
  const outputVars = b.lin.reduce((acc, l) => acc | l, 0n) & pathMask;
  const alive: number[] = [];
  for (const x of b.hadamards) {
    const k = seen.get(x.q) ?? 0;
    seen.set(x.q, k + 1);
    const w = bitsOf(x.v)[0]!;
    if ((outputVars >> BigInt(w)) & 1n) alive.push(w);
    else {
      const v = byWire.get(`${x.q}:${k}`);
      if (v === undefined) return undefined;
      sigma.set(w, { m: v, c: false });
    }
  }
  // rows: Σ_{w alive} B[q][w]·σ(w) = A.lin[q] ⊕ (B.lin[q] without path variables), constants alike
  const rows = b.lin.map((l, q) => ({ coeffs: l & pathMask, m: a.lin[q]! ^ (l & ~pathMask), c: a.cst[q] !== b.cst[q] }));
  const used = new Set<(typeof rows)[number]>();
  for (const w of alive) {
    const bit = 1n << BigInt(w);
    const pivot = rows.find((r) => !used.has(r) && (r.coeffs & bit) !== 0n);
    if (!pivot) return undefined; // the outputs do not determine w
    used.add(pivot);
    for (const r of rows) {
      if (r === pivot || (r.coeffs & bit) === 0n) continue;
      r.coeffs ^= pivot.coeffs;
      r.m ^= pivot.m;
      r.c = r.c !== pivot.c;
    }
  }
  for (const r of used) {
    const w = bitsOf(r.coeffs);
    if (w.length !== 1) return undefined;
    sigma.set(w[0]!, { m: r.m, c: r.c });
  }
  // a change of summation variables: the path-variable part of σ must be invertible over F₂
  const basis: bigint[] = [];
  for (const s of sigma.values()) {
    let m = s.m & pathMask;
    for (const e of basis) if ((m ^ e) < m) m ^= e;
    if (m === 0n) return undefined;
    basis.push(m);
    basis.sort((x, y) => (x < y ? 1 : x > y ? -1 : 0));
  }
  return sigma.size === h ? sigma : undefined;
}

/** B with every path variable w replaced by σ(w). */
function substitute(b: Poly, sigma: ReadonlyMap<number, Affine>): Poly {
  // simultaneous: σ(w) is over A's variables, numbered like B's, so nothing is substituted twice
  const map = (m: bigint, c: boolean): Affine => {
    let out = 0n;
    let cc = c;
    for (const i of bitsOf(m)) {
      const s = sigma.get(i);
      if (!s) out ^= 1n << BigInt(i);
      else {
        out ^= s.m;
        cc = cc !== s.c;
      }
    }
    return { m: out, c: cc };
  };
  const lin: bigint[] = [];
  const cst: boolean[] = [];
  b.lin.forEach((l, q) => {
    const r = map(l, b.cst[q]!);
    lin.push(r.m);
    cst.push(r.c);
  });
  const angle = new Map<bigint, number>();
  for (const [y, theta] of b.angle) {
    const r = map(y, false);
    if (r.m !== 0n) angle.set(r.m, (angle.get(r.m) ?? 0) + (r.c ? -theta : theta));
  }
  const hadamards = b.hadamards.map((x) => {
    const l = map(x.lin, x.cst);
    const v = map(x.v, x.vc);
    return { q: x.q, lin: l.m, cst: l.c, v: v.m, vc: v.c };
  });
  return { lin, cst, angle, hadamards };
}
