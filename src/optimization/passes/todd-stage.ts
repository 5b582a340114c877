import type { Operation } from '../../circuits/ir.js';
import { isTGate } from '../metrics.js';
import type { Recorder } from '../recorder.js';
import { reduceTCountInRegions } from './todd-regions.js';

const tGates = (ops: readonly Operation[]) => ops.reduce((n, o) => n + (isTGate(o) ? 1 : 0), 0);

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
