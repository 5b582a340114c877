import type { Circuit } from '../circuits/ir.js';
import { isAppError } from '../errors/app-error.js';
import { measureCoupling, tidy, type MeasuredCoupling, type MeasuredPair } from './measured.js';
import { resolvePairs } from './pairs.js';
import { qualitativeCoupling, type QualitativeCoupling } from './qualitative.js';
import type { Pair, PureState } from './reduced-states.js';
import { estimateMeasuredMs, planMeasured, type FallbackReasonCode } from './scope.js';

export type CouplingMode = 'qualitative' | 'measured' | 'auto';

/**
 * The final pure state of a unitary circuit on |0…0⟩ (the simulator's `finalState`).
 * `timeBudgetMs` is what is left of the coupling budget; a simulator that stops at it should
 * throw an AppError whose code ends in `TIME_BUDGET_EXCEEDED`.
 */
export type FinalStateFn = (c: Circuit, opts: { readonly timeBudgetMs: number }) => PureState;

export interface CouplingSettings {
  /** Most qubits (acted on by gates) the measured mode simulates. Default 20. */
  readonly measuredMaxQubits: number;
  /** Wall-clock budget of the measured mode (simulation + measures), ms. */
  readonly timeBudgetMs: number;
}

export const DEFAULT_COUPLING_SETTINGS: CouplingSettings = Object.freeze({ measuredMaxQubits: 20, timeBudgetMs: 10_000 });

export interface CouplingDeps {
  readonly finalState: FinalStateFn;
  /** Milliseconds, monotonic. Default `performance.now`. */
  readonly now?: () => number;
  /** Give the event loop a turn after this much continuous work (ms); 0 never. Default 25. */
  readonly yieldEveryMs?: number;
}

export interface Fallback {
  /** The mode that was asked for ('measured', or 'auto' when auto could not measure). */
  readonly requested: 'measured' | 'auto';
  readonly reason_code: FallbackReasonCode;
  readonly reason: string;
}

export interface MeasuredReport extends MeasuredCoupling {
  /** The qubits the simulation covered (those gates act on); every other qubit is exactly |0⟩. */
  readonly simulated_qubits: readonly number[];
}

export interface CouplingReport {
  readonly mode_requested: CouplingMode;
  readonly mode_used: 'qualitative' | 'measured';
  readonly fallback?: Fallback;
  readonly num_qubits: number;
  readonly pairs_scope: 'all' | 'requested';
  readonly limits: { readonly measured_max_qubits: number; readonly time_budget_ms: number };
  readonly qualitative: QualitativeCoupling;
  readonly measured?: MeasuredReport;
}

export interface CouplingRequest {
  readonly mode: CouplingMode;
  /** Raw from the request; validated against the circuit (400 COUPLING_PAIR_INVALID). */
  readonly pairs?: readonly (readonly number[])[] | undefined;
  readonly pairsPath?: string;
}

class BudgetExceeded extends Error {}

const defaultNow = (): number => performance.now();

function yieldToEventLoop(): Promise<void> {
  return new Promise((resolve) => {
    if (typeof setImmediate === 'function') setImmediate(resolve);
    else setTimeout(resolve, 0);
  });
}

export type MeasureOutcome = { readonly ok: true; readonly measured: MeasuredReport } | { readonly ok: false; readonly reason_code: FallbackReasonCode; readonly reason: string };

/**
 * The measured mode on one circuit, or why it is out of scope. Never throws for scope
 * reasons; input errors were ruled out before (pairs are valid for `c`).
 */
export async function measureCircuit(c: Circuit, pairs: readonly Pair[], settings: CouplingSettings, deps: CouplingDeps): Promise<MeasureOutcome> {
  const plan = planMeasured(c, settings.measuredMaxQubits);
  if (!plan.ok) return plan;
  const now = deps.now ?? defaultNow;
  const started = now();
  const deadline = started + settings.timeBudgetMs;
  const local = new Map(plan.active.map((q, k) => [q, k] as const));
  const inner: Pair[] = [];
  for (const [a, b] of pairs) if (local.has(a) && local.has(b)) inner.push([local.get(a)!, local.get(b)!]);

  const estimate = estimateMeasuredMs(plan.active.length, plan.unitary.ops.length, inner.length);
  const overBudget = (what: string): MeasureOutcome => ({
    ok: false,
    reason_code: 'TIME_BUDGET_EXCEEDED',
    reason: `${what} the measured-mode time budget of ${settings.timeBudgetMs} ms (COUPLING_TIME_BUDGET_MS) for ${plan.active.length} qubits, ${plan.unitary.ops.length} gates and ${inner.length} pairs.`,
  });
  if (estimate > settings.timeBudgetMs) return overBudget(`The estimated ${Math.ceil(estimate)} ms exceed`);

  let state: PureState;
  try {
    state = deps.finalState(plan.unitary, { timeBudgetMs: Math.max(1, Math.floor(deadline - now())) });
  } catch (e) {
    // The simulator refusing a circuit (its own limits) is a scope question, not a request error.
    if (isAppError(e) && e.code.endsWith('TIME_BUDGET_EXCEEDED')) return overBudget('Simulating the circuit exceeded');
    if (isAppError(e)) return { ok: false, reason_code: 'SIMULATION_UNAVAILABLE', reason: `The simulator could not produce the final state: ${e.message}` };
    throw e;
  }
  if (now() > deadline) return overBudget('Simulating the circuit exceeded');

  const yieldEvery = deps.yieldEveryMs ?? 25;
  let lastYield = now();
  const checkpoint = async (): Promise<void> => {
    const t = now();
    if (t > deadline) throw new BudgetExceeded();
    if (yieldEvery > 0 && t - lastYield >= yieldEvery) {
      await yieldToEventLoop();
      lastYield = now();
    }
  };
  let m: MeasuredCoupling;
  try {
    m = await measureCoupling(state, inner, checkpoint);
  } catch (e) {
    if (e instanceof BudgetExceeded) return overBudget('Measuring the pairs exceeded');
    throw e;
  }
  return { ok: true, measured: expand(c.numQubits, plan.active, pairs, m) };
}

/** Back to the circuit's qubit numbers; idle qubits are |0⟩: entropy 0, uncoupled. */
function expand(n: number, active: readonly number[], pairs: readonly Pair[], m: MeasuredCoupling): MeasuredReport {
  const entropies = new Array<number>(n).fill(0);
  active.forEach((q, k) => {
    entropies[q] = m.entropies_bits[k]!;
  });
  const activeSet = new Set(active);
  let next = 0;
  const out: MeasuredPair[] = pairs.map(([a, b]) => {
    if (activeSet.has(a) && activeSet.has(b)) {
      const p = m.pairs[next++]!;
      return { ...p, qubits: [a, b] };
    }
    // ρ_ab = ρ_a ⊗ |0⟩⟨0| (or |0⟩⟨0| ⊗ ρ_b): S(AB) is the entropy of the active one.
    return { qubits: [a, b], concurrence: 0, mutual_information_bits: 0, pair_entropy_bits: tidy(entropies[a]! + entropies[b]!, 0, 2) };
  });
  return { entropies_bits: entropies, pairs: out, simulated_qubits: active };
}

/**
 * Coupling analysis of one circuit. `qualitative` always; `measured` adds the measured
 * quantities when in scope and otherwise answers qualitative with `fallback`; `auto`
 * measures when in scope and reports a fallback (requested 'auto') when it cannot.
 * Throws only for input errors (400 COUPLING_PAIR_INVALID).
 */
export async function analyzeCoupling(c: Circuit, req: CouplingRequest, settings: CouplingSettings, deps: CouplingDeps): Promise<CouplingReport> {
  const pairs = resolvePairs(req.pairs, c.numQubits, req.pairsPath ?? '/pairs');
  const qualitative = qualitativeCoupling(c, pairs);
  const base = {
    mode_requested: req.mode,
    num_qubits: c.numQubits,
    pairs_scope: req.pairs === undefined ? ('all' as const) : ('requested' as const),
    limits: { measured_max_qubits: settings.measuredMaxQubits, time_budget_ms: settings.timeBudgetMs },
  };
  if (req.mode === 'qualitative') return { ...base, mode_used: 'qualitative', qualitative };
  const outcome = await measureCircuit(c, pairs, settings, deps);
  if (outcome.ok) return { ...base, mode_used: 'measured', qualitative, measured: outcome.measured };
  return {
    ...base,
    mode_used: 'qualitative',
    fallback: { requested: req.mode, reason_code: outcome.reason_code, reason: outcome.reason },
    qualitative,
  };
}
