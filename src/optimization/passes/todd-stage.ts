import type { Operation } from '../../circuits/ir.js';
import { isTGate } from '../metrics.js';
import type { Recorder } from '../recorder.js';
import { reduceTCountInRegions } from './todd-regions.js';

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
 * TODD before the search (aggressive): a fork of the circuit, cleaned up by `cleanup`, with its
 * regions reduced without a cap on the CNOTs their rebuilding adds (for at most `capMs`), or
 * undefined when it saves no T gate. The search then runs its strategies from this start too: its global passes and phase
 * teleportation absorb most of the added CNOTs (csla_mux_3: 44 T in 142 gates, where TODD after
 * teleportation needs 240 gates for 55), and the branches are compared in gates as before.
 */
export function toddStart(rec: Recorder, cleanup: (r: Recorder) => void, capMs: number): Recorder | undefined {
  const start = rec.fork();
  const cap = performance.now() + capMs;
  start.stopped = () => rec.stopped() || performance.now() > cap;
  cleanup(start);
  const before = tGates(start.ops);
  if (reduceTCountInRegions(start, { growthPerT: Infinity }) === 0) return undefined;
  start.stopped = rec.stopped;
  cleanup(start);
  return tGates(start.ops) < before ? start : undefined;
}
