/**
 * A path sum |x⟩ ↦ 2^{-k/2} Σ_y e^{2πi·P(x,y)} |f(x,y)⟩ (M. Amy, "Towards large-scale
 * functional verification of universal quantum circuits", QPL 2018) and its reduction by
 * rewrite rules, each an exact identity of sums:
 *  - Elim:  y occurs nowhere            → Σ_y 1 = 2, drop y;
 *  - HH:    y ∉ f, P = ½·y·(y' ⊕ Q) + R  → Σ_y (−1)^{y(y'⊕Q)} = 2·[y' = Q]: drop y, substitute y' := Q;
 *  - ω:     y ∉ f, P = ¼·y + ½·y·Q + R   → Σ_y i^y (−1)^{yQ} = √2·e^{2πi(1/8 − Q/4)}: drop y.
 * (y' is a path variable occurring in Q only linearly; ¾ in the ω rule is handled as ¼ with Q ⊕ 1.)
 */
import { BudgetExceeded, Phase, boolMul, boolOf, key, monoMul, termIs, toggle, xorInto, type BoolPoly, type Mono, type Term } from './polynomials.js';
import type { Prim } from './gate-paths.js';

export { BudgetExceeded };

export interface ReduceStats {
  elim: number;
  hh: number;
  omega: number;
  /** Rounds of output normalisation (change of variables). */
  changes: number;
}

export class PathSum {
  readonly out: BoolPoly[] = [];
  readonly phase: Phase;
  readonly pathVars = new Set<number>();
  nextVar: number;
  /** Number of Hadamards applied (the 2^{-k/2} normalisation before reduction). */
  hadamards = 0;
  readonly stats: ReduceStats = { elim: 0, hh: 0, omega: 0, changes: 0 };

  constructor(
    readonly n: number,
    budget: number,
    private readonly deadline: number,
  ) {
    for (let q = 0; q < n; q++) this.out.push(boolOf([q]));
    this.nextVar = n;
    this.phase = new Phase(budget, deadline);
  }

  checkTime(): void {
    if (Date.now() > this.deadline) throw new BudgetExceeded('time budget ran out');
  }

  apply(p: Prim): void {
    switch (p.k) {
      case 'x':
        toggle(this.out[p.q]!, []);
        return;
      case 'mcx': {
        let prod = this.out[p.cs[0]!]!;
        for (let i = 1; i < p.cs.length; i++) prod = boolMul(prod, this.out[p.cs[i]!]!);
        this.phase.charge(prod.size);
        xorInto(this.out[p.t]!, prod);
        return;
      }
      case 'swap': {
        const t = this.out[p.a]!;
        this.out[p.a] = this.out[p.b]!;
        this.out[p.b] = t;
        return;
      }
      case 'h': {
        const y = this.nextVar++;
        this.pathVars.add(y);
        this.hadamards++;
        for (const m of this.out[p.q]!.values()) this.phase.add(monoMul(m, [y]), 0.5);
        this.out[p.q] = boolOf([y]);
        return;
      }
      case 'ph': {
        let prod = this.out[p.qs[0]!]!;
        for (let i = 1; i < p.qs.length; i++) prod = boolMul(prod, this.out[p.qs[i]!]!);
        this.phase.charge(prod.size);
        this.phase.addLifted(prod, p.turns);
        return;
      }
    }
  }

  /**
   * Substitutes variable v := r (an F₂ polynomial without v) in the phase and the outputs.
   * `hits` are exactly the phase terms containing v.
   */
  private substitute(v: number, r: BoolPoly, hits: readonly Term[]): void {
    const touched = this.phase.touched;
    if (touched) for (const m of r.values()) for (const u of m) touched.add(u);
    for (const t of hits) this.phase.delete(t);
    for (const t of hits)
      this.phase.addLifted(
        r,
        t.c,
        t.vars.filter((u) => u !== v),
        t,
      );
    for (let q = 0; q < this.n; q++) {
      const f = this.out[q]!;
      const with_: Mono[] = [];
      for (const m of f.values()) if (m.includes(v)) with_.push(m);
      if (with_.length === 0) continue;
      this.phase.charge(with_.length * r.size);
      for (const m of with_) toggle(f, m);
      for (const m of with_) {
        const rest = m.filter((u) => u !== v);
        if (touched) for (const u of rest) touched.add(u);
        for (const rm of r.values()) toggle(f, monoMul(rest, rm));
      }
    }
  }

  /**
   * Applies the rules until none applies. Throws BudgetExceeded when out of time or work.
   * Each round indexes the phase once; variables whose terms or output occurrences a rule
   * changed are "stale" and wait for the next round, so the index is never used stale.
   */
  reduce(): void {
    // Cheapest rewrites first: a rule whose substitution or added phase involves more than
    // `limit` monomials waits until no cheaper rule applies (term growth depends on order).
    let limit = 1;
    for (;;) {
      this.checkTime();
      const index = new Map<number, Term[]>();
      for (const t of this.phase.terms.values()) {
        for (const v of t.vars) {
          if (v < this.n) continue;
          const list = index.get(v);
          if (list) list.push(t);
          else index.set(v, [t]);
        }
      }
      const inOut = new Set<number>();
      for (const f of this.out) for (const m of f.values()) for (const v of m) inOut.add(v);
      const stale = new Set<number>();
      this.phase.touched = stale;
      let changed = false;
      let costly = false;
      try {
        for (const y of [...this.pathVars]) {
          if (stale.has(y) || inOut.has(y)) continue;
          this.checkTime();
          const terms = index.get(y) ?? [];
          if (terms.length === 0) {
            this.pathVars.delete(y);
            this.stats.elim++;
            changed = true;
            continue;
          }
          const r = this.tryRules(y, terms, index, stale, limit);
          if (r === 'applied') {
            changed = true;
          } else if (r === 'costly') {
            costly = true;
          }
        }
      } finally {
        this.phase.touched = undefined;
      }
      if (changed) limit = 1;
      else if (costly) limit = limit >= 1024 ? Infinity : limit * 4;
      else return;
    }
  }

  private tryRules(y: number, terms: readonly Term[], index: ReadonlyMap<number, Term[]>, stale: ReadonlySet<number>, limit: number): 'applied' | 'costly' | 'no' {
    // The rules need exactly dyadic coefficients; a coefficient off by more than its own
    // rounding (however small) blocks them, so no phase is ever approximated away.
    let linear: Term | undefined;
    const q: BoolPoly = new Map();
    for (const t of terms) {
      if (t.vars.length === 1) linear = t;
      else if (termIs(t, 0.5))
        toggle(
          q,
          t.vars.filter((u) => u !== y),
        );
      else return 'no';
    }
    const is = (value: number): boolean => (linear ? termIs(linear, value) : value === 0);
    if (is(0.25) || is(0.75)) {
      if (is(0.75)) toggle(q, []);
      if (q.size > limit) return 'costly';
      for (const t of terms) this.phase.delete(t);
      this.phase.addLifted(q, -0.25);
      this.pathVars.delete(y);
      this.stats.omega++;
      return 'applied';
    }
    if (!is(0) && !is(0.5)) return 'no';
    if (is(0.5)) toggle(q, []);
    // HH: find a path variable occurring in Q only as the linear monomial {y'}.
    let best = -1;
    let bestCost = Infinity;
    for (const m of q.values()) {
      if (m.length !== 1) continue;
      const v = m[0]!;
      if (v < this.n || v === y) continue;
      let alone = true;
      for (const other of q.values()) if (other.length > 1 && other.includes(v)) alone = false;
      if (!alone) continue;
      // A candidate changed earlier in this round: decide y next round with a fresh index.
      if (stale.has(v)) return 'no';
      const cost = index.get(v)?.length ?? 0;
      if (cost < bestCost) {
        best = v;
        bestCost = cost;
      }
    }
    if (best < 0) return 'no';
    if (q.size - 1 > limit) return 'costly';
    for (const t of terms) this.phase.delete(t);
    toggle(q, [best]);
    // y's terms were the only ones holding both y and best; the rest of best's list is current.
    this.substitute(
      best,
      q,
      (index.get(best) ?? []).filter((t) => !t.vars.includes(y)),
    );
    this.pathVars.delete(y);
    this.pathVars.delete(best);
    this.stats.hh++;
    return 'applied';
  }

  /**
   * Change of summation variables when the rules are stuck because every remaining path
   * variable occurs in the outputs. Outputs linear in path variables form a matrix M
   * (outputs × variables); substituting y := w ⊕ z (w fresh) for the sum over y is a
   * bijection for each fixed z, and adds column y to column z. Column echelon form leaves
   * rank(M) pivot variables in the outputs and frees the others, to which the rules may
   * then apply. Only variables that occur in outputs solely as single-variable monomials
   * take part. Returns whether any variable left the outputs.
   */
  normalizeOutputs(): boolean {
    const linearOnly = new Set<number>();
    const nonlinear = new Set<number>();
    for (const f of this.out) {
      for (const m of f.values()) {
        for (const v of m) {
          if (!this.pathVars.has(v)) continue;
          if (m.length === 1) linearOnly.add(v);
          else nonlinear.add(v);
        }
      }
    }
    for (const v of nonlinear) linearOnly.delete(v);
    const before = linearOnly.size;
    const pivots = new Set<number>();
    for (let q = 0; q < this.n; q++) {
      const free = (): number[] => [...this.out[q]!.values()].filter((m) => m.length === 1 && linearOnly.has(m[0]!) && !pivots.has(m[0]!)).map((m) => m[0]!);
      let vars = free();
      if (vars.length === 0) continue;
      let pivot = vars[0]!;
      for (const z of vars.slice(1)) {
        this.checkTime();
        // pivot := w ⊕ z: column z gains column pivot, clearing z from output q
        const w = this.nextVar++;
        const hits = [...this.phase.terms.values()].filter((t) => t.vars.includes(pivot));
        this.substitute(pivot, boolOf([w], [z]), hits);
        this.pathVars.delete(pivot);
        this.pathVars.add(w);
        linearOnly.delete(pivot);
        linearOnly.add(w);
        pivot = w;
      }
      vars = free();
      if (vars.length !== 1 || vars[0] !== pivot) throw new Error('output normalisation invariant broken');
      pivots.add(pivot);
    }
    let stillOut = 0;
    for (const v of linearOnly) if (this.out.some((f) => f.has(key([v])))) stillOut++;
    return stillOut < before;
  }
}
