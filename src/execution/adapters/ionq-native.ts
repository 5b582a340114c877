/**
 * The translated circuit in IonQ's native gate set (`input.gateset: "native"`, API v0.4):
 *   GPI(φ)  = [[0, e^{-2πiφ}], [e^{2πiφ}, 0]]                 (a π rotation about the axis at φ turns)
 *   GPI2(φ) = 1/√2 [[1, -i e^{-2πiφ}], [-i e^{2πiφ}, 1]]      (a π/2 rotation about that axis)
 *   MS(φ0, φ1) = exp(-i π/4 σ_{φ0} ⊗ σ_{φ1})                  (fully entangling, phases in turns, φi on targets[i])
 *   ZZ(θ)   = exp(-i π θ Z ⊗ Z)                                (θ in turns, sent as `angle`; Forte's two-qubit gate)
 * The two-qubit gate is the backend family's (qiskit-ionq's rule: Aria runs MS, Forte and Tempo
 * run ZZ; see `ionqTwoQubitNative`). Z rotations are virtual: each qubit keeps a frame offset; a later GPI/GPI2/MS on it has its
 * phase shifted by −offset (RZ(−o)·σ_φ·RZ(o) = σ_{φ−o}), and the Z rotations left at the end
 * are dropped (IonQ measures in Z, which they do not change). Any other one-qubit gate is
 * written RZ(λ)·RX(π/2)·RZ(θ+π)·RX(π/2)·RZ(φ+π) from its U3(θ, φ, λ) angles (two GPI2s);
 * CNOT(c, t) = RY(π/2)_c, MS(0, 0), RX(−π/2)_c, RX(−π/2)_t, RY(−π/2)_c in time order; with ZZ,
 * CNOT(c, t) = H_t, ZZ(1/4), RZ(−π/2)_c, RZ(−π/2)_t, H_t (CZ = e^{iπ/4}·RZ⊗RZ(−π/2)·ZZ(1/4); ZZ is
 * diagonal, so the virtual frames pass through it unchanged); SWAP is three CNOTs. Equivalence is checked in tests/execution/ionq-native.test.ts.
 */
import type { Circuit } from '../../circuits/ir.js';
import { gateMatrix } from '../../simulation/gate-matrices.js';

const TAU = 2 * Math.PI;
const EPS = 1e-12;

export interface IonqNativeInput {
  readonly gateset: 'native';
  readonly qubits: number;
  readonly circuit: Record<string, unknown>[];
}

/** Turns in [0, 1), rounded to 1e-12 so the JSON stays short and exact-looking. */
const turns = (rad: number): number => {
  const t = (((rad / TAU) % 1) + 1) % 1;
  const r = Math.round(t * 1e12) / 1e12;
  return r >= 1 ? 0 : r;
};

export type IonqTwoQubitNative = 'ms' | 'zz';

/**
 * The native two-qubit gate of an IonQ backend: the backend's own `supported_native_gates` when
 * GET /backends gives them (zz when listed, else ms), else its family by name (qpu.aria-* → ms;
 * qpu.forte-*, qpu.tempo-* → zz). The simulator follows its noise model's family and is ms when
 * ideal, as qiskit-ionq does.
 */
export function ionqTwoQubitNative(target: string, noiseModel?: string, supportedNativeGates?: readonly string[]): IonqTwoQubitNative {
  if (supportedNativeGates !== undefined && supportedNativeGates.length > 0) return supportedNativeGates.includes('zz') ? 'zz' : 'ms';
  const family = target === 'simulator' ? (noiseModel ?? 'ideal') : target.replace(/^qpu\./, '');
  return /^(forte|tempo)/.test(family) ? 'zz' : 'ms';
}

export function toIonqNativeInput(c: Circuit, twoQubit: IonqTwoQubitNative = 'ms'): { input: IonqNativeInput; finalZ: number[] } {
  let maxQ = 0;
  for (const op of c.ops) {
    if (op.kind === 'measure') maxQ = Math.max(maxQ, op.qubit);
    else if (op.kind === 'gate') maxQ = Math.max(maxQ, ...op.qubits);
  }
  const offset = new Array<number>(maxQ + 1).fill(0);
  const out: Record<string, unknown>[] = [];
  /** A π/2 rotation about the equatorial axis at `axis` radians, in the qubit's current frame. */
  const gpi2 = (q: number, axis: number) => out.push({ gate: 'gpi2', target: q, phase: turns(axis - offset[q]!) });
  const gpi = (q: number, axis: number) => out.push({ gate: 'gpi', target: q, phase: turns(axis - offset[q]!) });
  const rz = (q: number, theta: number) => {
    offset[q] = offset[q]! + theta;
  };
  const cnot = (ctl: number, tgt: number) => {
    if (twoQubit === 'zz') {
      oneQubit(tgt, 'h', [], { gpi2, rz });
      out.push({ gate: 'zz', targets: [ctl, tgt], angle: 0.25 });
      rz(ctl, -Math.PI / 2);
      rz(tgt, -Math.PI / 2);
      oneQubit(tgt, 'h', [], { gpi2, rz });
      return;
    }
    gpi2(ctl, Math.PI / 2); // RY(π/2)
    out.push({ gate: 'ms', targets: [ctl, tgt], phases: [turns(-offset[ctl]!), turns(-offset[tgt]!)] });
    gpi2(ctl, Math.PI); // RX(−π/2)
    gpi2(tgt, Math.PI);
    gpi2(ctl, -Math.PI / 2); // RY(−π/2)
  };

  for (const op of c.ops) {
    // No classical control in IonQ's format (see toIonqInput): refuse rather than drop the condition.
    if (op.kind === 'conditioned') throw new Error(`operation ${c.ops.indexOf(op)} is conditioned on measured bits, and IonQ runs no dynamic circuits`);
    if (op.kind !== 'gate') continue;
    const [a, b] = op.qubits as [number, number];
    if (op.name === 'cx') {
      cnot(a, b);
      continue;
    }
    if (op.name === 'swap') {
      cnot(a, b);
      cnot(b, a);
      cnot(a, b);
      continue;
    }
    if (op.qubits.length !== 1) throw new Error(`gate ${op.name} has no IonQ native form`);
    if (op.name === 'x') gpi(a, 0);
    else if (op.name === 'y') gpi(a, Math.PI / 2);
    else oneQubit(a, op.name, op.params, { gpi2, rz });
  }
  return { input: { gateset: 'native', qubits: maxQ + 1, circuit: out }, finalZ: offset };
}

/** Any one-qubit catalogue gate: diagonal → a virtual Z; otherwise two GPI2s between virtual Zs (U3 angles from its matrix). */
function oneQubit(q: number, name: string, params: readonly number[], emit: { gpi2: (q: number, axis: number) => void; rz: (q: number, t: number) => void }): void {
  const m = gateMatrix(name, params);
  if (m === undefined || m.k !== 1) throw new Error(`gate ${name} has no IonQ native form`);
  const arg = (i: number) => Math.atan2(m.im[i]!, m.re[i]!);
  const abs = (i: number) => Math.hypot(m.re[i]!, m.im[i]!);
  // Entries: 0 = (0,0), 1 = (0,1), 2 = (1,0), 3 = (1,1).
  if (abs(1) < EPS && abs(2) < EPS) {
    emit.rz(q, arg(3) - arg(0));
    return;
  }
  const theta = 2 * Math.atan2(abs(2), abs(0));
  // U3 times e^{iγ}: U00 = e^{iγ}c, U10 = e^{i(γ+φ)}s, U01 = −e^{i(γ+λ)}s. Each angle is read
  // against γ directly (sums of atan2 values would be off by π on the branch cut).
  const gamma = abs(0) < EPS ? arg(2) : arg(0);
  const phi = arg(2) - gamma;
  const lambda = Math.atan2(-m.im[1]!, -m.re[1]!) - gamma;
  emit.rz(q, lambda);
  emit.gpi2(q, 0);
  emit.rz(q, theta + Math.PI);
  emit.gpi2(q, 0);
  emit.rz(q, phi + Math.PI);
}
