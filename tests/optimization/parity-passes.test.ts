import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { gate, type GateOp } from '../../src/circuits/ir.js';
import { LINES, PATTERNS } from '../../src/optimization/passes/clifford-absorb.js';
import { cancelCnotsByParity } from '../../src/optimization/passes/cnot-parity.js';
import { mergePhasePolynomial } from '../../src/optimization/passes/phase-polynomial.js';
import { Recorder } from '../../src/optimization/recorder.js';
import { equalUpToGlobalPhase, unitaryOf } from './helpers/matrix.js';

/**
 * The identities behind the global phase-polynomial steps added for Toffoli polarity and
 * CNOT cancellation by parity, proven by exact matrix equivalence up to global phase with
 * the tests' own matrices (the steps themselves are proven per run by whole-circuit checks).
 */
const same = (a: readonly GateOp[], b: readonly GateOp[], n: number) => equalUpToGlobalPhase(unitaryOf(a, n), unitaryOf(b, n));

/** exp(iθ·(v·x)) on 3 qubits: CNOTs compute the parity v onto its highest wire, rz-type phase, uncompute. */
function parityPhase(v: number, theta: number): GateOp[] {
  const bits = [0, 1, 2].filter((b) => (v >> b) & 1);
  const top = bits[bits.length - 1]!;
  const fan = bits.slice(0, -1).map((b) => gate('cx', [b, top]));
  return [...fan, gate('p', [top], [theta]), ...[...fan].reverse()];
}

describe('Clifford-term absorption patterns (Toffoli polarity)', () => {
  it('every (π/2)·w pattern over a 3-dimensional parity subspace is the identity', () => {
    expect(PATTERNS.length).toBeGreaterThan(0);
    for (const w of PATTERNS) {
      const ops = [1, 2, 3, 4, 5, 6, 7].flatMap((v) => parityPhase(v, (Math.PI / 2) * w[v - 1]!));
      expect(same(ops, [], 3)).toBe(true);
    }
  });

  it('every Fano-line pattern (π on a, b, a⊕b) is the identity, and a wrong weight is not', () => {
    expect(LINES.length).toBe(7);
    for (const w of LINES) {
      const ops = [1, 2, 3, 4, 5, 6, 7].flatMap((v) => (w[v - 1] ? parityPhase(v, (Math.PI / 2) * w[v - 1]!) : []));
      expect(same(ops, [], 3)).toBe(true);
    }
    expect(same(parityPhase(3, Math.PI / 2), [], 3)).toBe(false);
  });

  it('a compute/uncompute Toffoli pair loses its Clifford terms: no S/S† and no CNOT between the controls', () => {
    // CCZ·CCZ written with the same polarity twice leaves CS†-type Clifford terms without absorption
    const ccz = (a: number, b: number, c: number) => [
      gate('cx', [b, c]),
      gate('tdg', [c]),
      gate('cx', [a, c]),
      gate('t', [c]),
      gate('cx', [b, c]),
      gate('tdg', [c]),
      gate('cx', [a, c]),
      gate('t', [b]),
      gate('t', [c]),
      gate('cx', [a, b]),
      gate('t', [a]),
      gate('tdg', [b]),
      gate('cx', [a, b]),
    ];
    const ops = [...ccz(0, 1, 2), gate('h', [3]), gate('cx', [3, 2]), gate('h', [3]), ...ccz(0, 1, 2)];
    const rec = new Recorder(ops);
    mergePhasePolynomial(rec);
    expect(same(rec.ops as GateOp[], ops, 4)).toBe(true);
    const clifford = rec.ops.filter((o) => o.kind === 'gate' && ['s', 'sdg', 'z'].includes(o.name));
    expect(clifford).toHaveLength(0);
  });
});

const gateArb = (n: number) =>
  fc.oneof(
    { weight: 1, arbitrary: fc.nat(n - 1).map((q) => gate('h', [q])) },
    { weight: 2, arbitrary: fc.nat(n - 1).map((q) => gate('x', [q])) },
    { weight: 3, arbitrary: fc.record({ name: fc.constantFrom('t', 'tdg', 's', 'rz'), q: fc.nat(n - 1) }).map(({ name, q }) => gate(name, [q], name === 'rz' ? [0.3] : [])) },
    {
      weight: 4,
      arbitrary: fc
        .record({ a: fc.nat(n - 1), b: fc.nat(n - 1) })
        .filter(({ a, b }) => a !== b)
        .map(({ a, b }) => gate('cx', [a, b])),
    },
  );

describe('CNOT cancellation by parity', () => {
  it('removes the CNOT pair of two Toffolis on one target and moves the phases: heavy form of barenco pairs', () => {
    // target 2 stays in a {CNOT, phase} region across two Toffoli bodies whose second control (1) changes in between
    const body = (c: number) => [gate('cx', [c, 2]), gate('tdg', [2]), gate('cx', [0, 2]), gate('t', [2]), gate('cx', [c, 2]), gate('cx', [0, 2])];
    const ops = [gate('h', [2]), ...body(1), gate('h', [1]), ...body(1), gate('h', [2])];
    const rec = new Recorder(ops);
    const pairs = cancelCnotsByParity(rec);
    expect(pairs).toBeGreaterThan(0);
    expect(rec.ops.filter((o) => o.kind === 'gate' && o.name === 'cx').length).toBe(8 - 2 * pairs);
    expect(same(rec.ops as GateOp[], ops, 3)).toBe(true);
    expect(rec.steps.every((s) => s.rule === 'global:phase-polynomial')).toBe(true);
  });

  it('compute/uncompute Toffoli pair around a gate using the target only as a control: 3 CNOTs each (relative-phase form), exact', () => {
    const tof = (a: number, b: number, c: number) => [
      gate('h', [c]),
      gate('cx', [b, c]),
      gate('tdg', [c]),
      gate('cx', [a, c]),
      gate('t', [c]),
      gate('cx', [b, c]),
      gate('tdg', [c]),
      gate('cx', [a, c]),
      gate('t', [b]),
      gate('t', [c]),
      gate('h', [c]),
      gate('cx', [a, b]),
      gate('t', [a]),
      gate('tdg', [b]),
      gate('cx', [a, b]),
    ];
    // tof_3: Toffoli(0,1→3), Toffoli(2,3→4), Toffoli(0,1→3)
    const ops = [...tof(0, 1, 3), ...tof(2, 3, 4), ...tof(0, 1, 3)];
    const rec = new Recorder(ops);
    mergePhasePolynomial(rec);
    const before = rec.ops.filter((o) => o.kind === 'gate' && o.name === 'cx').length;
    expect(cancelCnotsByParity(rec)).toBeGreaterThan(0);
    expect(rec.ops.filter((o) => o.kind === 'gate' && o.name === 'cx').length).toBeLessThan(before);
    expect(same(rec.ops as GateOp[], ops, 5)).toBe(true);
  });

  it('keeps every {H, X, CNOT, phase} circuit equivalent (property)', () => {
    fc.assert(
      fc.property(fc.array(gateArb(4), { minLength: 1, maxLength: 45 }), (ops) => {
        const rec = new Recorder(ops);
        cancelCnotsByParity(rec);
        expect(same(rec.ops as GateOp[], ops, 4)).toBe(true);
      }),
      { numRuns: 300 },
    );
  });

  it('CNOT pairs around H-sandwiches on the target stay equivalent, including the cases it must refuse (property)', () => {
    const n = 4;
    const phaseOn = (q: number) => fc.constantFrom('t', 'tdg', 's', 'z').map((name) => gate(name, [q]));
    const anyGate = fc.oneof(
      gateArb(n),
      fc
        .record({ a: fc.nat(n - 1), b: fc.nat(n - 1) })
        .filter(({ a, b }) => a !== b)
        .map(({ a, b }) => gate('cz', [a, b])),
    );
    const sandwich = fc
      .record({ a: fc.nat(n - 1), t: fc.nat(n - 1), c: fc.nat(n - 1) })
      .filter(({ a, t, c }) => a !== t && c !== t && c !== a)
      .chain(({ a, t, c }) => {
        const xFrame = fc.array(fc.oneof(phaseOn(t), fc.constant(gate('cx', [c, t])), fc.constant(gate('x', [t]))), { maxLength: 4 });
        const onA = fc.constantFrom(gate('cx', [c, a]), gate('h', [a]), gate('x', [a]), gate('cx', [a, c]), gate('h', [c]));
        const mid = fc.array(fc.oneof(anyGate, phaseOn(t), fc.constant(gate('cx', [t, c])), fc.constant(gate('cx', [c, t])), phaseOn(a), onA, onA), { maxLength: 7 });
        return fc
          .tuple(fc.array(anyGate, { maxLength: 5 }), xFrame, mid, xFrame, fc.array(anyGate, { maxLength: 5 }))
          .map(([pre, x1, m, x2, post]) => [...pre, gate('cx', [a, t]), ...x1, gate('h', [t]), ...m, gate('h', [t]), ...x2, gate('cx', [a, t]), ...post]);
      });
    // regressions: the skeleton's path variables must be numbered like the original's
    const regressions: GateOp[][] = [
      [gate('cx', [3, 0]), gate('h', [0]), gate('h', [0]), gate('cx', [1, 0]), gate('t', [0]), gate('cx', [3, 0])],
      [gate('h', [0]), gate('cx', [2, 1]), gate('cx', [0, 1]), gate('t', [1]), gate('h', [1]), gate('h', [1]), gate('cx', [2, 1])],
    ];
    for (const ops of regressions) {
      const rec = new Recorder(ops);
      cancelCnotsByParity(rec);
      expect(same(rec.ops as GateOp[], ops, n)).toBe(true);
    }
    let fired = 0;
    fc.assert(
      fc.property(sandwich, (ops) => {
        const rec = new Recorder(ops);
        fired += cancelCnotsByParity(rec) > 0 ? 1 : 0;
        expect(same(rec.ops as GateOp[], ops, n)).toBe(true);
      }),
      { numRuns: 1200 },
    );
    expect(fired).toBeGreaterThan(20);
  });

  it('phase-polynomial merging with annealed absorption keeps circuits equivalent (property)', () => {
    fc.assert(
      fc.property(fc.array(gateArb(4), { minLength: 1, maxLength: 45 }), fc.integer({ min: 1, max: 5 }), (ops, seed) => {
        const rec = new Recorder(ops);
        mergePhasePolynomial(rec, 'first', { seed, effort: 2 });
        expect(same(rec.ops as GateOp[], ops, 4)).toBe(true);
      }),
      { numRuns: 150 },
    );
  });
});
