import { describe, expect, it } from 'vitest';
import { keepsBranch } from '../../src/optimization/pipeline.js';

// gates: Nam-set count; cost: the search's comparison key (gates·1000 + two-qubit gates); t: T gates
const branch = (gates: number, t: number, twoQ = 0) => ({ gates, cost: gates * 1000 + twoQ, t });

describe("aggressive's choice among the finished TODD branches", () => {
  it('without a cap: the cheaper branch, then the one with fewer T gates', () => {
    expect(keepsBranch(branch(165, 58), branch(181, 68), undefined)).toBe(true);
    expect(keepsBranch(branch(174, 54), branch(165, 58), undefined)).toBe(false);
    expect(keepsBranch(branch(165, 57), branch(165, 58), undefined)).toBe(true);
  });

  it('with a cap: fewer T gates within it win, even in more gates; over it nothing wins', () => {
    expect(keepsBranch(branch(174, 54), branch(165, 58), 181)).toBe(true);
    expect(keepsBranch(branch(183, 50), branch(165, 58), 181)).toBe(false);
    expect(keepsBranch(branch(170, 58), branch(165, 58), 181)).toBe(false);
    expect(keepsBranch(branch(165, 58, 90), branch(165, 58, 96), 181)).toBe(true);
  });

  it('with a cap: a best over it (the ladder would refuse it) gives way to any branch within it', () => {
    // gf2^5_mult: the search's 336 gates / 96 T against balanced's 287
    expect(keepsBranch(branch(286, 100), branch(336, 96), 287)).toBe(true);
    expect(keepsBranch(branch(297, 84), branch(336, 96), 287)).toBe(false);
  });
});
