import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { circuit, conditioned, gate, measure, opQubits, reset, type Circuit, type Operation } from '../../src/circuits/ir.js';
import { parseCircuitInput } from '../../src/circuits/wire-format.js';
import type { App } from '../../src/http/app-types.js';
import { optimizeCircuit } from '../../src/optimization/optimize.js';
import { planSegments } from '../../src/optimization/segments.js';
import { replayCertificate } from '../../src/verification/certificate-replay.js';
import { buildTestApp } from '../helpers/app.js';
import { branches, distance } from '../helpers/dynamic-branches.js';

function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const ONE = ['h', 'x', 'z', 's', 'sdg', 't', 'tdg'];

/** A random 3-qubit dynamic circuit with cancellation chances around its conditioned gates. */
function randomDynamic(r: () => number): Circuit {
  const n = 3;
  const nc = 4;
  const ops: Operation[] = [];
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!;
  const len = 14 + Math.floor(r() * 14);
  for (let i = 0; i < len; i++) {
    const x = r();
    const q = Math.floor(r() * n);
    const other = (q + 1 + Math.floor(r() * (n - 1))) % n;
    if (x < 0.38) ops.push(gate(pick(ONE), [q]));
    else if (x < 0.48) ops.push(gate('rz', [q], [(Math.floor(r() * 8) * Math.PI) / 4 + (r() < 0.3 ? 0.1 : 0)]));
    else if (x < 0.62) ops.push(gate(pick(['cx', 'cz']), [q, other]));
    else if (x < 0.74) ops.push(measure(q, Math.floor(r() * nc)));
    else if (x < 0.78) ops.push(reset(q));
    else {
      const bits = r() < 0.7 ? [Math.floor(r() * nc)] : [0, 1 + Math.floor(r() * (nc - 1))];
      const g = r() < 0.75 ? gate(pick(ONE), [q]) : gate('cx', [q, other]);
      ops.push(conditioned(g, { clbits: bits, value: Math.floor(r() * 2 ** bits.length) }));
      // the same gate again right after, unconditioned, or its inverse: tempting to merge across
      if (r() < 0.5 && g.qubits.length === 1) ops.push(gate(g.name, g.qubits));
    }
  }
  return circuit(n, nc, ops);
}

const onWire = (ops: readonly Operation[], q: number) => ops.filter((o) => o.kind === 'conditioned' && opQubits(o).includes(q));

describe('the optimizer on dynamic circuits (exact branch enumeration)', () => {
  for (const profile of ['safe', 'balanced', 'aggressive'] as const) {
    it(`${profile}: 40 random circuits keep every branch's state and record; conditioned gates stay, in order`, () => {
      const r = rng(profile.length * 7919);
      let reduced = 0;
      for (let k = 0; k < 40; k++) {
        const c = randomDynamic(r);
        const res = optimizeCircuit(c, { profile });
        if (res.metricsAfter.total < res.metricsBefore.total) reduced++;
        expect(distance(branches(c), branches(res.circuit)), `circuit ${k}: ${JSON.stringify(c.ops)}`).toBeLessThan(1e-7);
        for (let q = 0; q < c.numQubits; q++) expect(onWire(res.circuit.ops, q)).toEqual(onWire(c.ops, q));
        expect(replayCertificate(c, { steps: res.proof.certificate.steps ?? [] }, res.circuit).ok).toBe(true);
      }
      // the property is not vacuous: most circuits were made smaller
      expect(reduced).toBeGreaterThan(20);
    });
  }

  it('the evaluator tells a conditioned gate from its absence and from the unconditioned gate', () => {
    const base = [gate('h', [0]), measure(0, 0)];
    const withIf = circuit(2, 1, [...base, conditioned(gate('x', [1]), { clbits: [0], value: 1 })]);
    expect(distance(branches(withIf), branches(circuit(2, 1, base)))).toBeGreaterThan(0.1);
    expect(distance(branches(withIf), branches(circuit(2, 1, [...base, gate('x', [1])])))).toBeGreaterThan(0.1);
    // moving the conditioned gate before the measurement it reads changes the outcome too
    expect(distance(branches(withIf), branches(circuit(2, 1, [gate('h', [0]), conditioned(gate('x', [1]), { clbits: [0], value: 1 }), measure(0, 0)])))).toBeGreaterThan(0.1);
  });

  it('the segment plan keeps a conditioned gate after the measurement of its bits and before the next one', () => {
    const ops = [gate('h', [0]), measure(0, 0), gate('x', [2]), gate('x', [2]), conditioned(gate('x', [1]), { clbits: [0], value: 1 }), measure(2, 0), gate('h', [1])];
    const plan = planSegments(ops)!;
    const order = plan.order;
    const at = (i: number) => order.indexOf(i);
    expect(at(1)).toBeLessThan(at(4));
    expect(at(4)).toBeLessThan(at(5));
    expect(at(4)).toBeLessThan(at(6));
  });

  it('the replayer refuses a reorder that moves a conditioned gate before the measurement of its bit, and a step that rewrites it', () => {
    const c = circuit(2, 1, [measure(0, 0), conditioned(gate('x', [1]), { clbits: [0], value: 1 })]);
    const reorder = { rule: 'reorder', positions: [], replaced: [], inserted: [], order: [1, 0] };
    const r = replayCertificate(c, { steps: [reorder] });
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.reason).toMatch(/wire c0/);
    const drop = { rule: 'cancel-self-inverse', positions: [1], replaced: [c.ops[1]!], inserted: [] };
    const d = replayCertificate(c, { steps: [drop] });
    expect(d.ok).toBe(false);
  });
});

let app: App;
beforeAll(async () => {
  app = await buildTestApp();
});
afterAll(async () => {
  await app.close();
});

describe('POST /v1/circuits/optimize with conditioned gates', () => {
  const source = `OPENQASM 3.0;
include "stdgates.inc";
qubit[3] q;
bit[2] c;
h q[0];
c[0] = measure q[0];
h q[1];
if (c[0]) x q[1];
h q[1];
t q[2];
if (c == 1) z q[0];
tdg q[2];
x q[2];
x q[2];
`;
  for (const profile of ['safe', 'balanced', 'aggressive'] as const) {
    it(`${profile}: gates on other qubits are optimized, nothing crosses the conditioned gates on theirs`, async () => {
      const res = await app.inject({ method: 'POST', url: '/v1/circuits/optimize', payload: { circuit: { format: 'qasm3', source }, profile, output_format: 'qasm3' } });
      expect(res.statusCode).toBe(200);
      const data = res.json().data;
      expect(data.proof.verified).toBe(true);
      const parsed = parseCircuitInput(data.circuit);
      expect(parsed.ok).toBe(true);
      if (!parsed.ok) return;
      const ops = parsed.circuit.ops;
      // qubit 2: t·tdg and x·x cancel (no conditioned gate there)
      expect(ops.filter((o) => opQubits(o).includes(2))).toEqual([]);
      // qubit 1: h, if x, h — the h's are not merged across the conditioned x
      expect(ops.filter((o) => opQubits(o).includes(1))).toEqual([gate('h', [1]), conditioned(gate('x', [1]), { clbits: [0], value: 1 }), gate('h', [1])]);
      // qubit 0: h, measure, the conditioned z after it
      expect(ops.filter((o) => opQubits(o).includes(0))).toEqual([gate('h', [0]), measure(0, 0), conditioned(gate('z', [0]), { clbits: [0, 1], value: 1 })]);
      expect(data.qasm).toContain('if (c[0]) x q[1];');
      expect(data.qasm).toContain('if (c == 1) z q[0];');
      expect(distance(branches(parsed.circuit), branches(parseCircuitInput({ format: 'qasm3', source }).ok ? (parseCircuitInput({ format: 'qasm3', source }) as { circuit: Circuit }).circuit : parsed.circuit))).toBeLessThan(1e-9);
    });
  }
});
