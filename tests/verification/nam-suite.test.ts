import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { fixtureFile } from '../helpers/fixture-file.js';
import { NAM_TEST_CIRCUITS } from '../helpers/nam-circuits.js';
import { parseQasm } from '../../src/circuits/qasm/parse-qasm.js';
import { gate, withOps, type Operation } from '../../src/circuits/ir.js';
import { pathSumEquivalent } from '../../src/verification/path-sum-equivalence.js';
import { unitaryEquivalent } from '../../src/verification/unitary-equivalence.js';
import { verifyEquivalence } from '../../src/verification/verify-equivalence.js';

const DIR = fixtureFile('benchmarks/nam');
const load = (file: string) => parseQasm(readFileSync(join(DIR, file), 'utf8'));
const NAMES = NAM_TEST_CIRCUITS;

describe('Nam benchmark suite: before ≡ Nam light and heavy outputs', () => {
  it('finds the 15 circuits', () => expect(NAMES).toHaveLength(15));

  for (const name of NAMES) {
    const before = load(`${name}.before.qasm`);
    for (const variant of ['after_light', 'after_heavy'] as const) {
      it(`${name} ${variant}: path sum reduces the miter to the identity`, () => {
        const r = pathSumEquivalent(before, load(`${name}.${variant}.qasm`), { timeBudgetMs: 120_000 });
        expect(r.equivalent, r.reason).toBe(true);
        expect(r.stats?.pathVariablesLeft).toBe(0);
        expect(r.stats?.pathVariables).toBeGreaterThan(0);
      });
    }
    if (before.numQubits <= 12) {
      it(`${name} after_heavy: whole unitary agrees`, () => {
        const r = unitaryEquivalent(before, load(`${name}.after_heavy.qasm`));
        expect(r.equivalent, r.reason).toBe(true);
        expect(r.stats?.columnsChecked).toBe(2 ** before.numQubits);
      });
    }
  }

  /** Native gate sets of the backend hints: provider-one (rz, sx, x, cx), provider-two (rx, ry, rz, cz). */
  const PI = Math.PI;
  const providerOne = (o: Operation): Operation[] => {
    if (o.kind !== 'gate') return [o];
    const [q = 0] = o.qubits;
    const rz = (t: number) => gate('rz', [q], [t]);
    switch (o.name) {
      case 'h':
        return [rz(PI / 2), gate('sx', [q]), rz(PI / 2)];
      case 't':
        return [rz(PI / 4)];
      case 'tdg':
        return [rz(-PI / 4)];
      case 's':
        return [rz(PI / 2)];
      case 'sdg':
        return [rz(-PI / 2)];
      default:
        return [o];
    }
  };
  const providerTwo = (o: Operation): Operation[] => {
    if (o.kind !== 'gate') return [o];
    const [a = 0, b = 0] = o.qubits;
    const hOn = (q: number) => [gate('rz', [q], [PI]), gate('ry', [q], [PI / 2])]; // ry(π/2)·Z = H
    switch (o.name) {
      case 'h':
        return hOn(a);
      case 'x':
        return [gate('rx', [a], [PI])];
      case 'cx':
        return [...hOn(b), gate('cz', [a, b]), ...hOn(b)];
      default:
        return providerOne(o);
    }
  };
  for (const [label, translate] of [
    ['provider-one', providerOne],
    ['provider-two', providerTwo],
  ] as const) {
    it(`adder_8 after_heavy in the ${label} gate set is path-sum equivalent to before`, () => {
      const after = load('adder_8.after_heavy.qasm');
      const native = withOps(after, after.ops.flatMap(translate));
      const r = pathSumEquivalent(load('adder_8.before.qasm'), native, { timeBudgetMs: 120_000 });
      expect(r.equivalent, r.reason).toBe(true);
      expect(r.stats?.rules?.omega).toBeGreaterThan(0);
    });
  }

  it('a single dropped T in adder_8 (24 qubits) is refuted with a witness', () => {
    const after = load('adder_8.after_heavy.qasm');
    const at = after.ops.findIndex((o) => o.kind === 'gate' && o.name === 't');
    const broken = withOps(
      after,
      after.ops.filter((_, i) => i !== at),
    );
    const r = verifyEquivalence(load('adder_8.before.qasm'), broken, { timeBudgetMs: 120_000 });
    expect(r.equivalent).toBe(false);
    expect(r.method).toBe('path-sum');
    expect(r.reason).toMatch(/basis state/);
  });

  it('verifyEquivalence picks the unitary method for ≤ 12 qubits and path sums above', () => {
    const small = verifyEquivalence(load('tof_3.before.qasm'), load('tof_3.after_heavy.qasm'), { timeBudgetMs: 60_000 });
    expect(small).toMatchObject({ equivalent: true, method: 'unitary' });
    const big = verifyEquivalence(load('tof_10.before.qasm'), load('tof_10.after_heavy.qasm'), { timeBudgetMs: 60_000 });
    expect(big).toMatchObject({ equivalent: true, method: 'path-sum' });
    expect(big.stats?.tried).toEqual(['path-sum']);
    const forced = verifyEquivalence(load('tof_3.before.qasm'), load('tof_3.after_heavy.qasm'), { timeBudgetMs: 60_000, maxUnitaryQubits: 2 });
    expect(forced.method).toBe('path-sum');
  });
});
