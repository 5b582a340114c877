import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { circuit, gate, measure, type GateOp, type Operation } from '../../src/circuits/ir.js';
import { parseQasm } from '../../src/circuits/qasm/parse-qasm.js';
import { circuitMetrics } from '../../src/optimization/metrics.js';
import { optimizeCircuit } from '../../src/optimization/optimize.js';
import { teleportPhases } from '../../src/optimization/passes/phase-teleport.js';
import { Recorder } from '../../src/optimization/recorder.js';
import { replayCertificate } from '../../src/verification/certificate-replay.js';
import { phaseAngleOf } from '../../src/verification/certificate-rules.js';
import { PHASE_TELEPORT_RULE, TELEPORT_TRACE, type CertificateStep } from '../../src/verification/certificate-types.js';
import { fixtureFile } from '../helpers/fixture-file.js';
import { equalUpToGlobalPhase, unitaryOf } from './helpers/matrix.js';

/**
 * Phase teleportation: the pass fuses non-Clifford phases across Hadamards; each batch is
 * one in-place `phase-teleport` step whose reduction trace the replayer re-runs with its own
 * path sum. Soundness is shown against the tests' own matrices; the checker must reject
 * every tampered step.
 */
const c = (n: number, ops: readonly Operation[]) => circuit(n, 0, ops);
const gates = (ops: readonly Operation[]) => ops.filter((o): o is GateOp => o.kind === 'gate');
const same = (a: readonly Operation[], b: readonly Operation[], n: number) => equalUpToGlobalPhase(unitaryOf(gates(a), n), unitaryOf(gates(b), n));

function teleport(n: number, ops: readonly Operation[]) {
  const rec = new Recorder(ops);
  const changed = teleportPhases(rec);
  return { rec, changed, replay: replayCertificate(c(n, ops), { steps: rec.steps }, c(n, rec.ops)) };
}

const T = (q: number) => gate('t', [q]);
const H = (q: number) => gate('h', [q]);
const CX = (a: number, b: number) => gate('cx', [a, b]);

/** T and T† on one wire, separated by H·S·H … — phases meet only through the Hadamards. */
const acrossHadamards = [T(0), H(0), gate('s', [0]), H(0), H(0), gate('sdg', [0]), H(0), T(0)];

describe('phase teleportation (pass)', () => {
  it('fuses two T gates that only meet through Hadamards, into one S, proven by replay', () => {
    const { rec, changed, replay } = teleport(1, acrossHadamards);
    expect(changed).toBe(2);
    expect(replay.ok).toBe(true);
    expect(rec.steps).toHaveLength(1);
    expect(rec.steps[0]!.rule).toBe(PHASE_TELEPORT_RULE);
    expect(rec.ops.filter((o) => o.kind === 'gate' && (o.name === 't' || o.name === 'tdg'))).toHaveLength(0);
    expect(same(acrossHadamards, rec.ops, 1)).toBe(true);
  });

  it('fuses gadgets on the same parity across a Toffoli-like Hadamard sandwich (mod5_4: 28 → 8 T)', () => {
    const input = parseQasm(readFileSync(fixtureFile('benchmarks/nam/mod5_4.before.qasm'), 'utf8'));
    const { rec, replay } = teleport(input.numQubits, input.ops);
    expect(replay.ok).toBe(true);
    expect(circuitMetrics(c(input.numQubits, rec.ops)).t_count).toBe(8);
    expect(same(input.ops, rec.ops, input.numQubits)).toBe(true);
  });

  it('never fuses across a measurement, and keeps every non-phase op in place', () => {
    const ops = [T(0), H(0), measure(0, 0), H(0), T(0), CX(0, 1), gate('ccx', [0, 1, 2]), T(1)];
    const { rec } = teleport(3, ops);
    expect(rec.ops).toEqual(ops);
  });

  it('is sound on random Clifford+T(+rz, ccx) circuits: the replay accepts and the unitary is unchanged', () => {
    const gateArb = (n: number) =>
      fc.oneof(
        fc.record({ name: fc.constantFrom('h', 'x', 'y', 'z', 's', 'sdg', 't', 'tdg', 't', 'tdg'), q: fc.nat(n - 1) }).map(({ name, q }) => gate(name, [q])),
        fc.record({ q: fc.nat(n - 1), a: fc.constantFrom(0.3, -1.1, Math.PI / 4, (3 * Math.PI) / 4, Math.PI / 2) }).map(({ q, a }) => gate('rz', [q], [a])),
        fc.record({ a: fc.nat(n - 1), d: fc.integer({ min: 1, max: n - 1 }), name: fc.constantFrom('cx', 'cx', 'cz', 'swap') }).map(({ a, d, name }) => gate(name, [a, (a + d) % n])),
        fc.nat(n - 1).map((a) => gate('ccx', [a, (a + 1) % n, (a + 2) % n])),
      );
    const circuitArb = fc.integer({ min: 3, max: 5 }).chain((n) => fc.record({ n: fc.constant(n), ops: fc.array(gateArb(n), { minLength: 5, maxLength: 45 }) }));
    let fused = 0;
    fc.assert(
      fc.property(circuitArb, ({ n, ops }) => {
        const { rec, changed, replay } = teleport(n, ops);
        if (!replay.ok) throw new Error(replay.reason);
        fused += changed;
        return same(ops, rec.ops, n);
      }),
      { numRuns: 300, seed: 23 },
    );
    expect(fused).toBeGreaterThan(50); // the property is not vacuous
  });
});

describe('phase teleportation (checker)', () => {
  const step = () => {
    const { rec } = teleport(1, acrossHadamards);
    return rec.steps[0]! as CertificateStep & { witness: { trace: number[][] } };
  };
  const replayWith = (s: CertificateStep) => replayCertificate(c(1, acrossHadamards), { steps: [s] });

  it('accepts the recorded step', () => {
    expect(replayWith(step()).ok).toBe(true);
  });

  it('rejects a fused angle that is not the sum', () => {
    const s = step();
    const wrong = s.inPlace!.map((g) => (g ? gate('t', g.qubits) : g));
    const r = replayWith({ ...s, inPlace: wrong });
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.reason).toMatch(/move the fused angles/);
  });

  it('rejects a trace with an entry that is not an instance of its rule, or that fuses nothing', () => {
    const s = step();
    const trace = s.witness.trace;
    const fuse = trace.findIndex((e) => e[0] === TELEPORT_TRACE.fuse);
    expect(fuse).toBeGreaterThanOrEqual(0);
    // drop the fusion: the gates then keep separate gadgets and their angles must not change
    const noFuse = replayWith({ ...s, witness: { trace: trace.filter((_, i) => i !== fuse) } });
    expect(noFuse.ok).toBe(false);
    // an omega on an input variable (never summed)
    const bad = replayWith({ ...s, witness: { trace: [[TELEPORT_TRACE.omega, 0], ...trace] } });
    expect(bad.ok).toBe(false);
    if (!bad.ok) expect(bad.reason).toMatch(/trace entry 0/);
    // a fusion before the Hadamards are summed out: the gadgets act on different parities
    const early = replayWith({ ...s, witness: { trace: [trace[fuse]!, ...trace] } });
    expect(early.ok).toBe(false);
  });

  it('counts what a fused angle is off by against the certificate budget (numeric policy), and refuses more', () => {
    const s = step();
    const kept = s.inPlace!.findIndex((g) => g !== null);
    const nudged = (d: number) => s.inPlace!.map((g, i) => (i === kept ? gate('rz', g!.qubits, [phaseAngleOf(g!)! + d]) : g));
    const near = replayWith({ ...s, inPlace: nudged(1e-11) });
    expect(near.ok).toBe(true);
    if (near.ok) expect(near.deviation).toBeCloseTo(0.5e-11, 15);
    const far = replayWith({ ...s, inPlace: nudged(1e-9) });
    expect(far.ok).toBe(false);
    if (!far.ok) expect(far.reason).toMatch(/above the certificate budget/);
    expect(replayWith({ ...s, inPlace: nudged(NaN) }).ok).toBe(false);
  });

  it('needs a span inside the op list holding every position, and reduces only the ops in it', () => {
    const s = step();
    for (const span of [undefined, [0, 99], [1, 0], [2, acrossHadamards.length]] as const) {
      const r = replayWith({ ...s, span: span as never });
      expect(r.ok).toBe(false);
    }
    // the same step recorded on a segment and shifted behind other ops replays there
    const prefix = [H(1), measure(1, 0), T(1)];
    const shifted = { ...s, positions: s.positions.map((p) => p + prefix.length), span: [prefix.length, prefix.length + acrossHadamards.length] as const };
    expect(replayCertificate(circuit(2, 1, [...prefix, ...acrossHadamards]), { steps: [shifted] }).ok).toBe(true);
  });

  it('refuses in-place changes, traces and spans on any other step (reorder included)', () => {
    const s = step();
    const extra = { inPlace: s.inPlace, witness: s.witness, span: s.span };
    for (const k of ['inPlace', 'witness', 'span'] as const) {
      expect(replayWith({ rule: 'cancel-inverse', positions: [1, 3], replaced: [H(0), H(0)], inserted: [], [k]: extra[k] }).ok).toBe(false);
      expect(replayWith({ rule: 'reorder', positions: [], replaced: [], inserted: [], order: acrossHadamards.map((_, i) => i), [k]: extra[k] }).ok).toBe(false);
    }
  });

  it('rejects in-place changes to anything but a tracked phase gate, and in-place steps under other rules', () => {
    const s = step();
    expect(replayWith({ ...s, positions: [1, ...s.positions.slice(1)], replaced: [acrossHadamards[1]!, ...s.replaced.slice(1)] }).ok).toBe(false);
    expect(replayWith({ ...s, rule: 'cancel-inverse' }).ok).toBe(false);
    expect(replayWith({ ...s, rule: 'global:phase-polynomial' }).ok).toBe(false);
  });
});

describe('phase teleportation in the profiles', () => {
  it('runs on each unitary segment of a circuit with mid-circuit measurement; the joined certificate replays', () => {
    // T and T† that only phase teleportation fuses (the other passes leave both)
    const pair = (a: number, b: number) => [T(a), H(a), CX(b, a), H(a), CX(a, b), H(a), CX(b, a), H(a), gate('tdg', [a])];
    const input = circuit(3, 1, [...pair(0, 1), measure(1, 0), H(1), ...pair(1, 2)]);
    const r = optimizeCircuit(input, { profile: 'balanced' });
    const steps = r.proof.certificate.steps!;
    expect(steps.filter((st) => st.rule === PHASE_TELEPORT_RULE).length).toBe(2);
    expect(r.metricsAfter.t_count).toBe(0);
    expect(replayCertificate(input, { steps }, r.circuit).ok).toBe(true);
  });

  it('balanced and aggressive reach PyZX-level T-counts on Nam circuits, proven', () => {
    for (const [name, t] of [
      ['mod5_4', 8],
      ['csla_mux_3', 62],
    ] as const) {
      const input = parseQasm(readFileSync(fixtureFile(`benchmarks/nam/${name}.before.qasm`), 'utf8'));
      const heavy = parseQasm(readFileSync(fixtureFile(`benchmarks/nam/${name}.after_heavy.qasm`), 'utf8'));
      for (const profile of ['balanced', 'aggressive'] as const) {
        const r = optimizeCircuit(input, { profile });
        // aggressive may go below PyZX's count (its TODD stages: todd.test.ts)
        if (profile === 'balanced') expect(r.metricsAfter.t_count).toBe(t);
        else expect(r.metricsAfter.t_count).toBeLessThanOrEqual(t);
        expect(r.metricsAfter.total).toBeLessThanOrEqual(circuitMetrics(heavy).total + (profile === 'balanced' ? 10 : 0));
        expect(r.proof.verified).toBe(true);
        // below PyZX's count aggressive's result may come from a TODD start that leaves nothing to
        // teleport (mod5_4's cz-framed region: hadamard-frame.test.ts)
        if (r.metricsAfter.t_count < t) continue;
        expect(r.proof.certificate.steps!.some((s) => s.rule === PHASE_TELEPORT_RULE)).toBe(true);
        // a whole-circuit check, if global steps need one, compares with the circuit before teleportation
        const whole = r.proof.methods.find((m) => m.method !== 'certificate-replay');
        if (whole) expect(whole.checked).toMatch(/before phase teleportation/);
        else expect(r.proof.certificate.globalSteps).toBe(0);
      }
    }
  });
});
