import { describe, expect, it } from 'vitest';
import { circuit, gate, measure } from '../../src/circuits/ir.js';
import { deviceProfile } from '../../src/devices/device-catalogue.js';
import { mitigationSupport, mitigationView } from '../../src/execution/mitigation/device-mitigation.js';
import { mitigationResultJson } from '../../src/execution/mitigation/mitigation-result.js';
import { checkMitigation, refuseUnmitigable } from '../../src/execution/mitigation/mitigation-request.js';
import { assignmentProbability, mitigateReadout, nearestProbability, totalVariation, type BitConfusion } from '../../src/execution/mitigation/readout-mitigation.js';
import { extrapolateToZero, foldCircuit, inverseGate } from '../../src/execution/mitigation/zero-noise.js';
import { simulate } from '../../src/simulation/index.js';
import type { AppError } from '../../src/errors/app-error.js';

/** The pure parts of src/execution/mitigation: readout inversion, folding, extrapolation, request checks. */
describe('readout-error mitigation', () => {
  it('inverts a known tensored confusion exactly when every string is observed', () => {
    const confusion: BitConfusion[] = [
      [0.05, 0.1],
      [0.02, 0.08],
      [0.1, 0.03],
    ];
    const truth: Record<string, number> = { '000': 0.5, '111': 0.3, '101': 0.2 };
    // The noisy distribution P(read o) = Σ_t P(o | t) p(t), over every 3-bit string.
    const keys = Array.from({ length: 8 }, (_, i) => i.toString(2).padStart(3, '0'));
    const noisy: Record<string, number> = {};
    for (const o of keys) noisy[o] = Object.entries(truth).reduce((a, [t, p]) => a + assignmentProbability(o, t, confusion) * p, 0);
    const r = mitigateReadout(Object.fromEntries(Object.entries(noisy).map(([k, v]) => [k, v * 1e6])), confusion);
    for (const k of keys) expect(r.quasi[k]).toBeCloseTo(truth[k] ?? 0, 6);
    expect(totalVariation(r.probabilities, truth)).toBeLessThan(1e-6);
    expect(r.distance).toBe(3);
  });

  it('brings sampled counts of a noisy readout back near the truth, the raw distance falling many times', () => {
    const confusion: BitConfusion[] = Array.from({ length: 5 }, (_, q) => [0.03 + 0.01 * q, 0.06] as const);
    const ghz = circuit(5, 5, [gate('h', [0]), ...[0, 1, 2, 3].map((q) => gate('cx', [q, q + 1])), ...[0, 1, 2, 3, 4].map((q) => measure(q, q))]);
    const ideal = { '00000': 0.5, '11111': 0.5 };
    const noise = { afterGate: () => [], readout: (q: number) => confusion[q]! };
    const shots = 40_000;
    const r = simulate(ghz, { shots, seed: 5, noise });
    const raw = Object.fromEntries(Object.entries(r.counts).map(([k, v]) => [k, v / shots]));
    const m = mitigateReadout(r.counts, confusion);
    expect(totalVariation(raw, ideal)).toBeGreaterThan(0.15);
    expect(totalVariation(m.probabilities, ideal)).toBeLessThan(totalVariation(raw, ideal) / 5);
    expect(Object.values(m.quasi).reduce((a, b) => a + b, 0)).toBeCloseTo(1, 9);
    expect(m.overhead).toBeGreaterThanOrEqual(1);
  });

  it('takes the nearest probability distribution of a quasi-distribution (negative mass spread evenly)', () => {
    const p = nearestProbability({ a: 0.6, b: 0.5, c: -0.1 });
    expect(p['c']).toBeUndefined();
    expect(p['a']).toBeCloseTo(0.55, 12);
    expect(p['b']).toBeCloseTo(0.45, 12);
    expect(nearestProbability({ a: 0.7, b: 0.3 })).toEqual({ a: 0.7, b: 0.3 });
  });
});

describe('zero-noise extrapolation', () => {
  it('folds U into U (U† U)^k: the same unitary, 2k+1 times the gates', () => {
    const c = circuit(2, 2, [gate('h', [0]), gate('u', [1], [0.3, 0.7, -1.1]), gate('cx', [0, 1]), gate('rz', [1], [0.4]), gate('t', [0]), measure(0, 0), measure(1, 1)]);
    const f = foldCircuit(c, 5);
    expect(f.ops.filter((o) => o.kind === 'gate')).toHaveLength(25);
    expect(f.ops.filter((o) => o.kind === 'measure')).toHaveLength(2);
    const a = simulate(c, { shots: 10, seed: 1 }).probabilities!;
    const b = simulate(f, { shots: 10, seed: 1 }).probabilities!;
    for (const k of new Set([...Object.keys(a), ...Object.keys(b)])) expect(b[k] ?? 0).toBeCloseTo(a[k] ?? 0, 9);
    expect(() => foldCircuit(c, 2)).toThrow();
    expect(inverseGate(gate('csx', [0, 1]))).toBeNull();
  });

  it('extrapolates linearly, by Richardson and exponentially, with the standard error propagated', () => {
    const s = [1, 3, 5];
    const lin = extrapolateToZero(s, [0.9, 0.7, 0.5], [0.01, 0.01, 0.01], 'linear');
    expect(lin.value).toBeCloseTo(1, 12);
    // Least-squares intercept weights of x = 1, 3, 5 are (13/12, 4/12, −5/12): √(169+16+25)/12 · σ.
    expect(lin.stderr).toBeCloseTo((Math.sqrt(210) / 12) * 0.01, 12);
    const quad = (x: number) => 1 - 0.1 * x + 0.01 * x * x;
    expect(extrapolateToZero(s, s.map(quad), [0, 0, 0], 'richardson').value).toBeCloseTo(1, 12);
    const exp = extrapolateToZero(
      s,
      s.map((x) => 0.95 * Math.exp(-0.2 * x)),
      [0.01, 0.01, 0.01],
      'exponential',
    );
    expect(exp.value).toBeCloseTo(0.95, 12);
    expect(exp.stderr).toBeGreaterThan(0);
    expect(extrapolateToZero(s, [0.5, -0.1, 0.2], [0.01, 0.01, 0.01], 'exponential').value).toBeNull();
  });
});

describe('mitigation requests', () => {
  const codes = (f: () => unknown): string[] => {
    try {
      f();
    } catch (e) {
      return ((e as AppError).details as { code: string }[]).map((d) => `${(e as AppError).code}:${d.code}`);
    }
    return [];
  };
  it('refuses ZNE without an expectation, bad scale factors, and gates that cannot be folded', () => {
    expect(checkMitigation(undefined, undefined, false)).toBeNull();
    expect(checkMitigation({ readout: true }, undefined, false)).toEqual({ readout: true, zne: null });
    expect(checkMitigation({ zne: {} }, ['expectation'], true)).toEqual({ readout: false, zne: { scale_factors: [1, 3, 5], extrapolation: 'richardson' } });
    expect(codes(() => checkMitigation({ zne: {} }, ['counts'], false))).toEqual(['EXECUTION_MITIGATION_INVALID:ZNE_NEEDS_EXPECTATION']);
    expect(codes(() => checkMitigation({ zne: { scale_factors: [1, 2, 5] } }, ['expectation'], true))).toEqual(['EXECUTION_MITIGATION_INVALID:SCALE_FACTORS_INVALID']);
    expect(codes(() => checkMitigation({ zne: { scale_factors: [3, 5] } }, ['expectation'], true))).toEqual(['EXECUTION_MITIGATION_INVALID:SCALE_FACTORS_INVALID']);
    expect(codes(() => checkMitigation({ zne: { scale_factors: [1] } }, ['expectation'], true))).toEqual(['EXECUTION_MITIGATION_INVALID:EXTRAPOLATION_UNDERDETERMINED']);
    const plan = checkMitigation({ readout: true, zne: {} }, ['expectation'], true);
    expect(codes(() => refuseUnmitigable(plan, circuit(2, 0, [gate('csx', [0, 1])]), { readout: false, debiasing: false }))).toEqual([
      'EXECUTION_MITIGATION_UNSUPPORTED:NO_CALIBRATION',
      'EXECUTION_MITIGATION_UNSUPPORTED:GATE_NOT_FOLDABLE',
    ]);
  });

  it("IonQ's debiasing is asked alone, on a device that debiases, with at least 500 shots", () => {
    const bell = circuit(2, 2, [gate('h', [0]), gate('cx', [0, 1])]);
    const plan = checkMitigation({ debiasing: true }, undefined, false);
    expect(plan).toEqual({ readout: false, zne: null, debiasing: true });
    expect(codes(() => checkMitigation({ debiasing: true, readout: true }, undefined, false))).toEqual(['EXECUTION_MITIGATION_INVALID:NATIVE_NOT_COMBINABLE']);
    expect(codes(() => checkMitigation({ debiasing: true, zne: {} }, ['expectation'], true))).toEqual(['EXECUTION_MITIGATION_INVALID:NATIVE_NOT_COMBINABLE']);
    expect(codes(() => refuseUnmitigable(plan, bell, { readout: true, debiasing: false }, '', 1000))).toEqual(['EXECUTION_MITIGATION_UNSUPPORTED:DEBIASING_UNSUPPORTED']);
    expect(codes(() => refuseUnmitigable(plan, bell, { readout: false, debiasing: true }, '', 499))).toEqual(['EXECUTION_MITIGATION_UNSUPPORTED:DEBIASING_TOO_FEW_SHOTS']);
    expect(codes(() => refuseUnmitigable(plan, bell, { readout: false, debiasing: true }, '', 500))).toEqual([]);
  });

  it('debiasing is offered on an IonQ QPU unless its report lists mitigations without it; never on a simulator target or another device', () => {
    const ionq = deviceProfile('p2-ionq-qpu')!;
    expect(mitigationSupport(ionq, 'qpu.forte-1').debiasing).toBe(true);
    expect(mitigationSupport(ionq, 'qpu.forte-1', { supportedMitigations: ['debiasing'] }).debiasing).toBe(true);
    expect(mitigationSupport(ionq, 'qpu.forte-1', { supportedMitigations: [] }).debiasing).toBe(false);
    expect(mitigationView(ionq, 'qpu.forte-1', false, { supportedMitigations: [] })!.debiasing).toEqual({
      available: false,
      reason: 'IonQ does not list debiasing among qpu.forte-1’s error mitigations',
    });
    expect(mitigationSupport(ionq, 'simulator').debiasing).toBe(false);
    expect(mitigationSupport(deviceProfile('p2-grid-9')!, null)).toEqual({ readout: true, debiasing: false });
  });

  it('inverts the confusion of the physical qubit each clbit read; a measured qubit without figures leaves the counts unmitigated, named', () => {
    // Clbit 0 reads physical qubit 3, clbit 1 physical qubit 1 (as after routing).
    const translated = circuit(4, 2, [gate('x', [3]), measure(3, 0), measure(1, 1)]);
    const figures: Record<number, BitConfusion> = { 1: [0.01, 0.02], 3: [0.05, 0.1] };
    const cal = { of: (q: number) => figures[q] ?? null, source: 'provider' as const, calibratedAt: '2026-11-26T05:10:00.000Z' };
    const plan = { readout: true, zne: null };
    const counts = { '01': 90, '00': 10 };
    const json = (c: typeof cal) =>
      mitigationResultJson({ plan, plain: true, grouping: { groups: [], identity: [] }, observables: undefined, counts: [counts], circuits: [translated], readout: c }) as {
        readout: { applied: boolean; reason?: string; confusion?: unknown; quasi_probabilities?: Record<string, number> };
      };
    const ok = json(cal).readout;
    expect(ok.confusion).toEqual([
      { qubit: 3, p01: 0.05, p10: 0.1 },
      { qubit: 1, p01: 0.01, p10: 0.02 },
    ]);
    expect(ok.quasi_probabilities).toEqual(mitigateReadout(counts, [figures[3]!, figures[1]!]).quasi);
    const without = json({ ...cal, of: (q: number) => (q === 3 ? null : (figures[q] ?? null)) }).readout;
    expect(without).toEqual({ applied: false, reason: "the device's calibration has no readout figures for measured qubit(s) 3" });
  });
});
