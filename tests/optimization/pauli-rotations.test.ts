import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { productFormula } from '../../bench/lib/product-formula.js';
import { circuit, gate, type GateOp } from '../../src/circuits/ir.js';
import { namGateCount } from '../../src/optimization/cost-model.js';
import { optimizeCircuit } from '../../src/optimization/optimize.js';
import { mergePauliRotations } from '../../src/optimization/passes/pauli-rotations.js';
import { Recorder } from '../../src/optimization/recorder.js';
import { replayCertificate } from '../../src/verification/certificate-replay.js';
import { PAULI_ROTATIONS_RULE, type CertificateStep } from '../../src/verification/certificate-types.js';
import { circuitsEquivalent } from './helpers/matrix.js';

const N = 4;
const angle = fc.double({ min: -Math.PI, max: Math.PI, noNaN: true });
type P = 'I' | 'X' | 'Y' | 'Z';

/** exp(−iθ/2·P) for a Pauli string, written the test's own way: basis change, CNOT ladder, rz, back. */
function exponential(ps: readonly P[], t: number): GateOp[] {
  const qs = ps.flatMap((p, q) => (p === 'I' ? [] : [q]));
  if (!qs.length) return [];
  const into = (q: number): GateOp[] => (ps[q] === 'X' ? [gate('h', [q])] : ps[q] === 'Y' ? [gate('sdg', [q]), gate('h', [q])] : []);
  const back = (q: number): GateOp[] => (ps[q] === 'X' ? [gate('h', [q])] : ps[q] === 'Y' ? [gate('h', [q]), gate('s', [q])] : []);
  const last = qs[qs.length - 1]!;
  const ladder = qs.slice(0, -1).map((q) => gate('cx', [q, last]));
  return [...qs.flatMap(into), ...ladder, gate('rz', [last], [t]), ...[...ladder].reverse(), ...qs.flatMap(back)];
}

const pauliString = fc.array(fc.constantFrom<P>('I', 'X', 'Y', 'Z'), { minLength: N, maxLength: N });
/** Random Pauli-rotation circuits: a few Pauli strings reused (so rotations can merge), random angles, stray Cliffords. */
const rotationCircuit = fc
  .record({
    strings: fc.array(pauliString, { minLength: 1, maxLength: 4 }),
    picks: fc.array(fc.record({ k: fc.nat(3), t: angle, clifford: fc.option(fc.record({ n: fc.constantFrom('h', 's', 'x', 'cx'), q: fc.nat(N - 2) }), { freq: 4 }) }), { minLength: 1, maxLength: 10 }),
  })
  .map(({ strings, picks }) =>
    picks.flatMap(({ k, t, clifford }) => [
      ...exponential(strings[k % strings.length]!, t),
      ...(clifford ? [clifford.n === 'cx' ? gate('cx', [clifford.q, clifford.q + 1]) : gate(clifford.n, [clifford.q])] : []),
    ]),
  );

describe('Pauli-rotation merging and gadget resynthesis', () => {
  it('random Pauli-rotation circuits: equivalent, replayed by the independent checker, never more gates (property)', () => {
    fc.assert(
      fc.property(rotationCircuit, (ops) => {
        const c = circuit(N, 0, ops);
        const rec = new Recorder(c.ops);
        mergePauliRotations(rec, true);
        const out = circuit(N, 0, rec.ops);
        expect(circuitsEquivalent(c, out)).toBe(true);
        expect(replayCertificate(c, { steps: rec.steps }, out).ok).toBe(true);
        expect(namGateCount(out.ops)).toBeLessThanOrEqual(namGateCount(c.ops));
      }),
      { numRuns: 150, seed: 37 },
    );
  });

  it('merges rotations about one Pauli across commuting rotations, and drops a pair that cancels', () => {
    // exp(XX·a) · exp(ZZ·b) · exp(XX·c): XX and ZZ commute, so the two XX rotations become one
    const ops = [...exponential(['X', 'X', 'I', 'I'], 0.3), ...exponential(['Z', 'Z', 'I', 'I'], 0.2), ...exponential(['X', 'X', 'I', 'I'], 0.4)];
    const rec = new Recorder(ops);
    expect(mergePauliRotations(rec, false)).toBe(1);
    const out = circuit(N, 0, rec.ops);
    expect(rec.ops.filter((o) => o.kind === 'gate' && o.name === 'rz')).toHaveLength(2);
    expect(circuitsEquivalent(circuit(N, 0, ops), out)).toBe(true);
    // Y⊗Z by θ then by −θ with an X on another qubit between: nothing is left but the X
    const cancel = [...exponential(['Y', 'Z', 'I', 'I'], 0.7), gate('x', [3]), ...exponential(['Y', 'Z', 'I', 'I'], -0.7)];
    const rec2 = new Recorder(cancel);
    mergePauliRotations(rec2, false);
    expect(rec2.ops.some((o) => o.kind === 'gate' && o.name === 'rz')).toBe(false);
    expect(circuitsEquivalent(circuit(N, 0, cancel), circuit(N, 0, rec2.ops))).toBe(true);
  });

  it('shares one CNOT pair between commuting rotations on a pair (a Heisenberg step)', () => {
    const c = productFormula('heisenberg', 6, 1, 1);
    const rec = new Recorder(c.ops);
    mergePauliRotations(rec, true);
    const cx = (ops: readonly { kind: string; name?: string }[]) => ops.filter((o) => o.kind === 'gate' && o.name === 'cx').length;
    expect(cx(rec.ops)).toBeLessThan(cx(c.ops));
    expect(circuitsEquivalent(c, circuit(c.numQubits, 0, rec.ops))).toBe(true);
  });

  describe('the checker refuses what is not an instance', () => {
    const a = exponential(['X', 'X', 'I', 'I'], 0.3);
    const z = exponential(['Z', 'I', 'I', 'I'], 0.2);
    const step = (replaced: GateOp[], inserted: GateOp[], trace: number[][]): CertificateStep => ({
      rule: PAULI_ROTATIONS_RULE,
      positions: replaced.map((_, i) => i),
      replaced,
      inserted,
      witness: { trace },
    });
    const replay = (replaced: GateOp[], inserted: GateOp[], trace: number[][]) => replayCertificate(circuit(N, 0, replaced), { steps: [step(replaced, inserted, trace)] });

    it('accepts a true merge', () => {
      const zz = exponential(['I', 'I', 'Z', 'Z'], 0.5);
      expect(
        replay(
          [...a, ...zz, ...a],
          [...exponential(['X', 'X', 'I', 'I'], 0.6), ...zz],
          [
            [0, 0, 2],
            [1, 1],
          ],
        ).ok,
      ).toBe(true);
    });
    it('refuses merging across a rotation that anticommutes (Z on qubit 0 against X⊗X)', () => {
      const r = replay(
        [...a, ...z, ...a],
        [...exponential(['X', 'X', 'I', 'I'], 0.6), ...z],
        [
          [0, 0, 2],
          [1, 1],
        ],
      );
      expect(r.ok).toBe(false);
      if (!r.ok) expect(r.reason).toMatch(/does not commute/);
    });
    it('refuses a wrong angle, a changed Clifford part and a rotation about another Pauli', () => {
      expect(replay([...a], exponential(['X', 'X', 'I', 'I'], 0.31), [[0, 0]]).ok).toBe(false);
      expect(replay([...a], [...exponential(['X', 'X', 'I', 'I'], 0.3), gate('h', [2])], [[0, 0]]).ok).toBe(false);
      expect(replay([...a], exponential(['Y', 'X', 'I', 'I'], 0.3), [[0, 0]]).ok).toBe(false);
    });
  });

  it('a 20-qubit first-order Heisenberg circuit: balanced proves fewer gates than safe, its resynthesis step replayed by the checker', () => {
    const c = productFormula('heisenberg', 20, 1, 1);
    const safe = optimizeCircuit(c, { profile: 'safe' });
    const balanced = optimizeCircuit(c, { profile: 'balanced' });
    expect(balanced.proof.verified).toBe(true);
    expect(balanced.metricsAfter.target_total).toBeLessThan(safe.metricsAfter.target_total);
    expect(balanced.proof.certificate.steps!.some((s) => s.rule === PAULI_ROTATIONS_RULE)).toBe(true);
    expect(replayCertificate(c, { steps: balanced.proof.certificate.steps! }, balanced.circuit).ok).toBe(true);
  });
});
