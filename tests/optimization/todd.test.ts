import fc from 'fast-check';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { circuit, gate, type GateOp } from '../../src/circuits/ir.js';
import { isTGate } from '../../src/optimization/metrics.js';
import { cancelPairs, signatureTensor, toddReduce } from '../../src/optimization/passes/todd.js';
import { reduceTCountInRegions, RESYNTH_PHASE_POLYNOMIAL_RULE } from '../../src/optimization/passes/todd-regions.js';
import { parityNetwork } from '../../src/optimization/passes/todd-synthesis.js';
import { phaseGate } from '../../src/optimization/gate-info.js';
import { Recorder } from '../../src/optimization/recorder.js';
import { optimizeCircuit } from '../../src/optimization/optimize.js';
import { parseQasm } from '../../src/circuits/qasm/parse-qasm.js';
import { fixtureFile } from '../helpers/fixture-file.js';
import { replayCertificate } from '../../src/verification/certificate-replay.js';
import { phasePolynomialDistance } from '../../src/verification/phase-polynomial-rule.js';
import { eye, equalUpToGlobalPhase, unitaryOf, type CM } from './helpers/matrix.js';

const same = (a: readonly GateOp[], b: readonly GateOp[], n: number) => equalUpToGlobalPhase(unitaryOf(a, n), unitaryOf(b, n));
const tCount = (ops: readonly GateOp[]) => ops.filter((o) => isTGate(o)).length;
const bit = (q: number) => 1n << BigInt(q);
/** The odd parities of CCZ on (a, b, c): a, b, c, a⊕b, a⊕c, b⊕c, a⊕b⊕c. */
const cczParities = (a: number, b: number, c: number) => [bit(a), bit(b), bit(c), bit(a) ^ bit(b), bit(a) ^ bit(c), bit(b) ^ bit(c), bit(a) ^ bit(b) ^ bit(c)];
const tensorKey = (cols: readonly bigint[]) => [...signatureTensor(cols)].sort().join(' ');

/** CCZ in Clifford+T with 7 T gates (the textbook network; H-free). */
const ccz = (a: number, b: number, c: number): GateOp[] => [
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

/** The pass on its own, with its certificate replayed against the input. */
function run(ops: readonly GateOp[], n: number) {
  const rec = new Recorder(ops);
  const saved = reduceTCountInRegions(rec);
  const out = rec.ops as GateOp[];
  const replay = replayCertificate(circuit(n, 0, ops), { steps: rec.steps }, circuit(n, 0, out));
  return { saved, out, replay, steps: rec.steps };
}

describe('TODD (signature-tensor T-count reduction)', () => {
  it('CCZ(a,b,c)·CCZ(a,b,d) = CCZ(a,b,c⊕d): 8 odd parities become 7, with the same tensor', () => {
    const cols = cancelPairs([...cczParities(0, 1, 2), ...cczParities(0, 1, 3)]);
    expect(cols).toHaveLength(8);
    const out = toddReduce(cols);
    expect(out).toHaveLength(7);
    expect(tensorKey(out)).toBe(tensorKey(cols));
  });

  it('random mixtures of CCZs keep their signature tensor and never gain columns', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.nat(6), fc.nat(6), fc.nat(6)), { minLength: 1, maxLength: 6 }), (triples) => {
        const cols = cancelPairs(triples.filter(([a, b, c]) => a !== b && b !== c && a !== c).flatMap(([a, b, c]) => cczParities(a, b, c)));
        const out = toddReduce(cols);
        expect(out.length).toBeLessThanOrEqual(cols.length);
        expect(tensorKey(out)).toBe(tensorKey(cols));
      }),
      { numRuns: 60 },
    );
  });
});

describe('TODD in Hadamard-free regions (resynth-phase-polynomial steps)', () => {
  it('two CCZs sharing their controls go from 14 T gates to 7, proven by replay and equal as unitaries', () => {
    const input = [...ccz(0, 1, 2), ...ccz(0, 1, 3)];
    expect(tCount(input)).toBe(14);
    const { out, replay, steps } = run(input, 4);
    expect(tCount(out)).toBe(7);
    expect(steps.every((s) => s.rule === RESYNTH_PHASE_POLYNOMIAL_RULE)).toBe(true);
    expect(replay.ok).toBe(true);
    expect(same(input, out, 4)).toBe(true);
  });

  it('a tampered step is refused at replay (a rewrite that cannot be proved is never returned)', () => {
    const input = [...ccz(0, 1, 2), ...ccz(0, 1, 3)];
    const { steps } = run(input, 4);
    expect(steps).toHaveLength(1);
    const step = steps[0]!;
    const tIndex = step.inserted.findIndex((o) => o.name === 't');
    const flipped = step.inserted.map((o, i) => (i === tIndex ? gate('tdg', o.qubits) : o));
    const replay = replayCertificate(circuit(4, 0, input), { steps: [{ ...step, inserted: flipped }] });
    expect(replay.ok).toBe(false);
    if (!replay.ok) expect(replay.reason).toContain('resynth-phase-polynomial');
  });

  it('regions span Hadamards (path variables): CCZ(a,b,c)·H_d·CCZ(a,b,d) also goes from 14 to 7', () => {
    const input = [...ccz(0, 1, 2), gate('h', [3]), ...ccz(0, 1, 3)];
    const { out, replay } = run(input, 4);
    expect(replay.ok).toBe(true);
    expect(same(input, out, 4)).toBe(true);
    expect(tCount(out)).toBe(7);
    // a Toffoli pair around an H on the target: equal and proven, never more T
    const pair = [...ccz(0, 1, 2), gate('h', [2]), ...ccz(0, 1, 2), gate('h', [2])];
    const r = run(pair, 3);
    expect(r.replay.ok).toBe(true);
    expect(same(pair, r.out, 3)).toBe(true);
    expect(tCount(r.out)).toBeLessThanOrEqual(14);
  });

  it('random CNOT+T(+H) circuits on 3–8 qubits: the output equals the input, T never increases, the certificate replays', () => {
    const arb = fc
      .integer({ min: 3, max: 8 })
      .chain((n) =>
        fc.tuple(
          fc.constant(n),
          fc.array(
            fc.oneof(
              fc.tuple(fc.constantFrom('cx'), fc.nat(n - 1), fc.nat(n - 1)),
              fc.tuple(fc.constantFrom('t', 'tdg', 't', 's', 'x', 'z', 'h'), fc.nat(n - 1), fc.constant(0)),
              fc.tuple(fc.constantFrom('ccz'), fc.nat(n - 1), fc.nat(n - 1)),
            ),
            { minLength: 4, maxLength: 12 },
          ),
        ),
      );
    let reduced = 0;
    fc.assert(
      fc.property(arb, ([n, spec]) => {
        const input: GateOp[] = spec.flatMap(([name, a, b]) => {
          if (name === 'cx') return a === b ? [] : [gate('cx', [a, b])];
          if (name === 'ccz')
            return a === b
              ? []
              : ccz(
                  a,
                  b,
                  [0, 1, 2].find((q) => q !== a && q !== b)!,
                );
          return [gate(name, [a])];
        });
        const { out, replay } = run(input, n);
        expect(replay.ok).toBe(true);
        expect(tCount(out)).toBeLessThanOrEqual(tCount(input));
        if (tCount(out) < tCount(input)) reduced++;
        expect(same(input, out, n)).toBe(true);
      }),
      { numRuns: 60 },
    );
    // the generator is CCZ-heavy: some runs must actually exercise a reduction
    expect(reduced).toBeGreaterThan(0);
  });
});

/** The diagonal e^{iπ/4·Σ k·(⊕_{q∈S} x_q)} on n qubits (qubit 0 most significant), built directly. */
function diagonal(n: number, rungs: readonly { wires: bigint; k: number }[]): CM {
  const u = eye(n);
  const d = 1 << n;
  for (let x = 0; x < d; x++) {
    let theta = 0;
    for (const r of rungs) {
      let v = 0;
      for (let q = 0; q < n; q++) if ((r.wires >> BigInt(q)) & 1n) v ^= (x >> (n - 1 - q)) & 1;
      theta += (r.k * v * Math.PI) / 4;
    }
    u.re[x * d + x] = Math.cos(theta);
    u.im[x * d + x] = Math.sin(theta);
  }
  return u;
}

describe('parity network for the phases no wire carries (shared CNOT ladders)', () => {
  const phase = (q: number, k: number, negate: boolean) => phaseGate(q, ((negate ? -k : k) * Math.PI) / 4)!;
  const cnots = (ops: readonly GateOp[]) => ops.filter((o) => o.name === 'cx').length;

  it('random parities on 3–5 wires (some wires flipped by X): the exact diagonal, never more CNOTs than one ladder per parity', () => {
    fc.assert(
      fc.property(
        fc
          .integer({ min: 3, max: 5 })
          .chain((n) =>
            fc.tuple(
              fc.constant(n),
              fc.array(fc.boolean(), { minLength: n, maxLength: n }),
              fc.array(fc.tuple(fc.integer({ min: 3, max: (1 << n) - 1 }), fc.integer({ min: 1, max: 7 })), { minLength: 1, maxLength: 6 }),
            ),
          ),
        ([n, flips, spec]) => {
          const rungs = spec.map(([m, k]) => ({ wires: BigInt(m), k }));
          const wires = { lin: Array.from({ length: n }, (_, q) => 1n << BigInt(q)), cst: flips };
          const net = parityNetwork(rungs, wires, phase);
          // the wires hold x ⊕ flips around the network: X gates before and after make the input x again
          const xs = flips.flatMap((f, q) => (f ? [gate('x', [q])] : []));
          expect(equalUpToGlobalPhase(unitaryOf([...xs, ...net, ...xs], n), diagonal(n, rungs))).toBe(true);
          const ladders = rungs.reduce((c, r) => c + 2 * (r.wires.toString(2).replace(/0/g, '').length - 1), 0);
          expect(cnots(net)).toBeLessThanOrEqual(ladders);
        },
      ),
      { numRuns: 80 },
    );
  });

  it('parities one wire apart share the walk: a⊕b, a⊕b⊕c, a⊕b⊕c⊕d cost 6 CNOTs, not 12 (one ladder each)', () => {
    const rungs = [0b11n, 0b111n, 0b1111n].map((wires) => ({ wires, k: 1 }));
    const net = parityNetwork(rungs, { lin: [1n, 2n, 4n, 8n], cst: [false, false, false, false] }, phase);
    expect(cnots(net)).toBe(6);
    expect(equalUpToGlobalPhase(unitaryOf(net, 4), diagonal(4, rungs))).toBe(true);
  });
});

describe('TODD in the aggressive profile', () => {
  it('csla_mux_3: TODD before the search takes aggressive below balanced in T (62, PyZX) without more gates, proven', () => {
    const input = parseQasm(readFileSync(fixtureFile('benchmarks/nam/csla_mux_3.before.qasm'), 'utf8'));
    const balanced = optimizeCircuit(input, { profile: 'balanced' });
    const aggressive = optimizeCircuit(input, { profile: 'aggressive' });
    expect(balanced.metricsAfter.t_count).toBe(62);
    expect(aggressive.profile).toBe('aggressive');
    expect(aggressive.metricsAfter.t_count).toBeLessThan(55);
    expect(aggressive.metricsAfter.target_total).toBeLessThanOrEqual(balanced.metricsAfter.target_total);
    const steps = aggressive.proof.certificate.steps!;
    expect(steps.some((st) => st.rule === RESYNTH_PHASE_POLYNOMIAL_RULE)).toBe(true);
    expect(replayCertificate(input, { steps }, aggressive.circuit).ok).toBe(true);
  }, 120_000);
});

describe('rule resynth-phase-polynomial (the checker)', () => {
  it('accepts equal CNOT+phase lists whose terms differ only by Clifford identities, and rejects the rest', () => {
    const a = [...ccz(0, 1, 2), ...ccz(0, 1, 3)];
    const b = [gate('cx', [3, 2]), ...ccz(0, 1, 2), gate('cx', [3, 2])];
    expect(same(a, b, 4)).toBe(true);
    expect(phasePolynomialDistance(a, b)).toBeLessThan(1e-9);
    // CZ written as phases: π/2 on a, b and −π/2 on a⊕b
    const cz = [gate('cz', [0, 1])];
    const viaPhases = [gate('s', [0]), gate('s', [1]), gate('cx', [0, 1]), gate('sdg', [1]), gate('cx', [0, 1])];
    expect(same(cz, viaPhases, 2)).toBe(true);
    expect(phasePolynomialDistance(cz, viaPhases)).toBeLessThan(1e-9);
    // one T added, a CNOT left out, a gate outside the set: all refused
    expect(phasePolynomialDistance(a, [...b, gate('t', [0])])).toBe(Infinity);
    expect(phasePolynomialDistance(a, b.slice(1))).toBe(Infinity);
    expect(phasePolynomialDistance([gate('rx', [0], [0.3])], [gate('rx', [0], [0.3])])).toBe(Infinity);
    // as many H gates on both sides, or no proof
    expect(phasePolynomialDistance([gate('h', [0]), gate('h', [0])], [])).toBe(Infinity);
    expect(phasePolynomialDistance([gate('h', [0]), gate('t', [0]), gate('h', [0])], [gate('h', [0]), gate('t', [0]), gate('h', [0])])).toBe(0);
  });

  it('reads parities past the 64th path variable exactly (keys and bits of wide masks)', () => {
    // 80 H gates on two wires: the later parities have only bits above 64 (all zero in the low word)
    const ladder = (extra: (i: number) => GateOp[]) => Array.from({ length: 40 }, (_, i) => [gate('h', [0]), gate('h', [1]), gate('cx', [0, 1]), ...extra(i), gate('cx', [0, 1])]).flat();
    const a = ladder(() => [gate('t', [1]), gate('t', [1])]);
    expect(
      phasePolynomialDistance(
        a,
        ladder(() => [gate('s', [1])]),
      ),
    ).toBeLessThan(1e-9);
    // one layer's phase moved to the next layer's parity: another phase function
    const moved = ladder((i) => (i === 35 ? [] : i === 36 ? [gate('s', [1]), gate('s', [1])] : [gate('s', [1])]));
    expect(phasePolynomialDistance(a, moved)).toBe(Infinity);
    // on the first wire's parity instead of the XOR of both: refused too
    expect(
      phasePolynomialDistance(
        a,
        ladder((i) => [gate('s', [i === 37 ? 0 : 1])]),
      ),
    ).toBe(Infinity);
  });

  it('never accepts two lists with different unitaries (random CNOT/X/CZ/phase lists on 3 qubits)', () => {
    const op = fc.oneof(
      fc.tuple(fc.constantFrom('cx', 'cz', 'swap'), fc.nat(2), fc.nat(2)).filter(([, a, b]) => a !== b),
      fc.tuple(fc.constantFrom('t', 'tdg', 's', 'sdg', 'z', 'x'), fc.nat(2), fc.constant(0)),
    );
    const list = fc.array(op, { maxLength: 8 }).map((xs) => xs.map(([name, a, b]) => (['cx', 'cz', 'swap'].includes(name) ? gate(name, [a, b]) : gate(name, [a]))));
    fc.assert(
      fc.property(list, list, (a, b) => {
        const d = phasePolynomialDistance(a, b);
        expect(d < 1e-9).toBe(same(a, b, 3));
      }),
      { numRuns: 300 },
    );
    fc.assert(
      fc.property(list, (a) => {
        // a list and its own rewriting through CZ = phases always agree
        const b = a.flatMap((o) =>
          o.name === 'cz'
            ? [gate('s', [o.qubits[0]!]), gate('s', [o.qubits[1]!]), gate('cx', [o.qubits[0]!, o.qubits[1]!]), gate('sdg', [o.qubits[1]!]), gate('cx', [o.qubits[0]!, o.qubits[1]!])]
            : [o],
        );
        expect(phasePolynomialDistance(a, b)).toBeLessThan(1e-9);
      }),
      { numRuns: 100 },
    );
  });
});
