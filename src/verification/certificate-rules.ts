import { opQubits, type GateOp, type Operation } from '../circuits/ir.js';
import { embed, gateMatrix as checkerMatrix, identityMatrix, matMul, type CMatrix } from './gate-matrices.js';
import { addAngles, CERTIFICATE_BUDGET, rotationDistance } from './numeric-policy.js';
import { phasePolynomialDistance } from './phase-polynomial-rule.js';

/**
 * The rule library the certificate replayer accepts. It is the checker's own code:
 * nothing here is imported by the optimization passes (they decide rewrites with
 * their own logic and only name the rule). Every rule is proven in
 * tests/optimization/rule-library.test.ts by exact matrix equivalence up to global
 * phase: structural rules through their instance tables, semantic rules (`resynth-*`)
 * through this file's own gate matrices, which the tests compare with independent ones.
 */

export type C = readonly [number, number];
export type Mat = readonly C[][];

const PI = Math.PI;

// ---------- angles ----------

/** a ≡ b modulo the period, within the certificate budget (numeric-policy.ts), reducing each exactly. */
export function angleEq(a: number, b: number, period: number): boolean {
  return rotationDistance(a, b, period) <= CERTIFICATE_BUDGET;
}

const FIXED_PHASE: Readonly<Record<string, number>> = { z: PI, s: PI / 2, sdg: -PI / 2, t: PI / 4, tdg: -PI / 4 };
const PARAM_PHASE = new Set(['rz', 'p', 'u1']);

/** Angle θ such that a one-qubit diagonal gate equals diag(1, e^{iθ}) up to global phase. */
export function phaseAngleOf(op: GateOp): number | undefined {
  if (op.qubits.length !== 1) return undefined;
  const f = FIXED_PHASE[op.name];
  if (f !== undefined) return f;
  if (PARAM_PHASE.has(op.name)) return op.params[0];
  return undefined;
}

// ---------- commutation ----------

type Axis = 'Z' | 'X' | 'Y';
/** Per gate, per qubit position: the Pauli the gate commutes with on that qubit. */
const AXES: Readonly<Record<string, readonly (Axis | null)[]>> = {
  id: ['Z'],
  z: ['Z'],
  s: ['Z'],
  sdg: ['Z'],
  t: ['Z'],
  tdg: ['Z'],
  rz: ['Z'],
  p: ['Z'],
  u1: ['Z'],
  x: ['X'],
  sx: ['X'],
  sxdg: ['X'],
  rx: ['X'],
  y: ['Y'],
  ry: ['Y'],
  cx: ['Z', 'X'],
  cy: ['Z', 'Y'],
  cz: ['Z', 'Z'],
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

export function axisTable(): Readonly<Record<string, readonly (Axis | null)[]>> {
  return AXES;
}

/**
 * Two operations commute if they act on disjoint qubits, or if on every shared qubit both
 * commute with the same Pauli (then both are block diagonal in one product basis of the
 * shared qubits, with blocks acting on disjoint wires).
 */
export function commutes(a: Operation, b: Operation): boolean {
  // no list of the shared qubits: the replayer asks this of every op a gathered op moves past
  const qa = qubitsOf(a);
  const qb = qubitsOf(b);
  let shared = false;
  for (let i = 0; i < qa.length; i++) {
    const j = qb.indexOf(qa[i]!);
    if (j < 0) continue;
    if (!shared && (a.kind !== 'gate' || b.kind !== 'gate' || !AXES[a.name] || !AXES[b.name])) return false;
    shared = true;
    const x = AXES[(a as GateOp).name]![i];
    const y = AXES[(b as GateOp).name]![j];
    if (!x || !y || x !== y) return false;
  }
  return true;
}

function qubitsOf(op: Operation): readonly number[] {
  return opQubits(op);
}

// ---------- matrices (the checker's own) ----------

const c = (re: number, im = 0): C => [re, im];
const cmul = (a: C, b: C): C => [a[0] * b[0] - a[1] * b[1], a[0] * b[1] + a[1] * b[0]];
const cadd = (a: C, b: C): C => [a[0] + b[0], a[1] + b[1]];
const expi = (t: number): C => [Math.cos(t), Math.sin(t)];

function u3m(th: number, ph: number, la: number): Mat {
  const co = Math.cos(th / 2);
  const si = Math.sin(th / 2);
  return [
    [c(co), cmul(expi(la), c(-si))],
    [cmul(expi(ph), c(si)), cmul(expi(addAngles(ph, la)), c(co))],
  ];
}
const diag1 = (t: number): Mat => [
  [c(1), c(0)],
  [c(0), expi(t)],
];
const R2 = Math.SQRT1_2;

function oneQubit(name: string, p: readonly number[]): Mat | undefined {
  const [a = 0, b = 0, d = 0] = p;
  switch (name) {
    case 'id':
    case 'u0':
      return [
        [c(1), c(0)],
        [c(0), c(1)],
      ];
    case 'x':
      return [
        [c(0), c(1)],
        [c(1), c(0)],
      ];
    case 'y':
      return [
        [c(0), c(0, -1)],
        [c(0, 1), c(0)],
      ];
    case 'z':
      return diag1(PI);
    case 'h':
      return [
        [c(R2), c(R2)],
        [c(R2), c(-R2)],
      ];
    case 's':
      return diag1(PI / 2);
    case 'sdg':
      return diag1(-PI / 2);
    case 't':
      return diag1(PI / 4);
    case 'tdg':
      return diag1(-PI / 4);
    case 'sx':
      return [
        [c(0.5, 0.5), c(0.5, -0.5)],
        [c(0.5, -0.5), c(0.5, 0.5)],
      ];
    case 'sxdg':
      return [
        [c(0.5, -0.5), c(0.5, 0.5)],
        [c(0.5, 0.5), c(0.5, -0.5)],
      ];
    case 'rx':
      return [
        [c(Math.cos(a / 2)), c(0, -Math.sin(a / 2))],
        [c(0, -Math.sin(a / 2)), c(Math.cos(a / 2))],
      ];
    case 'ry':
      return [
        [c(Math.cos(a / 2)), c(-Math.sin(a / 2))],
        [c(Math.sin(a / 2)), c(Math.cos(a / 2))],
      ];
    case 'rz':
      return [
        [expi(-a / 2), c(0)],
        [c(0), expi(a / 2)],
      ];
    case 'p':
    case 'u1':
      return diag1(a);
    case 'u2':
      return u3m(PI / 2, a, b);
    case 'u3':
    case 'u':
      return u3m(a, b, d);
    default:
      return undefined;
  }
}

function controlled(u: Mat): Mat {
  const m: C[][] = [0, 1, 2, 3].map((i) => [0, 1, 2, 3].map((j) => c(i === j && i < 2 ? 1 : 0)));
  for (let i = 0; i < 2; i++) for (let j = 0; j < 2; j++) m[2 + i]![2 + j] = u[i]![j]!;
  return m;
}

/** Matrix of a gate in the basis index = Σ bit(qubits[k]) << (arity-1-k). */
export function gateMatrix(op: GateOp): Mat | undefined {
  const one = oneQubit(op.name, op.params);
  if (one) return op.qubits.length === 1 ? one : undefined;
  const [a = 0, b = 0, d = 0, g = 0] = op.params;
  const ctl = (n: string, p: readonly number[]): Mat => controlled(oneQubit(n, p)!);
  switch (op.name) {
    case 'cx':
      return ctl('x', []);
    case 'cy':
      return ctl('y', []);
    case 'cz':
      return ctl('z', []);
    case 'ch':
      return ctl('h', []);
    case 'csx':
      return ctl('sx', []);
    case 'crx':
      return ctl('rx', [a]);
    case 'cry':
      return ctl('ry', [a]);
    case 'crz':
      return ctl('rz', [a]);
    case 'cp':
    case 'cu1':
      return ctl('p', [a]);
    case 'cu3':
      return ctl('u3', [a, b, d]);
    case 'cu': {
      const u = u3m(a, b, d).map((row) => row.map((x) => cmul(expi(g), x)));
      return controlled(u);
    }
    case 'swap':
      return [0, 1, 2, 3].map((i) => [0, 1, 2, 3].map((j) => c((i === 0 || i === 3 ? i : 3 - i) === j ? 1 : 0)));
    case 'rzz':
      return [0, 1, 2, 3].map((i) => [0, 1, 2, 3].map((j) => (i !== j ? c(0) : expi(i === 0 || i === 3 ? -a / 2 : a / 2))));
    case 'rxx':
    case 'ryy': {
      const co = c(Math.cos(a / 2));
      const s = Math.sin(a / 2);
      const m: C[][] = [0, 1, 2, 3].map((i) => [0, 1, 2, 3].map((j) => (i === j ? co : c(0))));
      for (let i = 0; i < 4; i++) {
        const j = 3 - i;
        const sign = op.name === 'rxx' || i === 1 || i === 2 ? -1 : 1;
        m[i]![j] = c(0, sign * s);
      }
      return m;
    }
    default:
      return undefined;
  }
}

/** Unitary of a gate sequence on the given local qubits (local index k ↔ bit (n-1-k)). */
export function blockUnitary(ops: readonly GateOp[], local: readonly number[]): Mat | undefined {
  const n = local.length;
  const dim = 1 << n;
  let acc: C[][] = [...Array(dim).keys()].map((i) => [...Array(dim).keys()].map((j) => c(i === j ? 1 : 0)));
  for (const op of ops) {
    const g = gateMatrix(op);
    if (!g) return undefined;
    const pos = op.qubits.map((q) => local.indexOf(q));
    if (pos.some((p) => p < 0)) return undefined;
    const k = pos.length;
    const full: C[][] = [...Array(dim).keys()].map(() => [...Array(dim).keys()].map(() => c(0)));
    for (let col = 0; col < dim; col++) {
      let sub = 0;
      for (let t = 0; t < k; t++) sub |= ((col >> (n - 1 - pos[t]!)) & 1) << (k - 1 - t);
      for (let r = 0; r < 1 << k; r++) {
        let row = col;
        for (let t = 0; t < k; t++) {
          const bit = (r >> (k - 1 - t)) & 1;
          row = (row & ~(1 << (n - 1 - pos[t]!))) | (bit << (n - 1 - pos[t]!));
        }
        full[row]![col] = g[r]![sub]!;
      }
    }
    const next: C[][] = [...Array(dim).keys()].map(() => [...Array(dim).keys()].map(() => c(0)));
    for (let i = 0; i < dim; i++)
      for (let j = 0; j < dim; j++) {
        let s: C = c(0);
        for (let m = 0; m < dim; m++) s = cadd(s, cmul(full[i]![m]!, acc[m]![j]!));
        next[i]![j] = s;
      }
    acc = next;
  }
  return acc;
}

/**
 * min over φ of the Frobenius norm ‖a − e^{iφ}b‖ (φ = arg tr(b†a)): an upper bound of the operator-norm
 * distance up to phase, which is what the certificate budget counts. Infinity when the sizes differ.
 */
export function distanceUpToPhase(a: Mat, b: Mat): number {
  if (a.length !== b.length) return Infinity;
  let tr = 0;
  let ti = 0;
  for (let i = 0; i < a.length; i++)
    for (let j = 0; j < a.length; j++) {
      const x = a[i]![j]!;
      const y = b[i]![j]!;
      tr += y[0] * x[0] + y[1] * x[1];
      ti += y[0] * x[1] - y[1] * x[0];
    }
  const n = Math.hypot(tr, ti);
  const [pr, pi] = n === 0 ? [1, 0] : [tr / n, ti / n];
  let sum = 0;
  for (let i = 0; i < a.length; i++)
    for (let j = 0; j < a.length; j++) {
      const x = a[i]![j]!;
      const y = b[i]![j]!;
      const dr = x[0] - (pr * y[0] - pi * y[1]);
      const di = x[1] - (pr * y[1] + pi * y[0]);
      sum += dr * dr + di * di;
    }
  return Math.sqrt(sum);
}

export function equalUpToPhase(a: Mat, b: Mat, eps = 1e-8): boolean {
  let bi = 0;
  let bj = 0;
  let best = -1;
  for (let i = 0; i < a.length; i++)
    for (let j = 0; j < a.length; j++) {
      const m = Math.hypot(a[i]![j]![0], a[i]![j]![1]);
      if (m > best) {
        best = m;
        bi = i;
        bj = j;
      }
    }
  const x = a[bi]![bj]!;
  const y = b[bi]![bj]!;
  const den = x[0] * x[0] + x[1] * x[1];
  if (den < eps) return false;
  const ph: C = [(y[0] * x[0] + y[1] * x[1]) / den, (y[1] * x[0] - y[0] * x[1]) / den];
  if (Math.abs(Math.hypot(ph[0], ph[1]) - 1) > eps) return false;
  for (let i = 0; i < a.length; i++)
    for (let j = 0; j < a.length; j++) {
      const p = cmul(ph, a[i]![j]!);
      if (Math.abs(p[0] - b[i]![j]![0]) > eps || Math.abs(p[1] - b[i]![j]![1]) > eps) return false;
    }
  return true;
}

// ---------- rules ----------

export interface Rule {
  readonly id: string;
  readonly description: string;
  /** True when `lhs` (the gathered matched ops) may be replaced by `rhs`. */
  check(lhs: readonly GateOp[], rhs: readonly GateOp[]): boolean;
  /**
   * For rules that compare angles or matrices numerically: how far `rhs` is from `lhs` (operator norm,
   * up to phase; an upper bound). The replayer adds these up against CERTIFICATE_BUDGET. Absent = exact.
   */
  deviation?(lhs: readonly GateOp[], rhs: readonly GateOp[]): number;
}

/** A numeric rule: an instance when its distance fits the certificate budget; the distance is counted. */
function measured(id: string, description: string, distance: (lhs: readonly GateOp[], rhs: readonly GateOp[]) => number): Rule {
  return { id, description, check: (l, r) => distance(l, r) <= CERTIFICATE_BUDGET, deviation: distance };
}

const SELF_INVERSE = new Set(['x', 'y', 'z', 'h', 'cx', 'cy', 'cz', 'ch', 'swap', 'ccx', 'ccz', 'cswap']);
const INVERSE_OF: Readonly<Record<string, string>> = { s: 'sdg', sdg: 's', t: 'tdg', tdg: 't', sx: 'sxdg', sxdg: 'sx' };
/** Qubit positions that may be permuted without changing the gate. */
const SYMMETRIC: Readonly<Record<string, readonly number[]>> = { cz: [0, 1], swap: [0, 1], ccz: [0, 1, 2], ccx: [0, 1], cswap: [1, 2] };

export function inverseTable(): { selfInverse: readonly string[]; pairs: Readonly<Record<string, string>>; symmetric: Readonly<Record<string, readonly number[]>> } {
  return { selfInverse: [...SELF_INVERSE], pairs: INVERSE_OF, symmetric: SYMMETRIC };
}

function sameQubits(name: string, a: readonly number[], b: readonly number[]): boolean {
  if (a.length !== b.length) return false;
  if (a.every((q, i) => q === b[i])) return true;
  const sym = SYMMETRIC[name];
  if (!sym) return false;
  for (let i = 0; i < a.length; i++) if (!sym.includes(i) && a[i] !== b[i]) return false;
  const sa = sym.map((i) => a[i] ?? -1).sort((x, y) => x - y);
  const sb = sym.map((i) => b[i] ?? -1).sort((x, y) => x - y);
  return sa.every((q, i) => q === sb[i]);
}

/** Period (in the angle) after which each rotation family repeats up to global phase. */
const ROTATION_PERIOD: Readonly<Record<string, number>> = {
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

/** How far a gate is from the identity up to phase (Infinity for gates that are not rotations). */
function identityDistance(op: GateOp): number {
  if (op.name === 'id' || op.name === 'u0') return 0;
  const ph = phaseAngleOf(op);
  if (ph !== undefined) return rotationDistance(ph, 0);
  const per = ROTATION_PERIOD[op.name];
  if (per !== undefined) return op.params.length === 1 ? rotationDistance(op.params[0]!, 0, per) : Infinity;
  if ((op.name === 'u3' || op.name === 'u') && op.qubits.length === 1) {
    const m = oneQubit('u3', op.params);
    return m ? distanceUpToPhase(m, oneQubit('id', [])!) : Infinity;
  }
  return Infinity;
}

/** A fixed circuit identity over qubit variables, matched by unification. */
export interface TemplateOp {
  readonly name: string;
  readonly q: readonly string[];
  readonly params?: readonly number[];
}
export interface Template {
  readonly id: string;
  readonly description: string;
  readonly lhs: readonly TemplateOp[];
  readonly rhs: readonly TemplateOp[];
}

const T = (name: string, ...q: string[]): TemplateOp => ({ name, q });

export const TEMPLATES: readonly Template[] = [
  { id: 'hadamard-s', description: 'H S H = S† H S†', lhs: [T('h', 'a'), T('s', 'a'), T('h', 'a')], rhs: [T('sdg', 'a'), T('h', 'a'), T('sdg', 'a')] },
  { id: 'hadamard-sdg', description: 'H S† H = S H S', lhs: [T('h', 'a'), T('sdg', 'a'), T('h', 'a')], rhs: [T('s', 'a'), T('h', 'a'), T('s', 'a')] },
  { id: 'hadamard-z', description: 'H Z H = X', lhs: [T('h', 'a'), T('z', 'a'), T('h', 'a')], rhs: [T('x', 'a')] },
  { id: 'hadamard-x', description: 'H X H = Z', lhs: [T('h', 'a'), T('x', 'a'), T('h', 'a')], rhs: [T('z', 'a')] },
  {
    id: 'hadamard-s-cx',
    description: 'H_b S_b CX(a,b) S†_b H_b = S†_b CX(a,b) S_b',
    lhs: [T('h', 'b'), T('s', 'b'), T('cx', 'a', 'b'), T('sdg', 'b'), T('h', 'b')],
    rhs: [T('sdg', 'b'), T('cx', 'a', 'b'), T('s', 'b')],
  },
  {
    id: 'hadamard-sdg-cx',
    description: 'H_b S†_b CX(a,b) S_b H_b = S_b CX(a,b) S†_b',
    lhs: [T('h', 'b'), T('sdg', 'b'), T('cx', 'a', 'b'), T('s', 'b'), T('h', 'b')],
    rhs: [T('s', 'b'), T('cx', 'a', 'b'), T('sdg', 'b')],
  },
  { id: 'h-cz-h', description: 'H_b CZ(a,b) H_b = CX(a,b)', lhs: [T('h', 'b'), T('cz', 'a', 'b'), T('h', 'b')], rhs: [T('cx', 'a', 'b')] },
  { id: 'h-cx-h', description: 'H_b CX(a,b) H_b = CZ(a,b)', lhs: [T('h', 'b'), T('cx', 'a', 'b'), T('h', 'b')], rhs: [T('cz', 'a', 'b')] },
  { id: 'cx-cx-cx-swap', description: 'CX(a,b) CX(b,a) CX(a,b) = SWAP(a,b)', lhs: [T('cx', 'a', 'b'), T('cx', 'b', 'a'), T('cx', 'a', 'b')], rhs: [T('swap', 'a', 'b')] },
  {
    id: 'cx-chain-shortcut',
    description: 'CX(a,b) CX(b,c) CX(a,b) = CX(b,c) CX(a,c)',
    lhs: [T('cx', 'a', 'b'), T('cx', 'b', 'c'), T('cx', 'a', 'b')],
    rhs: [T('cx', 'b', 'c'), T('cx', 'a', 'c')],
  },
  {
    id: 'cx-fanout-shortcut',
    description: 'CX(b,c) CX(a,b) CX(b,c) = CX(a,b) CX(a,c)',
    lhs: [T('cx', 'b', 'c'), T('cx', 'a', 'b'), T('cx', 'b', 'c')],
    rhs: [T('cx', 'a', 'b'), T('cx', 'a', 'c')],
  },
  {
    id: 'ccx-decompose',
    description: 'Toffoli = 6 CNOT + 7 T/T† + 2 H (Nielsen & Chuang Fig. 4.9)',
    lhs: [T('ccx', 'a', 'b', 'c')],
    rhs: [
      T('h', 'c'),
      T('cx', 'b', 'c'),
      T('tdg', 'c'),
      T('cx', 'a', 'c'),
      T('t', 'c'),
      T('cx', 'b', 'c'),
      T('tdg', 'c'),
      T('cx', 'a', 'c'),
      T('t', 'b'),
      T('t', 'c'),
      T('h', 'c'),
      T('cx', 'a', 'b'),
      T('t', 'a'),
      T('tdg', 'b'),
      T('cx', 'a', 'b'),
    ],
  },
  {
    id: 'ccz-decompose',
    description: 'CCZ = 6 CNOT + 7 T/T†',
    lhs: [T('ccz', 'a', 'b', 'c')],
    rhs: [
      T('cx', 'b', 'c'),
      T('tdg', 'c'),
      T('cx', 'a', 'c'),
      T('t', 'c'),
      T('cx', 'b', 'c'),
      T('tdg', 'c'),
      T('cx', 'a', 'c'),
      T('t', 'b'),
      T('t', 'c'),
      T('cx', 'a', 'b'),
      T('t', 'a'),
      T('tdg', 'b'),
      T('cx', 'a', 'b'),
    ],
  },
  { id: 'x-h', description: 'X H = H Z', lhs: [T('x', 'a'), T('h', 'a')], rhs: [T('h', 'a'), T('z', 'a')] },
  { id: 'x-cx-control', description: 'X_a CX(a,b) = CX(a,b) X_a X_b', lhs: [T('x', 'a'), T('cx', 'a', 'b')], rhs: [T('cx', 'a', 'b'), T('x', 'a'), T('x', 'b')] },
  { id: 'cx-x-control', description: 'CX(a,b) X_a X_b = X_a CX(a,b)', lhs: [T('cx', 'a', 'b'), T('x', 'a'), T('x', 'b')], rhs: [T('x', 'a'), T('cx', 'a', 'b')] },
  { id: 'cx-x-control-move', description: 'CX(a,b) X_a = X_a X_b CX(a,b)', lhs: [T('cx', 'a', 'b'), T('x', 'a')], rhs: [T('x', 'a'), T('x', 'b'), T('cx', 'a', 'b')] },
];

/** Orders of the commuting outer Hadamards of `hadamard-cx-flip` (each a separate, proven template). */
const FLIP_VARIANTS: readonly Template[] = (['ab', 'ba'] as const).flatMap((pre) =>
  (['ab', 'ba'] as const).map((post) => ({
    id: `hadamard-cx-flip-${pre}-${post}`,
    description: `(H⊗H) CX(a,b) (H⊗H) = CX(b,a), Hadamards in order ${pre} / ${post}`,
    lhs: [...pre]
      .map((v) => T('h', v))
      .concat(
        [T('cx', 'a', 'b')],
        [...post].map((v) => T('h', v)),
      ),
    rhs: [T('cx', 'b', 'a')],
  })),
);

export const ALL_TEMPLATES: readonly Template[] = [...TEMPLATES, ...FLIP_VARIANTS];

function unify(pattern: readonly TemplateOp[], ops: readonly GateOp[], env: Map<string, number>): boolean {
  if (pattern.length !== ops.length) return false;
  for (let i = 0; i < ops.length; i++) {
    const p = pattern[i]!;
    const o = ops[i]!;
    if (p.name !== o.name || p.q.length !== o.qubits.length) return false;
    const pp = p.params ?? [];
    if (pp.length !== o.params.length || pp.some((v, k) => v !== o.params[k]!)) return false;
    for (let k = 0; k < p.q.length; k++) {
      const v = p.q[k]!;
      const q = o.qubits[k]!;
      const bound = env.get(v);
      if (bound === undefined) {
        if ([...env.values()].includes(q)) return false;
        env.set(v, q);
      } else if (bound !== q) return false;
    }
  }
  return true;
}

function templateRule(t: Template): Rule {
  return {
    id: `template:${t.id}`,
    description: t.description,
    check(lhs, rhs) {
      const env = new Map<string, number>();
      if (!unify(t.lhs, lhs, env)) return false;
      // rhs variables must all be bound by the lhs
      if (t.rhs.some((o) => o.q.some((v) => !env.has(v)))) return false;
      return unify(t.rhs, rhs, env);
    },
  };
}

const singleQubitRun = (ops: readonly GateOp[]): number | undefined => {
  const q = ops[0]?.qubits[0];
  if (q === undefined) return undefined;
  return ops.every((o) => o.qubits.length === 1 && o.qubits[0] === q) ? q : undefined;
};

/**
 * A gate list with its SWAPs pulled to the end: each other gate renamed to the qubits that
 * started on its wires, listed per qubit, and the qubit each wire holds at the end. A list equals
 * its renamed gates followed by that permutation, and gates on disjoint qubits commute, so two
 * lists with the same per-qubit sequences and the same final wires are the same operator.
 */
function unswapped(ops: readonly GateOp[]): { gates: number; perWire: Map<number, string[]>; wire: Map<number, number> } {
  const wire = new Map<number, number>(); // wire -> qubit on it now (absent = its own)
  const perWire = new Map<number, string[]>();
  const on = (w: number) => wire.get(w) ?? w;
  let gates = 0;
  for (const op of ops) {
    const [x, y] = op.qubits;
    if (op.name === 'swap' && op.qubits.length === 2 && op.params.length === 0 && x !== y) {
      const qx = on(x!);
      wire.set(x!, on(y!));
      wire.set(y!, qx);
      continue;
    }
    const qs = op.qubits.map(on);
    const key = `${op.name}(${qs.join(',')};${op.params.join(',')})`;
    for (const q of qs) {
      const seq = perWire.get(q);
      if (seq === undefined) perWire.set(q, [key]);
      else seq.push(key);
    }
    gates++;
  }
  return { gates, perWire, wire };
}

/** Distance up to phase between one multi-qubit gate and a gate list on its qubits, with the verification matrices. */
function multiQubitDistance(op: GateOp, rhs: readonly GateOp[]): number {
  const local = op.qubits;
  const width = local.length;
  const g = checkerMatrix(op.name, op.params);
  if (!g || g.dim !== 1 << width) return Infinity;
  let acc: CMatrix = identityMatrix(1 << width);
  for (const o of rhs) {
    const m = checkerMatrix(o.name, o.params);
    const pos = o.qubits.map((q) => local.indexOf(q));
    if (!m || pos.some((p) => p < 0) || m.dim !== 1 << pos.length) return Infinity;
    acc = matMul(embed(m, pos, width), acc);
  }
  const toMat = (m: CMatrix): Mat => [...Array(m.dim).keys()].map((r) => [...Array(m.dim).keys()].map((c) => [m.re[r * m.dim + c]!, m.im[r * m.dim + c]!] as C));
  return distanceUpToPhase(toMat(g), toMat(acc));
}

export const RULES: readonly Rule[] = [
  {
    id: 'cancel-inverse',
    description: 'A gate followed by its inverse on the same qubits is the identity.',
    check(lhs, rhs) {
      if (lhs.length !== 2 || rhs.length !== 0) return false;
      const [a, b] = lhs as [GateOp, GateOp];
      if (a.params.length !== 0 || b.params.length !== 0) return false;
      const ok = (SELF_INVERSE.has(a.name) && a.name === b.name) || INVERSE_OF[a.name] === b.name;
      return ok && sameQubits(a.name, a.qubits, b.qubits);
    },
  },
  measured('merge-phase', 'Two one-qubit diagonal gates on one qubit merge into one with the summed angle (or vanish).', (lhs, rhs) => {
    if (lhs.length !== 2 || rhs.length > 1) return Infinity;
    const [a, b] = lhs as [GateOp, GateOp];
    const x = phaseAngleOf(a);
    const y = phaseAngleOf(b);
    if (x === undefined || y === undefined || a.qubits[0] !== b.qubits[0]) return Infinity;
    if (rhs.length === 0) return rotationDistance(addAngles(x, y), 0);
    const r = rhs[0]!;
    const z = phaseAngleOf(r);
    return z !== undefined && r.qubits[0] === a.qubits[0] ? rotationDistance(addAngles(x, y), z) : Infinity;
  }),
  measured('rename-phase', 'A one-qubit diagonal gate may be written as any other with the same angle.', (lhs, rhs) => {
    if (lhs.length !== 1 || rhs.length !== 1) return Infinity;
    const x = phaseAngleOf(lhs[0]!);
    const y = phaseAngleOf(rhs[0]!);
    return x !== undefined && y !== undefined && lhs[0]!.qubits[0] === rhs[0]!.qubits[0] ? rotationDistance(x, y) : Infinity;
  }),
  measured('merge-rotation', 'Two rotations of one family on the same qubits merge into one with the summed angle.', (lhs, rhs) => {
    if (lhs.length !== 2 || rhs.length !== 1) return Infinity;
    const [a, b] = lhs as [GateOp, GateOp];
    const r = rhs[0]!;
    const per = ROTATION_PERIOD[a.name];
    if (per === undefined || a.name !== b.name || r.name !== a.name) return Infinity;
    const same = (u: readonly number[], v: readonly number[]) => u.length === v.length && u.every((q, i) => q === v[i]);
    if (!same(a.qubits, b.qubits) || !same(a.qubits, r.qubits)) return Infinity;
    if (a.params.length !== 1 || b.params.length !== 1 || r.params.length !== 1) return Infinity;
    return rotationDistance(addAngles(a.params[0]!, b.params[0]!, per), r.params[0]!, per);
  }),
  measured('drop-identity', 'A gate equal to the identity up to global phase is removed.', (lhs, rhs) => (lhs.length === 1 && rhs.length === 0 ? identityDistance(lhs[0]!) : Infinity)),
  measured('resynth-1q', 'A run of one-qubit gates on one qubit is replaced by any run with the same 2×2 unitary up to phase.', (lhs, rhs) => {
    const q = singleQubitRun(lhs);
    if (q === undefined || lhs.length === 0) return Infinity;
    if (rhs.length > 0 && singleQubitRun(rhs) !== q) return Infinity;
    const a = blockUnitary(lhs, [q]);
    const b = blockUnitary(rhs, [q]);
    return a && b ? distanceUpToPhase(a, b) : Infinity;
  }),
  measured('resynth-2q', 'A block of gates on two qubits is replaced by any block with the same 4×4 unitary up to phase.', (lhs, rhs) => {
    const qs = [...new Set(lhs.flatMap((o) => o.qubits))];
    if (qs.length < 1 || qs.length > 2) return Infinity;
    if (rhs.some((o) => o.qubits.some((q) => !qs.includes(q)))) return Infinity;
    const a = blockUnitary(lhs, qs);
    const b = blockUnitary(rhs, qs);
    return a && b ? distanceUpToPhase(a, b) : Infinity;
  }),
  measured('decompose-multi-qubit', 'One gate on 3 to 5 qubits is replaced by gates on the same qubits with the same unitary up to phase (the verification gate matrices).', (lhs, rhs) => {
    if (lhs.length !== 1) return Infinity;
    const qs = lhs[0]!.qubits;
    if (qs.length < 3 || qs.length > 5) return Infinity;
    return multiQubitDistance(lhs[0]!, rhs);
  }),
  {
    id: 'commute-swap',
    description: 'Two gates that commute (by the commutation rule) may be exchanged.',
    check(lhs, rhs) {
      if (lhs.length !== 2 || rhs.length !== 2) return false;
      const [a, b] = lhs as [GateOp, GateOp];
      const same = (x: GateOp, y: GateOp) =>
        x.name === y.name && x.qubits.length === y.qubits.length && x.qubits.every((q, i) => q === y.qubits[i]) && x.params.length === y.params.length && x.params.every((p, i) => p === y.params[i]);
      return same(rhs[0]!, b) && same(rhs[1]!, a) && commutes(a, b);
    },
  },
  {
    id: 'x-phase-flip',
    description: 'X D(θ) = D(−θ) X for a one-qubit diagonal gate D, up to global phase.',
    check(lhs, rhs) {
      if (lhs.length !== 2 || rhs.length !== 2) return false;
      const [x, d] = lhs as [GateOp, GateOp];
      const [d2, x2] = rhs as [GateOp, GateOp];
      if (x.name !== 'x' || x2.name !== 'x') return false;
      const q = x.qubits[0];
      if (d.qubits[0] !== q || d2.qubits[0] !== q || x2.qubits[0] !== q) return false;
      const a = phaseAngleOf(d);
      const b = phaseAngleOf(d2);
      return a !== undefined && b !== undefined && angleEq(a, -b, 2 * PI);
    },
    deviation(lhs, rhs) {
      return rotationDistance(phaseAngleOf(lhs[1]!)!, -phaseAngleOf(rhs[0]!)!);
    },
  },
  {
    id: 'route-swaps',
    description: 'Reading every SWAP as a relabeling of the wires, two gate lists that apply the same gates in the same order on each qubit and leave every qubit on the same wire are equal.',
    check(lhs, rhs) {
      const a = unswapped(lhs);
      const b = unswapped(rhs);
      if (a.gates !== b.gates || a.perWire.size !== b.perWire.size) return false;
      for (const [q, seq] of a.perWire) {
        const other = b.perWire.get(q);
        if (other === undefined || other.length !== seq.length || seq.some((k, i) => k !== other[i])) return false;
      }
      for (const w of new Set([...a.wire.keys(), ...b.wire.keys()])) if ((a.wire.get(w) ?? w) !== (b.wire.get(w) ?? w)) return false;
      return true;
    },
  },
  measured(
    'resynth-phase-polynomial',
    'A list of CNOT, X, SWAP, CZ and phase gates is replaced by one with the same linear map and the same phase function (phase-polynomial-rule.ts).',
    phasePolynomialDistance,
  ),
  ...ALL_TEMPLATES.map(templateRule),
];

const BY_ID = new Map(RULES.map((r) => [r.id, r]));

export function ruleById(id: string): Rule | undefined {
  return BY_ID.get(id);
}
