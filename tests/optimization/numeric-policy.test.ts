import { describe, expect, it } from 'vitest';
import { circuit, gate, type Circuit } from '../../src/circuits/ir.js';
import { optimizeCircuit, type Profile } from '../../src/optimization/optimize.js';
import type { BackendHint } from '../../src/optimization/target.js';
import { replayCertificate } from '../../src/verification/certificate-replay.js';
import { ruleById } from '../../src/verification/certificate-rules.js';
import { CERTIFICATE_BUDGET, reduceAngle, turnsOf } from '../../src/verification/numeric-policy.js';
import { circuitsEquivalent } from './helpers/matrix.js';

const TAU = 2 * Math.PI;

describe('numeric policy: exact angle reduction', () => {
  // references computed with 400-digit arithmetic (mpmath), rounded to double
  const cases: [number, number][] = [
    [1e16, 2.2474252491623665],
    [-1e16, -2.2474252491623665],
    [1e300, -2.1838724841522326],
    [1.7976931348623157e308, 3.136630678439006],
    [100, -0.5309649148733836],
    [6.283185308179586, 9.999998378110112e-10],
  ];
  for (const [a, want] of cases) {
    it(`${a} mod 2π`, () => {
      expect(Math.abs(reduceAngle(a) - want)).toBeLessThanOrEqual(4e-16 * Math.max(1, Math.abs(want)));
    });
  }

  it('leaves angles already in range untouched and reduces into (−period/2, period/2]', () => {
    for (const a of [0, 1e-300, -3, Math.PI, 2.5]) expect(reduceAngle(a)).toBe(a);
    for (const a of [7, -7, 1e9 + 0.3, 123456.789]) {
      const r = reduceAngle(a);
      expect(r).toBeGreaterThan(-Math.PI);
      expect(r).toBeLessThanOrEqual(Math.PI);
      expect(Math.abs(Math.sin(r) - Math.sin(a))).toBeLessThan(1e-9);
      const r4 = reduceAngle(a, 2 * TAU);
      expect(Math.abs(r4)).toBeLessThanOrEqual(TAU);
      expect(Math.abs(Math.sin(r4 / 2) - Math.sin(a / 2))).toBeLessThan(1e-9);
    }
  });

  it('turns of a huge angle keep their value (the path-sum coefficients)', () => {
    expect(turnsOf(1e16)).toBeCloseTo(2.2474252491623665 / TAU, 15);
    expect(turnsOf(4 * Math.PI + 0.5, 0.5)).toBeCloseTo(0.5 / (2 * TAU), 15);
  });
});

/** The minimal false refusals of issue #23 and neighbours: each must now be answered, and be right. */
describe('numeric policy: no false refusals', () => {
  const cases: [string, Circuit, Profile, BackendHint][] = [
    ['rz(−2π−1e-9) then ccx', circuit(3, 0, [gate('rz', [2], [-6.283185308179586]), gate('ccx', [0, 1, 2])]), 'safe', 'provider-two'],
    ['h; rz(2π+1.5e-9)', circuit(1, 0, [gate('h', [0]), gate('rz', [0], [TAU + 1.5e-9])]), 'balanced', 'generic'],
    ['h; u1(2π−1e-7)', circuit(1, 0, [gate('h', [0]), gate('u1', [0], [TAU - 1e-7])]), 'balanced', 'generic'],
    ['h; rz(1e-7)', circuit(1, 0, [gate('h', [0]), gate('rz', [0], [1e-7])]), 'balanced', 'generic'],
    ['h; rx(1e-7)', circuit(1, 0, [gate('h', [0]), gate('rx', [0], [1e-7])]), 'balanced', 'generic'],
    ['h; rz(1e16); rz(1); h', circuit(1, 0, [gate('h', [0]), gate('rz', [0], [1e16]), gate('rz', [0], [1]), gate('h', [0])]), 'safe', 'generic'],
    ['h; rz(1e16); rz(1); h (aggressive, provider-one)', circuit(1, 0, [gate('h', [0]), gate('rz', [0], [1e16]), gate('rz', [0], [1]), gate('h', [0])]), 'aggressive', 'provider-one'],
    ['crx(1e12); cx', circuit(2, 0, [gate('crx', [0, 1], [1e12]), gate('cx', [0, 1]), gate('h', [1])]), 'balanced', 'provider-two'],
    ['h; rz(1.5e-9); h', circuit(1, 0, [gate('h', [0]), gate('rz', [0], [1.5e-9]), gate('h', [0])]), 'aggressive', 'provider-one'],
  ];
  for (const [name, c, profile, hint] of cases) {
    it(`${name} (${profile}, ${hint})`, () => {
      const r = optimizeCircuit(c, { profile, backendHint: hint });
      expect(r.proof.verified).toBe(true);
      expect(circuitsEquivalent(c, r.circuit)).toBe(true);
    });
  }

  it('a huge angle is named in the notes, and the result keeps its exact value', () => {
    const c = circuit(1, 0, [gate('h', [0]), gate('rz', [0], [1e16]), gate('rz', [0], [1]), gate('h', [0])]);
    const r = optimizeCircuit(c, { profile: 'safe' });
    expect(r.notes.join(' ')).toMatch(/2\^23/);
    const rz = r.circuit.ops.find((o) => o.kind === 'gate' && o.name === 'rz');
    expect(rz && rz.kind === 'gate' && rz.params[0]).toBeCloseTo(reduceAngle(2.2474252491623665 + 1), 14);
  });

  it('rotations by a real tiny angle are kept (the checker would not accept dropping them)', () => {
    const c = circuit(1, 0, [gate('rz', [0], [1e-9]), gate('x', [0])]);
    for (const profile of ['safe', 'balanced'] as const) {
      const r = optimizeCircuit(c, { profile });
      // safe keeps both; balanced may fold them into one u3, never into a bare x
      const names = r.circuit.ops.map((o) => (o.kind === 'gate' ? o.name : o.kind));
      expect(names).not.toEqual(['x']);
      expect(names.length).toBeGreaterThan(0);
    }
  });

  it('many deliberate near-misses do not exhaust the certificate budget: rounding stops before it', () => {
    // each rz(π/4 + 9e-13) is a t within the passes' tolerance; 600 of them would add up past the budget
    const ops = [];
    for (let i = 0; i < 600; i++) ops.push(gate('h', [i % 2]), gate('rz', [i % 2], [Math.PI / 4 + 9e-13]));
    const c = circuit(2, 0, ops);
    const r = optimizeCircuit(c, { profile: 'balanced' });
    const replay = replayCertificate(c, { steps: r.proof.certificate.steps! }, r.circuit);
    expect(replay.ok).toBe(true);
    if (replay.ok) expect(replay.deviation).toBeLessThanOrEqual(CERTIFICATE_BUDGET);
    expect(r.circuit.ops.some((o) => o.kind === 'gate' && o.name === 't')).toBe(true);
  });
});

describe('numeric policy: the checker counts every rounding', () => {
  it('a step is an instance only within the budget', () => {
    const drop = ruleById('drop-identity')!;
    expect(drop.check([gate('rz', [0], [2 * CERTIFICATE_BUDGET * 0.9])], [])).toBe(true);
    expect(drop.check([gate('rz', [0], [2 * CERTIFICATE_BUDGET * 1.1])], [])).toBe(false);
    expect(drop.check([gate('rz', [0], [TAU + 1e-12])], [])).toBe(true);
    expect(drop.check([gate('rz', [0], [1e16])], [])).toBe(false);
    const merge = ruleById('merge-phase')!;
    expect(merge.check([gate('rz', [0], [1e16]), gate('rz', [0], [1])], [gate('rz', [0], [1e16 + 1])])).toBe(false);
    expect(merge.check([gate('rz', [0], [1e16]), gate('rz', [0], [1])], [gate('rz', [0], [reduceAngle(1e16) + 1])])).toBe(true);
  });

  it('steps each within the budget are refused once their sum exceeds it', () => {
    const tiny = CERTIFICATE_BUDGET * 0.8; // one rz(2·tiny) deviates by `tiny`
    const c = circuit(1, 0, [gate('rz', [0], [2 * tiny]), gate('h', [0]), gate('rz', [0], [2 * tiny]), gate('h', [0])]);
    const step = (pos: number) => ({ rule: 'drop-identity', positions: [pos], replaced: [c.ops[pos === 0 ? 0 : 2]!], inserted: [] });
    const one = replayCertificate(c, { steps: [step(0)] });
    expect(one.ok).toBe(true);
    const two = replayCertificate(c, { steps: [step(0), { ...step(1), positions: [1] }] });
    expect(two.ok).toBe(false);
    if (!two.ok) expect(two.reason).toMatch(/budget/);
  });
});
