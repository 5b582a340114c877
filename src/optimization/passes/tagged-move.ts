import type { GateOp } from '../../circuits/ir.js';
import type { Recorder } from '../recorder.js';
import { PHASE_POLYNOMIAL_RULE } from './phase-polynomial.js';

/**
 * A plan made on one snapshot of the op list, applied as a sequence of global moves: `tags`
 * maps current positions to snapshot indices (-1 for inserted gates), so later moves of the
 * same plan still find their ops and insertion points.
 */
export class TaggedMoves {
  private tags: number[];

  constructor(private readonly rec: Recorder) {
    this.tags = rec.ops.map((_, k) => k);
  }

  /** Current position of the op that had snapshot index `orig`. */
  pos(orig: number): number {
    return this.tags.indexOf(orig);
  }

  /** Moves snapshot op `fromOrig` to just before the first op with snapshot index ≥ `atOrig`, as `gate` (or drops it). */
  move(fromOrig: number, gate: GateOp | undefined, atOrig: number): void {
    const from = this.pos(fromOrig);
    let at = this.tags.findIndex((x) => x >= atOrig);
    if (at < 0) at = this.tags.length;
    this.rec.move(PHASE_POLYNOMIAL_RULE, [from], gate ? [gate] : [], at);
    const next: number[] = [];
    for (let k = 0; k < this.tags.length; k++) {
      if (k === at && gate) next.push(-1);
      if (k !== from) next.push(this.tags[k]!);
    }
    if (at === this.tags.length && gate) next.push(-1);
    this.tags = next;
  }
}
