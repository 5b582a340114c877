import type { GateOp } from '../../circuits/ir.js';
import { commute } from '../gate-info.js';
import type { Recorder } from '../recorder.js';

/**
 * Which anchor lets the matched ops (strictly increasing positions) be gathered: every
 * matched op must commute with the unmatched ops between it and the anchor.
 */
export function gatherAnchor(rec: Recorder, positions: readonly number[]): 'first' | 'last' | undefined {
  const set = new Set(positions);
  const first = positions[0]!;
  const last = positions[positions.length - 1]!;
  const ok = (anchor: 'first' | 'last') =>
    positions.every((p) => {
      const [lo, hi] = anchor === 'last' ? [p + 1, last] : [first + 1, p];
      for (let k = lo; k < hi; k++) if (!set.has(k) && !commute(rec.ops[p]!, rec.ops[k]!)) return false;
      return true;
    });
  if (ok('first')) return 'first';
  if (ok('last')) return 'last';
  return undefined;
}

/** Applies a rewrite if the matched ops can be gathered; returns whether it did. */
export function tryRewrite(rec: Recorder, rule: string, positions: readonly number[], out: readonly GateOp[]): boolean {
  const sorted = [...positions].sort((a, b) => a - b);
  if (sorted.some((p, i) => i > 0 && p === sorted[i - 1])) return false;
  const anchor = gatherAnchor(rec, sorted);
  if (!anchor) return false;
  rec.apply(rule, sorted, out, anchor);
  return true;
}
