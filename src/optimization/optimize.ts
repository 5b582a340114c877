import { circuit, withOps, type Circuit, type GateOp, type Operation } from '../circuits/ir.js';
import { fail } from '../errors/app-error.js';
import { certificateDigest } from '../verification/certificate-digest.js';
import { replayCertificate } from '../verification/certificate-replay.js';
import { PROOF_EPS } from '../verification/numeric-policy.js';
import { isGlobalRule, PHASE_TELEPORT_RULE, REORDER_RULE, WIDEN_RULE, type CertificateStep } from '../verification/certificate-types.js';
import type { EquivalenceChecker, EquivalenceResult } from './equivalence-port.js';
import { OPTIMIZATION_ERRORS } from './error-codes.js';
import { circuitMetrics, type CircuitMetrics } from './metrics.js';
import { PROFILE_PASSES, runProfile, type ExtraPass, type Profile } from './pipeline.js';
import { Recorder } from './recorder.js';
import { checkConditionedOnTarget, resolveTarget, translateToTarget, type BackendHint, type Target } from './target.js';
import { planSegments } from './segments.js';
import { defaultEquivalence } from './default-equivalence.js';
import { impreciseAngles } from './passes/normalize-angles.js';
import { targetCost, type CostModel } from './cost-model.js';
import { isAppError } from '../errors/app-error.js';

export type { Profile } from './pipeline.js';
export type { BackendHint } from './target.js';

/** Test-only: a deliberately unsound rewrite, to show that the optimizer fails closed. */
export interface UnsoundRule {
  /** The rule id the step claims (a library rule, an unknown id, or a `global:` id). */
  readonly claim: string;
  /** Finds one rewrite in the op list, or null. */
  find(ops: readonly Operation[]): { positions: number[]; inserted: GateOp[] } | null;
}

export interface OptimizeOptions {
  readonly profile?: Profile;
  readonly backendHint?: BackendHint;
  readonly device?: string;
  readonly timeBudgetMs?: number;
  readonly unsoundRules?: readonly UnsoundRule[];
  /** Whole-circuit equivalence checker; defaults to src/verification's. */
  readonly equivalence?: EquivalenceChecker;
  readonly includeSteps?: boolean;
  /** True once nobody waits for the result (the client went away): the search stops and nothing is proven. */
  readonly cancelled?: () => boolean;
  /**
   * How far it has got: a fraction (0–1, never going back) and the phase (`optimizing`,
   * `verifying`; with mid-circuit measurement `optimizing segment k/n`). Called often: the caller throttles.
   */
  readonly onProgress?: (fraction: number, phase: string) => void;
}

/** Reports of a part of the work: its own fraction (0–1) placed in [from, to) of the whole, never going back. */
type PartProgress = (fraction: number, phase: string) => void;

/** The whole run's reports kept monotone, and a part's range of them. */
function progressOf(onProgress: OptimizeOptions['onProgress']): (from: number, to: number, label: string) => PartProgress {
  let best = 0;
  return (from, to, label) => (f, phase) => {
    if (onProgress === undefined) return;
    best = Math.max(best, from + (to - from) * Math.min(1, Math.max(0, f)));
    onProgress(best, `${phase}${label}`);
  };
}

/** The caller canceled the optimization (see OptimizeOptions.cancelled); no result exists. */
export class OptimizationCanceledError extends Error {
  constructor() {
    super('optimization canceled by its caller');
    this.name = 'OptimizationCanceledError';
  }
}

export interface ProofMethod {
  readonly method: 'certificate-replay' | 'unitary' | 'path-sum';
  readonly checked: string;
  readonly [k: string]: unknown;
}

export interface OptimizeResult {
  readonly circuit: Circuit;
  readonly metricsBefore: CircuitMetrics;
  readonly metricsAfter: CircuitMetrics & { readonly cost_model: CostModel; readonly target_total: number };
  readonly passes: readonly string[];
  /** The profile whose result this is: the one asked for, or a cheaper one that proved a smaller result. */
  readonly profile: Profile;
  readonly proof: {
    readonly verified: true;
    readonly methods: readonly ProofMethod[];
    readonly certificate: { readonly digest: string; readonly stepCount: number; readonly globalSteps: number; readonly steps?: readonly CertificateStep[] };
  };
  readonly timedOut: boolean;
  readonly notes: readonly string[];
  readonly elapsedMs: number;
}

/** Wall-clock budget per profile, split between search and proof (circuits above SCALE_GATES gates). */
export const PROFILE_BUDGET_MS: Readonly<Record<Profile, number>> = { safe: 5_000, balanced: 20_000, aggressive: 60_000 };
/** Circuits up to this many gates get the shorter budgets below (issue 37, item 4). */
export const SCALE_GATES = 5_000;
/** Issue 37: on every circuit up to 5,000 gates balanced answers within 5 s and aggressive within 15 s. */
export const SCALE_BUDGET_MS: Readonly<Record<Profile, number>> = { safe: 5_000, balanced: 5_000, aggressive: 15_000 };

/** The profile's budget for a circuit of `gates` gates (the whole ladder of cheaper profiles included). */
export function profileBudgetMs(profile: Profile, gates: number): number {
  return gates <= SCALE_GATES ? SCALE_BUDGET_MS[profile] : PROFILE_BUDGET_MS[profile];
}

const unverified = (reason: string, extra: Record<string, unknown> = {}) =>
  fail(OPTIMIZATION_ERRORS.OPTIMIZATION_UNVERIFIED, `The optimized circuit could not be verified: ${reason}`, { reason, ...extra });

/** The register width after the steps: routing may borrow device wires (`widen` steps). */
function widthAfter(steps: readonly CertificateStep[], n: number): number {
  return steps.reduce((w, st) => (st.rule === WIDEN_RULE && st.numQubits !== undefined ? Math.max(w, st.numQubits) : w), n);
}

/** The same circuit on `width` wires (the extra ones idle). */
function widened(c: Circuit, width: number): Circuit {
  return width === c.numQubits ? c : circuit(width, c.numClbits, c.ops, c.metadata);
}

/** Translates to the target and replays the certificate; a replay failure fails closed. */
function finish(input: Circuit, rec: Recorder, target: Target): { output: Circuit; replay: Extract<ReturnType<typeof replayCertificate>, { ok: true }> } {
  rec.stopped = () => false; // translation is required for a correct target, never cut short
  translateToTarget(rec, target, input.numQubits);
  const output = widened(withOps(input, rec.ops), widthAfter(rec.steps, input.numQubits));
  const replay = replayCertificate(input, { steps: rec.steps }, output, { snapshotBefore: teleportStart(rec.steps) });
  if (!replay.ok) throw unverified(`certificate replay failed: ${replay.reason}`, { method: 'certificate-replay' });
  return { output, replay };
}

const replayMethod = (replay: { localSteps: number; globalSteps: number }): ProofMethod => ({
  method: 'certificate-replay',
  checked: `${replay.localSteps} local rewrite steps replayed against the proven rule library; output reproduced exactly`,
  local_steps: replay.localSteps,
  global_steps: replay.globalSteps,
});

/** The search's steps before its first global one, as a fresh recorder (the time-out fallback). */
function localPrefix(input: Circuit, steps: readonly CertificateStep[]): Recorder {
  const k = steps.findIndex((st) => isGlobalRule(st.rule));
  const prefix = k < 0 ? steps : steps.slice(0, k);
  const r = replayCertificate(input, { steps: prefix });
  const rec = new Recorder(r.ok ? r.output.ops : input.ops);
  // A loop, not a spread: one argument per step overflows the stack near 10^5 steps.
  if (r.ok) for (const st of prefix) rec.steps.push(st);
  if (r.ok) rec.charge(r.deviation);
  return rec;
}

/**
 * Index of the first phase-teleport step when only local steps follow it, else undefined.
 * The whole-circuit check then compares the input with the circuit before that step (the
 * replay's snapshot): teleport steps and everything after are proven by replay alone (each
 * carries its own reduction trace), and the global steps, all before, still get their
 * whole-circuit proof, on a circuit the checker handles as before.
 */
function teleportStart(steps: readonly CertificateStep[]): number | undefined {
  const first = steps.findIndex((st) => st.rule === PHASE_TELEPORT_RULE);
  return first < 0 || steps.slice(first).some((st) => isGlobalRule(st.rule)) ? undefined : first;
}

/** Above this many gate-amplitude updates (gates × 4^qubits), the path sum is tried before the whole unitary. */
const UNITARY_WORK_PATH_SUM_FIRST = 1e9;
/** The path sum tried first gets at most this long (a quarter of the proof's time): when it is stuck, the unitary still has the rest. */
const PATH_SUM_FIRST_MAX_MS = 2_000;
const undefinedResult: EquivalenceResult = { equivalent: 'unknown', method: 'none', checked: 'nothing', elapsedMs: 0 };

interface SegmentContext {
  readonly profile: Profile;
  readonly target: Target;
  readonly extra: readonly ExtraPass[];
  readonly cancelled: () => boolean;
  readonly check: EquivalenceChecker;
  /** Wall-clock budget for this unitary circuit (search 60 %, proof the rest). */
  readonly budgetMs: number;
  /** How methods and notes name this part: '' for a whole circuit, 'segment k: ' otherwise. */
  readonly label: string;
  /** Rounding the earlier segments of the same certificate already spent (one budget for all). */
  readonly spent: number;
  readonly progress: PartProgress;
  /** False when a cheaper profile already proved a smaller result: no proof is then spent on this one. */
  readonly worthProving?: (output: Circuit) => boolean;
  /** A cheaper profile already proved a result: an undecided global proof falls back to the local prefix. */
  readonly inLadder: boolean;
  /** That result's gate count in Nam's set, when the target counts in it and the circuit is one segment (pipeline.ts runProfile). */
  readonly gateCap?: number;
}

/** This profile's result has more gates than a cheaper profile's proven one: it is not proven, the cheaper one stands. */
class NotSmallerError extends Error {
  constructor(readonly targetTotal: number) {
    super('more gates than a cheaper profile proved');
  }
}

interface SegmentResult {
  readonly output: Circuit;
  readonly steps: readonly CertificateStep[];
  readonly methods: readonly ProofMethod[];
  readonly timedOut: boolean;
  readonly notes: readonly string[];
  readonly replay: Extract<ReturnType<typeof replayCertificate>, { ok: true }>;
}

/**
 * Optimizes and proves one circuit that the whole-circuit check can compare (no mid-circuit
 * measurement or reset): search, translation, certificate replay, whole-circuit equivalence, and
 * the time-out fallback to the local prefix. Fails closed with OPTIMIZATION_UNVERIFIED.
 */
function optimizeSegment(input: Circuit, ctx: SegmentContext): SegmentResult {
  const t0 = performance.now();
  const searchDeadline = t0 + ctx.budgetMs * 0.6;
  let timedOut = false;
  const notes: string[] = [];
  const rec = new Recorder(input.ops);
  rec.stopped = () => {
    const now = performance.now();
    if (now > searchDeadline) timedOut = true;
    // The search's share of the budget used, as its progress (passes end at a fixpoint, not after a known count).
    ctx.progress((0.6 * (now - t0)) / Math.max(1, searchDeadline - t0), 'optimizing');
    return timedOut || ctx.cancelled();
  };
  // Finishing work after a stopped search may use the budget up to 85 %; the proof keeps the rest.
  const finishDeadline = t0 + ctx.budgetMs * 0.85;
  rec.finishStopped = () => performance.now() > finishDeadline || ctx.cancelled();
  rec.charge(ctx.spent);
  let best = runProfile(rec, ctx.profile, ctx.extra, ctx.gateCap);
  for (const n of best.notes) notes.push(`${ctx.label}${n}`);
  // Before the proof, the longest step after the search: nobody would read its answer.
  if (ctx.cancelled()) throw new OptimizationCanceledError();
  if (timedOut) notes.push(`${ctx.label}the ${ctx.profile} search stopped at its time budget (${Math.round(ctx.budgetMs * 0.6)} ms); the best result found so far is returned`);
  const searchSteps = [...best.steps];
  ctx.progress(0.6, 'verifying');
  const tFinish = performance.now();
  let { output, replay } = finish(input, best, ctx.target);
  const finishMs = performance.now() - tFinish;
  const methods: ProofMethod[] = [];
  // an undecided whole-circuit check falls back to the local prefix, translated and replayed again:
  // the check leaves time for that (2.5× what the first translation and replay took: more on a loaded machine), within the budget
  const remaining = Math.max(ctx.label ? 250 : 1_000, ctx.budgetMs - (performance.now() - t0) - 2.5 * finishMs);
  if (ctx.worthProving && !ctx.worthProving(output)) throw new NotSmallerError(targetCost(output, ctx.target.native).target_total);
  if (replay.globalSteps === 0) {
    // Every step is a local rule the replay proved: a whole-circuit check would add nothing but time.
    notes.push(`${ctx.label}every step is a local rule: the certificate alone proves the result (no whole-circuit check)`);
    ctx.progress(1, 'verifying');
    return { output, steps: best.steps, methods, timedOut, notes, replay };
  }
  let eq: EquivalenceResult;
  const compared = replay.snapshot ?? output;
  const beforeTeleport = compared === output ? '' : '; compared with the circuit before phase teleportation (its steps and the later ones are proven by certificate replay)';
  // Compared with the snapshot, the check is tightened by what the later steps may deviate (a
  // distance D moves a column by at most 2D), so the output itself stays within the proof tolerance.
  const epsilon = compared === output ? undefined : PROOF_EPS - 2 * replay.deviationAfterSnapshot;
  try {
    const a = widened(input, compared.numQubits);
    const eps = epsilon === undefined ? {} : { epsilon };
    // A whole unitary costs gates·4^n: at 10–12 qubits and thousands of gates that is seconds, where
    // the path sum of the miter, linear in gates, usually decides at once. Then the path sum goes
    // first on a short share of the time, the unitary (up to 12 qubits) after it only if undecided.
    const unitaryWork = (input.ops.length + compared.ops.length) * 4 ** Math.min(compared.numQubits, 13);
    const pathFirst = compared.numQubits <= 12 && unitaryWork > UNITARY_WORK_PATH_SUM_FIRST;
    const t1 = performance.now();
    eq = pathFirst ? ctx.check(a, compared, { timeBudgetMs: Math.min(remaining / 4, PATH_SUM_FIRST_MAX_MS), maxUnitaryQubits: 0, ...eps }) : undefinedResult;
    if (eq.equivalent === 'unknown') {
      const first = pathFirst ? `path-sum first: ${eq.reason ?? 'undecided'}; ` : '';
      eq = ctx.check(a, compared, { timeBudgetMs: Math.max(250, remaining - (performance.now() - t1)), maxUnitaryQubits: 12, ...eps });
      if (first && eq.equivalent === 'unknown') eq = { ...eq, reason: `${first}${eq.reason ?? ''}` };
    }
  } catch (e) {
    eq = { equivalent: 'unknown', method: 'none', checked: 'nothing', reason: `equivalence checker failed: ${(e as Error).message}`, elapsedMs: 0 };
  }
  if (eq.equivalent === false) throw unverified(`${ctx.label}whole-circuit equivalence check refuted the result: ${eq.reason ?? eq.checked}`, { method: eq.method });
  if (eq.equivalent === true) {
    methods.push({
      method: eq.method === 'path-sum' ? 'path-sum' : 'unitary',
      checked: `${ctx.label}${eq.checked}${beforeTeleport}`,
      elapsed_ms: Math.round(eq.elapsedMs),
      justifies: replay.globalRules,
    });
  } else {
    const why = `${ctx.label}global rewrites (${replay.globalRules.join(', ')}) need whole-circuit equivalence, which was not established: ${eq.reason ?? 'unknown'}`;
    // running out of time falls back to the local steps before the first global one, proven by
    // replay alone; so does an undecided check inside a profile ladder (a cheaper profile's proven
    // result is the floor: the local prefix — e.g. Pauli-rotation resynthesis, proven by its own
    // checker at any width — is kept only if it beats it). Any refutation above fails closed.
    const outOfTime = timedOut || eq.elapsedMs >= 0.9 * remaining;
    if (!outOfTime && !ctx.inLadder) throw unverified(why, { method: eq.method });
    best = localPrefix(input, searchSteps);
    best.charge(ctx.spent);
    ({ output, replay } = finish(input, best, ctx.target));
    if (outOfTime) timedOut = true;
    notes.push(
      outOfTime
        ? `${why}; within the time budget, so the result of the local rewrites before the first global one is returned, proven by the certificate alone`
        : `${why}; the result of the local rewrites before the first global one is returned instead, proven by the certificate alone`,
    );
  }
  ctx.progress(1, 'verifying');
  return { output, steps: best.steps, methods, timedOut, notes, replay };
}

/** A step moved `offset` ops to the right (its segment's place in the whole op list). */
function shifted(step: CertificateStep, offset: number): CertificateStep {
  if (offset === 0) return step;
  return Object.freeze({
    ...step,
    positions: Object.freeze(step.positions.map((p) => p + offset)),
    ...(step.insertAt === undefined ? {} : { insertAt: step.insertAt + offset }),
    ...(step.span === undefined ? {} : { span: Object.freeze([step.span[0] + offset, step.span[1] + offset] as const) }),
  });
}

/** One profile's run, on its share of the budget (see optimizeCircuit for the ladder of profiles). */
function optimizeWith(
  input: Circuit,
  opts: OptimizeOptions,
  profile: Profile,
  budget: number,
  onProgress: OptimizeOptions['onProgress'],
  worthProving?: (output: Circuit) => boolean,
  gateCap?: number,
): OptimizeResult {
  const t0 = performance.now();
  const hint = opts.backendHint ?? 'generic';
  const target = resolveTarget(hint, opts.device, input.numQubits);
  checkConditionedOnTarget(input, target);
  const notes: string[] = [];
  const extra: ExtraPass[] = (opts.unsoundRules ?? []).map((u) => (r: Recorder) => {
    const hit = u.find(r.ops);
    if (!hit) return 0;
    r.apply(u.claim, hit.positions, hit.inserted);
    return 1;
  });
  const imprecise = impreciseAngles(input.ops);
  if (imprecise > 0) {
    notes.push(
      `${imprecise} gate parameter(s) of magnitude ≥ 2^23 rad: a double that large is coarser than the proof tolerance (1e-9), so each was taken as the exact binary value given and reduced exactly modulo its period`,
    );
  }
  const ctx = { profile, target, extra, cancelled: opts.cancelled ?? (() => false), check: opts.equivalence ?? defaultEquivalence, inLadder: worthProving !== undefined };
  const part = progressOf(onProgress);
  const plan = planSegments(input.ops);
  let output: Circuit;
  let steps: CertificateStep[];
  let timedOut = false;
  let replay: SegmentResult['replay'] | undefined;
  const methods: ProofMethod[] = [];
  if (!plan) {
    const r = optimizeSegment(input, {
      ...ctx,
      budgetMs: budget,
      label: '',
      spent: 0,
      progress: part(0, 1, ''),
      ...(worthProving ? { worthProving } : {}),
      ...(gateCap === undefined ? {} : { gateCap }),
    });
    ({ output, timedOut, replay } = r);
    steps = [...r.steps];
    methods.push(...r.methods);
    notes.push(...r.notes);
  } else {
    // Mid-circuit measurement or reset: the unitary segments between them are optimized and proven
    // one by one (the checker compares unitary circuits only); a reorder step first makes each
    // segment contiguous, then each segment's steps are shifted to its place in the whole list.
    const reordered = plan.order.map((i) => input.ops[i]!);
    steps = plan.order.some((v, k) => v !== k) ? [Object.freeze({ rule: REORDER_RULE, positions: [], replaced: [], inserted: [], order: plan.order })] : [];
    const outOps: Operation[] = [];
    let from = 0;
    let gatesLeft = input.ops.filter((o) => o.kind === 'gate').length;
    const gatesAll = Math.max(1, gatesLeft);
    let spent = 0;
    plan.segments.forEach(([a, b], k) => {
      for (let i = from; i < a; i++) outOps.push(reordered[i]!);
      from = b;
      const segIn = withOps(input, reordered.slice(a, b));
      const gates = segIn.ops.filter((o) => o.kind === 'gate').length;
      if (gates === 0) {
        for (const op of segIn.ops) outOps.push(op);
        return;
      }
      const left = Math.max(0, budget - (performance.now() - t0));
      const done = 1 - gatesLeft / gatesAll;
      const progress = part(done, done + gates / gatesAll, ` segment ${k + 1}/${plan.segments.length}`);
      const r = optimizeSegment(segIn, { ...ctx, budgetMs: (left * gates) / Math.max(1, gatesLeft), label: `segment ${k} (ops ${a}–${b - 1} after reordering): `, spent, progress });
      gatesLeft -= gates;
      spent += r.replay.deviation;
      const offset = outOps.length;
      for (const st of r.steps) steps.push(shifted(st, offset));
      for (const op of r.output.ops) outOps.push(op);
      timedOut ||= r.timedOut;
      methods.push(...r.methods.map((m) => ({ ...m, segment: k })));
      notes.push(...r.notes);
    });
    for (let i = from; i < reordered.length; i++) outOps.push(reordered[i]!);
    output = widened(withOps(input, outOps), widthAfter(steps, input.numQubits));
    notes.push(`mid-circuit measurement or reset: the ${plan.segments.length} unitary segments between them were optimized and proven separately`);
  }
  if (!replay) {
    // the segments' certificates, joined, replayed against the whole input
    const whole = replayCertificate(input, { steps }, output);
    if (!whole.ok) throw unverified(`certificate replay failed: ${whole.reason}`, { method: 'certificate-replay' });
    replay = whole;
  }
  methods.unshift(replayMethod(replay));
  if (output.numQubits > input.numQubits) {
    notes.push(
      `routing on ${target.device?.id ?? 'the device'} borrowed wires ${input.numQubits}–${output.numQubits - 1} (the circuit's own wires are not connected there): the output has ${output.numQubits} qubits, acts as the input on wires 0–${input.numQubits - 1} and leaves the borrowed ones as it found them`,
    );
  }
  const certificate = { steps };
  const stepsOut = opts.includeSteps === false ? {} : { steps };
  return {
    circuit: output,
    metricsBefore: circuitMetrics(input),
    metricsAfter: { ...circuitMetrics(output), ...targetCost(output, target.native) },
    passes: [...PROFILE_PASSES[profile], ...target.passes],
    profile,
    proof: {
      verified: true,
      methods,
      certificate: { digest: certificateDigest(certificate), stepCount: steps.length, globalSteps: replay.globalSteps, ...stepsOut },
    },
    timedOut,
    notes,
    elapsedMs: performance.now() - t0,
  };
}

/** The profiles run for each profile asked for, cheapest first. */
const LADDER: Readonly<Record<Profile, readonly Profile[]>> = { safe: ['safe'], balanced: ['safe', 'balanced'], aggressive: ['safe', 'balanced', 'aggressive'] };
/** The most of the whole budget a rung below the last may use (unused time passes on). */
const RUNG_SHARE: Readonly<Record<Profile, number>> = { safe: 0.1, balanced: 0.35, aggressive: 1 };
/**
 * The share of the promised budget the ladder does not plan with: the clock is read between units of
 * work, not during them (a path-sum substitution, a final replay, a garbage collection), so planning
 * with all of it answered mod_adder_1024's aggressive in 15.9 s of a 15 s budget.
 */
const BUDGET_RESERVE = 0.1;
/** Below this share of the budget left, a rung after a proven result is not run. */
const MIN_RUNG_SHARE = 0.05;

/** Results ranked as the target counts them: gates, then two-qubit gates, then T gates. */
function rank(r: OptimizeResult): readonly number[] {
  return [r.metricsAfter.target_total, r.metricsAfter.two_qubit, r.metricsAfter.t_count];
}
function better(a: OptimizeResult, b: OptimizeResult): boolean {
  const x = rank(a);
  const y = rank(b);
  for (let i = 0; i < x.length; i++) if (x[i] !== y[i]) return x[i]! < y[i]!;
  return false;
}

/**
 * Profiles are monotone (issue 37): the cheaper profiles run first, inside the same budget, and the
 * best proven result is kept — so aggressive never answers more gates than balanced, nor balanced
 * than safe, in the target's cost model, and a profile whose own result cannot be proven answers with
 * a cheaper one's proven result rather than 422 OPTIMIZATION_UNVERIFIED. Only when no rung proves a
 * result does the asked-for profile's failure stand. Ties go to the costlier profile (its result is
 * what was asked for).
 */
export function optimizeCircuit(input: Circuit, opts: OptimizeOptions = {}): OptimizeResult {
  const t0 = performance.now();
  const profile = opts.profile ?? 'safe';
  const budget = (1 - BUDGET_RESERVE) * (opts.timeBudgetMs ?? profileBudgetMs(profile, input.ops.length));
  const ladder = LADDER[profile];
  const progress = progressOf(opts.onProgress);
  let best: OptimizeResult | undefined;
  let failure: unknown;
  const notes: string[] = [];
  const tried: string[] = [];
  let from = 0;
  for (const [k, rung] of ladder.entries()) {
    const last = k === ladder.length - 1;
    const left = Math.max(0, budget - (performance.now() - t0));
    const share = last ? left : Math.min(left, budget * RUNG_SHARE[rung]);
    // A rung with almost nothing left (a loaded machine, a slow proof below it) would only repeat the
    // result it starts from and report a search stopped at a budget of ~0 ms: the proven one stands.
    if (best !== undefined && share < budget * MIN_RUNG_SHARE) {
      tried.push(`${rung}: not run, the cheaper profiles used the budget`);
      continue;
    }
    const to = last ? 1 : Math.min(1, from + share / Math.max(1, budget));
    let r: OptimizeResult;
    const floor = best;
    const target = floor === undefined ? undefined : resolveTarget(opts.backendHint ?? 'generic', opts.device, input.numQubits);
    const worthProving = floor && target ? (out: Circuit) => targetCost(out, target.native).target_total <= floor.metricsAfter.target_total : undefined;
    try {
      const gateCap = floor?.metricsAfter.cost_model === 'nam' ? floor.metricsAfter.target_total : undefined;
      r = optimizeWith(input, opts, rung, share, progress(from, to, ''), worthProving, gateCap);
    } catch (e) {
      if (e instanceof NotSmallerError) {
        tried.push(`${rung}: ${e.targetTotal} gates, more than a cheaper profile's proven result (not proven)`);
        from = to;
        continue;
      }
      if (!isAppError(e) || e.code !== OPTIMIZATION_ERRORS.OPTIMIZATION_UNVERIFIED.code) throw e;
      if (last) failure = e;
      tried.push(`${rung}: not proven (${e.message})`);
      from = to;
      continue;
    }
    from = to;
    tried.push(`${rung}: ${r.metricsAfter.target_total} gates (${r.metricsAfter.cost_model})`);
    if (!best || !better(best, r)) best = r;
  }
  if (!best) throw failure;
  if (ladder.length > 1) {
    notes.push(`profiles run cheapest first within the budget, the best proven result kept (${best.profile}'s): ${tried.join('; ')}`);
  }
  return { ...best, notes: [...best.notes, ...notes], elapsedMs: performance.now() - t0 };
}
