/**
 * The stabilizer method against independent references: the state-vector engine's exact
 * probabilities and expectation values on random Clifford circuits (every catalogue gate the
 * method accepts, rotations by multiples of π/2 included), and, for dynamic circuits
 * (mid-circuit measurements, resets, conditioned gates) and Pauli noise, the exact enumeration of
 * tests/simulation/dynamic-enumeration.ts; sampled counts within the Bretagnolle–Huber–Carol L1
 * bound at δ = 1e-6 (seeds fixed).
 */
import { describe, expect, it } from 'vitest';
import { circuit, conditioned, gate, measure, reset, type Operation } from '../../src/circuits/ir.js';
import { isAppError } from '../../src/errors/app-error.js';
import { customNoise, simulate } from '../../src/simulation/index.js';
import { simulateStabilizer } from '../../src/simulation/stabilizer/simulate-stabilizer.js';
import { exactDistribution, l1Bound, l1Distance } from './dynamic-enumeration.js';
import { lcg } from './textbook.js';

const Q = Math.PI / 2;
const ONE_Q = ['h', 's', 'sdg', 'x', 'y', 'z', 'sx', 'sxdg', 'id'] as const;
const ROT = ['rz', 'rx', 'ry', 'p', 'u1'] as const;
const TWO_Q = ['cx', 'cy', 'cz', 'swap', 'rzz', 'rxx', 'ryy', 'cp', 'crz', 'crx', 'cry'] as const;

function randomClifford(n: number, gates: number, rnd: () => number): Operation[] {
  const ops: Operation[] = [];
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)]!;
  const k = (): number => Math.floor(rnd() * 8) - 4;
  for (let i = 0; i < gates; i++) {
    const a = Math.floor(rnd() * n);
    let b = Math.floor(rnd() * (n - 1));
    if (b >= a) b++;
    const r = rnd();
    if (r < 0.35 || n === 1) ops.push(gate(pick(ONE_Q), [a]));
    else if (r < 0.5) ops.push(gate(pick(ROT), [a], [k() * Q]));
    else if (r < 0.6) ops.push(gate('u3', [a], [k() * Q, k() * Q, k() * Q]));
    else if (r < 0.65) ops.push(gate('u2', [a], [k() * Q, k() * Q]));
    else {
      const g = pick(TWO_Q);
      // cp/crz/crx/cry are Clifford at multiples of π; the two-qubit rotations at multiples of π/2.
      const params = g === 'cp' || g.startsWith('cr') ? [k() * 2 * Q] : g.startsWith('r') ? [k() * Q] : [];
      ops.push(gate(g, [a, b], params));
    }
  }
  return ops;
}

const measureAll = (n: number): Operation[] => Array.from({ length: n }, (_, q) => measure(q, q));

describe('stabilizer method vs the state vector', () => {
  it('gives the exact distribution of random Clifford circuits up to 14 qubits (1e-9)', () => {
    const rnd = lcg(36);
    for (let t = 0; t < 40; t++) {
      const n = 1 + (t % 14);
      const c = circuit(n, n, [...randomClifford(n, 10 + 4 * n, rnd), ...measureAll(n)]);
      const sv = simulate(c, { shots: 0, seed: 1 });
      const st = simulateStabilizer(c, { shots: 0, seed: 1 });
      expect(st.probabilitiesKind).toBe('exact');
      expect(sv.probabilitiesKind).toBe('exact');
      const keys = new Set([...Object.keys(sv.probabilities!), ...Object.keys(st.probabilities!)]);
      for (const key of keys) expect(Math.abs((sv.probabilities![key] ?? 0) - (st.probabilities![key] ?? 0))).toBeLessThan(1e-9);
    }
  });

  it('gives exact Pauli expectation values (1e-9)', () => {
    const rnd = lcg(7);
    for (let t = 0; t < 20; t++) {
      const n = 2 + (t % 10);
      const c = circuit(n, 0, randomClifford(n, 8 * n, rnd));
      const observables = Array.from({ length: 6 }, () => ({ pauli: Array.from({ length: n }, () => 'IXYZ'[Math.floor(rnd() * 4)]!).join(''), coeff: rnd() - 0.5 }));
      const sv = simulate(c, { shots: 0, seed: 1, observables });
      const st = simulateStabilizer(c, { shots: 0, seed: 1, observables });
      expect(st.expectation!.kind).toBe('exact');
      st.expectation!.terms.forEach((v, i) => expect(Math.abs(v - sv.expectation!.terms[i]!)).toBeLessThan(1e-9));
    }
  });

  it('samples counts within the L1 bound of the exact distribution at 16 qubits, as the state vector does', () => {
    const n = 16;
    const c = circuit(n, n, [...randomClifford(n, 60, lcg(99)), ...measureAll(n)]);
    const shots = 20_000;
    const st = simulateStabilizer(c, { shots, seed: 5 });
    const exact = new Map(Object.entries(st.probabilities!));
    const sv = simulate(c, { shots, seed: 5 });
    const bound = l1Bound(exact.size, shots, 1e-6);
    expect(l1Distance(st.counts, shots, exact)).toBeLessThan(bound);
    expect(l1Distance(sv.counts, shots, exact)).toBeLessThan(bound);
    expect(Object.keys(st.counts).every((k) => exact.has(k))).toBe(true);
  });
});

/** A random dynamic Clifford circuit: gates, mid-circuit measurements, resets, conditioned Paulis and (when `general`) conditioned H/S/CX. */
function randomDynamic(n: number, ops: number, rnd: () => number, general: boolean, clbits = n): Operation[] {
  const out: Operation[] = [];
  const G1 = ['h', 's', 'sdg', 'x', 'y', 'z'];
  for (let i = 0; i < ops; i++) {
    const a = Math.floor(rnd() * n);
    let b = Math.floor(rnd() * (n - 1));
    if (b >= a) b++;
    const r = rnd();
    if (r < 0.4) out.push(gate(G1[Math.floor(rnd() * G1.length)]!, [a]));
    else if (r < 0.6 && n > 1) out.push(gate(['cx', 'cz', 'swap'][Math.floor(rnd() * 3)]!, [a, b]));
    else if (r < 0.72) out.push(measure(a, Math.floor(rnd() * clbits)));
    else if (r < 0.8) out.push(reset(a));
    else {
      const cb = Math.floor(rnd() * clbits);
      const names = general ? ['x', 'z', 'y', 'h', 's'] : ['x', 'z', 'y'];
      out.push(conditioned(gate(names[Math.floor(rnd() * names.length)]!, [a]), { clbits: [cb], value: rnd() < 0.5 ? 1 : 0 }));
    }
  }
  return out;
}

describe('stabilizer method on dynamic circuits and noise', () => {
  it('samples dynamic circuits (Pauli frames, and shot by shot for conditioned Cliffords) within the L1 bound of the exact enumeration', () => {
    const rnd = lcg(2026);
    const shots = 20_000;
    for (let t = 0; t < 12; t++) {
      const n = 2 + (t % 4);
      const c = circuit(n, n, [...randomDynamic(n, 14, rnd, t % 2 === 1), ...measureAll(n).slice(0, n - 1)]);
      const exact = exactDistribution(c);
      const st = simulateStabilizer(c, { shots: t % 2 === 1 ? 4000 : shots, seed: t });
      const s = t % 2 === 1 ? 4000 : shots;
      expect(l1Distance(st.counts, s, exact)).toBeLessThan(l1Bound(exact.size, s, 1e-6));
    }
  });

  it('agrees with the state-vector engine on 12- and 16-qubit dynamic circuits (two-sample L1 bound, 6 clbits)', () => {
    const rnd = lcg(12);
    const shots = 20_000;
    for (const n of [12, 16]) {
      const ops = [...randomClifford(n, 3 * n, rnd), ...randomDynamic(n, 40, rnd, false, 6), ...Array.from({ length: 6 }, (_, q) => measure(q, q))];
      const c = circuit(n, 6, ops);
      const st = simulateStabilizer(c, { shots, seed: 21 });
      const sv = simulate(c, { shots, seed: 22 });
      // Each sample is within the bound of the true distribution except with probability 1e-6, so the two within twice it.
      expect(l1Distance(st.counts, shots, new Map(Object.entries(sv.counts).map(([k, v]) => [k, v / shots])))).toBeLessThan(2 * l1Bound(64, shots, 1e-6));
    }
  });

  it('applies depolarizing noise and readout error on the frames (L1 bound against the exact enumeration with noise)', () => {
    const noise = customNoise({ depolarizing1q: 0.08, readout: [0.05, 0.05] });
    const rnd = lcg(4);
    const shots = 40_000;
    for (let t = 0; t < 4; t++) {
      const n = 3;
      const ops: Operation[] = [gate('h', [0]), gate('cx', [0, 1]), gate('s', [1]), gate('h', [2]), measure(2, 2), conditioned(gate('x', [1]), { clbits: [2], value: 1 }), gate('h', [1])];
      if (t > 1) ops.push(...randomDynamic(n, 3, rnd, false).filter((o) => o.kind === 'gate'));
      const c = circuit(n, n, [...ops, measure(0, 0), measure(1, 1)]);
      const exact = exactDistribution(c, { depolarizing1q: 0.08, readout: [0.05, 0.05] });
      const st = simulateStabilizer(c, { shots, seed: 11 + t, noise });
      expect(l1Distance(st.counts, shots, exact)).toBeLessThan(l1Bound(exact.size, shots, 1e-6));
    }
  });

  it('refuses a non-Clifford gate naming its path and the methods that run it', () => {
    const c = circuit(2, 0, [gate('h', [0]), gate('rz', [1], [0.3])]);
    try {
      simulateStabilizer(c, { shots: 1 });
      expect.unreachable();
    } catch (e) {
      expect(isAppError(e) && e.code).toBe('SIMULATION_NOT_CLIFFORD');
      expect(isAppError(e) && e.statusCode).toBe(422);
      expect(JSON.stringify(isAppError(e) ? e.details : null)).toContain('/circuit/gates/1');
      expect(isAppError(e) && e.message).toContain('statevector');
    }
    // A multiple of π/2 up to float noise is Clifford; T is not.
    expect(simulateStabilizer(circuit(1, 1, [gate('rz', [0], [Math.PI / 2 + 1e-16]), measure(0, 0)]), { shots: 10, seed: 1 }).counts).toEqual({ '0': 10 });
    expect(() => simulateStabilizer(circuit(1, 0, [gate('t', [0])]), { shots: 1 })).toThrow(/not a Clifford/);
  });

  it('runs a 5 000-qubit GHZ state: all zeros or all ones, about half each', () => {
    const n = 5000;
    const ops: Operation[] = [gate('h', [0])];
    for (let q = 1; q < n; q++) ops.push(gate('cx', [q - 1, q]));
    const r = simulateStabilizer(circuit(n, n, [...ops, ...measureAll(n)]), { shots: 1000, seed: 3 });
    const keys = Object.keys(r.counts).sort();
    expect(keys).toEqual(['0'.repeat(n), '1'.repeat(n)]);
    expect(Math.abs(r.counts['0'.repeat(n)]! - 500)).toBeLessThan(100);
  });
});
