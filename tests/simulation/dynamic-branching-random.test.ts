/**
 * Property test: 60 seeded random small circuits (n ≤ 5, up to 5 clbits) with mid-circuit
 * measurements, resets and conditioned gates. The simulator's counts over 100 000 shots must lie
 * within the L1 distance of the exact distribution (branch enumeration, dynamic-enumeration.ts)
 * that Bretagnolle–Huber–Carol bounds: P(‖p̂ − p‖₁ ≥ ε) ≤ 2^K·e^{−S·ε²/2} with K = 2^clbits, so
 * with δ = 1e-9 per circuit the chance that a correct simulator fails this file for some seed
 * is below 60 · 1e-9. Every sixth circuit has no dynamic part: there the simulator reports
 * exact probabilities, which must equal the enumeration within 1e-9.
 */
import { describe, expect, it } from 'vitest';
import { circuit, conditioned, gate, measure, reset, type Circuit, type Operation } from '../../src/circuits/ir.js';
import { simulate } from '../../src/simulation/index.js';
import { SeededRng } from '../../src/simulation/rng.js';
import { exactDistribution, l1Bound, l1Distance, REFERENCE_GATES_1Q, REFERENCE_GATES_2Q, REFERENCE_ROTATIONS } from './dynamic-enumeration.js';

const CIRCUITS = 60;
const SHOTS = 100_000;
const DELTA = 1e-9;

function randomGate(rng: SeededRng, n: number) {
  const kind = rng.int(n >= 2 ? 3 : 2);
  if (kind === 0) return gate(REFERENCE_GATES_1Q[rng.int(REFERENCE_GATES_1Q.length)]!, [rng.int(n)]);
  if (kind === 1) return gate(REFERENCE_ROTATIONS[rng.int(REFERENCE_ROTATIONS.length)]!, [rng.int(n)], [(rng.next() * 2 - 1) * Math.PI]);
  const a = rng.int(n);
  let b = rng.int(n - 1);
  if (b >= a) b++;
  return gate(REFERENCE_GATES_2Q[rng.int(REFERENCE_GATES_2Q.length)]!, [a, b]);
}

function randomCircuit(rng: SeededRng, dynamic: boolean): Circuit {
  const n = 1 + rng.int(5);
  const m = 1 + rng.int(5);
  const ops: Operation[] = [];
  const len = 6 + rng.int(18);
  for (let i = 0; i < len; i++) {
    const r = rng.next();
    if (!dynamic || r < 0.45) ops.push(randomGate(rng, n));
    else if (r < 0.65) ops.push(measure(rng.int(n), rng.int(m)));
    else if (r < 0.72) ops.push(reset(rng.int(n)));
    else {
      // One or two clbits; the value sometimes out of range (never true).
      const k = m >= 2 && rng.next() < 0.4 ? 2 : 1;
      const first = rng.int(m);
      const clbits = k === 1 ? [first] : [first, (first + 1 + rng.int(m - 1)) % m];
      const value = rng.int(2 ** k + (rng.next() < 0.1 ? 1 : 0));
      ops.push(conditioned(randomGate(rng, n), { clbits, value }));
    }
  }
  // Feed-forward as in teleportation: a qubit measured and never touched again, its bit read by
  // conditioned gates on the other qubits (the measurement is needed mid-circuit all the same).
  if (dynamic && n >= 2 && rng.next() < 0.6) {
    const a = rng.int(n);
    const k = rng.int(m);
    ops.push(measure(a, k));
    for (let j = 1 + rng.int(2); j > 0; j--) {
      let g = randomGate(rng, n);
      while (g.qubits.includes(a)) g = randomGate(rng, n);
      ops.push(conditioned(g, { clbits: [k], value: rng.int(2) }));
    }
  }
  // Final measurements of some qubits (so terminal and mid-circuit writes of one clbit both occur).
  for (let q = 0; q < n; q++) if (rng.next() < 0.7) ops.push(measure(q, rng.int(m)));
  return circuit(n, m, ops);
}

describe('dynamic circuits: random circuits against exact branch enumeration', () => {
  it(`${CIRCUITS} seeded circuits: counts within the L1 bound, exact probabilities within 1e-9`, () => {
    const rng = new SeededRng(20261126);
    let exactChecked = 0;
    let dynamicChecked = 0;
    for (let t = 0; t < CIRCUITS; t++) {
      const dynamic = t % 6 !== 5;
      const c = randomCircuit(rng, dynamic);
      const exact = exactDistribution(c);
      const total = [...exact.values()].reduce((a, b) => a + b, 0);
      expect(total).toBeCloseTo(1, 12);
      const r = simulate(c, { shots: SHOTS, seed: 1000 + t });
      const bound = l1Bound(2 ** c.numClbits, SHOTS, DELTA);
      const d = l1Distance(r.counts, SHOTS, exact);
      if (d >= bound) throw new Error(`circuit ${t} (${JSON.stringify(c.ops)}): L1 ${d} ≥ ${bound}`);
      if (c.ops.some((op) => op.kind === 'conditioned')) {
        dynamicChecked++;
        expect(r.probabilitiesKind).toBe('estimated');
      }
      if (r.probabilitiesKind === 'exact') {
        exactChecked++;
        const keys = new Set([...Object.keys(r.probabilities!), ...exact.keys()]);
        for (const k of keys) expect(Math.abs((r.probabilities![k] ?? 0) - (exact.get(k) ?? 0)), `circuit ${t}, outcome ${k}`).toBeLessThan(1e-9);
      }
    }
    // The generator really produced both kinds.
    expect(dynamicChecked).toBeGreaterThanOrEqual(35);
    expect(exactChecked).toBeGreaterThanOrEqual(CIRCUITS / 6);
  });
});
