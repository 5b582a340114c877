import fc from 'fast-check';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { gate, type GateOp } from '../../src/circuits/ir.js';
import { parseQasm } from '../../src/circuits/qasm/parse-qasm.js';
import { optimizeCircuit } from '../../src/optimization/optimize.js';
import { HADAMARD_FRAME_RULE, hadamardFrame } from '../../src/optimization/passes/hadamard-frame.js';
import { namGateCount } from '../../src/optimization/cost-model.js';
import { runProfile } from '../../src/optimization/pipeline.js';
import { isTGate } from '../../src/optimization/metrics.js';
import { Recorder } from '../../src/optimization/recorder.js';
import { fixtureFile } from '../helpers/fixture-file.js';
import { equalUpToGlobalPhase, unitaryOf } from './helpers/matrix.js';

const hs = (ops: readonly { kind: string; name?: string }[]) => ops.filter((o) => o.kind === 'gate' && o.name === 'h').length;
const nam = (name: string) => parseQasm(readFileSync(fixtureFile(`benchmarks/nam/${name}.before.qasm`), 'utf8'));

/** Balanced and aggressive on a Nam circuit; aggressive's result proven, through a Hadamard-frame step. */
function balancedAndFramedAggressive(name: string) {
  const input = nam(name);
  const balanced = optimizeCircuit(input, { profile: 'balanced' });
  const aggressive = optimizeCircuit(input, { profile: 'aggressive', includeSteps: true });
  expect(aggressive.proof.verified).toBe(true);
  expect(aggressive.proof.certificate.steps!.some((st) => st.rule === HADAMARD_FRAME_RULE)).toBe(true);
  return { balanced, aggressive };
}

describe('Hadamard frame (global step, before TODD)', () => {
  it('random H/CNOT/SWAP/T/X circuits on 2–4 qubits: same unitary, never more Hadamards, one step when it saves any', () => {
    const op = (n: number) =>
      fc.oneof(
        fc.integer({ min: 0, max: n - 1 }).map((q) => gate('h', [q])),
        fc.integer({ min: 0, max: n - 1 }).map((q) => gate('t', [q])),
        fc.integer({ min: 0, max: n - 1 }).map((q) => gate('x', [q])),
        fc.tuple(fc.integer({ min: 0, max: n - 1 }), fc.integer({ min: 1, max: n - 1 })).map(([a, d]) => gate('cx', [a, (a + d) % n])),
        fc.tuple(fc.integer({ min: 0, max: n - 1 }), fc.integer({ min: 1, max: n - 1 })).map(([a, d]) => gate('swap', [a, (a + d) % n])),
      );
    const arb = fc.integer({ min: 2, max: 4 }).chain((n) => fc.tuple(fc.constant(n), fc.array(op(n), { maxLength: 30 })));
    fc.assert(
      fc.property(arb, ([n, ops]) => {
        const rec = new Recorder(ops);
        const saved = hadamardFrame(rec);
        const out = rec.ops as GateOp[];
        expect(equalUpToGlobalPhase(unitaryOf(ops, n), unitaryOf(out, n))).toBe(true);
        expect(hs(ops) - hs(out)).toBe(saved);
        expect(rec.steps.map((s) => s.rule)).toEqual(saved > 0 ? [HADAMARD_FRAME_RULE] : []);
      }),
      { numRuns: 200 },
    );
  });

  it('with cz: a cx into a framed target is written as phases (H·cx·H = cz), same unitary, never more Hadamards', () => {
    const op = (n: number) =>
      fc.oneof(
        fc.integer({ min: 0, max: n - 1 }).map((q) => gate('h', [q])),
        fc.integer({ min: 0, max: n - 1 }).map((q) => gate('t', [q])),
        fc.tuple(fc.integer({ min: 0, max: n - 1 }), fc.integer({ min: 1, max: n - 1 })).map(([a, d]) => gate('cx', [a, (a + d) % n])),
      );
    const arb = fc.integer({ min: 2, max: 4 }).chain((n) => fc.tuple(fc.constant(n), fc.array(op(n), { maxLength: 30 })));
    fc.assert(
      fc.property(arb, ([n, ops]) => {
        const rec = new Recorder(ops);
        const saved = hadamardFrame(rec, { cz: true });
        const out = rec.ops as GateOp[];
        expect(equalUpToGlobalPhase(unitaryOf(ops, n), unitaryOf(out, n))).toBe(true);
        expect(hs(ops) - hs(out)).toBe(saved);
      }),
      { numRuns: 200 },
    );
    // h·cx·h on the target: no Hadamard left, the cz as phases around two cx
    const rec = new Recorder([gate('h', [1]), gate('cx', [0, 1]), gate('h', [1])]);
    expect(hadamardFrame(rec, { cz: true })).toBe(2);
    expect(rec.ops.map((o) => (o.kind === 'gate' ? o.name : o.kind))).toEqual(['s', 's', 'cx', 'sdg', 'cx']);
  });

  it('mod5_4: the cz frame makes its four Toffolis on one target one region, aggressive 8 → 7 T in fewer gates, proven', () => {
    const { balanced, aggressive } = balancedAndFramedAggressive('mod5_4');
    expect(balanced.metricsAfter.t_count).toBe(8);
    expect(aggressive.metricsAfter.t_count).toBe(7);
    expect(aggressive.metricsAfter.target_total).toBeLessThan(balanced.metricsAfter.target_total);
  }, 60_000);

  it('gf2^4_mult: the modular reduction seen through the frame, 8 Hadamards are left (one pair per product wire)', () => {
    const rec = new Recorder(nam('gf2^4_mult').ops);
    const before = hs(rec.ops);
    expect(hadamardFrame(rec)).toBe(before - 8);
    expect(hs(rec.ops)).toBe(8);
  });

  it('gf2^4_mult: aggressive goes below balanced in T (68 → at most 54) from the framed start, in no more gates, proven', () => {
    const { balanced, aggressive } = balancedAndFramedAggressive('gf2^4_mult');
    expect(balanced.metricsAfter.t_count).toBe(68);
    expect(aggressive.profile).toBe('aggressive');
    // 54: the fewest-T branch within balanced's gates (groups of 41); the fewest gates would be 58 T
    expect(aggressive.metricsAfter.t_count).toBeLessThanOrEqual(54);
    expect(aggressive.metricsAfter.target_total).toBeLessThanOrEqual(balanced.metricsAfter.target_total);
  }, 120_000);

  it('gf2^4_mult: the gate cap decides how many gates aggressive may trade for T gates', () => {
    const ops = nam('gf2^4_mult').ops;
    const run = (cap?: number) => {
      const r = runProfile(new Recorder(ops), 'aggressive', [], cap);
      return { gates: namGateCount(r.ops), t: r.ops.filter(isTGate).length };
    };
    // balanced's 181: the fewest T within it; one gate less: that branch is out, fewer T are not reached
    const wide = run(181);
    const narrow = run(wide.gates - 1);
    expect(wide.gates).toBeLessThanOrEqual(181);
    expect(wide.t).toBeLessThanOrEqual(54);
    expect(narrow.t).toBeGreaterThan(wide.t);
    expect(narrow.gates).toBeLessThanOrEqual(181);
  }, 120_000);
});
