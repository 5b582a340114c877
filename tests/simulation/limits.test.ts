import { describe, expect, it } from 'vitest';
import { circuit, gate, measure } from '../../src/circuits/ir.js';
import type { Circuit, Operation } from '../../src/circuits/ir.js';
import { AppError } from '../../src/errors/app-error.js';
import { finalState, simulate, SIMULATION_ERRORS } from '../../src/simulation/index.js';
import { ERROR_CATALOGUE } from '../../src/errors/catalogue.js';
import { readFileSync } from 'node:fs';

function caught(f: () => unknown): AppError {
  try {
    f();
  } catch (e) {
    if (e instanceof AppError) return e;
    throw e;
  }
  throw new Error('expected an AppError');
}

const wide = (n: number): Circuit => circuit(n, 0, [gate('h', [0]), gate('cx', [0, n - 1])]);

describe('limits', () => {
  it('more qubits than the default limit (28) is a 422 naming the limit, before any allocation', () => {
    const e = caught(() => simulate(wide(29), { shots: 1 }));
    expect(e.code).toBe('SIMULATION_TOO_MANY_QUBITS');
    expect(e.statusCode).toBe(422);
    expect(e.message).toContain('28');
    expect(e.message).toContain('29');
  });

  it('maxQubits is configurable, also for finalState', () => {
    const e = caught(() => finalState(wide(8), { maxQubits: 6 }));
    expect(e.code).toBe('SIMULATION_TOO_MANY_QUBITS');
    expect(e.message).toContain('limit is 6 qubits');
    expect(finalState(wide(6), { maxQubits: 6 }).numQubits).toBe(6);
  });

  it('memory is checked before allocating: the message gives the need and the limit', () => {
    const e = caught(() => simulate(wide(20), { shots: 10, maxMemoryBytes: 1_000_000 }));
    expect(e.code).toBe('SIMULATION_MEMORY_LIMIT');
    expect(e.statusCode).toBe(422);
    expect(e.message).toContain('1000000 bytes');
    expect(e.message).toContain(String(16 * 2 ** 20));
    // 28 qubits under the default memory limit passes the check arithmetic; 28 with 1 GiB does not.
    const e2 = caught(() => simulate(wide(28), { shots: 1, maxMemoryBytes: 1024 ** 3 }));
    expect(e2.code).toBe('SIMULATION_MEMORY_LIMIT');
  });

  it('branch copies for mid-circuit measurement count against the memory limit', () => {
    const n = 10;
    const ops: Operation[] = [];
    for (let q = 0; q < n; q++) ops.push(gate('h', [q]), measure(q, q), gate('x', [q]));
    const c = circuit(n, n, ops);
    const state = 16 * 2 ** n;
    const e = caught(() => simulate(c, { shots: 100, seed: 1, maxMemoryBytes: state + 800 + 100 }));
    expect(e.code).toBe('SIMULATION_MEMORY_LIMIT');
    // With room for the copies the same run succeeds.
    const ok = simulate(c, { shots: 100, seed: 1 });
    expect(Object.values(ok.counts).reduce((a, b) => a + b, 0)).toBe(100);
  });

  it('the time budget turns into a 422 naming the budget', () => {
    const ops: Operation[] = [];
    for (let l = 0; l < 50; l++) for (let q = 0; q < 16; q++) ops.push(gate('rx', [q], [l + q]), gate('cx', [q, (q + 1) % 16]));
    const e = caught(() => simulate(circuit(16, 0, ops), { shots: 1, timeBudgetMs: 0.001 }));
    expect(e.code).toBe('SIMULATION_TIME_BUDGET_EXCEEDED');
    expect(e.statusCode).toBe(422);
    expect(e.message).toContain('0.001 ms');
  });

  it('invalid options are 400s naming the option', () => {
    const c = circuit(1, 1, [gate('h', [0]), measure(0, 0)]);
    for (const [opts, name] of [
      [{ shots: -1 }, 'shots'],
      [{ shots: 1.5 }, 'shots'],
      [{ shots: 1e8 }, 'shots'],
      [{ shots: 1, seed: -3 }, 'seed'],
      [{ shots: 1, maxQubits: 31 }, 'maxQubits'],
      [{ shots: 1, timeBudgetMs: 0 }, 'timeBudgetMs'],
    ] as const) {
      const e = caught(() => simulate(c, opts));
      expect(e.code).toBe('SIMULATION_INVALID_OPTIONS');
      expect(e.statusCode).toBe(400);
      expect(e.message).toContain(name);
    }
  });

  it('unknown gates and malformed operations are 400s with the op path', () => {
    const cases: [Operation[], string][] = [
      [[gate('frob', [0])], 'UNKNOWN_GATE'],
      [[gate('cx', [0])], 'WRONG_ARITY'],
      [[gate('rx', [0])], 'WRONG_PARAM_COUNT'],
      [[gate('cx', [0, 0])], 'DUPLICATE_QUBIT'],
      [[gate('x', [5])], 'QUBIT_OUT_OF_RANGE'],
      [[gate('rx', [0], [Number.NaN])], 'BAD_PARAM'],
    ];
    for (const [ops, code] of cases) {
      const e = caught(() => simulate(circuit(2, 0, [gate('h', [1]), ...ops]), { shots: 1 }));
      expect(e.code).toBe('SIMULATION_UNSUPPORTED_OPERATION');
      expect(e.details).toEqual([expect.objectContaining({ path: '/ops/1', code })]);
    }
    const e = caught(() => simulate(circuit(1, 1, [measure(0, 3)]), { shots: 1 }));
    expect(e.details).toEqual([expect.objectContaining({ code: 'CLBIT_OUT_OF_RANGE' })]);
  });

  it('every simulation code is in the catalogue and in docs/errors.md', () => {
    const doc = readFileSync(new URL('../../docs/errors.md', import.meta.url), 'utf8');
    for (const spec of Object.values(SIMULATION_ERRORS)) {
      expect(ERROR_CATALOGUE).toContainEqual(spec);
      expect(doc).toContain(`| ${spec.code} | ${spec.status} |`);
    }
  });
});
