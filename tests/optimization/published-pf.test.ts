import { describe, expect, it } from 'vitest';
import { loadPublishedPf, repeatSteps } from '../../bench/lib/published-pf.js';
import { optimizeCircuit } from '../../src/optimization/optimize.js';
import { fixtureFile } from '../helpers/fixture-file.js';

const published = loadPublishedPf(fixtureFile('benchmarks/nam-pf'));
const byName = (name: string) => published.find((p) => p.name === name)!;

describe('Nam et al. product-formula fixtures (tests/fixtures/benchmarks/nam-pf)', () => {
  it('holds PF1, PF2 and PF4 for n = 10…100, each step already in Nam’s gate set', () => {
    expect(published.map((p) => p.name).sort()).toEqual([1, 2, 4].flatMap((o) => [10, 20, 30, 40, 50, 60, 70, 80, 90, 100].map((n) => `pf${o}_${n}`)).sort());
    for (const p of published) {
      expect(p.step.numQubits).toBe(p.qubits);
      // the loader already refused a step whose size differs from the table; s and sdg are Nam's rz
      expect(new Set(p.step.ops.map((o) => (o.kind === 'gate' ? o.name : o.kind)))).toEqual(new Set(['h', 's', 'sdg', 'rz', 'cx']));
    }
  });

  it('reads their outputs per block: k·|S1| for PF1, |L| + (k−2)·|C| + |R| for PF2/PF4', () => {
    expect(byName('pf1_10').namGates(2)).toBe(300);
    expect(byName('pf2_10').namGates(2)).toBe(210 + 240);
    expect(byName('pf2_10').namGates(3)).toBe(210 + 190 + 240);
    expect(() => byName('pf4_10').namGates(1)).toThrow();
  });

  it.each(['pf1_10', 'pf2_10'])(
    'balanced proves fewer gates than Nam et al. on two steps of %s',
    (name) => {
      const p = byName(name);
      const r = optimizeCircuit(repeatSteps(p.step, 2), { profile: 'balanced', includeSteps: false });
      expect(r.proof.verified).toBe(true);
      expect(r.metricsAfter.target_total).toBeLessThan(p.namGates(2));
    },
    60_000,
  );
});
