/**
 * Dense matrices of every catalogue gate, written here independently of the optimizer's
 * checker (see gates.ts). Local convention: a k-qubit gate applied to `qubits` has a
 * 2^k × 2^k matrix whose row/column index has bit j ↔ `qubits[j]` (so for `cx [c, t]`
 * bit 0 is the control, bit 1 the target). Row-major: entry (r, c) at r·2^k + c.
 */
export interface DenseMatrix {
  readonly k: number;
  readonly re: Float64Array;
  readonly im: Float64Array;
}

type C = readonly [number, number];

function m1(a: C, b: C, c: C, d: C): DenseMatrix {
  return { k: 1, re: Float64Array.of(a[0], b[0], c[0], d[0]), im: Float64Array.of(a[1], b[1], c[1], d[1]) };
}

const ONE: C = [1, 0];
const ZERO: C = [0, 0];
const R2 = Math.SQRT1_2;
const cis = (t: number): C => [Math.cos(t), Math.sin(t)];
const mulC = (a: C, b: C): C => [a[0] * b[0] - a[1] * b[1], a[0] * b[1] + a[1] * b[0]];
const scaleC = (a: C, s: number): C => [a[0] * s, a[1] * s];

export function identity(k: number): DenseMatrix {
  const d = 1 << k;
  const re = new Float64Array(d * d);
  for (let i = 0; i < d; i++) re[i * d + i] = 1;
  return { k, re, im: new Float64Array(d * d) };
}

/** qelib1 u3 = [[cos(θ/2), -e^{iλ}sin(θ/2)], [e^{iφ}sin(θ/2), e^{i(φ+λ)}cos(θ/2)]]. */
function u3(theta: number, phi: number, lambda: number): DenseMatrix {
  const c = Math.cos(theta / 2);
  const s = Math.sin(theta / 2);
  return m1([c, 0], scaleC(cis(lambda), -s), scaleC(cis(phi), s), scaleC(cis(phi + lambda), c));
}

const phase = (t: number): DenseMatrix => m1(ONE, ZERO, ZERO, cis(t));

function single(name: string, p: readonly number[]): DenseMatrix | undefined {
  const a = p[0] ?? 0;
  const b = p[1] ?? 0;
  const c = p[2] ?? 0;
  switch (name) {
    case 'id':
    case 'u0':
      return identity(1);
    case 'x':
      return m1(ZERO, ONE, ONE, ZERO);
    case 'y':
      return m1(ZERO, [0, -1], [0, 1], ZERO);
    case 'z':
      return m1(ONE, ZERO, ZERO, [-1, 0]);
    case 'h':
      return m1([R2, 0], [R2, 0], [R2, 0], [-R2, 0]);
    case 's':
      return m1(ONE, ZERO, ZERO, [0, 1]);
    case 'sdg':
      return m1(ONE, ZERO, ZERO, [0, -1]);
    case 't':
      return m1(ONE, ZERO, ZERO, [R2, R2]);
    case 'tdg':
      return m1(ONE, ZERO, ZERO, [R2, -R2]);
    case 'sx':
      return m1([0.5, 0.5], [0.5, -0.5], [0.5, -0.5], [0.5, 0.5]);
    case 'sxdg':
      return m1([0.5, -0.5], [0.5, 0.5], [0.5, 0.5], [0.5, -0.5]);
    case 'rx':
      return m1([Math.cos(a / 2), 0], [0, -Math.sin(a / 2)], [0, -Math.sin(a / 2)], [Math.cos(a / 2), 0]);
    case 'ry':
      return m1([Math.cos(a / 2), 0], [-Math.sin(a / 2), 0], [Math.sin(a / 2), 0], [Math.cos(a / 2), 0]);
    case 'rz':
      return m1(cis(-a / 2), ZERO, ZERO, cis(a / 2));
    case 'p':
    case 'u1':
      return phase(a);
    case 'u2':
      return u3(Math.PI / 2, a, b);
    case 'u3':
    case 'u':
      return u3(a, b, c);
    default:
      return undefined;
  }
}

/** U controlled by `nc` qubits at local bits 0..nc-1, U on the higher bits. */
export function controlled(u: DenseMatrix, nc: number): DenseMatrix {
  const k = u.k + nc;
  const d = 1 << k;
  const du = 1 << u.k;
  const out = identity(k);
  const cm = (1 << nc) - 1;
  for (let r = 0; r < du; r++) {
    for (let c = 0; c < du; c++) {
      const R = (r << nc) | cm;
      const Cc = (c << nc) | cm;
      out.re[R * d + Cc] = u.re[r * du + c]!;
      out.im[R * d + Cc] = u.im[r * du + c]!;
    }
  }
  return out;
}

/** A ⊗ B where B acts on the low bits. */
export function kron(a: DenseMatrix, b: DenseMatrix): DenseMatrix {
  const da = 1 << a.k;
  const db = 1 << b.k;
  const d = da * db;
  const re = new Float64Array(d * d);
  const im = new Float64Array(d * d);
  for (let ar = 0; ar < da; ar++)
    for (let ac = 0; ac < da; ac++)
      for (let br = 0; br < db; br++)
        for (let bc = 0; bc < db; bc++) {
          const x: C = [a.re[ar * da + ac]!, a.im[ar * da + ac]!];
          const y: C = [b.re[br * db + bc]!, b.im[br * db + bc]!];
          const [pr, pi] = mulC(x, y);
          const idx = (ar * db + br) * d + (ac * db + bc);
          re[idx] = pr;
          im[idx] = pi;
        }
  return { k: a.k + b.k, re, im };
}

/** Matrix product A·B (apply B first). */
export function matmul(a: DenseMatrix, b: DenseMatrix): DenseMatrix {
  const d = 1 << a.k;
  const re = new Float64Array(d * d);
  const im = new Float64Array(d * d);
  for (let r = 0; r < d; r++)
    for (let c = 0; c < d; c++) {
      let sr = 0;
      let si = 0;
      for (let j = 0; j < d; j++) {
        const xr = a.re[r * d + j]!;
        const xi = a.im[r * d + j]!;
        const yr = b.re[j * d + c]!;
        const yi = b.im[j * d + c]!;
        sr += xr * yr - xi * yi;
        si += xr * yi + xi * yr;
      }
      re[r * d + c] = sr;
      im[r * d + c] = si;
    }
  return { k: a.k, re, im };
}

/** A gate matrix acting on local `bits` (bit j of the gate ↔ bits[j]) embedded into k qubits. */
export function embed(g: DenseMatrix, bits: readonly number[], k: number): DenseMatrix {
  const d = 1 << k;
  const dg = 1 << g.k;
  let mask = 0;
  for (const b of bits) mask |= 1 << b;
  const extract = (x: number): number => {
    let v = 0;
    bits.forEach((b, j) => (v |= ((x >> b) & 1) << j));
    return v;
  };
  const re = new Float64Array(d * d);
  const im = new Float64Array(d * d);
  for (let r = 0; r < d; r++)
    for (let c = 0; c < d; c++) {
      if ((r & ~mask) !== (c & ~mask)) continue;
      const idx = extract(r) * dg + extract(c);
      re[r * d + c] = g.re[idx]!;
      im[r * d + c] = g.im[idx]!;
    }
  return { k, re, im };
}

/** Product of a gate sequence on k local qubits, applied in order. */
function compose(k: number, seq: readonly (readonly [string, readonly number[], readonly number[]])[]): DenseMatrix {
  let acc = identity(k);
  for (const [name, params, bits] of seq) acc = matmul(embed(mustMatrix(name, params), bits, k), acc);
  return acc;
}

const PI = Math.PI;
// qelib1.inc definitions, with a,b,c,d,e = local bits 0..4.
const RCCX = (): DenseMatrix =>
  compose(3, [
    ['u2', [0, PI], [2]],
    ['u1', [PI / 4], [2]],
    ['cx', [], [1, 2]],
    ['u1', [-PI / 4], [2]],
    ['cx', [], [0, 2]],
    ['u1', [PI / 4], [2]],
    ['cx', [], [1, 2]],
    ['u1', [-PI / 4], [2]],
    ['u2', [0, PI], [2]],
  ]);
const RC3X = (): DenseMatrix =>
  compose(4, [
    ['u2', [0, PI], [3]],
    ['u1', [PI / 4], [3]],
    ['cx', [], [2, 3]],
    ['u1', [-PI / 4], [3]],
    ['u2', [0, PI], [3]],
    ['cx', [], [0, 3]],
    ['u1', [PI / 4], [3]],
    ['cx', [], [1, 3]],
    ['u1', [-PI / 4], [3]],
    ['cx', [], [0, 3]],
    ['u1', [PI / 4], [3]],
    ['cx', [], [1, 3]],
    ['u1', [-PI / 4], [3]],
    ['u2', [0, PI], [3]],
    ['u1', [PI / 4], [3]],
    ['cx', [], [2, 3]],
    ['u1', [-PI / 4], [3]],
    ['u2', [0, PI], [3]],
  ]);
const C3SQRTX = (): DenseMatrix => {
  const seq: [string, number[], number[]][] = [];
  const hd = (): void => void seq.push(['h', [], [3]]);
  const cu1 = (t: number, c: number): void => void seq.push(['cu1', [t], [c, 3]]);
  const cx = (c: number, t: number): void => void seq.push(['cx', [], [c, t]]);
  hd();
  cu1(PI / 8, 0);
  hd();
  cx(0, 1);
  hd();
  cu1(-PI / 8, 1);
  hd();
  cx(0, 1);
  hd();
  cu1(PI / 8, 1);
  hd();
  cx(1, 2);
  hd();
  cu1(-PI / 8, 2);
  hd();
  cx(0, 2);
  hd();
  cu1(PI / 8, 2);
  hd();
  cx(1, 2);
  hd();
  cu1(-PI / 8, 2);
  hd();
  cx(0, 2);
  hd();
  cu1(PI / 8, 2);
  hd();
  return compose(4, seq);
};

const cache = new Map<string, DenseMatrix>();

/** The matrix of a catalogue gate, or undefined for an unknown name. */
export function gateMatrix(name: string, params: readonly number[]): DenseMatrix | undefined {
  const s = single(name, params);
  if (s !== undefined) return s;
  const a = params[0] ?? 0;
  switch (name) {
    case 'cx':
      return controlled(single('x', [])!, 1);
    case 'cy':
      return controlled(single('y', [])!, 1);
    case 'cz':
      return controlled(single('z', [])!, 1);
    case 'ch':
      return controlled(single('h', [])!, 1);
    case 'csx':
      return controlled(single('sx', [])!, 1);
    case 'crx':
      return controlled(single('rx', [a])!, 1);
    case 'cry':
      return controlled(single('ry', [a])!, 1);
    case 'crz':
      return controlled(single('rz', [a])!, 1);
    case 'cu1':
    case 'cp':
      return controlled(phase(a), 1);
    case 'cu3':
      return controlled(u3(a, params[1] ?? 0, params[2] ?? 0), 1);
    case 'cu': {
      // Qiskit CUGate: γ is a phase on the control, i.e. controlled(e^{iγ}·U3).
      const u = u3(a, params[1] ?? 0, params[2] ?? 0);
      const g = cis(params[3] ?? 0);
      const re = new Float64Array(4);
      const im = new Float64Array(4);
      for (let i = 0; i < 4; i++) [re[i], im[i]] = mulC([u.re[i]!, u.im[i]!], g);
      return controlled({ k: 1, re, im }, 1);
    }
    case 'swap':
      return swap2();
    case 'rxx':
      return pauliRotation(single('x', [])!, a);
    case 'ryy':
      return pauliRotation(single('y', [])!, a);
    case 'rzz':
      return pauliRotation(single('z', [])!, a);
    case 'ccx':
      return controlled(single('x', [])!, 2);
    case 'ccz':
      return controlled(single('z', [])!, 2);
    case 'cswap':
      return controlled(swap2(), 1);
    case 'c3x':
      return controlled(single('x', [])!, 3);
    case 'c4x':
      return controlled(single('x', [])!, 4);
    case 'rccx':
      return cached('rccx', RCCX);
    case 'rc3x':
      return cached('rc3x', RC3X);
    case 'c3sqrtx':
      return cached('c3sqrtx', C3SQRTX);
    default:
      return undefined;
  }
}

function mustMatrix(name: string, params: readonly number[]): DenseMatrix {
  const m = gateMatrix(name, params);
  if (m === undefined) throw new Error(`no matrix for ${name}`);
  return m;
}

function cached(key: string, build: () => DenseMatrix): DenseMatrix {
  let m = cache.get(key);
  if (m === undefined) {
    m = build();
    cache.set(key, m);
  }
  return m;
}

function swap2(): DenseMatrix {
  const out = { k: 2, re: new Float64Array(16), im: new Float64Array(16) };
  for (const [r, c] of [
    [0, 0],
    [1, 2],
    [2, 1],
    [3, 3],
  ] as const)
    out.re[r * 4 + c] = 1;
  return out;
}

/** exp(-iθ/2 P⊗P) = cos(θ/2) I - i sin(θ/2) P⊗P. */
function pauliRotation(p: DenseMatrix, theta: number): DenseMatrix {
  const pp = kron(p, p);
  const c = Math.cos(theta / 2);
  const s = Math.sin(theta / 2);
  const re = new Float64Array(16);
  const im = new Float64Array(16);
  for (let i = 0; i < 16; i++) {
    // -i s (x + iy) = s y - i s x
    re[i] = s * pp.im[i]! + (i % 5 === 0 ? c : 0);
    im[i] = -s * pp.re[i]!;
  }
  return { k: 2, re, im };
}
