import type { GateOp } from '../circuits/ir.js';
import { g, PI } from './gate-info.js';
import { addAngles } from '../verification/numeric-policy.js';

/** Small 2×2 complex algebra for one-qubit resynthesis (the passes' own; the checker has its own). */
export type M2 = [number, number, number, number, number, number, number, number]; // a b c d as re,im pairs

export const mul2 = (x: M2, y: M2): M2 => {
  const r: number[] = [];
  for (const [i, j] of [
    [0, 0],
    [0, 1],
    [1, 0],
    [1, 1],
  ] as const) {
    let re = 0;
    let im = 0;
    for (let k = 0; k < 2; k++) {
      const a = 2 * (2 * i + k);
      const b = 2 * (2 * k + j);
      re += x[a]! * y[b]! - x[a + 1]! * y[b + 1]!;
      im += x[a]! * y[b + 1]! + x[a + 1]! * y[b]!;
    }
    r.push(re, im);
  }
  return r as M2;
};

const R = Math.SQRT1_2;
export function mat1(op: GateOp): M2 | undefined {
  const [a = 0, b = 0, c = 0] = op.params;
  const ph = (t: number): M2 => [1, 0, 0, 0, 0, 0, Math.cos(t), Math.sin(t)];
  const u3 = (th: number, p: number, l: number): M2 => [
    Math.cos(th / 2),
    0,
    -Math.cos(l) * Math.sin(th / 2),
    -Math.sin(l) * Math.sin(th / 2),
    Math.cos(p) * Math.sin(th / 2),
    Math.sin(p) * Math.sin(th / 2),
    Math.cos(addAngles(p, l)) * Math.cos(th / 2),
    Math.sin(addAngles(p, l)) * Math.cos(th / 2),
  ];
  switch (op.name) {
    case 'id':
    case 'u0':
      return [1, 0, 0, 0, 0, 0, 1, 0];
    case 'x':
      return [0, 0, 1, 0, 1, 0, 0, 0];
    case 'y':
      return [0, 0, 0, -1, 0, 1, 0, 0];
    case 'z':
      return ph(PI);
    case 'h':
      return [R, 0, R, 0, R, 0, -R, 0];
    case 's':
      return ph(PI / 2);
    case 'sdg':
      return ph(-PI / 2);
    case 't':
      return ph(PI / 4);
    case 'tdg':
      return ph(-PI / 4);
    case 'sx':
      return [0.5, 0.5, 0.5, -0.5, 0.5, -0.5, 0.5, 0.5];
    case 'sxdg':
      return [0.5, -0.5, 0.5, 0.5, 0.5, 0.5, 0.5, -0.5];
    case 'rz':
    case 'p':
    case 'u1':
      return ph(a);
    case 'rx':
      return u3(a, -PI / 2, PI / 2);
    case 'ry':
      return u3(a, 0, 0);
    case 'u2':
      return u3(PI / 2, a, b);
    case 'u3':
    case 'u':
      return u3(a, b, c);
    default:
      return undefined;
  }
}

export function runMatrix(ops: readonly GateOp[]): M2 | undefined {
  let m: M2 = [1, 0, 0, 0, 0, 0, 1, 0];
  for (const op of ops) {
    const x = mat1(op);
    if (!x) return undefined;
    m = mul2(x, m);
  }
  return m;
}

/** Whether a ≅ b up to a global phase, entrywise within eps. */
export function equalUpToPhase2(a: M2, b: M2, eps: number): boolean {
  let k = 0;
  for (let i = 2; i < 8; i += 2) if (Math.hypot(a[i]!, a[i + 1]!) > Math.hypot(a[k]!, a[k + 1]!)) k = i;
  const n = b[k]! * b[k]! + b[k + 1]! * b[k + 1]!;
  if (n < 1e-12) return false;
  // p = a_k / b_k, then compare a with p·b
  const pr = (a[k]! * b[k]! + a[k + 1]! * b[k + 1]!) / n;
  const pi = (a[k + 1]! * b[k]! - a[k]! * b[k + 1]!) / n;
  for (let i = 0; i < 8; i += 2) {
    if (Math.abs(a[i]! - (b[i]! * pr - b[i + 1]! * pi)) > eps) return false;
    if (Math.abs(a[i + 1]! - (b[i]! * pi + b[i + 1]! * pr)) > eps) return false;
  }
  return true;
}

/** A key equal for matrices equal up to global phase. */
export function phaseKey(m: M2): string {
  let k = 0;
  let best = -1;
  for (let i = 0; i < 4; i++) {
    const v = Math.hypot(m[2 * i]!, m[2 * i + 1]!);
    if (v > best + 1e-9) {
      best = v;
      k = i;
    }
  }
  const re = m[2 * k]! / best;
  const im = -m[2 * k + 1]! / best; // multiply by conj(phase)
  const out: string[] = [];
  for (let i = 0; i < 4; i++) {
    const x = m[2 * i]! * re - m[2 * i + 1]! * im;
    const y = m[2 * i]! * im + m[2 * i + 1]! * re;
    out.push((Math.round(x * 1e6) / 1e6 + 0).toFixed(6), (Math.round(y * 1e6) / 1e6 + 0).toFixed(6));
  }
  return out.join(',');
}

/** ZYZ angles (θ, φ, λ) with m ≅ u3(θ, φ, λ) up to global phase. */
export function zyz(m: M2): [number, number, number] {
  const a = Math.hypot(m[0], m[1]);
  const c = Math.hypot(m[4], m[5]);
  const theta = 2 * Math.atan2(c, a);
  const argA = Math.atan2(m[1], m[0]);
  const argC = Math.atan2(m[5], m[4]);
  const argB = Math.atan2(m[3], m[2]);
  const argD = Math.atan2(m[7], m[6]);
  if (c < 1e-12) return [0, 0, argD - argA];
  if (a < 1e-12) return [PI, argC - argB - PI, 0].map((x, i) => (i === 1 ? x : x)) as [number, number, number];
  const phi = argC - argA;
  // φ and λ alone are ill-conditioned when sin(θ/2) is tiny (a 1e-16 error in c's real part moves
  // argC by 1e-7), but φ+λ is then well-conditioned from d: taking λ from it keeps the big entries exact
  if (a >= c) return [theta, phi, argD - argA - phi];
  return [theta, phi, argB - argA - PI];
}

const WORD_GATES = ['h', 's', 'sdg', 't', 'tdg', 'z', 'x'];
const tables = new Map<number, Map<string, string[]>>();

/** Shortest Clifford+T word (≤ maxLen gates) for each 2×2 unitary reachable, keyed by phaseKey. */
export function cliffordTWords(maxLen = 3): Map<string, string[]> {
  const cached = tables.get(maxLen);
  if (cached) return cached;
  const table = new Map([[phaseKey([1, 0, 0, 0, 0, 0, 1, 0]), [] as string[]]]);
  let frontier: string[][] = [[]];
  for (let len = 1; len <= maxLen; len++) {
    const next: string[][] = [];
    for (const w of frontier)
      for (const name of WORD_GATES) {
        const word = [...w, name];
        const key = phaseKey(runMatrix(word.map((n) => g(n, [0])))!);
        if (!table.has(key)) {
          table.set(key, word);
          next.push(word);
        }
      }
    frontier = next;
  }
  tables.set(maxLen, table);
  return table;
}
