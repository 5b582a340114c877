import { cost } from './metrics.js';
import { namGateCount } from './cost-model.js';
import { cancelAndMerge, dropIdentities, normalizePhases } from './passes/local.js';
import { reduceHadamards } from './passes/hadamard.js';
import { mergePhasePolynomial } from './passes/phase-polynomial.js';
import { resynthesizeRuns } from './passes/resynth-1q.js';
import { applyTemplates } from './passes/templates.js';
import { propagateNots } from './passes/x-propagation.js';
import { relocateBlockingPhases } from './passes/phase-relocate.js';
import { cancelCnotsByParity } from './passes/cnot-parity.js';
import { resynthesizeBlocks } from './passes/resynth-2q.js';
import { normalizeAngles } from './passes/normalize-angles.js';
import { teleportPhases } from './passes/phase-teleport.js';
import { mergePauliRotations } from './passes/pauli-rotations.js';
import { tGates, toddStage, toddStarts } from './passes/todd-stage.js';
import { asLocalSteps } from './passes/as-local-steps.js';
import { decomposeMultiQubit } from './passes/translate.js';
import type { Recorder } from './recorder.js';

export type Profile = 'safe' | 'balanced' | 'aggressive';

export const PROFILE_PASSES: Readonly<Record<Profile, readonly string[]>> = {
  safe: ['drop-identities', 'cancel-inverse-pairs', 'merge-adjacent-rotations'],
  balanced: [
    'drop-identities',
    'cancel-inverse-pairs',
    'merge-adjacent-rotations',
    'commutation-aware-cancellation',
    'hadamard-reduction',
    'pauli-rotation-merging',
    'phase-polynomial-rotation-merging',
    'clifford-term-absorption',
    'rotation-placement',
    'not-propagation',
    'single-qubit-resynthesis',
    'phase-teleportation',
  ],
  aggressive: [
    'drop-identities',
    'cancel-inverse-pairs',
    'merge-adjacent-rotations',
    'commutation-aware-cancellation',
    'hadamard-reduction',
    'pauli-rotation-merging',
    'phase-polynomial-rotation-merging',
    'clifford-term-absorption',
    'rotation-placement',
    'not-propagation',
    'single-qubit-resynthesis',
    'template-rewrites',
    'cnot-parity-cancellation',
    'two-qubit-block-resynthesis',
    'strategy-search',
    'phase-teleportation',
  ],
};

/** Hook for test-only rule injection: runs once per round, may apply steps. */
export type ExtraPass = (rec: Recorder) => number;

function safeRound(rec: Recorder): number {
  return dropIdentities(rec) + cancelAndMerge(rec, false);
}

function balancedRound(rec: Recorder, place: 'first' | 'last'): number {
  let n = dropIdentities(rec);
  n += normalizePhases(rec);
  n += cancelAndMerge(rec, true);
  n += reduceHadamards(rec);
  n += cancelAndMerge(rec, true);
  const before = cost(rec.ops);
  const probe = rec.fork();
  const merged = asLocalSteps(probe, (r) => mergePhasePolynomial(r, place)) + cancelAndMerge(probe, true);
  // keep the global merge only when it pays off (it may only move rotations); the probe is
  // adopted rather than recomputed (the merge is deterministic, and its search the costliest part)
  if (cost(probe.ops) < before) {
    rec.adopt(probe);
    n += merged;
  }
  {
    const probe3 = rec.fork();
    const moved = asLocalSteps(probe3, (r) => relocateBlockingPhases(r));
    cancelAndMerge(probe3, true);
    if (moved > 0 && cost(probe3.ops) < cost(rec.ops)) {
      rec.adopt(probe3);
      n += moved;
    }
  }
  n += resynthesizeRuns(rec);
  if (rec.ops.some((o) => o.kind === 'gate' && o.name === 'x')) {
    const probe2 = rec.fork();
    propagateNots(probe2);
    cancelAndMerge(probe2, true);
    dropIdentities(probe2);
    if (cost(probe2.ops) < cost(rec.ops)) {
      n += propagateNots(rec);
      n += cancelAndMerge(rec, true);
      n += dropIdentities(rec);
    }
  }
  return n;
}

/** CNOT cancellation by parity (aggressive): kept only when it pays after merging. */
function parityRound(rec: Recorder): number {
  const probe = rec.fork();
  // pairs the phase-polynomial checker proves locally first; H-sandwiched pairs (a change of path
  // variables that checker does not make) stay global steps, proven by the whole-circuit check
  const pairs = asLocalSteps(probe, (r) => cancelCnotsByParity(r, 2_000, false)) + cancelCnotsByParity(probe);
  if (pairs === 0) return 0;
  asLocalSteps(probe, (r) => mergePhasePolynomial(r, 'first'));
  cancelAndMerge(probe, true);
  if (cost(probe.ops) >= cost(rec.ops)) return 0;
  rec.adopt(probe);
  return pairs;
}

/** Local clean-ups only: everything after phase teleportation is proven by certificate replay alone. */
function localRound(rec: Recorder, aggressive: boolean): number {
  let n = dropIdentities(rec) + normalizePhases(rec) + cancelAndMerge(rec, true) + reduceHadamards(rec) + cancelAndMerge(rec, true) + resynthesizeRuns(rec);
  if (aggressive) n += applyTemplates(rec);
  return n;
}

/**
 * Phase teleportation, after the other passes have converged: it fuses non-Clifford phases
 * across Hadamards (fewer T gates, never more gates), then local clean-ups remove what the
 * fused gates no longer block. Its steps are local (replayed with their reduction trace), so
 * the whole-circuit check still compares the input with the circuit before it
 * (docs/decisions/optimization-t-count.md).
 */
function teleportStage(rec: Recorder, aggressive: boolean, searchStart: number): 'done' | 'capped' | 'stopped' {
  // Stopping rule (issue 37): the stage may use at most TELEPORT_SHARE times what the search took
  // before it (and at least TELEPORT_MIN_MS). On dense circuits with arbitrary angles the path-sum
  // graph grows dense and the reduction finds nothing after many seconds; cut short at this cap,
  // the stage applies nothing and the search ends, not counted as running out of the budget.
  const now = performance.now();
  const cap = now + Math.max(TELEPORT_MIN_MS, TELEPORT_SHARE * (now - searchStart));
  const outer = rec.stopped;
  let capped = false;
  rec.stopped = () => outer() || (capped ||= performance.now() > cap);
  try {
    for (let k = 0; k < 4; k++) {
      if (rec.stopped()) return capped ? 'capped' : 'stopped';
      if (teleportPhases(rec) === 0) return capped ? 'capped' : 'done';
      // the analysis already runs to its fixpoint: another one can only gain from what the clean-ups changed
      if (fixpoint(rec, (r) => localRound(r, aggressive), [], 10) === 0) return 'done';
    }
    return 'done';
  } finally {
    rec.stopped = outer;
  }
}

/** The teleport stage's cap: this many times the search's time before it, at least TELEPORT_MIN_MS. */
const TELEPORT_SHARE = 1;
const TELEPORT_MIN_MS = 1_000;
/** The work TODD before the search may do per start (stop checks, ~0.15 ms each; csla_mux_3 needs ~5,000, gf2^4_mult's framed start ~9,000). */
const TODD_START_WORK = 12_000;

/**
 * The teleport stage of a search that its budget stopped: run anyway, once and with its clean-ups,
 * as finishing work (it costs a small share of the search, and without it a large circuit's result
 * would keep every T gate the stage removes, worse than balanced's within budget). It stops at the
 * budget's hard limit (`finishStopped`); a stage cut short applies nothing of its analysis.
 */
function finishTeleport(rec: Recorder, aggressive: boolean): void {
  const stopped = rec.stopped;
  rec.stopped = rec.finishStopped;
  try {
    if (teleportPhases(rec) > 0) fixpoint(rec, (r) => localRound(r, aggressive), [], 10);
  } finally {
    rec.stopped = stopped;
  }
}

/**
 * Stop-when-stalled (issue 37): after the first rounds, a round that removes less than this share
 * of the gates ends the loop. A round of the larger profiles costs 0.1–0.5 s on a 4,000-gate
 * circuit; rounds that only move gates (rewrites, no gain) would otherwise run to the budget.
 */
const STALL_GAIN = 0.002;
const STALL_AFTER_ROUNDS = 2;

/** Runs rounds until one changes nothing, or gains too little (a note says so); returns the number of rewrites. */
function fixpoint(rec: Recorder, round: (r: Recorder) => number, extra: readonly ExtraPass[], maxRounds = 50, label = ''): number {
  let total = 0;
  let size = cost(rec.ops);
  for (let k = 0; k < maxRounds && !rec.stopped(); k++) {
    let n = round(rec);
    for (const e of extra) n += e(rec);
    total += n;
    if (n === 0) break;
    const now = cost(rec.ops);
    if (label && k + 1 >= STALL_AFTER_ROUNDS && size - now < STALL_GAIN * size) {
      rec.notes.push(`${label}: stopped after round ${k + 1}, which removed ${size - now} of ${size} gates (under ${STALL_GAIN * 100} %: stalled)`);
      break;
    }
    size = now;
  }
  return total;
}

/**
 * Branches of the strategy search are compared in a gate set ({h, rz, x, cx}, u3 decomposed), not by
 * raw count: block resynthesis trades CNOTs for u3 gates, which a target counts as up to five each.
 */
function costInGateSet(r: Recorder): number {
  let twoQ = 0;
  for (const op of r.ops) if (op.kind === 'gate' && op.qubits.length >= 2) twoQ++;
  return namGateCount(r.ops) * 1000 + twoQ;
}

/**
 * `gateCap`: the gate count in Nam's set ({h, rz, x, cx}) of the result a cheaper profile already
 * proved (the ladder in optimize.ts), within which aggressive may trade gates for fewer T gates.
 */
export function runProfile(rec: Recorder, profile: Profile, extra: readonly ExtraPass[] = [], gateCap?: number): Recorder {
  const start = performance.now();
  // first of all: no pass may add a huge angle to another (the sum would lose the result)
  normalizeAngles(rec);
  // Toffolis and other gates on 3+ qubits into Clifford+T first (their proven templates): the cost
  // models count them so anyway, and written out their phases merge with the rest (Nam et al. do
  // the same; csum_mux_9's 28 ccx stayed 417 gates, Nam heavy 266). No target has them native.
  if (profile !== 'safe' && rec.ops.some((o) => o.kind === 'gate' && o.qubits.length >= 3)) decomposeMultiQubit(rec, new Set());
  // Pauli-rotation merging and gadget resynthesis first, while the circuit's Pauli exponentials
  // are still intact (later passes write u3 runs the pass does not read)
  if (profile !== 'safe') mergePauliRotations(rec, true);
  if (profile === 'safe') {
    fixpoint(rec, safeRound, extra);
    return rec;
  }
  if (profile === 'balanced') {
    fixpoint(rec, (r) => balancedRound(r, 'first'), extra, 50, 'balanced rounds');
    if (teleportStage(rec, false, start) === 'stopped') finishTeleport(rec, false);
    return rec;
  }
  // aggressive: search over strategies, keep the cheapest; each branch is a full certificate
  const round = (place: 'first' | 'last') => (x: Recorder) => balancedRound(x, place) + applyTemplates(x) + parityRound(x);
  // Two-qubit block resynthesis runs in every branch after convergence, on a fork kept only when
  // cheaper, so no branch ends worse than without it. When it already applies to the input (long
  // stretches on one pair, as in generic circuits), branches with it first in every round are tried
  // first: collapsing the stretches early also makes the other passes cheaper.
  const early = resynthesizeBlocks(rec.fork()) > 0;
  const strategies = [...(early ? [true] : []), false].flatMap((blocksFirst) => (['first', 'last'] as const).map((place) => ({ place, blocksFirst })));
  let best: Recorder | undefined;
  let bestTeleported = false;
  let bestStrategy = strategies[0]!;
  // a stage cut short at its cap in one branch would be cut short in the others too: it is not tried again
  let teleportCapped = false;
  const branch = (from: Recorder, { place, blocksFirst }: (typeof strategies)[number]) => {
    const branchStart = performance.now();
    const r = from.fork();
    fixpoint(r, blocksFirst ? (x) => resynthesizeBlocks(x) + round(place)(x) : round(place), extra, 50, `aggressive rounds (${place}${blocksFirst ? ', blocks first' : ''})`);
    const r2 = r.fork();
    if (resynthesizeBlocks(r2) > 0) {
      fixpoint(r2, (x) => round(place)(x) + resynthesizeBlocks(x), extra);
      if (costInGateSet(r2) < costInGateSet(r)) r.adopt(r2);
    }
    const stage: 'done' | 'capped' | 'stopped' = teleportCapped ? 'capped' : teleportStage(r, true, branchStart);
    teleportCapped ||= stage === 'capped';
    return { r, teleported: stage !== 'stopped' };
  };
  for (const strategy of strategies) {
    if (best && rec.stopped()) break;
    const { r, teleported } = branch(rec, strategy);
    if (!best || costInGateSet(r) < costInGateSet(best)) {
      best = r;
      bestTeleported = teleported;
      bestStrategy = strategy;
    }
  }
  const finish = (r: Recorder, teleported: boolean) => {
    if (!teleported) finishTeleport(r, true);
    toddStage(r, (x) => fixpoint(x, (y) => localRound(y, true), [], 10));
  };
  finish(best!, bestTeleported);
  // the winning strategy once more, from starts that TODD has reduced (issue 37 item 5; todd-stage.ts),
  // each finished like the search's result. With a gate cap (the gate count of the cheaper profile's
  // proven result, which the ladder would return instead of anything costlier), the finished branch
  // with the fewest T gates among those within the cap and the search's own count is kept, then the
  // cheaper: T gates are what a fault-tolerant target pays for. Without one, the cheaper branch (then
  // fewer T). TODD's work there is capped by a count (a region cut short is left as it was), and a
  // branch runs only when its start already has fewer T gates than the search's result (otherwise
  // teleportation redoes its merges).
  const starts = rec.stopped() ? [] : toddStarts(rec, (r) => fixpoint(r, safeRound, [], 10), TODD_START_WORK);
  const searched = best!;
  const cap = gateCap === undefined ? undefined : Math.min(gateCap, namGateCount(searched.ops));
  for (const reduced of starts) {
    if (rec.stopped() || tGates(reduced.ops) >= tGates(searched.ops)) continue;
    const { r, teleported } = branch(reduced, bestStrategy);
    finish(r, teleported);
    const score = (x: Recorder): BranchScore => ({ gates: namGateCount(x.ops), cost: costInGateSet(x), t: tGates(x.ops) });
    if (keepsBranch(score(r), score(best!), cap)) best = r;
  }
  return best!;
}

/** A finished branch as the TODD starts' selection sees it: gates in Nam's set, the search's cost, T gates. */
export interface BranchScore {
  gates: number;
  cost: number;
  t: number;
}

/**
 * Whether `candidate` replaces `best` among aggressive's finished branches. Without a cap the cheaper
 * wins (then fewer T); with one, only a candidate within it can win, by fewer T (then cheaper) — or
 * whatever its T when `best` is over the cap (the ladder would refuse that one anyway).
 */
export function keepsBranch(candidate: BranchScore, best: BranchScore, cap: number | undefined): boolean {
  if (cap === undefined) return candidate.cost < best.cost || (candidate.cost === best.cost && candidate.t < best.t);
  if (candidate.gates > cap) return false;
  return best.gates > cap || candidate.t < best.t || (candidate.t === best.t && candidate.cost < best.cost);
}
