/**
 * The IonQ native-gate writer (IONQ_GATESET=native): for random circuits over the remote
 * device's gate set, the native circuit — read with IonQ's published GPI, GPI2, MS and ZZ
 * definitions (the matrices of qiskit-ionq's ionq_gates.py, written independently here) — times
 * the dropped final Z rotations equals the original circuit's unitary up to global phase, with MS
 * (Aria's family) and with ZZ (Forte's); and the fake accepts what the driver sends.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { circuit, gate, measure, type Operation } from '../../src/circuits/ir.js';
import { deviceProfile } from '../../src/devices/device-catalogue.js';
import { IonqDriver } from '../../src/execution/adapters/ionq-driver.js';
import { ionqTwoQubitNative, toIonqNativeInput, type IonqTwoQubitNative } from '../../src/execution/adapters/ionq-native.js';
import { embed, gateMatrix, identity, matmul, type DenseMatrix } from '../../src/simulation/gate-matrices.js';
import { FakeIonq } from './fakes/ionq-v04-fake.js';

const TAU = 2 * Math.PI;
const m = (k: number, entries: Array<[number, number]>): DenseMatrix => ({ k, re: Float64Array.from(entries.map((e) => e[0])), im: Float64Array.from(entries.map((e) => e[1])) });
const cis = (t: number): [number, number] => [Math.cos(t), Math.sin(t)];
const times = (a: [number, number], s: [number, number]): [number, number] => [a[0] * s[0] - a[1] * s[1], a[0] * s[1] + a[1] * s[0]];

/** IonQ's definitions (phases in turns). */
const GPI = (p: number) => m(1, [[0, 0], cis(-TAU * p), cis(TAU * p), [0, 0]]);
const GPI2 = (p: number) => {
  const r = Math.SQRT1_2;
  return m(1, [[r, 0], times([0, -r], cis(-TAU * p)), times([0, -r], cis(TAU * p)), [r, 0]]);
};
/** MS(φ0, φ1) = (I − i σφ0 ⊗ σφ1)/√2; local bit 0 ↔ targets[0], bit 1 ↔ targets[1]. */
const MS = (p0: number, p1: number): DenseMatrix => {
  const sigma = (p: number, r: number, c: number): [number, number] => (r === c ? [0, 0] : r === 0 ? cis(-TAU * p) : cis(TAU * p));
  const entries: Array<[number, number]> = [];
  for (let r = 0; r < 4; r++)
    for (let c = 0; c < 4; c++) {
      const s = times(sigma(p0, r & 1, c & 1), sigma(p1, r >> 1, c >> 1));
      entries.push([((r === c ? 1 : 0) + s[1]) * Math.SQRT1_2, -s[0] * Math.SQRT1_2]);
    }
  return m(2, entries);
};

/** ZZ(θ) = diag(e^{-iπθ}, e^{iπθ}, e^{iπθ}, e^{-iπθ}), θ in turns (symmetric in its two qubits). */
const ZZ = (theta: number): DenseMatrix => {
  const d = [cis(-Math.PI * theta), cis(Math.PI * theta), cis(Math.PI * theta), cis(-Math.PI * theta)];
  const entries: Array<[number, number]> = [];
  for (let r = 0; r < 4; r++) for (let c = 0; c < 4; c++) entries.push(r === c ? d[r]! : [0, 0]);
  return m(2, entries);
};

function sameUpToPhase(a: DenseMatrix, b: DenseMatrix): boolean {
  let k = 0;
  for (let i = 0; i < b.re.length; i++) if (Math.hypot(b.re[i]!, b.im[i]!) > Math.hypot(b.re[k]!, b.im[k]!)) k = i;
  const den = b.re[k]! ** 2 + b.im[k]! ** 2;
  const ph: [number, number] = [(a.re[k]! * b.re[k]! + a.im[k]! * b.im[k]!) / den, (a.im[k]! * b.re[k]! - a.re[k]! * b.im[k]!) / den];
  if (Math.abs(Math.hypot(...ph) - 1) > 1e-9) return false;
  for (let i = 0; i < b.re.length; i++) {
    const [x, y] = times([b.re[i]!, b.im[i]!], ph);
    if (Math.abs(x - a.re[i]!) > 1e-9 || Math.abs(y - a.im[i]!) > 1e-9) return false;
  }
  return true;
}

const ONE_Q = ['x', 'y', 'z', 'h', 's', 'sdg', 't', 'tdg', 'sx', 'sxdg'];
const ROT = ['rx', 'ry', 'rz'];

function randomOps(n: number, count: number, rnd: () => number): Operation[] {
  const ops: Operation[] = [];
  for (let i = 0; i < count; i++) {
    const q = Math.floor(rnd() * n);
    const pick = rnd();
    if (pick < 0.35) ops.push(gate(ONE_Q[Math.floor(rnd() * ONE_Q.length)]!, [q]));
    else if (pick < 0.6) ops.push(gate(ROT[Math.floor(rnd() * ROT.length)]!, [q], [(rnd() - 0.5) * 8]));
    else {
      const t = (q + 1 + Math.floor(rnd() * (n - 1))) % n;
      ops.push(gate(rnd() < 0.8 ? 'cx' : 'swap', [q, t]));
    }
  }
  return ops;
}

describe('IonQ native gate set (gpi, gpi2, ms with virtual Z)', () => {
  it.each(['ms', 'zz'] as IonqTwoQubitNative[])('random circuits with %s: native × final Z = original, up to global phase', (twoQubit) => {
    let seed = 12345;
    const rnd = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    for (let trial = 0; trial < 40; trial++) {
      const n = 1 + (trial % 3);
      const ops = n === 1 ? randomOps(1, 8, rnd).filter((o) => o.kind === 'gate' && o.qubits.length === 1) : randomOps(n, 10, rnd);
      const c = circuit(n, 0, ops);
      let want = identity(n);
      for (const op of ops) if (op.kind === 'gate') want = matmul(embed(gateMatrix(op.name, op.params)!, op.qubits, n), want);
      const { input, finalZ } = toIonqNativeInput(c, twoQubit);
      let got = identity(n);
      for (const g of input.circuit) {
        const u =
          g['gate'] === 'gpi'
            ? GPI(g['phase'] as number)
            : g['gate'] === 'gpi2'
              ? GPI2(g['phase'] as number)
              : g['gate'] === 'zz'
                ? ZZ(g['angle'] as number)
                : MS(...(g['phases'] as [number, number]));
        const on = g['gate'] === 'ms' || g['gate'] === 'zz' ? (g['targets'] as number[]) : [g['target'] as number];
        got = matmul(embed(u, on, n), got);
      }
      finalZ.forEach((z, q) => (got = matmul(embed(gateMatrix('rz', [z])!, [q], n), got)));
      expect(sameUpToPhase(got, want), `trial ${trial}: ${ops.map((o) => (o.kind === 'gate' ? `${o.name}${JSON.stringify(o.qubits)}` : '')).join(' ')}`).toBe(true);
      for (const g of input.circuit) expect(['gpi', 'gpi2', twoQubit]).toContain(g['gate']);
    }
  });

  it('the two-qubit native gate follows the backend family (qiskit-ionq: Aria MS, Forte and Tempo ZZ; the backend list wins when it says)', () => {
    expect(ionqTwoQubitNative('qpu.forte-1')).toBe('zz');
    expect(ionqTwoQubitNative('qpu.forte-enterprise-1')).toBe('zz');
    expect(ionqTwoQubitNative('qpu.aria-1')).toBe('ms');
    expect(ionqTwoQubitNative('simulator')).toBe('ms');
    expect(ionqTwoQubitNative('simulator', 'forte-1')).toBe('zz');
    expect(ionqTwoQubitNative('qpu.new-1', undefined, ['gpi', 'gpi2', 'zz'])).toBe('zz');
    expect(ionqTwoQubitNative('qpu.forte-1', undefined, ['gpi', 'gpi2', 'ms'])).toBe('ms');
  });

  it('Z-type gates cost nothing (virtual); X is one GPI; a CNOT is one MS', () => {
    const { input } = toIonqNativeInput(circuit(2, 2, [gate('rz', [0], [0.3]), gate('t', [1]), gate('x', [0]), gate('cx', [0, 1]), measure(0, 0), measure(1, 1)]));
    expect(input.circuit.map((g) => g['gate'])).toEqual(['gpi', 'gpi2', 'ms', 'gpi2', 'gpi2', 'gpi2']);
    expect(input.qubits).toBe(2);
  });

  describe('the driver with IONQ_GATESET=native', () => {
    const fake = new FakeIonq();
    beforeAll(async () => fake.start());
    afterAll(async () => fake.close());

    it('sends a native-gate job the v0.4 fake accepts', async () => {
      const d = new IonqDriver({ baseUrl: fake.baseUrl, apiKey: 'test-key', target: 'qpu.forte-1', timeoutMs: 5000, gateset: 'native' });
      const bell = circuit(2, 2, [gate('h', [0]), gate('cx', [0, 1]), measure(0, 0), measure(1, 1)]);
      const sub = await d.submit({ jobId: 'native-1', device: deviceProfile('p2-ionq-qpu')!, circuit: bell, shots: 10, seed: 1 });
      expect(sub.state).toBe('pending');
      expect(fake.jobs.get((sub as { remoteJobId: string }).remoteJobId)!.body['input']).toMatchObject({ gateset: 'native', qubits: 2 });
    });
  });
});
