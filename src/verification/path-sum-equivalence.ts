/**
 * Exact functional equivalence by path sums (M. Amy, QPL 2018). The miter B⁻¹·A is built as
 * one path sum and reduced; A ≡ B up to global phase exactly when it reduces to
 * |x⟩ ↦ e^{iφ}|x⟩. Fail closed: `true` only after a complete reduction to a diagonal whose
 * phases provably stay within the proof tolerance; `false` only with a witness (a basis state
 * the miter provably moves, or phases differently by more than the tolerance allows);
 * anything else is 'unknown'. Phase coefficients are never rounded away: see
 * docs/decisions/verification-path-sum-phase-resolution.md.
 */
import type { Circuit, GateOp } from '../circuits/ir.js';
import type { EquivalenceResult, EquivalenceStats } from './equivalence-result.js';
import { gatePrims, invertPrims, type Prim } from './path-sum/gate-paths.js';
import { BudgetExceeded, PathSum } from './path-sum/path-sum.js';
import { frac, key, type BoolPoly, type Mono } from './path-sum/polynomials.js';
import { PROOF_EPS } from './numeric-policy.js';
import { basisLabel, gateShapeProblem, prepareCircuits, trimNote, type PreparedOk } from './prepare-circuits.js';

export interface PathSumOptions {
  /** Give up with 'unknown' after this long. Default 10 000 ms. */
  readonly timeBudgetMs?: number;
  /**
   * The proof tolerance, as for the unitary method: ‖B†A·e_x − λ·e_x‖₂ ≤ epsilon for every
   * basis state. It only matters for a miter that reduces to a diagonal of tiny non-dyadic
   * phases. Default numeric-policy.ts PROOF_EPS.
   */
  readonly epsilon?: number;
  /** Bound on phase-term updates before giving up. Default 20 000 000. */
  readonly maxWork?: number;
}

const DEFAULT_BUDGET_MS = 10_000;
const DEFAULT_MAX_WORK = 20_000_000;
/** While B⁻¹ is appended, reduce after every this many of its Hadamards. */
const REDUCE_EVERY_H = 4;

/** A minimal-degree monomial of a nonzero polynomial: setting exactly its variables to 1 makes the polynomial differ from its value at 0. */
function minimalMono(monos: Iterable<Mono>): Mono | undefined {
  let best: Mono | undefined;
  for (const m of monos) if (m.length > 0 && (!best || m.length < best.length)) best = m;
  return best;
}

/** Translates gates; a string is the reason a gate cannot be handled. */
function toPrims(gates: readonly GateOp[], n: number, inverse: boolean): Prim[] | string {
  const out: Prim[] = [];
  const list = inverse ? [...gates].reverse() : gates;
  for (const g of list) {
    const shape = gateShapeProblem(g, n);
    if (shape) return shape;
    if (!g.params.every(Number.isFinite)) return `gate ${g.name} has a non-finite parameter`;
    const prims = gatePrims(g);
    if (!prims) return `no path-sum form for gate ${g.name} on ${g.qubits.length} qubit(s) with ${g.params.length} parameter(s)`;
    out.push(...(inverse ? invertPrims(prims) : prims));
  }
  return out;
}

/**
 * Evaluates ⟨x|W|x⟩ of the reduced sum by enumerating the remaining path variables; used
 * only to refute (a diagonal entry of modulus < 1 or a phase differing from the first).
 */
function diagonalAmplitude(ps: PathSum, x: ReadonlySet<number>, left: readonly number[]): [number, number] {
  const scaleExp = ps.hadamards - 2 * ps.stats.elim - 2 * ps.stats.hh - ps.stats.omega;
  const terms = [...ps.phase.terms.values()];
  const assign = new Set<number>(x);
  const evalBool = (f: BoolPoly): number => {
    let v = 0;
    for (const m of f.values()) if (m.every((u) => assign.has(u))) v ^= 1;
    return v;
  };
  let re = 0;
  let im = 0;
  for (let mask = 0; mask < 1 << left.length; mask++) {
    for (let i = 0; i < left.length; i++) {
      if ((mask >> i) & 1) assign.add(left[i]!);
      else assign.delete(left[i]!);
    }
    let ok = true;
    for (let q = 0; q < ps.n && ok; q++) if (evalBool(ps.out[q]!) !== (x.has(q) ? 1 : 0)) ok = false;
    if (!ok) continue;
    let p = 0;
    for (const t of terms) if (t.vars.every((u) => assign.has(u))) p += t.c;
    re += Math.cos(2 * Math.PI * p);
    im += Math.sin(2 * Math.PI * p);
  }
  const scale = 2 ** (-scaleExp / 2);
  return [re * scale, im * scale];
}

function tryRefute(ps: PathSum, n: number, prep: PreparedOk): string | undefined {
  const label = (x: ReadonlySet<number>): string => basisLabel(prep, (k) => x.has(k));
  const left = [...ps.pathVars].sort((u, v) => u - v);
  const terms = ps.phase.terms.size + 1;
  if (left.length > 20 || 2 ** left.length * terms * (n + 1) > 5e6) return undefined;
  const inputs: Set<number>[] = [new Set(), new Set(Array.from({ length: n }, (_, i) => i))];
  let seed = 0x2545f491;
  for (let r = 0; r < 14; r++) {
    const s = new Set<number>();
    for (let q = 0; q < n; q++) {
      seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
      if ((seed >>> 16) & 1) s.add(q);
    }
    inputs.push(s);
  }
  const [r0, i0] = diagonalAmplitude(ps, inputs[0]!, left);
  for (const x of inputs) {
    const [re, im] = x === inputs[0] ? [r0, i0] : diagonalAmplitude(ps, x, left);
    const mag = Math.hypot(re, im);
    if (mag < 1 - 1e-6) return `basis state ${label(x)} is not mapped to itself: |⟨x|B⁻¹A|x⟩| = ${mag.toFixed(6)} < 1`;
    if (Math.hypot(re - r0, im - i0) > 1e-6) return `basis states ${label(inputs[0]!)} and ${label(x)} acquire different phases`;
  }
  return undefined;
}

/**
 * Builds the miter A then B⁻¹ and reduces it; with `every` > 0 also reduces after every
 * `every` Hadamards of B⁻¹, which cancels the miter from its middle outwards (where A's
 * and B's matching parts meet) and keeps the phase polynomial small on distant pairs.
 * Returns the reason when the time or work budget ran out.
 */
function buildAndReduce(ps: PathSum, pa: readonly Prim[], pb: readonly Prim[], every: number): string | undefined {
  try {
    // the clock is read per gate and per rule: one gate or rule on a grown phase can take tens of ms
    for (const p of pa) {
      ps.checkTime();
      ps.apply(p);
    }
    let hs = 0;
    for (const p of pb) {
      ps.checkTime();
      ps.apply(p);
      if (every > 0 && p.k === 'h' && ++hs % every === 0) ps.reduce();
    }
    ps.reduce();
    // Stuck with every variable in the outputs: change variables, then reduce again.
    for (let round = 0; round < 16 && ps.pathVars.size > 0 && ps.normalizeOutputs(); round++) {
      ps.stats.changes++;
      ps.reduce();
    }
    return undefined;
  } catch (e) {
    if (e instanceof BudgetExceeded) return e.message;
    throw e;
  }
}

/** Fail closed on internal errors too: an exception becomes 'unknown' with the message. */
export function pathSumEquivalent(a: Circuit, b: Circuit, opts: PathSumOptions = {}): EquivalenceResult {
  const start = Date.now();
  try {
    return pathSumEquivalentUnguarded(a, b, opts);
  } catch (e) {
    return {
      equivalent: 'unknown',
      method: 'path-sum',
      checked: 'nothing (internal error)',
      reason: `internal checker error: ${e instanceof Error ? e.message : String(e)}`,
      elapsedMs: Date.now() - start,
    };
  }
}

function pathSumEquivalentUnguarded(a: Circuit, b: Circuit, opts: PathSumOptions): EquivalenceResult {
  const start = Date.now();
  const budget = opts.timeBudgetMs ?? DEFAULT_BUDGET_MS;
  const eps = opts.epsilon ?? PROOF_EPS;
  const done = (equivalent: true | false | 'unknown', checked: string, reason?: string, stats?: EquivalenceStats): EquivalenceResult => ({
    equivalent,
    method: 'path-sum',
    checked,
    ...(reason === undefined ? {} : { reason }),
    ...(stats === undefined ? {} : { stats }),
    elapsedMs: Date.now() - start,
  });
  const prep = prepareCircuits(a, b);
  if (prep.kind === 'decided') return done(prep.equivalent, 'circuit structure (qubits, clbits, measurements)', prep.reason);
  const n = prep.numQubits;
  const checked =
    `path sum of the miter B⁻¹·A on ${n} qubit(s) reduced by the Elim, HH and ω rules to |x⟩ ↦ e^{iφ}|x⟩ ` +
    `(dyadic phases exact, others kept to their floating-point rounding; residual phases within ${eps} per basis column)` +
    trimNote(prep);
  const pa = toPrims(prep.a, n, false);
  if (typeof pa === 'string') return done('unknown', checked, pa);
  const pb = toPrims(prep.b, n, true);
  if (typeof pb === 'string') return done('unknown', checked, pb);

  // Two strategies: reduce once the whole miter is built (fast when A and B are close),
  // then, if that gets stuck or blows the work budget, reduce while B⁻¹ is appended.
  let ps!: PathSum;
  let failure: string | undefined;
  for (const [every, share] of [
    [0, 0.5],
    [REDUCE_EVERY_H, 1],
  ] as const) {
    ps = new PathSum(n, opts.maxWork ?? DEFAULT_MAX_WORK, start + budget * share);
    failure = buildAndReduce(ps, pa, pb, every);
    if (failure === undefined && ps.pathVars.size === 0) break;
    if (Date.now() >= start + budget) break;
  }
  const statsOf = (): EquivalenceStats => ({
    qubits: n,
    trimmedPrefix: prep.trimmedPrefix,
    trimmedSuffix: prep.trimmedSuffix,
    gatesA: prep.a.length,
    gatesB: prep.b.length,
    pathVariables: ps.hadamards,
    pathVariablesLeft: ps.pathVars.size,
    rules: { ...ps.stats },
    maxTerms: ps.phase.maxTerms,
  });
  if (failure !== undefined) return done('unknown', checked, `gave up: ${failure}`, statsOf());

  if (ps.pathVars.size > 0) {
    const refuted = tryRefute(ps, n, prep);
    if (refuted) return done(false, checked, `${refuted} (evaluated on the partly reduced path sum)`, statsOf());
    return done('unknown', checked, `reduction stuck with ${ps.pathVars.size} path variable(s) left; no proof either way`, statsOf());
  }
  // Fully reduced: W|x⟩ = e^{2πi·P(x)}|f(x)⟩ over inputs only, in canonical (unique) form.
  for (let q = 0; q < n; q++) {
    const f = ps.out[q]!;
    if (f.size === 1 && f.has(key([q]))) continue;
    const diff = new Map(f);
    if (diff.has(key([q]))) diff.delete(key([q]));
    else diff.set(key([q]), [q]);
    const m = minimalMono(diff.values()) ?? [];
    return done(false, checked, `basis state ${basisLabel(prep, (k) => m.includes(k))} is mapped to a different basis state (qubit ${prep.active[q]} differs)`, statsOf());
  }
  // W = diag(e^{2πi·P(x)}) with P(0) = 0 (constants are a global phase). With λ = 1 every column
  // is off by |e^{2πi·P(x)} − 1| ≤ 2π·Σ|c|: within the tolerance, the circuits are equivalent.
  const terms = [...ps.phase.terms.values()];
  if (terms.length === 0) return done(true, checked, undefined, statsOf());
  const spread = terms.reduce((acc, t) => acc + Math.abs(t.c), ps.phase.dropped);
  if (2 * Math.PI * spread <= eps) {
    return done(true, checked, `the miter reduces to a diagonal of residual phases summing to ${spread.toExponential(2)} turns, within the tolerance`, statsOf());
  }
  // A minimal monomial m: P(m) − P(0) is exactly its coefficient Δ. For any λ one of the two
  // columns is off by at least |e^{2πiΔ} − 1|/2 = sin(π|Δ|), less what the cancelled terms dropped.
  const m = minimalMono(terms.map((t) => t.vars)) ?? [];
  const delta = Math.abs(frac(ps.phase.terms.get(key(m))!.c));
  const label = `basis states ${basisLabel(prep, () => false)} and ${basisLabel(prep, (k) => m.includes(k))}`;
  if (Math.sin(Math.PI * delta) - 2 * Math.PI * ps.phase.dropped > eps) return done(false, checked, `${label} acquire phases ${delta.toExponential(3)} turns apart`, statsOf());
  return done(
    'unknown',
    checked,
    `${label} acquire phases ${delta.toExponential(3)} turns apart: below the tolerance, but the residual phases (${spread.toExponential(2)} turns in all) may add up beyond it`,
    statsOf(),
  );
}
