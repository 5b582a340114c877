/**
 * The checker's own gate semantics: a dense complex matrix for every gate of the catalogue
 * (`src/circuits/gates.ts`). Written independently of the simulator and of the optimizer
 * on purpose (a mistake in one is caught by the other).
 *
 * Convention: for a gate on `qubits = [q0, q1, …]` the matrix index has q0 as its most
 * significant bit (textbook order), so `cx` with control q0 and target q1 is
 * [[1,0,0,0],[0,1,0,0],[0,0,0,1],[0,0,1,0]]. Phases follow qelib1.inc / Qiskit exactly
 * (not merely up to global phase), because controlled forms depend on them.
 */

import { addAngles } from './numeric-policy.js';

/** A square complex matrix, row-major: entry (r, c) is at r * dim + c. */
export interface CMatrix {
  readonly dim: number;
  readonly re: Float64Array;
  readonly im: Float64Array;
}

type C = readonly [number, number];

const SQ = Math.SQRT1_2;

function fromRows(rows: readonly (readonly C[])[]): CMatrix {
  const dim = rows.length;
  const re = new Float64Array(dim * dim);
  const im = new Float64Array(dim * dim);
  rows.forEach((row, r) => {
    if (row.length !== dim) throw new Error('matrix is not square');
    row.forEach(([a, b], c) => {
      re[r * dim + c] = a;
      im[r * dim + c] = b;
    });
  });
  return { dim, re, im };
}

const cis = (t: number): C => [Math.cos(t), Math.sin(t)];
const cmul = (a: C, b: C): C => [a[0] * b[0] - a[1] * b[1], a[0] * b[1] + a[1] * b[0]];
const real = (x: number): C => [x, 0];

export function identityMatrix(dim: number): CMatrix {
  const m = { dim, re: new Float64Array(dim * dim), im: new Float64Array(dim * dim) };
  for (let i = 0; i < dim; i++) m.re[i * dim + i] = 1;
  return m;
}

/** a · b (apply b first, then a). */
export function matMul(a: CMatrix, b: CMatrix): CMatrix {
  const d = a.dim;
  if (b.dim !== d) throw new Error('dimension mismatch');
  const re = new Float64Array(d * d);
  const im = new Float64Array(d * d);
  for (let r = 0; r < d; r++) {
    for (let k = 0; k < d; k++) {
      const ar = a.re[r * d + k]!;
      const ai = a.im[r * d + k]!;
      if (ar === 0 && ai === 0) continue;
      for (let c = 0; c < d; c++) {
        const br = b.re[k * d + c]!;
        const bi = b.im[k * d + c]!;
        re[r * d + c]! += ar * br - ai * bi;
        im[r * d + c]! += ar * bi + ai * br;
      }
    }
  }
  return { dim: d, re, im };
}

/** Conjugate transpose. */
export function dagger(m: CMatrix): CMatrix {
  const d = m.dim;
  const re = new Float64Array(d * d);
  const im = new Float64Array(d * d);
  for (let r = 0; r < d; r++) {
    for (let c = 0; c < d; c++) {
      re[c * d + r] = m.re[r * d + c]!;
      im[c * d + r] = -m.im[r * d + c]!;
    }
  }
  return { dim: d, re, im };
}

/** |0⟩⟨0| ⊗ I + |1⟩⟨1| ⊗ U, repeated `controls` times (controls are the leading qubits). */
export function controlled(u: CMatrix, controls = 1): CMatrix {
  let m = u;
  for (let i = 0; i < controls; i++) {
    const d = m.dim;
    const big = identityMatrix(2 * d);
    for (let r = 0; r < d; r++) {
      for (let c = 0; c < d; c++) {
        big.re[(d + r) * 2 * d + d + c] = m.re[r * d + c]!;
        big.im[(d + r) * 2 * d + d + c] = m.im[r * d + c]!;
      }
    }
    m = big;
  }
  return m;
}

/** The matrix of a gate acting on `local` wires of a `width`-qubit register (local[0] = MSB). */
export function embed(g: CMatrix, local: readonly number[], width: number): CMatrix {
  const k = local.length;
  const dim = 1 << width;
  const out = { dim, re: new Float64Array(dim * dim), im: new Float64Array(dim * dim) };
  const bitOf = (idx: number, wire: number): number => (idx >> (width - 1 - wire)) & 1;
  for (let c = 0; c < dim; c++) {
    let lc = 0;
    for (let j = 0; j < k; j++) lc = (lc << 1) | bitOf(c, local[j]!);
    for (let lr = 0; lr < g.dim; lr++) {
      let r = c;
      for (let j = 0; j < k; j++) {
        const bit = (lr >> (k - 1 - j)) & 1;
        const shift = width - 1 - local[j]!;
        r = (r & ~(1 << shift)) | (bit << shift);
      }
      out.re[r * dim + c] = g.re[lr * g.dim + lc]!;
      out.im[r * dim + c] = g.im[lr * g.dim + lc]!;
    }
  }
  return out;
}

/** Applies a sequence of (gate, local wires) to a `width`-qubit register, in time order. */
function compose(width: number, seq: readonly (readonly [CMatrix, readonly number[]])[]): CMatrix {
  let m = identityMatrix(1 << width);
  for (const [g, wires] of seq) m = matMul(embed(g, wires, width), m);
  return m;
}

const I2 = fromRows([
  [real(1), real(0)],
  [real(0), real(1)],
]);
const X = fromRows([
  [real(0), real(1)],
  [real(1), real(0)],
]);
const Y = fromRows([
  [real(0), [0, -1]],
  [[0, 1], real(0)],
]);
const Z = fromRows([
  [real(1), real(0)],
  [real(0), real(-1)],
]);
const H = fromRows([
  [real(SQ), real(SQ)],
  [real(SQ), real(-SQ)],
]);
const phase = (t: number): CMatrix =>
  fromRows([
    [real(1), real(0)],
    [real(0), cis(t)],
  ]);
const S = phase(Math.PI / 2);
const SDG = phase(-Math.PI / 2);
const T = phase(Math.PI / 4);
const TDG = phase(-Math.PI / 4);
const SX = fromRows([
  [
    [0.5, 0.5],
    [0.5, -0.5],
  ],
  [
    [0.5, -0.5],
    [0.5, 0.5],
  ],
]);
const SXDG = fromRows([
  [
    [0.5, -0.5],
    [0.5, 0.5],
  ],
  [
    [0.5, 0.5],
    [0.5, -0.5],
  ],
]);

function rx(t: number): CMatrix {
  const c = Math.cos(t / 2);
  const s = Math.sin(t / 2);
  return fromRows([
    [real(c), [0, -s]],
    [[0, -s], real(c)],
  ]);
}
function ry(t: number): CMatrix {
  const c = Math.cos(t / 2);
  const s = Math.sin(t / 2);
  return fromRows([
    [real(c), real(-s)],
    [real(s), real(c)],
  ]);
}
function rz(t: number): CMatrix {
  return fromRows([
    [cis(-t / 2), real(0)],
    [real(0), cis(t / 2)],
  ]);
}
function u3(theta: number, phi: number, lambda: number): CMatrix {
  const c = Math.cos(theta / 2);
  const s = Math.sin(theta / 2);
  return fromRows([
    [real(c), cmul(real(-s), cis(lambda))],
    [cmul(real(s), cis(phi)), cmul(real(c), cis(addAngles(phi, lambda)))],
  ]);
}
/** exp(-i θ/2 P⊗P) for a Pauli P: cos(θ/2) I − i sin(θ/2) P⊗P. */
function pauliRotation2(p: CMatrix, t: number): CMatrix {
  const pp = embed(p, [0], 2);
  const pp2 = matMul(embed(p, [1], 2), pp);
  const c = Math.cos(t / 2);
  const s = Math.sin(t / 2);
  const out = { dim: 4, re: new Float64Array(16), im: new Float64Array(16) };
  for (let i = 0; i < 16; i++) {
    // (c I − i s PP): real part c·δ + s·Im(PP), imaginary part −s·Re(PP)
    out.re[i] = (i % 5 === 0 ? c : 0) + s * pp2.im[i]!;
    out.im[i] = -s * pp2.re[i]!;
  }
  return out;
}

const CX = controlled(X);
const CCX = controlled(X, 2);

// qelib1.inc: rccx a,b,c { u2(0,pi) c; u1(pi/4) c; cx b,c; u1(-pi/4) c; cx a,c; u1(pi/4) c; cx b,c; u1(-pi/4) c; u2(0,pi) c; }
const RCCX = compose(3, [
  [H, [2]],
  [T, [2]],
  [CX, [1, 2]],
  [TDG, [2]],
  [CX, [0, 2]],
  [T, [2]],
  [CX, [1, 2]],
  [TDG, [2]],
  [H, [2]],
]);
// qelib1.inc: rc3x a,b,c,d (the relative-phase 3-controlled X), transcribed gate by gate.
const RC3X = compose(4, [
  [H, [3]],
  [T, [3]],
  [CX, [2, 3]],
  [TDG, [3]],
  [H, [3]],
  [CX, [0, 3]],
  [T, [3]],
  [CX, [1, 3]],
  [TDG, [3]],
  [CX, [0, 3]],
  [T, [3]],
  [CX, [1, 3]],
  [TDG, [3]],
  [H, [3]],
  [T, [3]],
  [CX, [2, 3]],
  [TDG, [3]],
  [H, [3]],
]);

const FIXED: ReadonlyMap<string, CMatrix> = new Map([
  ['id', I2],
  ['x', X],
  ['y', Y],
  ['z', Z],
  ['h', H],
  ['s', S],
  ['sdg', SDG],
  ['t', T],
  ['tdg', TDG],
  ['sx', SX],
  ['sxdg', SXDG],
  ['cx', CX],
  ['cy', controlled(Y)],
  ['cz', controlled(Z)],
  ['ch', controlled(H)],
  ['csx', controlled(SX)],
  [
    'swap',
    fromRows([
      [real(1), real(0), real(0), real(0)],
      [real(0), real(0), real(1), real(0)],
      [real(0), real(1), real(0), real(0)],
      [real(0), real(0), real(0), real(1)],
    ]),
  ],
  ['ccx', CCX],
  ['ccz', controlled(Z, 2)],
  [
    'cswap',
    compose(3, [
      [CX, [2, 1]],
      [CCX, [0, 1, 2]],
      [CX, [2, 1]],
    ]),
  ],
  ['rccx', RCCX],
  ['rc3x', RC3X],
  ['c3x', controlled(X, 3)],
  ['c3sqrtx', controlled(SX, 3)],
  ['c4x', controlled(X, 4)],
]);

/** Parameter count of each parameterised gate the checker knows (must match the catalogue). */
const PARAMETRIC: ReadonlyMap<string, { readonly params: number; readonly build: (p: readonly number[]) => CMatrix }> = new Map([
  ['rx', { params: 1, build: (p) => rx(p[0]!) }],
  ['ry', { params: 1, build: (p) => ry(p[0]!) }],
  ['rz', { params: 1, build: (p) => rz(p[0]!) }],
  ['p', { params: 1, build: (p) => phase(p[0]!) }],
  ['u0', { params: 1, build: () => I2 }],
  ['u1', { params: 1, build: (p) => phase(p[0]!) }],
  ['u2', { params: 2, build: (p) => u3(Math.PI / 2, p[0]!, p[1]!) }],
  ['u3', { params: 3, build: (p) => u3(p[0]!, p[1]!, p[2]!) }],
  ['u', { params: 3, build: (p) => u3(p[0]!, p[1]!, p[2]!) }],
  ['crx', { params: 1, build: (p) => controlled(rx(p[0]!)) }],
  ['cry', { params: 1, build: (p) => controlled(ry(p[0]!)) }],
  ['crz', { params: 1, build: (p) => controlled(rz(p[0]!)) }],
  ['cu1', { params: 1, build: (p) => controlled(phase(p[0]!)) }],
  ['cp', { params: 1, build: (p) => controlled(phase(p[0]!)) }],
  ['cu3', { params: 3, build: (p) => controlled(u3(p[0]!, p[1]!, p[2]!)) }],
  [
    'cu',
    {
      params: 4,
      build: (p) => {
        const u = u3(p[0]!, p[1]!, p[2]!);
        const [gr, gi] = cis(p[3]!);
        const re = u.re.map((r, i) => r * gr - u.im[i]! * gi);
        const im = u.im.map((m, i) => u.re[i]! * gi + m * gr);
        return controlled({ dim: 2, re, im });
      },
    },
  ],
  ['rxx', { params: 1, build: (p) => pauliRotation2(X, p[0]!) }],
  ['ryy', { params: 1, build: (p) => pauliRotation2(Y, p[0]!) }],
  ['rzz', { params: 1, build: (p) => pauliRotation2(Z, p[0]!) }],
]);

/** Names of every gate the checker has a matrix for. */
export function knownGateNames(): readonly string[] {
  return [...FIXED.keys(), ...PARAMETRIC.keys()];
}

/**
 * The matrix of a catalogue gate, or undefined when the name is unknown or the
 * parameter count or values are wrong (the checker then answers 'unknown').
 */
export function gateMatrix(name: string, params: readonly number[]): CMatrix | undefined {
  if (!params.every((x) => Number.isFinite(x))) return undefined;
  const fixed = FIXED.get(name);
  if (fixed) return params.length === 0 ? fixed : undefined;
  const p = PARAMETRIC.get(name);
  if (!p || p.params !== params.length) return undefined;
  return p.build(params);
}
