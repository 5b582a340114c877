/**
 * The tests' own small matrix helper (independent of both the passes and the checker):
 * dense complex matrices as Float64Array pairs, gates built from Pauli algebra.
 */
import type { Circuit, GateOp } from '../../../src/circuits/ir.js';

export interface CM {
  n: number;
  re: Float64Array;
  im: Float64Array;
}

export function eye(n: number): CM {
  const d = 1 << n;
  const m = { n, re: new Float64Array(d * d), im: new Float64Array(d * d) };
  for (let i = 0; i < d; i++) m.re[i * d + i] = 1;
  return m;
}

const I2 = [
  [1, 0],
  [0, 1],
];
type C2 = [number, number];
type M = C2[][];
const cx = (
  a: number[][],
  b: number[][] = [
    [0, 0],
    [0, 0],
  ],
): M => a.map((r, i) => r.map((v, j) => [v, b[i]![j]!] as C2));
const X = cx([
  [0, 1],
  [1, 0],
]);
const Y = cx(
  [
    [0, 0],
    [0, 0],
  ],
  [
    [0, -1],
    [1, 0],
  ],
);
const Z = cx([
  [1, 0],
  [0, -1],
]);
const ID = cx(I2);

function lin(a: M, ca: C2, b: M, cb: C2): M {
  return a.map((r, i) =>
    r.map((v, j) => {
      const w = b[i]![j]!;
      return [ca[0] * v[0] - ca[1] * v[1] + cb[0] * w[0] - cb[1] * w[1], ca[0] * v[1] + ca[1] * v[0] + cb[0] * w[1] + cb[1] * w[0]] as C2;
    }),
  );
}
/** exp(-i θ/2 P) = cos(θ/2) I − i sin(θ/2) P */
const rot = (p: M, t: number): M => lin(ID, [Math.cos(t / 2), 0], p, [0, -Math.sin(t / 2)]);
const phase = (t: number): M => [
  [
    [1, 0],
    [0, 0],
  ],
  [
    [0, 0],
    [Math.cos(t), Math.sin(t)],
  ],
];
const mm = (a: M, b: M): M =>
  a.map((r) => b[0]!.map((_, j) => r.reduce<C2>((s, v, k) => [s[0] + v[0] * b[k]![j]![0] - v[1] * b[k]![j]![1], s[1] + v[0] * b[k]![j]![1] + v[1] * b[k]![j]![0]], [0, 0])));
const kron = (a: M, b: M): M => {
  const out: M = [];
  for (let i = 0; i < a.length; i++)
    for (let k = 0; k < b.length; k++) {
      const row: C2[] = [];
      for (let j = 0; j < a.length; j++)
        for (let l = 0; l < b.length; l++) {
          const x = a[i]![j]!;
          const y = b[k]![l]!;
          row.push([x[0] * y[0] - x[1] * y[1], x[0] * y[1] + x[1] * y[0]]);
        }
      out.push(row);
    }
  return out;
};
const scale = (m: M, t: number): M => m.map((r) => r.map((v) => [v[0] * Math.cos(t) - v[1] * Math.sin(t), v[0] * Math.sin(t) + v[1] * Math.cos(t)] as C2));
const H = lin(X, [Math.SQRT1_2, 0], Z, [Math.SQRT1_2, 0]);
// one angle per factor: p + π/2 would lose a huge p's value in the addition
const u3 = (t: number, p: number, l: number): M => mm(phase(p), mm(phase(Math.PI / 2), mm(rot(X, t), mm(phase(-Math.PI / 2), phase(l)))));
const ctrl = (u: M): M => {
  const d = u.length;
  const out: M = [...Array(2 * d)].map((_, i) => [...Array(2 * d)].map((_, j) => [i === j && i < d ? 1 : 0, 0] as C2));
  for (let i = 0; i < d; i++) for (let j = 0; j < d; j++) out[d + i]![d + j] = u[i]![j]!;
  return out;
};
const expPP = (p: M, t: number): M => lin(kron(ID, ID), [Math.cos(t / 2), 0], kron(p, p), [0, -Math.sin(t / 2)]);
const SWAP: M = [0, 2, 1, 3].map((j) => [0, 1, 2, 3].map((k) => [k === j ? 1 : 0, 0] as C2));

/** Matrix of a gate, first qubit most significant. */
export function small(name: string, p: readonly number[] = []): M {
  const [a = 0, b = 0, c = 0, d = 0] = p;
  const PI = Math.PI;
  switch (name) {
    case 'id':
    case 'u0':
      return ID;
    case 'x':
      return X;
    case 'y':
      return Y;
    case 'z':
      return Z;
    case 'h':
      return H;
    case 's':
      return phase(PI / 2);
    case 'sdg':
      return phase(-PI / 2);
    case 't':
      return phase(PI / 4);
    case 'tdg':
      return phase(-PI / 4);
    case 'sx':
      return scale(rot(X, PI / 2), PI / 4);
    case 'sxdg':
      return scale(rot(X, -PI / 2), -PI / 4);
    case 'rx':
      return rot(X, a);
    case 'ry':
      return rot(Y, a);
    case 'rz':
      return rot(Z, a);
    case 'p':
    case 'u1':
      return phase(a);
    case 'u2':
      return u3(PI / 2, a, b);
    case 'u3':
    case 'u':
      return u3(a, b, c);
    case 'cx':
      return ctrl(X);
    case 'cy':
      return ctrl(Y);
    case 'cz':
      return ctrl(Z);
    case 'ch':
      return ctrl(H);
    case 'csx':
      return ctrl(scale(rot(X, PI / 2), PI / 4));
    case 'crx':
      return ctrl(rot(X, a));
    case 'cry':
      return ctrl(rot(Y, a));
    case 'crz':
      return ctrl(rot(Z, a));
    case 'cp':
    case 'cu1':
      return ctrl(phase(a));
    case 'cu3':
      return ctrl(u3(a, b, c));
    case 'cu':
      return ctrl(u3(a, b, c).map((r) => r.map((v) => [v[0] * Math.cos(d) - v[1] * Math.sin(d), v[0] * Math.sin(d) + v[1] * Math.cos(d)] as C2)));
    case 'swap':
      return SWAP;
    case 'rxx':
      return expPP(X, a);
    case 'ryy':
      return expPP(Y, a);
    case 'rzz':
      return expPP(Z, a);
    case 'ccx':
      return ctrl(ctrl(X));
    case 'ccz':
      return ctrl(ctrl(Z));
    case 'cswap':
      return ctrl(SWAP);
    case 'c3x':
      return ctrl(ctrl(ctrl(X)));
    case 'c4x':
      return ctrl(ctrl(ctrl(ctrl(X))));
    case 'c3sqrtx':
      return ctrl(ctrl(ctrl(scale(rot(X, PI / 2), PI / 4))));
    default:
      throw new Error(`test helper: no matrix for ${name}`);
  }
}

/**
 * The relative-phase Toffolis are defined by their qelib1.inc bodies (written here from the include
 * file's text: u2(0,π) and u1(±π/4) on the target around CNOTs).
 */
function qelib1Body(op: GateOp): GateOp[] | undefined {
  const G = (name: string, qubits: number[], params: number[] = []): GateOp => ({ kind: 'gate', name, qubits, params });
  const u2 = (q: number) => G('u2', [q], [0, Math.PI]);
  const u1 = (q: number, s: number) => G('u1', [q], [(s * Math.PI) / 4]);
  const [a = 0, b = 0, c = 0, d = 0] = op.qubits;
  if (op.name === 'rccx') return [u2(c), u1(c, 1), G('cx', [b, c]), u1(c, -1), G('cx', [a, c]), u1(c, 1), G('cx', [b, c]), u1(c, -1), u2(c)];
  if (op.name === 'rc3x') {
    return [
      u2(d),
      u1(d, 1),
      G('cx', [c, d]),
      u1(d, -1),
      u2(d),
      G('cx', [a, d]),
      u1(d, 1),
      G('cx', [b, d]),
      u1(d, -1),
      G('cx', [a, d]),
      u1(d, 1),
      G('cx', [b, d]),
      u1(d, -1),
      u2(d),
      u1(d, 1),
      G('cx', [c, d]),
      u1(d, -1),
      u2(d),
    ];
  }
  return undefined;
}

/** Unitary of a gate list on n qubits (qubit 0 most significant), by applying gates to columns. */
export function unitaryOf(ops: readonly GateOp[], n: number): CM {
  const d = 1 << n;
  const u = eye(n);
  for (const op of ops.flatMap((o) => qelib1Body(o) ?? [o])) {
    const g = small(op.name, op.params);
    const k = op.qubits.length;
    const bit = (q: number) => n - 1 - q;
    const re = new Float64Array(d * d);
    const im = new Float64Array(d * d);
    for (let col = 0; col < d; col++) {
      for (let row = 0; row < d; row++) {
        const vr = u.re[row * d + col]!;
        const vi = u.im[row * d + col]!;
        if (vr === 0 && vi === 0) continue;
        let sub = 0;
        for (let t = 0; t < k; t++) sub |= ((row >> bit(op.qubits[t]!)) & 1) << (k - 1 - t);
        for (let r = 0; r < 1 << k; r++) {
          const [gr, gi] = g[r]![sub]!;
          if (gr === 0 && gi === 0) continue;
          let out = row;
          for (let t = 0; t < k; t++) out = (out & ~(1 << bit(op.qubits[t]!))) | (((r >> (k - 1 - t)) & 1) << bit(op.qubits[t]!));
          re[out * d + col]! += gr * vr - gi * vi;
          im[out * d + col]! += gr * vi + gi * vr;
        }
      }
    }
    u.re.set(re);
    u.im.set(im);
  }
  return u;
}

export function equalUpToGlobalPhase(a: CM, b: CM, eps = 1e-7): boolean {
  let k = 0;
  let best = -1;
  for (let i = 0; i < a.re.length; i++) {
    const m = Math.hypot(a.re[i]!, a.im[i]!);
    if (m > best) {
      best = m;
      k = i;
    }
  }
  const den = best * best;
  const pr = (b.re[k]! * a.re[k]! + b.im[k]! * a.im[k]!) / den;
  const pi = (b.im[k]! * a.re[k]! - b.re[k]! * a.im[k]!) / den;
  if (Math.abs(Math.hypot(pr, pi) - 1) > eps) return false;
  for (let i = 0; i < a.re.length; i++) {
    if (Math.abs(pr * a.re[i]! - pi * a.im[i]! - b.re[i]!) > eps) return false;
    if (Math.abs(pr * a.im[i]! + pi * a.re[i]! - b.im[i]!) > eps) return false;
  }
  return true;
}

export function gateOps(c: Circuit): GateOp[] {
  return c.ops.filter((o): o is GateOp => o.kind === 'gate');
}

export function circuitsEquivalent(a: Circuit, b: Circuit): boolean {
  return equalUpToGlobalPhase(unitaryOf(gateOps(a), a.numQubits), unitaryOf(gateOps(b), b.numQubits));
}

/** An equivalence checker with the verification contract, built on this helper (tests only). */
export function testEquivalence(a: Circuit, b: Circuit) {
  const ok = circuitsEquivalent(a, b);
  return { equivalent: ok, method: 'unitary' as const, checked: `test-helper unitary of ${a.numQubits} qubits`, elapsedMs: 0, ...(ok ? {} : { reason: 'unitaries differ' }) };
}

/** The matrix of any catalogue gate (first qubit most significant), rccx/rc3x from their qelib1 bodies. */
export function gateMatrixOf(op: GateOp): { re: Float64Array; im: Float64Array; k: number } {
  const k = op.qubits.length;
  const d = 1 << k;
  if (qelib1Body(op)) {
    const local = { ...op, qubits: [...Array(k).keys()] };
    const u = unitaryOf([local], k);
    return { re: u.re, im: u.im, k };
  }
  const m = small(op.name, op.params);
  const re = new Float64Array(d * d);
  const im = new Float64Array(d * d);
  for (let i = 0; i < d; i++)
    for (let j = 0; j < d; j++) {
      re[i * d + j] = m[i]![j]![0];
      im[i * d + j] = m[i]![j]![1];
    }
  return { re, im, k };
}
