import { describe, expect, it } from 'vitest';
import { circuit, gate, type Operation } from '../../src/circuits/ir.js';
import { isAppError } from '../../src/errors/app-error.js';
import { optimizeCircuit, type UnsoundRule } from '../../src/optimization/optimize.js';
import { replayCertificate } from '../../src/verification/certificate-replay.js';
import { testEquivalence } from './helpers/matrix.js';

/** A deliberately unsound rewrite: "H followed by X on one qubit is the identity". */
const hxVanishes = (claim: string): UnsoundRule => ({
  claim,
  find(ops: readonly Operation[]) {
    for (let i = 0; i + 1 < ops.length; i++) {
      const a = ops[i]!;
      const b = ops[i + 1]!;
      if (a.kind === 'gate' && b.kind === 'gate' && a.name === 'h' && b.name === 'x' && a.qubits[0] === b.qubits[0]) return { positions: [i, i + 1], inserted: [] };
    }
    return null;
  },
});

const input = circuit(2, 0, [gate('h', [0]), gate('x', [0]), gate('cx', [0, 1]), gate('t', [1])]);

function expectUnverified(fn: () => unknown, reason: RegExp) {
  try {
    fn();
  } catch (e) {
    expect(isAppError(e)).toBe(true);
    if (!isAppError(e)) return;
    expect(e.code).toBe('OPTIMIZATION_UNVERIFIED');
    expect(e.statusCode).toBe(422);
    expect((e.details as { reason: string }).reason).toMatch(reason);
    return;
  }
  throw new Error('the optimizer returned an unverified result');
}

describe('fail closed: a planted unsound rule never yields a result', () => {
  for (const profile of ['safe', 'balanced', 'aggressive'] as const) {
    it(`${profile}: step claiming a library rule is rejected by the replayer`, () => {
      expectUnverified(() => optimizeCircuit(input, { profile, unsoundRules: [hxVanishes('cancel-inverse')], equivalence: testEquivalence }), /not an instance of rule cancel-inverse/);
    });
  }
  it('step naming a rule outside the proven library is rejected', () => {
    expectUnverified(() => optimizeCircuit(input, { profile: 'balanced', unsoundRules: [hxVanishes('h-x-vanish')], equivalence: testEquivalence }), /not in the proven rule library/);
  });
  it('step claiming phase-teleport without its in-place form and trace is rejected', () => {
    expectUnverified(() => optimizeCircuit(input, { profile: 'aggressive', unsoundRules: [hxVanishes('phase-teleport')], equivalence: testEquivalence }), /in-place changes do not match/);
  });
  it('global step is refuted by whole-circuit equivalence', () => {
    expectUnverified(() => optimizeCircuit(input, { profile: 'balanced', unsoundRules: [hxVanishes('global:h-x-vanish')], equivalence: testEquivalence }), /refuted/);
  });
  it('global step without an equivalence proof is not returned', () => {
    const unknown = () => ({ equivalent: 'unknown' as const, method: 'none' as const, checked: 'nothing', elapsedMs: 0, reason: 'too large' });
    expectUnverified(() => optimizeCircuit(input, { profile: 'balanced', unsoundRules: [hxVanishes('global:h-x-vanish')], equivalence: unknown }), /need whole-circuit equivalence/);
  });
  it('without the planted rule the same input optimizes and verifies', () => {
    const r = optimizeCircuit(input, { profile: 'balanced', equivalence: testEquivalence });
    expect(r.proof.verified).toBe(true);
  });
});

describe('the replayer gathers a match only past ops that commute with it', () => {
  const g = (name: string, qubits: number[]) => gate(name, qubits);
  const hs = (ops: Operation[], positions: number[], anchor?: 'last') =>
    replayCertificate(circuit(3, 0, ops), {
      steps: [{ rule: 'template:hadamard-s', positions, replaced: positions.map((p) => ops[p]!), inserted: [g('sdg', [0]), g('h', [0]), g('sdg', [0])], ...(anchor ? { anchor } : {}) }],
    });
  it('accepts H S H gathered past ops on other wires (a matched op in between is not moved past)', () => {
    expect(hs([g('h', [0]), g('x', [1]), g('s', [0]), g('cx', [1, 2]), g('h', [0])], [0, 2, 4]).ok).toBe(true);
    expect(hs([g('h', [0]), g('x', [1]), g('s', [0]), g('cx', [1, 2]), g('h', [0])], [0, 2, 4], 'last').ok).toBe(true);
  });
  it('refuses one past an X on its wire, on either side of another matched op', () => {
    const after = hs([g('h', [0]), g('s', [0]), g('x', [0]), g('h', [0])], [0, 1, 3]);
    expect(after.ok).toBe(false);
    if (!after.ok) expect(after.reason).toMatch(/does not commute with op at 2/);
    const before = hs([g('h', [0]), g('x', [0]), g('s', [0]), g('h', [0])], [0, 2, 3], 'last');
    expect(before.ok).toBe(false);
    if (!before.ok) expect(before.reason).toMatch(/does not commute with op at 1/);
  });
});
