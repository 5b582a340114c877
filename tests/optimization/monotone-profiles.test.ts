import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { circuit, gate, type GateOp } from '../../src/circuits/ir.js';
import { parseQasm } from '../../src/circuits/qasm/parse-qasm.js';
import { namGateCount } from '../../src/optimization/cost-model.js';
import { defaultEquivalence } from '../../src/optimization/default-equivalence.js';
import type { EquivalenceChecker } from '../../src/optimization/equivalence-port.js';
import { optimizeCircuit, type OptimizeResult } from '../../src/optimization/optimize.js';
import { replayCertificate } from '../../src/verification/certificate-replay.js';
import { fixtureFile } from '../helpers/fixture-file.js';
import { readFileSync } from 'node:fs';
import { circuitsEquivalent, testEquivalence } from './helpers/matrix.js';

/**
 * tof_3 with a leading ry, a gate the phase-polynomial checker does not read: balanced's merges then
 * stay global steps that need the whole-circuit check (on plain Clifford+T they are proven locally).
 */
function tof3WithRy() {
  const t = parseQasm(readFileSync(fixtureFile('benchmarks/nam/tof_3.before.qasm'), 'utf8'));
  return circuit(t.numQubits, 0, [gate('ry', [0], [0.3]), ...t.ops]);
}

const N = 4;
const q = fc.nat(N - 1);
const pair = fc.record({ a: q, b: q }).filter(({ a, b }) => a !== b);
const angle = fc.double({ min: -Math.PI, max: Math.PI, noNaN: true });

/** The families the optimizer is tried on: Clifford+T, arbitrary-angle z-rotations, Toffoli networks, and generic catalogue gates. */
const FAMILIES: Record<string, fc.Arbitrary<GateOp>> = {
  'clifford+t': fc.oneof(
    fc.record({ n: fc.constantFrom('h', 'x', 't', 'tdg', 's', 'sdg', 'z'), q }).map(({ n, q }) => gate(n, [q])),
    pair.map(({ a, b }) => gate('cx', [a, b])),
  ),
  'rz-cx-h-t': fc.oneof(
    fc.record({ q, t: angle }).map(({ q, t }) => gate('rz', [q], [t])),
    fc.record({ n: fc.constantFrom('h', 't'), q }).map(({ n, q }) => gate(n, [q])),
    pair.map(({ a, b }) => gate('cx', [a, b])),
  ),
  // arithmetic: Toffolis (decomposed into Clifford+T by the profiles) with the Hadamards and CNOTs
  // between them that TODD's framed starts and the fewest-T selection work on
  toffoli: fc.oneof(
    fc
      .tuple(q, q, q)
      .filter(([a, b, c]) => a !== b && b !== c && a !== c)
      .map(([a, b, c]) => gate('ccx', [a, b, c])),
    fc.record({ n: fc.constantFrom('h', 'x'), q }).map(({ n, q }) => gate(n, [q])),
    pair.map(({ a, b }) => gate('cx', [a, b])),
  ),
  generic: fc.oneof(
    fc.record({ q, a: angle, b: angle, c: angle }).map(({ q, a, b, c }) => gate('u3', [q], [a, b, c])),
    fc.record({ n: fc.constantFrom('rx', 'ry', 'rz'), q, t: angle }).map(({ n, q, t }) => gate(n, [q], [t])),
    fc.record({ n: fc.constantFrom('cz', 'swap', 'cx'), p: pair }).map(({ n, p }) => gate(n, [p.a, p.b])),
    fc.record({ p: pair, t: angle }).map(({ p, t }) => gate('rzz', [p.a, p.b], [t])),
  ),
};

/** exp(−iθ/2·P⊗P) on a pair, as product-formula circuits write it (basis change, cx·rz·cx, back). */
const pauliPairExp = fc.record({ p: fc.constantFrom('X', 'Y', 'Z'), pr: pair, t: angle }).map(({ p, pr: { a, b }, t }) => {
  const into = (x: number): GateOp[] => (p === 'X' ? [gate('h', [x])] : p === 'Y' ? [gate('rz', [x], [-Math.PI / 2]), gate('h', [x])] : []);
  const back = (x: number): GateOp[] => (p === 'X' ? [gate('h', [x])] : p === 'Y' ? [gate('h', [x]), gate('rz', [x], [Math.PI / 2])] : []);
  return [...into(a), ...into(b), gate('cx', [a, b]), gate('rz', [b], [t]), gate('cx', [a, b]), ...back(a), ...back(b)];
});

const cost = (r: OptimizeResult) => r.metricsAfter.target_total;

describe('profiles are monotone: aggressive ≤ balanced ≤ safe in the target cost model', () => {
  const families: Record<string, fc.Arbitrary<GateOp[]>> = {
    ...Object.fromEntries(Object.entries(FAMILIES).map(([k, arb]) => [k, fc.array(arb, { minLength: 1, maxLength: 30 })])),
    'product-formula': fc.array(pauliPairExp, { minLength: 1, maxLength: 8 }).map((xs) => xs.flat()),
  };
  for (const [family, arb] of Object.entries(families)) {
    it(`${family}: every answer equivalent, replayable, and no profile above a cheaper one (property)`, () => {
      fc.assert(
        fc.property(arb, (ops) => {
          const c = circuit(N, 0, ops);
          const rs = (['safe', 'balanced', 'aggressive'] as const).map((profile) => optimizeCircuit(c, { profile, equivalence: testEquivalence }));
          for (const r of rs) {
            expect(circuitsEquivalent(c, r.circuit)).toBe(true);
            expect(replayCertificate(c, { steps: r.proof.certificate.steps! }, r.circuit).ok).toBe(true);
            expect(r.metricsAfter.cost_model).toBe('nam');
          }
          const [safe, balanced, aggressive] = rs as [OptimizeResult, OptimizeResult, OptimizeResult];
          expect(cost(balanced)).toBeLessThanOrEqual(cost(safe));
          expect(cost(aggressive)).toBeLessThanOrEqual(cost(balanced));
        }),
        // Toffoli networks are cheap to optimize and only some draws reach TODD's starts (1 in ~9)
        { numRuns: family === 'toffoli' ? 40 : 12 },
      );
    });
  }

  it('a profile whose global rewrites are refuted answers with the cheaper proven result, not 422', () => {
    const c = tof3WithRy();
    let calls = 0;
    const refute = () => {
      calls++;
      return { equivalent: false as const, method: 'unitary' as const, checked: 'x', reason: 'planted refutation', elapsedMs: 0 };
    };
    const r = optimizeCircuit(c, { profile: 'balanced', equivalence: refute });
    expect(calls).toBeGreaterThan(0);
    expect(r.profile).toBe('safe');
    expect(r.proof.certificate.globalSteps).toBe(0);
    expect(r.notes.join(' ')).toMatch(/balanced: not proven \(.*planted refutation/);
    expect(circuitsEquivalent(c, r.circuit)).toBe(true);
  });

  it('safe never runs a whole-circuit check: its certificate alone proves the result', () => {
    const c = parseQasm(readFileSync(fixtureFile('benchmarks/nam/tof_3.before.qasm'), 'utf8'));
    let calls = 0;
    const counting = (a: Parameters<typeof testEquivalence>[0], b: Parameters<typeof testEquivalence>[1]) => {
      calls++;
      return testEquivalence(a, b);
    };
    const r = optimizeCircuit(c, { profile: 'safe', equivalence: counting });
    expect(calls).toBe(0);
    expect(r.proof.methods.map((m) => m.method)).toEqual(['certificate-replay']);
  });
});

describe('a rung with no time left', () => {
  it('is not run after a proven result: the cheaper profile answers and the note says so', () => {
    const tof = tof3WithRy();
    let calls = 0;
    // The subject is the budget itself: balanced's whole-circuit check takes longer than the whole budget.
    const slow: EquivalenceChecker = (a, b) => {
      calls++;
      const until = performance.now() + 1_100;
      while (performance.now() < until);
      return testEquivalence(a, b);
    };
    const r = optimizeCircuit(tof, { profile: 'aggressive', equivalence: slow, timeBudgetMs: 1_000 });
    expect(calls).toBeGreaterThan(0);
    expect(r.profile).not.toBe('aggressive');
    expect(r.notes.join(' ')).toMatch(/aggressive: not run, the cheaper profiles used the budget/);
    expect(r.notes.join(' ')).not.toMatch(/time budget \(0 ms\)/);
    expect(circuitsEquivalent(tof, r.circuit)).toBe(true);
  });
});

describe('whole-circuit check order', () => {
  it('a 10-qubit circuit of thousands of gates asks for the path sum before the whole unitary', () => {
    const ops: GateOp[] = [];
    for (let k = 0; k < 400; k++) {
      const a = k % 9;
      const p = (['X', 'Y', 'Z'] as const)[k % 3]!;
      const into = (x: number): GateOp[] => (p === 'X' ? [gate('h', [x])] : p === 'Y' ? [gate('rz', [x], [-Math.PI / 2]), gate('h', [x])] : []);
      const back = (x: number): GateOp[] => (p === 'X' ? [gate('h', [x])] : p === 'Y' ? [gate('h', [x]), gate('rz', [x], [Math.PI / 2])] : []);
      ops.push(...into(a), ...into(a + 1), gate('cx', [a, a + 1]), gate('rz', [a + 1], [0.05 * (k + 1)]), gate('cx', [a, a + 1]), ...back(a), ...back(a + 1));
    }
    // a leading y (not read by the phase-polynomial checker; the path sum reads it) keeps the merges global steps
    const c = circuit(10, 0, [gate('y', [9]), ...ops]);
    const asked: (number | undefined)[] = [];
    // the real checker (the test helper's dense unitary would take minutes at this size)
    const recording: EquivalenceChecker = (a, b, o) => {
      asked.push(o.maxUnitaryQubits);
      return defaultEquivalence(a, b, o);
    };
    // a generous budget: the subject is the order of the checks, not their speed on a loaded machine
    const r = optimizeCircuit(c, { profile: 'balanced', equivalence: recording, timeBudgetMs: 120_000 });
    expect(r.proof.certificate.globalSteps).toBeGreaterThan(0);
    expect(asked[0]).toBe(0);
    expect(r.proof.methods.some((m) => m.method === 'path-sum')).toBe(true);
  });
});

describe('cost models', () => {
  it('nam counts in {h, rz, x, cx}: a u3 as up to five gates, a cz as three, named gates as their decompositions', () => {
    expect(namGateCount([gate('u3', [0], [0.3, 0.2, 0.1])])).toBe(5);
    expect(namGateCount([gate('u3', [0], [0, 0.2, 0.1])])).toBe(1);
    expect(namGateCount([gate('u3', [0], [Math.PI / 2, 0, Math.PI])])).toBe(1); // h
    expect(namGateCount([gate('x', [0])])).toBe(1);
    expect(namGateCount([gate('t', [0]), gate('h', [0])])).toBe(2);
    expect(namGateCount([gate('cz', [0, 1])])).toBe(3);
    expect(namGateCount([gate('ccx', [0, 1, 2])])).toBe(15);
    // a run of non-native one-qubit gates collapses to its cheapest form
    expect(namGateCount([gate('ry', [0], [0.3]), gate('ry', [0], [-0.3])])).toBe(0);
  });

  it('a provider target counts its own native gates', () => {
    const c = circuit(2, 0, [gate('u3', [0], [0.3, 0.2, 0.1]), gate('cz', [0, 1])]);
    const r = optimizeCircuit(c, { profile: 'balanced', backendHint: 'provider-one', equivalence: testEquivalence });
    expect(r.metricsAfter.cost_model).toBe('native');
    expect(r.metricsAfter.target_total).toBe(r.metricsAfter.total);
  });
});
