/**
 * Independent reference matrices for the tests, written in textbook order: the first
 * qubit of the gate is the MOST significant bit of the matrix index (the engine uses
 * the opposite order internally, so a convention slip shows up as a failure).
 */
export type Cx = readonly [number, number];
export type Mat = Cx[][];

export const c = (re: number, im = 0): Cx => [re, im];
export const cmul = (a: Cx, b: Cx): Cx => [a[0] * b[0] - a[1] * b[1], a[0] * b[1] + a[1] * b[0]];
export const cadd = (a: Cx, b: Cx): Cx => [a[0] + b[0], a[1] + b[1]];
export const expi = (t: number): Cx => [Math.cos(t), Math.sin(t)];

export function eye(d: number): Mat {
  return Array.from({ length: d }, (_, r) => Array.from({ length: d }, (_, k) => c(r === k ? 1 : 0)));
}

export function mul(a: Mat, b: Mat): Mat {
  const d = a.length;
  return Array.from({ length: d }, (_, r) =>
    Array.from({ length: d }, (_, k) => {
      let s: Cx = [0, 0];
      for (let j = 0; j < d; j++) s = cadd(s, cmul(a[r]![j]!, b[j]![k]!));
      return s;
    }),
  );
}

export function kron(a: Mat, b: Mat): Mat {
  const da = a.length;
  const db = b.length;
  return Array.from({ length: da * db }, (_, r) => Array.from({ length: da * db }, (_, k) => cmul(a[Math.floor(r / db)]![Math.floor(k / db)]!, b[r % db]![k % db]!)));
}

export function scale(a: Mat, s: Cx): Mat {
  return a.map((row) => row.map((x) => cmul(x, s)));
}

/** Controlled on the first `nc` qubits (most significant), U on the rest. */
export function ctrl(u: Mat, nc: number): Mat {
  const d = u.length << nc;
  const m = eye(d);
  const off = d - u.length;
  for (let r = 0; r < u.length; r++) for (let k = 0; k < u.length; k++) m[off + r]![off + k] = u[r]![k]!;
  return m;
}

const h = Math.SQRT1_2;
const u3 = (t: number, p: number, l: number): Mat => [
  [c(Math.cos(t / 2)), cmul(expi(l), c(-Math.sin(t / 2)))],
  [cmul(expi(p), c(Math.sin(t / 2))), cmul(expi(p + l), c(Math.cos(t / 2)))],
];
const X: Mat = [
  [c(0), c(1)],
  [c(1), c(0)],
];
const Y: Mat = [
  [c(0), c(0, -1)],
  [c(0, 1), c(0)],
];
const Z: Mat = [
  [c(1), c(0)],
  [c(0), c(-1)],
];
const H: Mat = [
  [c(h), c(h)],
  [c(h), c(-h)],
];
const SX: Mat = [
  [c(0.5, 0.5), c(0.5, -0.5)],
  [c(0.5, -0.5), c(0.5, 0.5)],
];
const P = (t: number): Mat => [
  [c(1), c(0)],
  [c(0), expi(t)],
];
const rot = (pp: Mat, t: number): Mat => {
  const pp2 = kron(pp, pp);
  return pp2.map((row, r) => row.map((x, k) => cadd(c(r === k ? Math.cos(t / 2) : 0), cmul(c(0, -Math.sin(t / 2)), x))));
};
const SWAP: Mat = [
  [c(1), c(0), c(0), c(0)],
  [c(0), c(0), c(1), c(0)],
  [c(0), c(1), c(0), c(0)],
  [c(0), c(0), c(0), c(1)],
];

/** Embeds gate `g` (textbook order over `qs`, positions in an n-qubit textbook register, qubit 0 MSB) into n qubits. */
export function embedTb(g: Mat, qs: readonly number[], n: number): Mat {
  const d = 1 << n;
  const k = qs.length;
  const bit = (x: number, q: number): number => (x >> (n - 1 - q)) & 1;
  const local = (x: number): number => qs.reduce((a, q) => (a << 1) | bit(x, q), 0);
  const rest = (x: number): number => qs.reduce((a, q) => a & ~(1 << (n - 1 - q)), x);
  void k;
  return Array.from({ length: d }, (_, r) => Array.from({ length: d }, (_, col) => (rest(r) === rest(col) ? g[local(r)]![local(col)]! : c(0))));
}

function seq(n: number, gates: readonly (readonly [string, readonly number[], readonly number[]])[]): Mat {
  let m = eye(1 << n);
  for (const [name, params, qs] of gates) m = mul(embedTb(textbook(name, params), qs, n), m);
  return m;
}

const pi = Math.PI;

/** The reference matrix of a catalogue gate, textbook order. */
export function textbook(name: string, p: readonly number[]): Mat {
  const [a = 0, b = 0, d = 0, g = 0] = p;
  switch (name) {
    case 'id':
    case 'u0':
      return eye(2);
    case 'x':
      return X;
    case 'y':
      return Y;
    case 'z':
      return Z;
    case 'h':
      return H;
    case 's':
      return P(pi / 2);
    case 'sdg':
      return P(-pi / 2);
    case 't':
      return P(pi / 4);
    case 'tdg':
      return P(-pi / 4);
    case 'sx':
      return SX;
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
      return P(a);
    case 'u2':
      return u3(pi / 2, a, b);
    case 'u3':
    case 'u':
      return u3(a, b, d);
    case 'cx':
      return ctrl(X, 1);
    case 'cy':
      return ctrl(Y, 1);
    case 'cz':
      return ctrl(Z, 1);
    case 'ch':
      return ctrl(H, 1);
    case 'swap':
      return SWAP;
    case 'csx':
      return ctrl(SX, 1);
    case 'crx':
    case 'cry':
    case 'crz':
      return ctrl(textbook(name.slice(1), [a]), 1);
    case 'cu1':
    case 'cp':
      return ctrl(P(a), 1);
    case 'cu3':
      return ctrl(u3(a, b, d), 1);
    case 'cu':
      return ctrl(scale(u3(a, b, d), expi(g)), 1);
    case 'rxx':
      return rot(X, a);
    case 'ryy':
      return rot(Y, a);
    case 'rzz':
      return rot(Z, a);
    case 'ccx':
      return ctrl(X, 2);
    case 'ccz':
      return ctrl(Z, 2);
    case 'cswap':
      return ctrl(SWAP, 1);
    case 'c3x':
      return ctrl(X, 3);
    case 'c4x':
      return ctrl(X, 4);
    case 'c3sqrtx':
      return ctrl(SX, 3);
    case 'rccx':
      return seq(3, [
        ['u2', [0, pi], [2]],
        ['u1', [pi / 4], [2]],
        ['cx', [], [1, 2]],
        ['u1', [-pi / 4], [2]],
        ['cx', [], [0, 2]],
        ['u1', [pi / 4], [2]],
        ['cx', [], [1, 2]],
        ['u1', [-pi / 4], [2]],
        ['u2', [0, pi], [2]],
      ]);
    case 'rc3x':
      return seq(4, [
        ['u2', [0, pi], [3]],
        ['u1', [pi / 4], [3]],
        ['cx', [], [2, 3]],
        ['u1', [-pi / 4], [3]],
        ['u2', [0, pi], [3]],
        ['cx', [], [0, 3]],
        ['u1', [pi / 4], [3]],
        ['cx', [], [1, 3]],
        ['u1', [-pi / 4], [3]],
        ['cx', [], [0, 3]],
        ['u1', [pi / 4], [3]],
        ['cx', [], [1, 3]],
        ['u1', [-pi / 4], [3]],
        ['u2', [0, pi], [3]],
        ['u1', [pi / 4], [3]],
        ['cx', [], [2, 3]],
        ['u1', [-pi / 4], [3]],
        ['u2', [0, pi], [3]],
      ]);
    default:
      throw new Error(`no textbook matrix for ${name}`);
  }
}

/** Small deterministic generator for test inputs. */
export function lcg(seed: number): () => number {
  let s = seed >>> 0 || 1;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 4294967296;
  };
}
