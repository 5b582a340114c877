/**
 * Polynomials over boolean variables for path sums (M. Amy, QPL 2018).
 *
 * Variables are integers (inputs x_0..x_{n-1} are 0..n-1, path variables follow). Since
 * v² = v for booleans every polynomial is multilinear; a monomial is a sorted array of
 * distinct variables, keyed by its decimal join. Two kinds of polynomial:
 *  - BoolPoly, over F₂ (outputs of the path sum): a set of monomials, XOR of their products;
 *  - PhasePoly, with real coefficients in turns modulo 1 (the phase is e^{2πi·P}): a T gate
 *    contributes 1/8, S 1/4, Z or a Hadamard coupling 1/2, rz(θ) θ/2π. Dyadic coefficients
 *    (k/2^j) are represented exactly by binary floating point, so Clifford+T arithmetic is
 *    exact. Other coefficients are kept however small they are: a term counts as zero (or as
 *    a dyadic value) only within the rounding its own additions can have made, a bound
 *    relative to the magnitudes added into it (docs/decisions/verification-path-sum-phase-resolution.md).
 * Constant phase terms are a global phase and are dropped.
 */
export type Mono = readonly number[];
export type BoolPoly = Map<string, Mono>;

export interface Term {
  readonly vars: Mono;
  /** Coefficient in turns, reduced into [−½, ½) so that small values keep full relative precision. */
  c: number;
  /** Σ|addend| over the additions that made c, and how many there were: the scale of c's rounding. */
  mass: number;
  adds: number;
}
export type PhasePoly = Map<string, Term>;

export class BudgetExceeded extends Error {}

export const key = (m: Mono): string => m.join(',');

/** Product of two monomials (union of sorted variable lists). */
export function monoMul(a: Mono, b: Mono): Mono {
  if (a.length === 0) return b;
  if (b.length === 0) return a;
  const out: number[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    const x = i < a.length ? a[i]! : Infinity;
    const y = j < b.length ? b[j]! : Infinity;
    if (x === y) {
      out.push(x);
      i++;
      j++;
    } else if (x < y) {
      out.push(x);
      i++;
    } else {
      out.push(y);
      j++;
    }
  }
  return out;
}

export function boolOf(...monos: Mono[]): BoolPoly {
  const p: BoolPoly = new Map();
  for (const m of monos) toggle(p, m);
  return p;
}

export function toggle(p: BoolPoly, m: Mono): void {
  const k = key(m);
  if (p.has(k)) p.delete(k);
  else p.set(k, m);
}

export function xorInto(target: BoolPoly, src: BoolPoly): void {
  for (const m of src.values()) toggle(target, m);
}

export function boolMul(a: BoolPoly, b: BoolPoly): BoolPoly {
  const out: BoolPoly = new Map();
  for (const x of a.values()) for (const y of b.values()) toggle(out, monoMul(x, y));
  return out;
}

const UNIT_ROUNDOFF = 2 ** -53;

/** x modulo 1 into [−½, ½); exact (x − round(x) needs no rounding for |x| < 2^52). */
export function frac(x: number): number {
  return x - Math.round(x);
}

/**
 * The most rounding a coefficient can carry: each of its additions rounds by at most one unit
 * roundoff of a partial sum, and every partial sum is at most its mass. Twice that, for the
 * subtraction a comparison with a dyadic value may add.
 */
export function roundingOf(t: Pick<Term, 'mass' | 'adds'>): number {
  return 2 * (t.adds + 1) * UNIT_ROUNDOFF * t.mass;
}

/** Whether the term's coefficient is the dyadic `value` (mod 1) up to its own rounding. */
export function termIs(t: Term, value: number): boolean {
  return Math.abs(frac(t.c - value)) <= roundingOf(t);
}

export class Phase {
  readonly terms: PhasePoly = new Map();
  /** Work counter: terms created, to bound blow-ups (BudgetExceeded). */
  work = 0;
  maxTerms = 0;
  /** When set, every variable of every term created, changed or deleted is recorded here. */
  touched: Set<number> | undefined;
  /** Σ|c| of the terms that cancelled to within their rounding and were dropped (reported, not hidden). */
  dropped = 0;
  constructor(
    private readonly budget: number,
    /** Date.now() after which work stops: one substitution into a grown phase can take seconds. */
    private readonly deadline = Infinity,
  ) {}

  /** Counts other work (e.g. output polynomial products) against the same budget. */
  charge(units: number): void {
    this.work += units;
    if (this.work > this.budget) throw new BudgetExceeded(`polynomial work exceeded ${this.budget} term updates`);
    this.checkTime();
  }

  private checkTime(): void {
    if (Date.now() > this.deadline) throw new BudgetExceeded('time budget ran out');
  }

  /**
   * Adds c to the coefficient of `vars`. `mass`/`adds` describe c's own rounding when it was
   * computed from other coefficients (a substitution); a coefficient fresh from a gate is one
   * rounded value.
   */
  add(vars: Mono, c: number, mass: number = Math.abs(c), adds = 1): void {
    if (vars.length === 0) return;
    if (++this.work > this.budget) throw new BudgetExceeded(`phase polynomial work exceeded ${this.budget} term updates`);
    if ((this.work & 4095) === 0) this.checkTime();
    if (this.touched) for (const v of vars) this.touched.add(v);
    const k = key(vars);
    const t = this.terms.get(k);
    const c2 = frac((t?.c ?? 0) + c);
    const mass2 = (t?.mass ?? 0) + mass;
    const adds2 = (t?.adds ?? 0) + adds;
    if (c2 === 0 || Math.abs(c2) <= roundingOf({ mass: mass2, adds: adds2 })) {
      this.dropped += Math.abs(c2);
      if (t) this.terms.delete(k);
    } else if (t) {
      t.c = c2;
      t.mass = mass2;
      t.adds = adds2;
    } else {
      this.terms.set(k, { vars, c: c2, mass: mass2, adds: adds2 });
      if (this.terms.size > this.maxTerms) this.maxTerms = this.terms.size;
    }
  }

  delete(t: Term): void {
    if (this.touched) for (const v of t.vars) this.touched.add(v);
    this.terms.delete(key(t.vars));
  }

  /**
   * Adds c · m · [f] where [f] ∈ {0,1} is the value of the F₂ polynomial f as an integer:
   * x₁ ⊕ … ⊕ x_k = Σ_{∅≠S} (−2)^{|S|−1} Π_{i∈S} x_i. Subsets stop at the size where
   * c·2^{|S|−1} becomes an integer (a T phase needs |S| ≤ 3, S ≤ 2, Z 1); for a
   * non-dyadic c every subset is needed, bounded by the budget.
   */
  addLifted(f: BoolPoly, c: number, m: Mono = [], origin?: Pick<Term, 'mass' | 'adds'>): void {
    const monos = [...f.values()];
    if (monos.length === 0) return;
    let maxSize = 0;
    let coef = c;
    // doubling is exact, so this stops exactly for dyadic c and never (before every subset) otherwise
    while (maxSize < monos.length && frac(coef) !== 0) {
      maxSize++;
      coef *= 2;
    }
    if (maxSize === 0) return;
    let count = 0;
    let binom = 1;
    for (let s = 1; s <= maxSize; s++) {
      binom = (binom * (monos.length - s + 1)) / s;
      count += binom;
    }
    if (this.work + count > this.budget) throw new BudgetExceeded(`lifting an XOR of ${monos.length} monomials needs ${Math.round(count)} terms`);
    const rec = (from: number, size: number, acc: Mono): void => {
      for (let i = from; i < monos.length; i++) {
        const next = monoMul(acc, monos[i]!);
        // (−2)^{size}·c for a subset of size+1
        const scale = 2 ** size;
        const cc = c * (size % 2 === 0 ? 1 : -1) * scale;
        this.add(next, cc, (origin?.mass ?? Math.abs(c)) * scale, origin?.adds ?? 1);
        if (size + 1 < maxSize) rec(i + 1, size + 1, next);
      }
    };
    rec(0, 0, m);
  }
}
