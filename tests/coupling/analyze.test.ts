import { describe, expect, it } from 'vitest';
import { circuit, gate, measure, reset, type Circuit } from '../../src/circuits/ir.js';
import { analyzeCoupling, DEFAULT_COUPLING_SETTINGS, type CouplingDeps } from '../../src/coupling/analyze-coupling.js';
import { defineCode, fail, isAppError } from '../../src/errors/app-error.js';
import { planMeasured } from '../../src/coupling/scope.js';
import { tinyFinalState } from './tiny-sim.js';

const deps: CouplingDeps = { finalState: tinyFinalState, yieldEveryMs: 0 };
const settings = DEFAULT_COUPLING_SETTINGS;
const bell = circuit(2, 2, [gate('h', [0]), gate('cx', [0, 1]), measure(0, 0), measure(1, 1)]);
const ghz = (n: number): Circuit => circuit(n, 0, [gate('h', [0]), ...Array.from({ length: n - 1 }, (_, q) => gate('cx', [q, q + 1]))]);

describe('analyzeCoupling', () => {
  it('measured Bell from the circuit: C = 1, S = 1, I = 2 bits', async () => {
    const r = await analyzeCoupling(bell, { mode: 'measured' }, settings, deps);
    expect(r.mode_used).toBe('measured');
    expect(r.fallback).toBeUndefined();
    expect(r.measured!.entropies_bits).toEqual([1, 1]);
    expect(r.measured!.pairs[0]!.concurrence).toBeCloseTo(1, 7);
    expect(r.measured!.pairs[0]!.mutual_information_bits).toBeCloseTo(2, 9);
    expect(r.qualitative.pairs[0]!.may_be_entangled).toBe(true);
    expect(r.pairs_scope).toBe('all');
  });

  it('qualitative mode never simulates', async () => {
    const r = await analyzeCoupling(bell, { mode: 'qualitative' }, settings, {
      finalState: () => {
        throw new Error('must not simulate');
      },
    });
    expect(r.mode_used).toBe('qualitative');
    expect(r.measured).toBeUndefined();
    expect(r.fallback).toBeUndefined();
  });

  it('auto measures when in scope', async () => {
    const r = await analyzeCoupling(ghz(3), { mode: 'auto' }, settings, deps);
    expect(r.mode_used).toBe('measured');
    expect(r.measured!.pairs.map((p) => p.concurrence)).toEqual([0, 0, 0]);
    for (const p of r.measured!.pairs) expect(p.mutual_information_bits).toBeCloseTo(1, 9);
  });

  it('fallback TOO_MANY_QUBITS above the limit (measured and auto)', async () => {
    const r = await analyzeCoupling(ghz(5), { mode: 'measured' }, { ...settings, measuredMaxQubits: 4 }, deps);
    expect(r.mode_used).toBe('qualitative');
    expect(r.measured).toBeUndefined();
    expect(r.fallback).toMatchObject({ requested: 'measured', reason_code: 'TOO_MANY_QUBITS' });
    expect(r.fallback!.reason).toContain('5 qubits');
    expect(r.qualitative.pairs_may_be_entangled).toBe(10);
    const a = await analyzeCoupling(ghz(5), { mode: 'auto' }, { ...settings, measuredMaxQubits: 4 }, deps);
    expect(a.fallback).toMatchObject({ requested: 'auto', reason_code: 'TOO_MANY_QUBITS' });
  });

  it('idle qubits do not count toward the limit and come back as exact zeros', async () => {
    const wide = circuit(30, 0, [gate('h', [3]), gate('cx', [3, 17])]);
    const r = await analyzeCoupling(
      wide,
      {
        mode: 'measured',
        pairs: [
          [3, 17],
          [0, 3],
          [1, 2],
        ],
      },
      settings,
      deps,
    );
    expect(r.mode_used).toBe('measured');
    expect(r.measured!.simulated_qubits).toEqual([3, 17]);
    expect(r.measured!.entropies_bits[3]).toBe(1);
    expect(r.measured!.entropies_bits[0]).toBe(0);
    expect(r.measured!.pairs).toEqual([
      { qubits: [3, 17], concurrence: 1, mutual_information_bits: 2, pair_entropy_bits: 0 },
      { qubits: [0, 3], concurrence: 0, mutual_information_bits: 0, pair_entropy_bits: 1 },
      { qubits: [1, 2], concurrence: 0, mutual_information_bits: 0, pair_entropy_bits: 0 },
    ]);
    expect(r.pairs_scope).toBe('requested');
  });

  it('fallback MID_CIRCUIT_MEASUREMENT when a measured qubit is used again', async () => {
    const c = circuit(2, 1, [gate('h', [0]), measure(0, 0), gate('cx', [0, 1])]);
    const r = await analyzeCoupling(c, { mode: 'measured' }, settings, deps);
    expect(r.mode_used).toBe('qualitative');
    expect(r.fallback).toMatchObject({ requested: 'measured', reason_code: 'MID_CIRCUIT_MEASUREMENT' });
    expect(r.fallback!.reason).toContain('Qubit 0');
  });

  it('terminal measurements, even interleaved with gates on other qubits, stay in scope', async () => {
    const c = circuit(3, 1, [gate('h', [0]), gate('cx', [0, 1]), measure(0, 0), gate('h', [2])]);
    expect((await analyzeCoupling(c, { mode: 'measured' }, settings, deps)).mode_used).toBe('measured');
  });

  it('fallback RESET for a reset after use; a leading reset is a no-op', async () => {
    const used = circuit(2, 0, [gate('h', [0]), gate('cx', [0, 1]), reset(1)]);
    const r = await analyzeCoupling(used, { mode: 'measured' }, settings, deps);
    expect(r.fallback).toMatchObject({ reason_code: 'RESET' });
    const leading = circuit(2, 0, [reset(0), reset(1), gate('h', [0]), gate('cx', [0, 1])]);
    expect((await analyzeCoupling(leading, { mode: 'measured' }, settings, deps)).mode_used).toBe('measured');
  });

  it('one reason, in the documented order: first out-of-scope op, then qubit count, then time', async () => {
    const few = { ...settings, measuredMaxQubits: 2, timeBudgetMs: 1 };
    const base = [gate('h', [0]), gate('cx', [0, 1]), gate('cx', [1, 2])];
    const midFirst = circuit(3, 1, [...base, measure(0, 0), gate('x', [0]), reset(1)]);
    const resetFirst = circuit(3, 1, [...base, reset(1), measure(0, 0), gate('x', [0])]);
    expect((await analyzeCoupling(midFirst, { mode: 'measured' }, few, deps)).fallback?.reason_code).toBe('MID_CIRCUIT_MEASUREMENT');
    expect((await analyzeCoupling(resetFirst, { mode: 'measured' }, few, deps)).fallback?.reason_code).toBe('RESET');
    // In scope by operations: 3 active qubits over a limit of 2 wins over the 1 ms budget.
    expect((await analyzeCoupling(circuit(3, 0, base), { mode: 'measured' }, few, deps)).fallback?.reason_code).toBe('TOO_MANY_QUBITS');
  });

  it('fallback TIME_BUDGET_EXCEEDED from the estimate, before simulating', async () => {
    let simulated = false;
    const r = await analyzeCoupling(
      ghz(16),
      { mode: 'measured' },
      { ...settings, timeBudgetMs: 1 },
      {
        finalState: (c) => {
          simulated = true;
          return tinyFinalState(c);
        },
      },
    );
    expect(simulated).toBe(false);
    expect(r.fallback).toMatchObject({ requested: 'measured', reason_code: 'TIME_BUDGET_EXCEEDED' });
    expect(r.fallback!.reason).toContain('estimated');
  });

  it('fallback TIME_BUDGET_EXCEEDED when the clock passes the deadline during the run', async () => {
    let t = 0;
    const clock = () => (t += 400); // every look at the clock costs 400 ms
    const r = await analyzeCoupling(ghz(4), { mode: 'auto' }, { ...settings, timeBudgetMs: 1000 }, { finalState: tinyFinalState, now: clock, yieldEveryMs: 0 });
    expect(r.mode_used).toBe('qualitative');
    expect(r.fallback).toMatchObject({ requested: 'auto', reason_code: 'TIME_BUDGET_EXCEEDED' });
  });

  it('fallback SIMULATION_UNAVAILABLE when the simulator refuses with an AppError; other errors propagate', async () => {
    const spec = defineCode('SOME_SIMULATOR_LIMIT', 400, 'test only');
    const refuse = await analyzeCoupling(bell, { mode: 'measured' }, settings, {
      finalState: () => {
        throw fail(spec, 'too big for me');
      },
    });
    expect(refuse.fallback).toMatchObject({ reason_code: 'SIMULATION_UNAVAILABLE' });
    expect(refuse.fallback!.reason).toContain('too big for me');
    await expect(
      analyzeCoupling(bell, { mode: 'measured' }, settings, {
        finalState: () => {
          throw new TypeError('bug');
        },
      }),
    ).rejects.toThrow('bug');
  });

  it('the simulator running out of the (remaining) budget is TIME_BUDGET_EXCEEDED', async () => {
    let given = -1;
    const spec = defineCode('SIMULATION_TIME_BUDGET_EXCEEDED', 422, 'test only');
    const r = await analyzeCoupling(
      bell,
      { mode: 'measured' },
      { ...settings, timeBudgetMs: 5000 },
      {
        finalState: (_c, opts) => {
          given = opts.timeBudgetMs;
          throw fail(spec, 'budget of 5000 ms exceeded');
        },
      },
    );
    expect(given).toBeGreaterThan(0);
    expect(given).toBeLessThanOrEqual(5000);
    expect(r.fallback).toMatchObject({ requested: 'measured', reason_code: 'TIME_BUDGET_EXCEEDED' });
  });

  it('invalid pairs are a 400 COUPLING_PAIR_INVALID listing every problem with its path', async () => {
    try {
      await analyzeCoupling(
        ghz(3),
        {
          mode: 'auto',
          pairs: [
            [0, 1],
            [0, 3],
            [2, 2],
            [5, 7],
          ],
        },
        settings,
        deps,
      );
      expect.unreachable();
    } catch (e) {
      expect(isAppError(e)).toBe(true);
      if (!isAppError(e)) return;
      expect(e.code).toBe('COUPLING_PAIR_INVALID');
      expect(e.statusCode).toBe(400);
      expect((e.details as { path: string; code: string }[]).map((d) => [d.path, d.code])).toEqual([
        ['/pairs/1/1', 'QUBIT_OUT_OF_RANGE'],
        ['/pairs/2/1', 'DUPLICATE_QUBIT'],
        ['/pairs/3/0', 'QUBIT_OUT_OF_RANGE'],
        ['/pairs/3/1', 'QUBIT_OUT_OF_RANGE'],
      ]);
    }
  });

  it('duplicate pairs (either order) are answered once', async () => {
    const r = await analyzeCoupling(
      ghz(3),
      {
        mode: 'measured',
        pairs: [
          [2, 0],
          [0, 2],
          [1, 0],
        ],
      },
      settings,
      deps,
    );
    expect(r.measured!.pairs.map((p) => p.qubits)).toEqual([
      [0, 2],
      [0, 1],
    ]);
    expect(r.qualitative.pairs.map((p) => p.qubits)).toEqual([
      [0, 2],
      [0, 1],
    ]);
  });

  it('planMeasured keeps gates only, relabelled onto the active qubits', () => {
    const p = planMeasured(circuit(5, 1, [gate('h', [4]), gate('cx', [4, 1]), measure(4, 0)]), 20);
    expect(p.ok).toBe(true);
    if (!p.ok) return;
    expect(p.active).toEqual([1, 4]);
    expect(p.unitary.numQubits).toBe(2);
    expect(p.unitary.ops.map((o) => (o.kind === 'gate' ? [o.name, ...o.qubits] : o.kind))).toEqual([
      ['h', 1],
      ['cx', 1, 0],
    ]);
  });
});
