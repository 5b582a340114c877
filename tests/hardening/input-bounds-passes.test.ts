import { describe, expect, it } from 'vitest';
import { gate, type Operation } from '../../src/circuits/ir.js';
import { cancelCnotsByParity } from '../../src/optimization/passes/cnot-parity.js';
import { mergePhasePolynomial } from '../../src/optimization/passes/phase-polynomial.js';
import { relocateBlockingPhases } from '../../src/optimization/passes/phase-relocate.js';
import { Recorder } from '../../src/optimization/recorder.js';

/**
 * Issue #17, defect 1 (audit): optimizer passes sized their working width with
 * `Math.max(0, ...ops.map(…))`, one call argument per operation, and the recorder copied its
 * steps with `push(...steps)`: near 10^5 operations (CIRCUIT_MAX_GATES allows up to 10^7) that
 * overflows the stack. 250,000 operations must go through without a RangeError.
 */
const N = 250_000;
// X gates only: each pass scans (sizing its width) once and finds nothing to rewrite.
const ops: Operation[] = Array.from({ length: N }, (_, i) => gate('x', [i % 3]));

describe('optimizer passes on 250,000 operations do not spread them into one call', () => {
  it('cnot-parity sizes its width without a spread', () => {
    expect(() => cancelCnotsByParity(new Recorder(ops))).not.toThrow();
  });
  it('phase-polynomial sizes its width without a spread', () => {
    expect(() => mergePhasePolynomial(new Recorder(ops), 'first', { effort: 0 })).not.toThrow();
  });
  it('phase-relocate sizes its width without a spread', () => {
    expect(() => relocateBlockingPhases(new Recorder(ops))).not.toThrow();
  });

  it('a recorder with 250,000 steps forks', () => {
    const rec = new Recorder([gate('x', [0])]);
    const step = rec.steps;
    for (let i = 0; i < N; i++) (step as unknown[]).push({ rule: 'noop', positions: [], replaced: [], inserted: [] });
    expect(rec.fork().steps).toHaveLength(N);
  });
});
