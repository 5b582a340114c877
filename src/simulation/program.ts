/**
 * Turns a circuit (and an optional noise model) into a list of steps for the engine:
 * fused unitary segments, mid-circuit measurements and resets, and noise channels.
 * Terminal measurements (no later gate or reset on their qubit) are not steps: they
 * are read from the final state, all shots at once.
 */
import type { Circuit, GateOp } from '../circuits/ir.js';
import { gateSpec } from '../circuits/gates.js';
import { fail } from '../errors/app-error.js';
import { fuseSingleQubitRuns } from './compile.js';
import type { GateItem } from './compile.js';
import { gateMatrix } from './gate-matrices.js';
import type { NoiseModel } from './noise.js';
import type { Plan } from './plan.js';
import { planUnitary } from './plan.js';
import { SIMULATION_ERRORS } from './error-codes.js';

export type Step =
  | { readonly kind: 'unitary'; readonly plan: Plan }
  | { readonly kind: 'measure'; readonly qubit: number; readonly clbit: number }
  | { readonly kind: 'reset'; readonly qubit: number }
  /** A uniformly random non-identity Pauli on `qubits` with probability `pErr` (depolarizing). */
  | { readonly kind: 'pauli'; readonly qubits: readonly number[]; readonly pErr: number }
  | { readonly kind: 'amplitude_damping'; readonly qubit: number; readonly gamma: number }
  /** Z with probability pz (phase damping written as its equivalent phase-flip channel). */
  | { readonly kind: 'phase_flip'; readonly qubit: number; readonly pz: number };

export interface Program {
  readonly numQubits: number;
  readonly numClbits: number;
  readonly steps: readonly Step[];
  /** Terminal measurements that give their clbit its final value: [qubit, clbit]. */
  readonly terminal: readonly (readonly [number, number])[];
  /** For each clbit, the qubit of its last writer (−1: never written), for readout errors. */
  readonly clbitSource: Int32Array;
  /** True when some step branches (mid-circuit measurement, reset, noise). */
  readonly branching: boolean;
  /** Original gates (not counting barriers, measurements, resets). */
  readonly gates: number;
}

const unsupported = (message: string, path: string, code: string): never => {
  throw fail(SIMULATION_ERRORS.SIMULATION_UNSUPPORTED_OPERATION, message, [{ path, code, message }]);
};

function gateItem(op: GateOp, index: number, n: number): GateItem {
  const path = `/ops/${index}`;
  const spec = gateSpec(op.name);
  const mat = gateMatrix(op.name, op.params);
  if (spec === undefined || mat === undefined) return unsupported(`unknown gate '${op.name}'`, path, 'UNKNOWN_GATE');
  if (op.qubits.length !== spec.arity || mat.k !== spec.arity) return unsupported(`gate '${op.name}' acts on ${spec.arity} qubit(s), got ${op.qubits.length}`, path, 'WRONG_ARITY');
  if (op.params.length !== spec.params) return unsupported(`gate '${op.name}' takes ${spec.params} parameter(s), got ${op.params.length}`, path, 'WRONG_PARAM_COUNT');
  if (op.params.some((p) => !Number.isFinite(p))) return unsupported(`gate '${op.name}' has a non-finite parameter`, path, 'BAD_PARAM');
  const seen = new Set<number>();
  for (const q of op.qubits) {
    if (!Number.isInteger(q) || q < 0 || q >= n) return unsupported(`qubit ${q} is out of range 0..${n - 1}`, path, 'QUBIT_OUT_OF_RANGE');
    if (seen.has(q)) return unsupported(`gate '${op.name}' uses qubit ${q} twice`, path, 'DUPLICATE_QUBIT');
    seen.add(q);
  }
  return { qubits: op.qubits, mat, gates: 1 };
}

export function buildProgram(c: Circuit, noise: NoiseModel | undefined, blockQubits: number): Program {
  const n = c.numQubits;
  const ops = c.ops;
  // Terminal measurements: walking backwards, a measure is terminal if no gate/reset on its qubit follows.
  const touched = new Uint8Array(n);
  const terminalAt = new Uint8Array(ops.length);
  for (let i = ops.length - 1; i >= 0; i--) {
    const op = ops[i]!;
    if (op.kind === 'measure') {
      if (!Number.isInteger(op.qubit) || op.qubit < 0 || op.qubit >= n) unsupported(`qubit ${op.qubit} is out of range 0..${n - 1}`, `/ops/${i}`, 'QUBIT_OUT_OF_RANGE');
      if (!Number.isInteger(op.clbit) || op.clbit < 0 || op.clbit >= c.numClbits) unsupported(`clbit ${op.clbit} is out of range 0..${c.numClbits - 1}`, `/ops/${i}`, 'CLBIT_OUT_OF_RANGE');
      if (touched[op.qubit] === 0) terminalAt[i] = 1;
    } else if (op.kind === 'gate') for (const q of op.qubits) touched[q] = 1;
    else if (op.kind === 'reset') {
      if (!Number.isInteger(op.qubit) || op.qubit < 0 || op.qubit >= n) unsupported(`qubit ${op.qubit} is out of range 0..${n - 1}`, `/ops/${i}`, 'QUBIT_OUT_OF_RANGE');
      touched[op.qubit] = 1;
    }
  }
  const steps: Step[] = [];
  let pending: GateItem[] = [];
  let gates = 0;
  const flush = (): void => {
    if (pending.length === 0) return;
    steps.push({ kind: 'unitary', plan: planUnitary(fuseSingleQubitRuns(pending), n, blockQubits) });
    pending = [];
  };
  const lastWriter = new Int32Array(c.numClbits).fill(-1);
  const clbitSource = new Int32Array(c.numClbits).fill(-1);
  ops.forEach((op, i) => {
    if (op.kind === 'measure') {
      lastWriter[op.clbit] = i;
      clbitSource[op.clbit] = op.qubit;
    }
  });
  const terminal: [number, number][] = [];
  // A reset of a qubit nothing has touched yet is a no-op (it is already |0⟩): no branching step.
  const started = new Uint8Array(n);
  ops.forEach((op, i) => {
    switch (op.kind) {
      case 'barrier':
        return;
      case 'gate': {
        pending.push(gateItem(op, i, n));
        for (const q of op.qubits) started[q] = 1;
        gates++;
        const channels = noise?.afterGate(op.name, op.qubits) ?? [];
        if (channels.length > 0) flush();
        for (const ch of channels) {
          if (ch.kind === 'depolarizing') {
            const d = 1 << ch.qubits.length;
            const pErr = ch.p * (1 - 1 / (d * d));
            if (pErr > 0) steps.push({ kind: 'pauli', qubits: ch.qubits, pErr });
          } else if (ch.kind === 'amplitude_damping') {
            if (ch.gamma > 0) steps.push({ kind: 'amplitude_damping', qubit: ch.qubit, gamma: ch.gamma });
          } else {
            const pz = (1 - Math.sqrt(1 - ch.lambda)) / 2;
            if (pz > 0) steps.push({ kind: 'phase_flip', qubit: ch.qubit, pz });
          }
        }
        return;
      }
      case 'measure':
        if (terminalAt[i] === 1) {
          if (lastWriter[op.clbit] === i) terminal.push([op.qubit, op.clbit]);
          return;
        }
        flush();
        started[op.qubit] = 1;
        steps.push({ kind: 'measure', qubit: op.qubit, clbit: op.clbit });
        return;
      case 'reset':
        if (started[op.qubit] === 0) return;
        flush();
        steps.push({ kind: 'reset', qubit: op.qubit });
        return;
    }
  });
  flush();
  const branching = steps.some((s) => s.kind !== 'unitary');
  return { numQubits: n, numClbits: c.numClbits, steps, terminal, clbitSource, branching, gates };
}
