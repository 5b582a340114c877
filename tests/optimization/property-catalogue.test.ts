import { describe, expect, it } from 'vitest';
import { GATES } from '../../src/circuits/gates.js';
import { circuit, gate, measure, reset, type Circuit, type GateOp, type Operation } from '../../src/circuits/ir.js';
import { DEVICES, type DeviceSpec } from '../../src/devices/device-catalogue.js';
import { isAppError } from '../../src/errors/app-error.js';
import { optimizeCircuit, type Profile } from '../../src/optimization/optimize.js';
import type { BackendHint } from '../../src/optimization/target.js';
import { gateMatrixOf } from './helpers/matrix.js';

/**
 * Random circuits over the whole catalogue with odd angles (tiny, near multiples of 2π, huge),
 * through every profile × backend hint (and a device), with the real checker. Every answer is
 * compared with the input by a state-vector simulator written here (independent of
 * src/simulation): unitary circuits on random input states up to one global phase, circuits
 * with mid-circuit measurement by their exact distribution of classical outcomes.
 * OPT_PROPERTY_RUNS (circuits), OPT_PROPERTY_QUBITS (widest circuit) and OPT_PROPERTY_SEED widen or move the run.
 */
const RUNS = Number(process.env['OPT_PROPERTY_RUNS'] ?? 24);
const SEED = Number(process.env['OPT_PROPERTY_SEED'] ?? 23);
/** Widest circuit; above 12 qubits the checker proves by path sums instead of whole unitaries. */
const MAX_QUBITS = Number(process.env['OPT_PROPERTY_QUBITS'] ?? 5);

function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const TAU = 2 * Math.PI;
const ODD = [1e-7, -1e-7, 1e-9, 1.5e-9, -1.5e-9, 1e-12, 5e-11, 3e-10];
function angle(r: () => number): number {
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(r() * xs.length)]!;
  switch (Math.floor(r() * 6)) {
    case 0:
      return pick(ODD);
    case 1:
      return Math.round(r() * 8 - 4) * TAU + pick([...ODD, 0]);
    case 2:
      return pick([1e16, -1e16, 1e7 + 0.3, -3e9, 1e300, 2 ** 23 + 0.5]);
    case 3:
      return (Math.round(r() * 16 - 8) * Math.PI) / 4;
    case 4:
      return (Math.round(r() * 16 - 8) * Math.PI) / 4 + pick(ODD);
    default:
      return (r() * 2 - 1) * 4 * Math.PI;
  }
}

const NAMES = [...GATES.keys()];

function randomCircuit(r: () => number, mid: boolean): Circuit {
  const n = 1 + Math.floor(r() * MAX_QUBITS);
  const names = NAMES.filter((g) => GATES.get(g)!.arity <= n);
  const ops: Operation[] = [];
  const len = 1 + Math.floor(r() * 22);
  for (let i = 0; i < len; i++) {
    if (mid && r() < 0.15) {
      const q = Math.floor(r() * n);
      ops.push(r() < 0.7 ? measure(q, Math.floor(r() * 2)) : reset(q));
      continue;
    }
    const name = names[Math.floor(r() * names.length)]!;
    const spec = GATES.get(name)!;
    const qs = [...Array(n).keys()].sort(() => r() - 0.5).slice(0, spec.arity);
    ops.push(
      gate(
        name,
        qs,
        [...Array(spec.params)].map(() => angle(r)),
      ),
    );
  }
  return circuit(n, mid ? 2 : 0, ops);
}

// ---------- the reference simulator (qubit 0 is the most significant bit of an index) ----------

interface State {
  re: Float64Array;
  im: Float64Array;
}

function applyGate(s: State, op: GateOp, n: number): void {
  const m = gateMatrixOf(op);
  const k = op.qubits.length;
  const dk = 1 << k;
  const shifts = op.qubits.map((q) => n - 1 - q);
  const mask = shifts.reduce((acc, sh) => acc | (1 << sh), 0);
  const idx = new Array<number>(dk);
  const vr = new Float64Array(dk);
  const vi = new Float64Array(dk);
  for (let base = 0; base < 1 << n; base++) {
    if (base & mask) continue;
    for (let j = 0; j < dk; j++) {
      let x = base;
      for (let t = 0; t < k; t++) if ((j >> (k - 1 - t)) & 1) x |= 1 << shifts[t]!;
      idx[j] = x;
      vr[j] = s.re[x]!;
      vi[j] = s.im[x]!;
    }
    for (let i = 0; i < dk; i++) {
      let a = 0;
      let b = 0;
      for (let j = 0; j < dk; j++) {
        const mr = m.re[i * dk + j]!;
        const mi = m.im[i * dk + j]!;
        a += mr * vr[j]! - mi * vi[j]!;
        b += mr * vi[j]! + mi * vr[j]!;
      }
      s.re[idx[i]!] = a;
      s.im[idx[i]!] = b;
    }
  }
}

function randomState(r: () => number, n: number): State {
  const d = 1 << n;
  const s = { re: new Float64Array(d), im: new Float64Array(d) };
  let norm = 0;
  for (let i = 0; i < d; i++) {
    s.re[i] = r() - 0.5;
    s.im[i] = r() - 0.5;
    norm += s.re[i]! ** 2 + s.im[i]! ** 2;
  }
  for (let i = 0; i < d; i++) {
    s.re[i]! /= Math.sqrt(norm);
    s.im[i]! /= Math.sqrt(norm);
  }
  return s;
}

/** ‖a − e^{iφ}b‖ with the best φ. */
function phaseDistance(a: State, b: State): number {
  let pr = 0;
  let pi = 0;
  for (let i = 0; i < a.re.length; i++) {
    pr += b.re[i]! * a.re[i]! + b.im[i]! * a.im[i]!;
    pi += b.re[i]! * a.im[i]! - b.im[i]! * a.re[i]!;
  }
  const n = Math.hypot(pr, pi) || 1;
  let sum = 0;
  for (let i = 0; i < a.re.length; i++) {
    const xr = (pr * b.re[i]! - pi * b.im[i]!) / n;
    const xi = (pr * b.im[i]! + pi * b.re[i]!) / n;
    sum += (a.re[i]! - xr) ** 2 + (a.im[i]! - xi) ** 2;
  }
  return Math.sqrt(sum);
}

/** Unitary circuits: the same unitary up to one global phase, tested on two random states. */
function sameUnitary(a: Circuit, b: Circuit, r: () => number): boolean {
  for (let t = 0; t < 2; t++) {
    const s0 = randomState(r, a.numQubits);
    const sa = { re: s0.re.slice(), im: s0.im.slice() };
    const sb = { re: s0.re.slice(), im: s0.im.slice() };
    for (const op of a.ops) if (op.kind === 'gate') applyGate(sa, op, a.numQubits);
    for (const op of b.ops) if (op.kind === 'gate') applyGate(sb, op, b.numQubits);
    if (phaseDistance(sa, sb) > 1e-7) return false;
  }
  return true;
}

/** Exact distribution of the final classical register from |0…0⟩, branching at every measurement. */
function outcomes(c: Circuit): Map<number, number> {
  const d = 1 << c.numQubits;
  const out = new Map<number, number>();
  const run = (s: State, from: number, bits: number, p: number) => {
    if (p < 1e-14) return;
    for (let i = from; i < c.ops.length; i++) {
      const op = c.ops[i]!;
      if (op.kind === 'gate') {
        applyGate(s, op, c.numQubits);
        continue;
      }
      if (op.kind === 'barrier') continue;
      if (op.kind === 'conditioned') throw new Error('the catalogue property test has no dynamic circuits');
      const sh = c.numQubits - 1 - op.qubit;
      let p1 = 0;
      for (let x = 0; x < d; x++) if ((x >> sh) & 1) p1 += s.re[x]! ** 2 + s.im[x]! ** 2;
      for (const bit of [0, 1]) {
        const pb = bit ? p1 : 1 - p1;
        if (pb < 1e-14) continue;
        const t = { re: new Float64Array(d), im: new Float64Array(d) };
        for (let x = 0; x < d; x++) {
          if (((x >> sh) & 1) !== bit) continue;
          // reset: the kept branch is moved to |0⟩ on the qubit
          const y = op.kind === 'reset' ? x & ~(1 << sh) : x;
          t.re[y] = s.re[x]! / Math.sqrt(pb);
          t.im[y] = s.im[x]! / Math.sqrt(pb);
        }
        const nb = op.kind === 'measure' ? (bits & ~(1 << op.clbit)) | (bit << op.clbit) : bits;
        run(t, i + 1, nb, p * pb);
      }
      return;
    }
    out.set(bits, (out.get(bits) ?? 0) + p);
  };
  const s = { re: new Float64Array(d), im: new Float64Array(d) };
  s.re[0] = 1;
  run(s, 0, 0, 1);
  return out;
}

function sameOutcomes(a: Circuit, b: Circuit): boolean {
  const x = outcomes(a);
  const y = outcomes(b);
  for (const k of new Set([...x.keys(), ...y.keys()])) if (Math.abs((x.get(k) ?? 0) - (y.get(k) ?? 0)) > 1e-7) return false;
  return true;
}

/**
 * The device can take the circuit: enough qubits (routing borrows device wires when the circuit's own
 * are not connected there), on a coupling map that connects them all.
 */
function largeEnough(d: DeviceSpec, n: number): boolean {
  if (n > d.numQubits) return false;
  if (!d.couplingMap) return true;
  const seen = new Set([0]);
  const stack = [0];
  while (stack.length) {
    const x = stack.pop()!;
    for (const [a, b] of d.couplingMap) {
      const y = a === x ? b : b === x ? a : -1;
      if (y >= 0 && !seen.has(y)) {
        seen.add(y);
        stack.push(y);
      }
    }
  }
  return seen.size === d.numQubits;
}

/** The input on as many wires as the answer (borrowed device wires are idle in the input). */
const padTo = (c: Circuit, width: number): Circuit => (width === c.numQubits ? c : circuit(width, c.numClbits, c.ops));

const PROFILES: Profile[] = ['safe', 'balanced', 'aggressive'];
const HINTS: BackendHint[] = ['generic', 'provider-one', 'provider-two'];
const HARDWARE = DEVICES.filter((d) => d.kind === 'hardware');

describe(`optimizer property: whole catalogue, odd angles, every profile × hint (${RUNS} circuits per kind, seed ${SEED})`, () => {
  it('5-qubit circuits on p1-falcon-7 (wire 4 reaches the others only through 5): answered on borrowed wires, equivalent', () => {
    const r = rng(SEED + 2);
    let borrowed = 0;
    for (let k = 0; k < Math.max(2, RUNS / 8); k++) {
      const ops = randomCircuit(r, false).ops.filter((o) => o.kind === 'gate');
      // at least one gate joins wire 4 to the rest
      const c = circuit(5, 0, [...ops.map((o) => o).filter((o) => o.qubits.every((q) => q < 5)), gate('cx', [4, 0])]);
      for (const profile of PROFILES) {
        const res = optimizeCircuit(c, { profile, backendHint: 'provider-one', device: 'p1-falcon-7' });
        if (res.circuit.numQubits > 5) borrowed++;
        expect(sameUnitary(padTo(c, res.circuit.numQubits), res.circuit, r)).toBe(true);
      }
    }
    expect(borrowed).toBeGreaterThan(0);
  });

  for (const mid of [false, true]) {
    it(
      mid
        ? 'with mid-circuit measurement and reset: 0 UNVERIFIED, answers keep the outcome distribution'
        : 'unitary circuits: 0 UNVERIFIED, 0 TARGET_UNSUPPORTED on devices large enough, every answer equivalent',
      () => {
        const r = rng(SEED + (mid ? 1 : 0));
        const tally = { runs: 0, answered: 0, unverified: 0, unsupported: 0 };
        const failures: string[] = [];
        for (let k = 0; k < RUNS; k++) {
          const c = randomCircuit(r, mid);
          const device = HARDWARE[k % HARDWARE.length]!;
          const targets: [BackendHint, string | undefined][] = [...HINTS.map((h) => [h, undefined] as [BackendHint, undefined]), [device.provider, device.id]];
          for (const profile of PROFILES) {
            for (const [hint, dev] of targets) {
              tally.runs++;
              const what = `${profile}/${dev ?? hint}: ${JSON.stringify(c.ops)}`;
              try {
                const res = optimizeCircuit(c, { profile, backendHint: hint, ...(dev ? { device: dev } : {}) });
                tally.answered++;
                const ref = padTo(c, res.circuit.numQubits);
                const ok = res.circuit.numQubits >= c.numQubits && (mid ? sameOutcomes(ref, res.circuit) : sameUnitary(ref, res.circuit, r));
                if (!ok) failures.push(`not equivalent: ${what}`);
              } catch (e) {
                if (!isAppError(e)) throw e;
                if (e.code === 'OPTIMIZATION_UNVERIFIED') {
                  tally.unverified++;
                  failures.push(`UNVERIFIED (${JSON.stringify(e.details)}): ${what}`);
                } else if (e.code === 'OPTIMIZATION_TARGET_UNSUPPORTED') {
                  tally.unsupported++;
                  if (!dev || largeEnough(device, c.numQubits)) failures.push(`TARGET_UNSUPPORTED (${e.message}): ${what}`);
                } else failures.push(`${e.code}: ${what}`);
              }
            }
          }
        }
        if (process.env['OPT_PROPERTY_DEBUG'] !== undefined) console.log(mid ? 'mid-circuit' : 'unitary', tally);
        expect(failures.slice(0, 5)).toEqual([]);
        expect(tally.answered).toBeGreaterThan(tally.runs * 0.8);
      },
      60_000 + RUNS * 4_000,
    );
  }
});
