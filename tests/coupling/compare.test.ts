import { describe, expect, it } from 'vitest';
import { circuit, gate, measure } from '../../src/circuits/ir.js';
import { DEFAULT_COUPLING_SETTINGS, type CouplingDeps } from '../../src/coupling/analyze-coupling.js';
import { compareCoupling, DEFAULT_COMPARE_TOLERANCE } from '../../src/coupling/compare-coupling.js';
import { isAppError } from '../../src/errors/app-error.js';
import { tinyFinalState } from './tiny-sim.js';

const deps: CouplingDeps = { finalState: tinyFinalState, yieldEveryMs: 0 };
const settings = DEFAULT_COUPLING_SETTINGS;
const tol = DEFAULT_COMPARE_TOLERANCE;
const bell = circuit(2, 0, [gate('h', [0]), gate('cx', [0, 1])]);

describe('compareCoupling', () => {
  it('an optimization that cancels a CX pair preserves everything (measured basis)', async () => {
    const before = circuit(2, 0, [gate('h', [0]), gate('cx', [0, 1]), gate('cx', [0, 1]), gate('cx', [0, 1])]);
    const r = await compareCoupling(before, bell, { mode: 'auto', tolerance: tol }, settings, deps);
    expect(r.basis).toBe('measured');
    expect(r.preserved).toBe(true);
    expect(r.tolerance).toBe(tol);
    expect(r.summary).toEqual({ pairs: 1, preserved: 1, changed: 0, gained: 0, lost: 0, uncoupled: 0 });
    expect(r.pairs[0]!.measured!.concurrence).toEqual({ before: 1, after: 1, delta: 0 });
    expect(r.entropies).toEqual([
      { qubit: 0, after_qubit: 0, before: 1, after: 1, delta: 0 },
      { qubit: 1, after_qubit: 1, before: 1, after: 1, delta: 0 },
    ]);
    expect(r.before).toEqual({ num_qubits: 2, mode_used: 'measured' });
  });

  it('removing the entangling gate loses the pair', async () => {
    const after = circuit(2, 0, [gate('h', [0])]);
    const r = await compareCoupling(bell, after, { mode: 'measured', tolerance: tol }, settings, deps);
    expect(r.preserved).toBe(false);
    expect(r.pairs[0]!.status).toBe('lost');
    expect(r.pairs[0]!.measured!.mutual_information_bits).toEqual({ before: 2, after: 0, delta: -2 });
    expect(r.entropies![1]!.delta).toBe(-1);
    const q = await compareCoupling(bell, after, { mode: 'qualitative', tolerance: tol }, settings, deps);
    expect(q.basis).toBe('qualitative');
    expect(q.pairs[0]!.status).toBe('lost');
    expect(q.pairs[0]!.measured).toBeUndefined();
    expect(q.entropies).toBeUndefined();
  });

  it('a weaker entangler is "changed"; the tolerance decides small differences', async () => {
    const weaker = circuit(2, 0, [gate('ry', [0], [1.0]), gate('cx', [0, 1])]);
    const r = await compareCoupling(bell, weaker, { mode: 'measured', tolerance: tol }, settings, deps);
    expect(r.pairs[0]!.status).toBe('changed');
    expect(r.pairs[0]!.measured!.concurrence.after).toBeCloseTo(Math.sin(1.0), 7);
    const nearly = circuit(2, 0, [gate('ry', [0], [Math.PI / 2 + 1e-2]), gate('cx', [0, 1])]);
    expect((await compareCoupling(bell, nearly, { mode: 'measured', tolerance: 1e-6 }, settings, deps)).preserved).toBe(false);
    expect((await compareCoupling(bell, nearly, { mode: 'measured', tolerance: 1e-3 }, settings, deps)).preserved).toBe(true);
  });

  it('a routed circuit compares through the final qubit map', async () => {
    // Bell on logical 0 and 2, logical 1 in |+⟩; routed onto a line where 0 and 2 are not adjacent:
    // logical 0 → 0, logical 2 → 1, logical 1 → 2.
    const before = circuit(3, 3, [gate('h', [0]), gate('cx', [0, 2]), gate('h', [1]), measure(0, 0), measure(1, 1), measure(2, 2)]);
    const routed = circuit(3, 0, [gate('h', [0]), gate('h', [2]), gate('cx', [0, 1])]);
    const r = await compareCoupling(before, routed, { mode: 'auto', qubitMap: [0, 2, 1], tolerance: tol }, settings, deps);
    expect(r.preserved).toBe(true);
    expect(r.qubit_map).toEqual([0, 2, 1]);
    expect(r.pairs.map((p) => [p.qubits, p.after_qubits, p.status])).toEqual([
      [[0, 1], [0, 2], 'uncoupled'],
      [[0, 2], [0, 1], 'preserved'],
      [[1, 2], [2, 1], 'uncoupled'],
    ]);
    const unmapped = await compareCoupling(before, routed, { mode: 'auto', tolerance: tol }, settings, deps);
    expect(unmapped.preserved).toBe(false);
    expect(unmapped.summary).toMatchObject({ gained: 1, lost: 1 });
  });

  it('ancilla qubits of after are ignored; only pairs of before are compared', async () => {
    const routed = circuit(5, 0, [gate('h', [0]), gate('cx', [0, 1]), gate('h', [4])]);
    const r = await compareCoupling(bell, routed, { mode: 'auto', tolerance: tol }, settings, deps);
    expect(r.preserved).toBe(true);
    expect(r.summary.pairs).toBe(1);
  });

  it('when one side falls back the basis is qualitative and the side says why', async () => {
    const midMeasure = circuit(2, 1, [gate('h', [0]), measure(0, 0), gate('cx', [0, 1])]);
    const r = await compareCoupling(bell, midMeasure, { mode: 'measured', tolerance: tol }, settings, deps);
    expect(r.basis).toBe('qualitative');
    expect(r.before.mode_used).toBe('measured');
    expect(r.after).toMatchObject({ mode_used: 'qualitative', fallback: { requested: 'measured', reason_code: 'MID_CIRCUIT_MEASUREMENT' } });
    expect(r.pairs[0]!.status).toBe('preserved');
    expect(r.pairs[0]!.measured).toBeUndefined();
  });

  it('requested pairs are checked against before', async () => {
    const r = await compareCoupling(bell, bell, { mode: 'auto', pairs: [[1, 0]], tolerance: tol }, settings, deps);
    expect(r.pairs.map((p) => p.qubits)).toEqual([[0, 1]]);
    await expect(compareCoupling(bell, bell, { mode: 'auto', pairs: [[0, 2]], tolerance: tol }, settings, deps)).rejects.toMatchObject({ code: 'COUPLING_PAIR_INVALID' });
  });

  it('qubit map problems are a 400 with a path for each', async () => {
    const three = circuit(3, 0, [gate('h', [0])]);
    const codes = async (after: typeof three, map?: number[]) => {
      try {
        await compareCoupling(three, after, { mode: 'auto', qubitMap: map, tolerance: tol }, settings, deps);
        return undefined;
      } catch (e) {
        if (!isAppError(e)) throw e;
        expect(e.code).toBe('COUPLING_QUBIT_MAP_INVALID');
        expect(e.statusCode).toBe(400);
        return (e.details as { path: string; code: string }[]).map((d) => `${d.path} ${d.code}`);
      }
    };
    expect(await codes(bell)).toEqual(['/qubit_map REQUIRED']);
    expect(await codes(three, [0, 1])).toEqual(['/qubit_map WRONG_LENGTH']);
    expect(await codes(three, [0, 3, 0])).toEqual(['/qubit_map/1 QUBIT_OUT_OF_RANGE', '/qubit_map/2 DUPLICATE_QUBIT']);
    expect(await codes(three, [2, 0, 1])).toBeUndefined();
  });
});
