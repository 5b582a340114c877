/**
 * Product-formula (Trotter) circuits for 1D spin chains, in Nam's gate set {h, rz, x, cx}:
 * Heisenberg H = Σ (XX + YY + ZZ) on neighbours + Σ hᵢ Zᵢ, Ising H = Σ ZZ on neighbours + g Σ Xᵢ,
 * as first-, second- (Strang) and fourth-order (Suzuki) formulas. Deterministic: the fields hᵢ come
 * from a fixed linear congruential sequence, so every run builds the same circuits.
 */
import { circuit, gate, type Circuit, type GateOp } from '../../src/circuits/ir.js';

type Pauli = 'X' | 'Y' | 'Z';
/** exp(−i·θ/2·P⊗P) on (a, b), or exp(−i·θ/2·P) on a alone when b is undefined. */
interface Term {
  readonly p: Pauli;
  readonly a: number;
  readonly b?: number;
  readonly weight: number;
}

const HALF_PI = Math.PI / 2;

/** Basis change into Z and back (X: h; Y: rz(−π/2)·h, so h·rz(π/2)... undone in reverse). */
function into(p: Pauli, q: number): GateOp[] {
  if (p === 'X') return [gate('h', [q])];
  if (p === 'Y') return [gate('rz', [q], [-HALF_PI]), gate('h', [q])];
  return [];
}
function outOf(p: Pauli, q: number): GateOp[] {
  if (p === 'X') return [gate('h', [q])];
  if (p === 'Y') return [gate('h', [q]), gate('rz', [q], [HALF_PI])];
  return [];
}

function exponential(t: Term, theta: number): GateOp[] {
  const { p, a, b } = t;
  if (b === undefined) return [...into(p, a), gate('rz', [a], [theta]), ...outOf(p, a)];
  return [...into(p, a), ...into(p, b), gate('cx', [a, b]), gate('rz', [b], [theta]), gate('cx', [a, b]), ...outOf(p, a), ...outOf(p, b)];
}

function fields(n: number): number[] {
  let s = 20_240_611;
  return Array.from({ length: n }, () => {
    s = (s * 1_103_515_245 + 12_345) % 2_147_483_648;
    return (s / 2_147_483_648) * 2 - 1;
  });
}

export type Model = 'heisenberg' | 'ising';

function terms(model: Model, n: number): Term[] {
  const out: Term[] = [];
  if (model === 'heisenberg') {
    for (const p of ['X', 'Y', 'Z'] as const) for (let i = 0; i + 1 < n; i++) out.push({ p, a: i, b: i + 1, weight: 1 });
    fields(n).forEach((h, i) => out.push({ p: 'Z', a: i, weight: h }));
  } else {
    for (let i = 0; i + 1 < n; i++) out.push({ p: 'Z', a: i, b: i + 1, weight: 1 });
    for (let i = 0; i < n; i++) out.push({ p: 'X', a: i, weight: 0.8 });
  }
  return out;
}

/** One step of the formula of `order` (1, 2 or 4) for time dt, as a list of (term, time) pairs. */
function formula(ts: readonly Term[], order: 1 | 2 | 4, dt: number): [Term, number][] {
  const first = (t: number): [Term, number][] => ts.map((x) => [x, t]);
  const second = (t: number): [Term, number][] => [...first(t / 2), ...first(t / 2).reverse()];
  if (order === 1) return first(dt);
  if (order === 2) return second(dt);
  const p = 1 / (4 - Math.cbrt(4));
  return [...second(p * dt), ...second(p * dt), ...second((1 - 4 * p) * dt), ...second(p * dt), ...second(p * dt)];
}

export function productFormula(model: Model, n: number, order: 1 | 2 | 4, steps: number, dt = 0.1): Circuit {
  const ts = terms(model, n);
  const ops: GateOp[] = [];
  for (let s = 0; s < steps; s++) for (const [t, time] of formula(ts, order, dt)) ops.push(...exponential(t, 2 * t.weight * time));
  return circuit(n, 0, ops);
}

/** The bench's family: name → circuit, every circuit ≤ ~5,100 gates. */
export function productFormulaFamily(): Record<string, Circuit> {
  const out: Record<string, Circuit> = {};
  const add = (model: Model, n: number, order: 1 | 2 | 4, steps: number) => {
    out[`${model}_${n}_o${order}_r${steps}`] = productFormula(model, n, order, steps);
  };
  for (const n of [10, 20]) for (const order of [1, 2, 4] as const) add('heisenberg', n, order, order === 4 ? 1 : 2);
  add('heisenberg', 50, 1, 2);
  add('heisenberg', 100, 2, 1);
  for (const n of [10, 50, 100]) for (const order of [1, 2] as const) add('ising', n, order, 4);
  add('ising', 20, 4, 2);
  return out;
}
