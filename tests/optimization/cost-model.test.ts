import { describe, expect, it } from 'vitest';
import { gate } from '../../src/circuits/ir.js';
import { namGateCount } from '../../src/optimization/cost-model.js';

const HALF_PI = Math.PI / 2;

describe('namGateCount: tiny rotations are gates, rounding noise is not', () => {
  it('counts a rotation of 5.8e-10 rad beside an H (Nam et al.’s PF1 at 60 qubits) as a gate', () => {
    expect(namGateCount([gate('h', [0]), gate('rz', [0], [5.787e-10])])).toBe(2);
    expect(namGateCount([gate('u3', [0], [HALF_PI, 5.787e-10, -Math.PI])])).toBe(2);
  });

  it('counts an x-rotation of 1e-10 rad as h·rz·h, not as nothing', () => {
    expect(namGateCount([gate('u3', [0], [1e-10, -HALF_PI, HALF_PI])])).toBe(3);
    expect(namGateCount([gate('h', [0]), gate('rz', [0], [1e-10]), gate('h', [0])])).toBe(3);
  });

  it('does not count rounding noise: an H with rz(1e-16), and φ, λ off by what a matrix of a small θ leaves', () => {
    expect(namGateCount([gate('h', [0]), gate('rz', [0], [1e-16])])).toBe(1);
    // θ = 1.25e-7: φ and λ read back from the matrix are only good to ~1e-16 / sin(θ/2) ≈ 2e-9
    expect(namGateCount([gate('u3', [0], [1.25e-7, -HALF_PI + 2e-9, HALF_PI - 2e-9])])).toBe(3);
  });
});
