import type { Operation } from '../../circuits/ir.js';
import { isTGate } from '../metrics.js';
import type { Recorder } from '../recorder.js';
import { hadamardFrame } from './hadamard-frame.js';
import { onlyQuarterPhases, reduceTCountInRegions } from './todd-regions.js';

export const tGates = (ops: readonly Operation[]) => ops.reduce((n, o) => n + (isTGate(o) ? 1 : 0), 0);

/**
 * The TODD stage of aggressive (issue 37, item 5): after phase teleportation has merged what it
 * can across Hadamards, T gates are reduced inside each Hadamard-free region (todd-regions.ts),
 * then `cleanup` (the local rounds) removes what the rebuilt regions made redundant. It runs as
 * finishing work (up to the budget's hard limit) on a fork, kept only when it has fewer T gates.
 * Every step is local and proven by replay (rule `resynth-phase-polynomial`).
 */
export function toddStage(rec: Recorder, cleanup: (r: Recorder) => void): number {
  const probe = rec.fork();
  probe.stopped = rec.finishStopped;
  if (reduceTCountInRegions(probe) === 0) return 0;
  cleanup(probe);
  const saved = tGates(rec.ops) - tGates(probe.ops);
  if (saved <= 0) return 0;
  probe.stopped = rec.stopped;
  rec.adopt(probe);
  return saved;
}

/**
 * TODD before the search (aggressive): forks of the circuit, cleaned up by `cleanup`, with their
 * regions reduced without a cap on the CNOTs their rebuilding adds — one as it is, one with its
 * Hadamards deferred as a frame first (hadamard-frame.ts: gf2^4_mult's seventeen Toffolis become one
 * region) at two group sizes, one framed with cz (mod5_4) — each kept when it saves T gates; none
 * when the circuit is not Clifford+T. The search then reruns its winning strategy from each start:
 * its global passes and phase teleportation absorb most of the added CNOTs (csla_mux_3: 44 T in 142
 * gates, where TODD after teleportation needs 240 gates for 55), and the pipeline keeps the finished
 * branch with the fewest T within the cheaper profile's gates (pipeline.ts). The plain start is needed:
 * the frame's reversed CNOTs cost csla_mux_3 its 44 (45 T in more gates). `maxWork` bounds each
 * start's work in units of the pass's stop checks (one per TODD pair tried, ~0.15 ms each): a count,
 * not a clock, so the result does not depend on the machine's load (csla_mux_3 needs ~5,000,
 * gf2^4_mult's framed region ~8,900 in one group; adder_8 would take ~16,000 and gains nothing).
 */
export function toddStarts(rec: Recorder, cleanup: (r: Recorder) => void, maxWork: number): Recorder[] {
  // only Clifford+T circuits: other angles cut regions short, and on product formulas (thousands of
  // arbitrary rotations) TODD spent up to 1.7 s per circuit to find nothing
  if (tGates(rec.ops) < 2 || !onlyQuarterPhases(rec.ops)) return [];
  const plain = rec.fork();
  cleanup(plain);
  const framed = plain.fork();
  const tries: { base: Recorder; maxGroupTerms?: number }[] = [{ base: plain }];
  if (hadamardFrame(framed) > 0) {
    cleanup(framed);
    // in groups of a few sizes: fewer T saved in smaller groups, in fewer CNOTs, but which size's
    // rebuilt region the search then shrinks most is not monotone in the size (decisions/
    // optimization-hadamard-frame.md: gf2^4_mult's one group 49 T in 213 gates, groups of 30 58 T in
    // 165, of 41 54 T in 174); the pipeline keeps the fewest T within the cheaper profile's gates
    for (const maxGroupTerms of FRAMED_GROUP_TERMS) tries.push({ base: framed, maxGroupTerms });
  }
  // the frame that keeps a target in it through a cx from outside (as a cz): mod5_4's four Toffolis
  // on one target, split by H·cx·H, become one region (8 → 7 T)
  const czFramed = plain.fork();
  if (hadamardFrame(czFramed, { cz: true }) > 0) {
    cleanup(czFramed);
    tries.push({ base: czFramed, maxGroupTerms: FRAMED_GROUP_TERMS[0]! });
  }
  const starts: Recorder[] = [];
  for (const { base, ...opts } of tries) {
    if (rec.stopped()) break;
    const start = base.fork();
    const before = tGates(start.ops);
    let work = 0;
    start.stopped = () => rec.stopped() || ++work > maxWork;
    const saved = reduceTCountInRegions(start, { growthPerT: Infinity, ...opts });
    start.stopped = rec.stopped;
    if (saved === 0) continue;
    cleanup(start);
    if (tGates(start.ops) < before) starts.push(start);
  }
  return starts;
}

/** The framed starts' group sizes (measured on gf2^4_mult; see the comment in toddStarts). */
const FRAMED_GROUP_TERMS: readonly number[] = [30, 41];
