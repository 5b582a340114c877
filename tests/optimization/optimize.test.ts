import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { circuit, gate, measure, opQubits, type GateOp } from '../../src/circuits/ir.js';
import { parseQasm } from '../../src/circuits/qasm/parse-qasm.js';
import { optimizeCircuit, type Profile } from '../../src/optimization/optimize.js';
import { circuitMetrics } from '../../src/optimization/metrics.js';
import { replayCertificate } from '../../src/verification/certificate-replay.js';
import { certificateDigest } from '../../src/verification/certificate-digest.js';
import { circuitsEquivalent, testEquivalence } from './helpers/matrix.js';
import { fixtureFile } from '../helpers/fixture-file.js';

const PROFILES: Profile[] = ['safe', 'balanced', 'aggressive'];
const NAM = `${fixtureFile('benchmarks/nam')}/`;
const nam = (n: string, kind = 'before') => parseQasm(readFileSync(`${NAM}${n}.${kind}.qasm`, 'utf8'));

const gateArb = (n: number) =>
  fc.oneof(
    fc.record({ name: fc.constantFrom('h', 'x', 't', 'tdg', 's', 'sdg', 'z'), q: fc.nat(n - 1) }).map(({ name, q }) => gate(name, [q])),
    fc
      .record({ a: fc.nat(n - 1), b: fc.nat(n - 1) })
      .filter(({ a, b }) => a !== b)
      .map(({ a, b }) => gate('cx', [a, b])),
    fc
      .record({ name: fc.constantFrom('rz', 'rx', 'ry'), q: fc.nat(n - 1), k: fc.integer({ min: -8, max: 8 }) })
      .map(({ name, q, k }) => gate(name, [q], [(k * Math.PI) / 4 + (name === 'rz' ? 0 : 0.1)])),
  );

describe('optimizeCircuit', () => {
  it('every profile returns an equivalent circuit with a replayable certificate (property)', () => {
    fc.assert(
      fc.property(fc.array(gateArb(4), { minLength: 1, maxLength: 40 }), fc.constantFrom(...PROFILES), (ops, profile) => {
        const c = circuit(4, 0, ops);
        const r = optimizeCircuit(c, { profile, equivalence: testEquivalence });
        expect(r.proof.verified).toBe(true);
        expect(circuitsEquivalent(c, r.circuit)).toBe(true);
        expect(r.metricsAfter.total).toBeLessThanOrEqual(r.metricsBefore.total);
        const replay = replayCertificate(c, { steps: r.proof.certificate.steps! }, r.circuit);
        expect(replay.ok).toBe(true);
        expect(r.proof.certificate.digest).toBe(certificateDigest({ steps: r.proof.certificate.steps! }));
      }),
      { numRuns: 60 },
    );
  });

  it('safe: cancels inverse pairs, merges adjacent rotations, drops identities — all by local rules', () => {
    const c = circuit(2, 0, [
      gate('h', [0]),
      gate('h', [0]),
      gate('rz', [1], [0.3]),
      gate('rz', [1], [0.4]),
      gate('id', [0]),
      gate('cx', [0, 1]),
      gate('cx', [0, 1]),
      gate('t', [0]),
      gate('tdg', [0]),
      gate('x', [1]),
    ]);
    const r = optimizeCircuit(c, { profile: 'safe', equivalence: testEquivalence });
    expect(r.circuit.ops).toEqual([gate('rz', [1], [0.7]), gate('x', [1])]);
    expect(r.proof.certificate.globalSteps).toBe(0);
    expect(r.metricsBefore).toMatchObject({ total: 10, two_qubit: 2, t_count: 2 });
    expect(r.metricsAfter).toMatchObject({ total: 2, two_qubit: 0, t_count: 0, depth: 2 });
    // every step is a local rule: the certificate alone proves the result, no whole-circuit check runs
    expect(r.proof.methods.map((m) => m.method)).toEqual(['certificate-replay']);
    expect(r.notes.join(' ')).toMatch(/no whole-circuit check/);
    expect(new Set(r.proof.certificate.steps!.map((s) => s.rule))).toEqual(new Set(['cancel-inverse', 'merge-phase', 'drop-identity']));
  });

  it('balanced: cancels through commuting gates, which safe does not', () => {
    // T on the control commutes with the CNOT: the two Ts merge into S
    const c = circuit(2, 0, [gate('t', [0]), gate('cx', [0, 1]), gate('t', [0]), gate('cx', [0, 1])]);
    const safe = optimizeCircuit(c, { profile: 'safe', equivalence: testEquivalence });
    const bal = optimizeCircuit(c, { profile: 'balanced', equivalence: testEquivalence });
    expect(safe.metricsAfter.total).toBe(4);
    expect(bal.circuit.ops).toEqual([gate('s', [0])]);
  });

  it('balanced merges rotations over phase polynomials across CNOT regions (Toffoli pair → T-count kept low)', () => {
    const c = nam('tof_3');
    const r = optimizeCircuit(c, { profile: 'balanced', equivalence: testEquivalence });
    expect(circuitsEquivalent(c, r.circuit)).toBe(true);
    const light = circuitMetrics(nam('tof_3', 'after_light'));
    expect(r.metricsAfter.total).toBeLessThanOrEqual(light.total);
    expect(r.metricsAfter.t_count).toBeLessThanOrEqual(light.t_count);
    // Clifford+T throughout: every merge is a local step the phase-polynomial checker proves at replay
    expect(r.proof.certificate.globalSteps).toBe(0);
    expect(r.proof.certificate.steps!.some((st) => st.rule === 'resynth-phase-polynomial')).toBe(true);
    expect(r.proof.methods.map((m) => m.method)).toEqual(['certificate-replay']);
  });

  it('with a gate the phase-polynomial checker cannot read, the merges stay global steps proven by the whole-circuit check', () => {
    const t = nam('tof_3');
    const c = circuit(t.numQubits, 0, [gate('ry', [0], [0.3]), ...t.ops]);
    const r = optimizeCircuit(c, { profile: 'balanced', equivalence: testEquivalence });
    expect(circuitsEquivalent(c, r.circuit)).toBe(true);
    expect(r.proof.certificate.globalSteps).toBeGreaterThan(0);
    expect(r.proof.methods.find((m) => m.method === 'unitary')?.justifies).toContain('global:phase-polynomial');
  });

  for (const name of ['barenco_tof_3', 'mod5_4', 'tof_3']) {
    it(`aggressive on ${name}: equivalent, below Nam heavy in total and CNOTs, T-count no worse, still Clifford+T`, () => {
      const c = nam(name);
      const r = optimizeCircuit(c, { profile: 'aggressive', equivalence: testEquivalence });
      expect(circuitsEquivalent(c, r.circuit)).toBe(true);
      const heavy = circuitMetrics(nam(name, 'after_heavy'));
      expect(r.metricsAfter.t_count).toBeLessThanOrEqual(heavy.t_count);
      expect(r.metricsAfter.total).toBeLessThan(heavy.total);
      expect(r.metricsAfter.two_qubit).toBeLessThan(heavy.two_qubit);
      // no u3 hiding T gates from the count: every phase is a multiple of π/4
      expect(r.circuit.ops.every((o) => o.kind !== 'gate' || ['h', 'x', 'cx', 't', 'tdg', 's', 'sdg', 'z', 'rz'].includes(o.name))).toBe(true);
      expect(r.circuit.ops.every((o) => o.kind !== 'gate' || o.name !== 'rz' || Number.isInteger(Math.round((o.params[0]! / (Math.PI / 4)) * 1e9) / 1e9))).toBe(true);
    });
  }

  it('keeps measurements and does not move gates across them', () => {
    const c = circuit(2, 2, [gate('h', [0]), measure(0, 0), gate('h', [0]), gate('t', [1]), gate('t', [1]), measure(1, 1)]);
    const r = optimizeCircuit(c, { profile: 'aggressive', equivalence: () => ({ equivalent: 'unknown', method: 'none', checked: 'nothing', elapsedMs: 0, reason: 'measurements' }) });
    // per wire the order is kept (t·t on qubit 1 may move before the measurement of qubit 0: another wire)
    const onWire = (q: number) => r.circuit.ops.filter((o) => o.kind !== 'barrier' && opQubits(o).includes(q));
    expect(onWire(0)).toEqual([gate('h', [0]), measure(0, 0), gate('h', [0])]);
    expect(onWire(1)).toEqual([gate('s', [1]), measure(1, 1)]);
    expect(r.notes.join(' ')).toMatch(/certificate alone/);
  });

  it('on timeout returns the best result so far and says so', () => {
    const c = nam('barenco_tof_3');
    const r = optimizeCircuit(c, { profile: 'aggressive', timeBudgetMs: 0, equivalence: testEquivalence });
    expect(r.timedOut).toBe(true);
    expect(r.notes.join(' ')).toMatch(/time budget/);
    expect(circuitsEquivalent(c, r.circuit)).toBe(true);
  });

  it('when the proof of global rewrites runs out of time, the local rewrites before them are returned (replay-proven), never the unproven result', () => {
    const c = nam('tof_3');
    const outOfTime = (_a: unknown, _b: unknown, o: { timeBudgetMs: number }) => ({
      equivalent: 'unknown' as const,
      method: 'path-sum' as const,
      checked: 'nothing',
      reason: 'time budget exhausted',
      elapsedMs: o.timeBudgetMs,
    });
    const r = optimizeCircuit(c, { profile: 'aggressive', equivalence: outOfTime });
    expect(r.proof.certificate.globalSteps).toBe(0);
    expect(r.proof.methods.map((m) => m.method)).toEqual(['certificate-replay']);
    expect(r.timedOut).toBe(true);
    expect(r.notes.join(' ')).toMatch(/before the first global one/);
    expect(circuitsEquivalent(c, r.circuit)).toBe(true);
    expect(replayCertificate(c, { steps: r.proof.certificate.steps! }, r.circuit).ok).toBe(true);
    expect(r.metricsAfter.total).toBeLessThan(r.metricsBefore.total);
  });

  it('reports metrics before and after', () => {
    const c = circuit(3, 0, [gate('h', [0]), gate('cx', [0, 1]), gate('t', [2]), gate('cx', [1, 2])] as GateOp[]);
    const r = optimizeCircuit(c, { equivalence: testEquivalence });
    expect(r.metricsBefore).toEqual({ total: 4, two_qubit: 2, t_count: 1, depth: 3, t_depth: 1 });
  });

  it('T-depth counts T gates (as t_count does) along the longest chain over shared qubits', () => {
    const c = circuit(3, 0, [
      gate('t', [0]),
      gate('t', [1]),
      gate('rz', [2], [(3 * Math.PI) / 4]),
      gate('s', [1]),
      gate('cx', [0, 1]),
      gate('tdg', [1]),
      gate('rz', [2], [0.1]),
      gate('t', [2]),
    ] as GateOp[]);
    const m = circuitMetrics(c);
    expect(m.t_count).toBe(5);
    expect(m.t_depth).toBe(2);
  });
});

describe('the budget', () => {
  it('is planned with a reserve: the search stops at 60 % of 90 % of the promised time', () => {
    // 30,000 gates take safe's first pass well past 11 ms on any machine, so the search stops at its deadline
    const ops = Array.from({ length: 10_000 }, (_, i) => [gate('h', [i % 7]), gate('t', [(i + 1) % 7]), gate('cx', [i % 7, (i + 3) % 7])]).flat();
    const r = optimizeCircuit(circuit(7, 0, ops), { profile: 'safe', timeBudgetMs: 20 });
    expect(r.timedOut).toBe(true);
    // 0.6 × 0.9 × 20 = 10.8 ms; without the reserve the note would name 12 ms
    expect(r.notes).toContain('the safe search stopped at its time budget (11 ms); the best result found so far is returned');
  });
});
