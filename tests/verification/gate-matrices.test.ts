import { describe, expect, it } from 'vitest';
import { GATES } from '../../src/circuits/gates.js';
import { gate } from '../../src/circuits/ir.js';
import { controlled, embed, gateMatrix, identityMatrix, matMul, type CMatrix } from '../../src/verification/gate-matrices.js';
import { gatePrims, type Prim } from '../../src/verification/path-sum/gate-paths.js';

type C = [number, number];
const r = (x: number): C => [x, 0];
const i_ = (x: number): C => [0, x];
const e = (t: number): C => [Math.cos(t), Math.sin(t)];
const mul = (a: C, b: C): C => [a[0] * b[0] - a[1] * b[1], a[0] * b[1] + a[1] * b[0]];
const s2 = Math.SQRT1_2;

function expectMatrix(m: CMatrix | undefined, rows: C[][]): void {
  expect(m).toBeDefined();
  expect(m!.dim).toBe(rows.length);
  rows.forEach((row, ri) =>
    row.forEach(([re, im], ci) => {
      expect(m!.re[ri * m!.dim + ci]).toBeCloseTo(re, 12);
      expect(m!.im[ri * m!.dim + ci]).toBeCloseTo(im, 12);
    }),
  );
}

/** A diagonal or permutation reference from a compact description. */
function diag(...d: C[]): C[][] {
  return d.map((x, ri) => d.map((_, ci) => (ri === ci ? x : r(0))));
}
function perm(p: number[], phases?: C[]): C[][] {
  // column c goes to row p[c]
  return p.map((_, ri) => p.map((target, ci) => (target === ri ? (phases?.[ci] ?? r(1)) : r(0))));
}

const [th, ph, la, ga] = [0.7, 0.3, -1.1, 0.4];
const c = Math.cos(th / 2);
const s = Math.sin(th / 2);

const REFERENCE: Record<string, [number[], C[][]]> = {
  id: [[], diag(r(1), r(1))],
  x: [
    [],
    [
      [r(0), r(1)],
      [r(1), r(0)],
    ],
  ],
  y: [
    [],
    [
      [r(0), i_(-1)],
      [i_(1), r(0)],
    ],
  ],
  z: [[], diag(r(1), r(-1))],
  h: [
    [],
    [
      [r(s2), r(s2)],
      [r(s2), r(-s2)],
    ],
  ],
  s: [[], diag(r(1), i_(1))],
  sdg: [[], diag(r(1), i_(-1))],
  t: [[], diag(r(1), [s2, s2])],
  tdg: [[], diag(r(1), [s2, -s2])],
  sx: [
    [],
    [
      [
        [0.5, 0.5],
        [0.5, -0.5],
      ],
      [
        [0.5, -0.5],
        [0.5, 0.5],
      ],
    ],
  ],
  sxdg: [
    [],
    [
      [
        [0.5, -0.5],
        [0.5, 0.5],
      ],
      [
        [0.5, 0.5],
        [0.5, -0.5],
      ],
    ],
  ],
  rx: [
    [th],
    [
      [r(c), i_(-s)],
      [i_(-s), r(c)],
    ],
  ],
  ry: [
    [th],
    [
      [r(c), r(-s)],
      [r(s), r(c)],
    ],
  ],
  rz: [[th], diag(e(-th / 2), e(th / 2))],
  p: [[th], diag(r(1), e(th))],
  u0: [[th], diag(r(1), r(1))],
  u1: [[th], diag(r(1), e(th))],
  u2: [
    [ph, la],
    [
      [r(s2), mul(r(-s2), e(la))],
      [mul(r(s2), e(ph)), mul(r(s2), e(ph + la))],
    ],
  ],
  u3: [
    [th, ph, la],
    [
      [r(c), mul(r(-s), e(la))],
      [mul(r(s), e(ph)), mul(r(c), e(ph + la))],
    ],
  ],
  u: [
    [th, ph, la],
    [
      [r(c), mul(r(-s), e(la))],
      [mul(r(s), e(ph)), mul(r(c), e(ph + la))],
    ],
  ],
  cx: [[], perm([0, 1, 3, 2])],
  cy: [[], perm([0, 1, 3, 2], [r(1), r(1), i_(1), i_(-1)])],
  cz: [[], diag(r(1), r(1), r(1), r(-1))],
  ch: [
    [],
    [
      [r(1), r(0), r(0), r(0)],
      [r(0), r(1), r(0), r(0)],
      [r(0), r(0), r(s2), r(s2)],
      [r(0), r(0), r(s2), r(-s2)],
    ],
  ],
  swap: [[], perm([0, 2, 1, 3])],
  csx: [
    [],
    [
      [r(1), r(0), r(0), r(0)],
      [r(0), r(1), r(0), r(0)],
      [r(0), r(0), [0.5, 0.5], [0.5, -0.5]],
      [r(0), r(0), [0.5, -0.5], [0.5, 0.5]],
    ],
  ],
  crx: [
    [th],
    [
      [r(1), r(0), r(0), r(0)],
      [r(0), r(1), r(0), r(0)],
      [r(0), r(0), r(c), i_(-s)],
      [r(0), r(0), i_(-s), r(c)],
    ],
  ],
  cry: [
    [th],
    [
      [r(1), r(0), r(0), r(0)],
      [r(0), r(1), r(0), r(0)],
      [r(0), r(0), r(c), r(-s)],
      [r(0), r(0), r(s), r(c)],
    ],
  ],
  crz: [[th], diag(r(1), r(1), e(-th / 2), e(th / 2))],
  cu1: [[th], diag(r(1), r(1), r(1), e(th))],
  cp: [[th], diag(r(1), r(1), r(1), e(th))],
  cu3: [
    [th, ph, la],
    [
      [r(1), r(0), r(0), r(0)],
      [r(0), r(1), r(0), r(0)],
      [r(0), r(0), r(c), mul(r(-s), e(la))],
      [r(0), r(0), mul(r(s), e(ph)), mul(r(c), e(ph + la))],
    ],
  ],
  cu: [
    [th, ph, la, ga],
    [
      [r(1), r(0), r(0), r(0)],
      [r(0), r(1), r(0), r(0)],
      [r(0), r(0), mul(r(c), e(ga)), mul(r(-s), e(la + ga))],
      [r(0), r(0), mul(r(s), e(ph + ga)), mul(r(c), e(ph + la + ga))],
    ],
  ],
  rxx: [
    [th],
    [
      [r(c), r(0), r(0), i_(-s)],
      [r(0), r(c), i_(-s), r(0)],
      [r(0), i_(-s), r(c), r(0)],
      [i_(-s), r(0), r(0), r(c)],
    ],
  ],
  ryy: [
    [th],
    [
      [r(c), r(0), r(0), i_(s)],
      [r(0), r(c), i_(-s), r(0)],
      [r(0), i_(-s), r(c), r(0)],
      [i_(s), r(0), r(0), r(c)],
    ],
  ],
  rzz: [[th], diag(e(-th / 2), e(th / 2), e(th / 2), e(-th / 2))],
  ccx: [[], perm([0, 1, 2, 3, 4, 5, 7, 6])],
  ccz: [[], diag(r(1), r(1), r(1), r(1), r(1), r(1), r(1), r(-1))],
  cswap: [[], perm([0, 1, 2, 3, 4, 6, 5, 7])],
  // Derived by hand from qelib1's definition: identity unless a=1; Z on c when b=0; −i·Z·X when b=1.
  rccx: [[], perm([0, 1, 2, 3, 4, 5, 7, 6], [r(1), r(1), r(1), r(1), r(1), r(-1), i_(1), i_(-1)])],
  c3x: [[], perm([...Array.from({ length: 14 }, (_, k) => k), 15, 14])],
  c4x: [[], perm([...Array.from({ length: 30 }, (_, k) => k), 31, 30])],
};

describe('gate matrices', () => {
  it('cover every gate of the catalogue with its arity and parameter count', () => {
    for (const spec of GATES.values()) {
      const m = gateMatrix(
        spec.name,
        Array.from({ length: spec.params }, () => 0.5),
      );
      expect(m, spec.name).toBeDefined();
      expect(m!.dim, spec.name).toBe(1 << spec.arity);
      expect(
        gateMatrix(
          spec.name,
          Array.from({ length: spec.params + 1 }, () => 0.5),
        ),
        spec.name,
      ).toBeUndefined();
    }
    expect(gateMatrix('nope', [])).toBeUndefined();
    expect(gateMatrix('rz', [Number.NaN])).toBeUndefined();
  });

  for (const [name, [params, rows]] of Object.entries(REFERENCE)) {
    it(`${name} matches its hand-written reference`, () => expectMatrix(gateMatrix(name, params), rows));
  }

  it('c3sqrtx is identity except the controlled sx block', () => {
    const m = gateMatrix('c3sqrtx', [])!;
    const rows: C[][] = diag(...Array.from({ length: 16 }, () => r(1)));
    rows[14]![14] = [0.5, 0.5];
    rows[14]![15] = [0.5, -0.5];
    rows[15]![14] = [0.5, -0.5];
    rows[15]![15] = [0.5, 0.5];
    expectMatrix(m, rows);
  });

  it('rc3x is c3x up to relative phases (a monomial matrix with the same pattern, phases ±1, ±i)', () => {
    const m = gateMatrix('rc3x', [])!;
    const ref = gateMatrix('c3x', [])!;
    for (let k = 0; k < 256; k++) {
      expect(Math.hypot(m.re[k]!, m.im[k]!)).toBeCloseTo(Math.hypot(ref.re[k]!, ref.im[k]!), 12);
      const mag = Math.hypot(m.re[k]!, m.im[k]!);
      if (mag > 0.5) expect(Math.abs(m.re[k]!) < 1e-12 || Math.abs(m.im[k]!) < 1e-12).toBe(true);
    }
    // with no control set it is the identity on those states
    for (let k = 0; k < 2; k++) expect(m.re[k * 16 + k]).toBeCloseTo(1, 12);
  });

  it('every gate matrix is unitary', () => {
    for (const spec of GATES.values()) {
      const m = gateMatrix(
        spec.name,
        Array.from({ length: spec.params }, (_, k) => 0.3 + k),
      )!;
      const d = m.dim;
      for (let a = 0; a < d; a++) {
        for (let b = 0; b < d; b++) {
          let re = 0;
          let im = 0;
          for (let k = 0; k < d; k++) {
            re += m.re[k * d + a]! * m.re[k * d + b]! + m.im[k * d + a]! * m.im[k * d + b]!;
            im += m.re[k * d + a]! * m.im[k * d + b]! - m.im[k * d + a]! * m.re[k * d + b]!;
          }
          expect(re, spec.name).toBeCloseTo(a === b ? 1 : 0, 12);
          expect(im, spec.name).toBeCloseTo(0, 12);
        }
      }
    }
  });
});

/** The matrix of a primitive sequence, from the primitives' textbook meaning. */
function primsMatrix(prims: readonly Prim[], width: number): CMatrix {
  const X = gateMatrix('x', [])!;
  const H = gateMatrix('h', [])!;
  let m = identityMatrix(1 << width);
  for (const p of prims) {
    let g: CMatrix;
    let wires: number[];
    switch (p.k) {
      case 'x':
        [g, wires] = [X, [p.q]];
        break;
      case 'h':
        [g, wires] = [H, [p.q]];
        break;
      case 'swap':
        [g, wires] = [gateMatrix('swap', [])!, [p.a, p.b]];
        break;
      case 'mcx':
        [g, wires] = [controlled(X, p.cs.length), [...p.cs, p.t]];
        break;
      case 'ph': {
        const d = 1 << p.qs.length;
        g = identityMatrix(d);
        g.re[d * d - 1] = Math.cos(2 * Math.PI * p.turns);
        g.im[d * d - 1] = Math.sin(2 * Math.PI * p.turns);
        wires = [...p.qs];
        break;
      }
    }
    m = matMul(embed(g, wires, width), m);
  }
  return m;
}

function equalUpToPhase(a: CMatrix, b: CMatrix): boolean {
  let k0 = 0;
  for (let k = 0; k < a.re.length; k++)
    if (Math.hypot(b.re[k]!, b.im[k]!) > 0.1) {
      k0 = k;
      break;
    }
  // λ = a[k0] / b[k0]
  const den = b.re[k0]! ** 2 + b.im[k0]! ** 2;
  const lr = (a.re[k0]! * b.re[k0]! + a.im[k0]! * b.im[k0]!) / den;
  const li = (a.im[k0]! * b.re[k0]! - a.re[k0]! * b.im[k0]!) / den;
  if (Math.abs(Math.hypot(lr, li) - 1) > 1e-9) return false;
  for (let k = 0; k < a.re.length; k++) {
    const er = lr * b.re[k]! - li * b.im[k]! - a.re[k]!;
    const ei = lr * b.im[k]! + li * b.re[k]! - a.im[k]!;
    if (Math.hypot(er, ei) > 1e-9) return false;
  }
  return true;
}

describe('path-sum gate forms', () => {
  for (const spec of GATES.values()) {
    it(`${spec.name}: the path-sum primitives equal the matrix up to global phase`, () => {
      const params = Array.from({ length: spec.params }, (_, k) => [0.7, 0.3, -1.1, 0.4][k]!);
      const qubits = Array.from({ length: spec.arity }, (_, k) => k);
      const prims = gatePrims(gate(spec.name, qubits, params));
      expect(prims).toBeDefined();
      expect(equalUpToPhase(primsMatrix(prims!, spec.arity), gateMatrix(spec.name, params)!)).toBe(true);
    });
  }

  it('rejects a wrong arity or parameter count', () => {
    expect(gatePrims(gate('cx', [0]))).toBeUndefined();
    expect(gatePrims(gate('rz', [0], []))).toBeUndefined();
    expect(gatePrims(gate('frob', [0]))).toBeUndefined();
  });
});
