/**
 * Turns a circuit (and an optional noise model) into a list of steps for the engine:
 * fused unitary segments, mid-circuit measurements and resets, noise channels, and
 * conditioned segments (gates of a dynamic circuit, applied per branch only when the
 * branch's classical bits satisfy their condition).
 * Terminal measurements (no later gate or reset on their qubit, and no later condition
 * reading their bit) are not steps: they are read from the final state, all shots at once.
 */
import type { Circuit, Condition, GateOp } from '../circuits/ir.js';
import { gateSpec } from '../circuits/gates.js';
import { fail } from '../errors/app-error.js';
import { fuseSingleQubitRuns } from './compile.js';
import type { GateItem } from './compile.js';
import { gateMatrix } from './gate-matrices.js';
import type { NoiseModel } from './noise.js';
import type { Plan } from './plan.js';
import { planUnitary } from './plan.js';
import { SIMULATION_ERRORS } from './error-codes.js';

/**
 * A condition in the engine's terms: true when clbit `clbits[j]` holds `bits[j]` for every j
 * (the IR's integer `value` split into bits, clbits[0] least significant).
 */
export interface Guard {
  readonly clbits: readonly number[];
  readonly bits: readonly number[];
}

/** A noise channel placed after a conditioned gate carries the gate's guard: noise only where the gate ran. */
interface Guarded {
  readonly when?: Guard;
}

export type Step =
  | { readonly kind: 'unitary'; readonly plan: Plan }
  /** Gates with one condition: applied to a branch only when its classical bits satisfy `when`. */
  | { readonly kind: 'conditioned'; readonly when: Guard; readonly plan: Plan }
  /**
   * `readout` ([P(report 1 | 0), P(report 0 | 1)]): in a dynamic program a mid-circuit measurement's
   * readout error is drawn here, so a later condition sees the bit as reported (as on hardware).
   */
  | { readonly kind: 'measure'; readonly qubit: number; readonly clbit: number; readonly readout?: readonly [number, number] }
  | { readonly kind: 'reset'; readonly qubit: number }
  /** A uniformly random non-identity Pauli on `qubits` with probability `pErr` (depolarizing). */
  | ({ readonly kind: 'pauli'; readonly qubits: readonly number[]; readonly pErr: number } & Guarded)
  | ({ readonly kind: 'amplitude_damping'; readonly qubit: number; readonly gamma: number } & Guarded)
  /** Z with probability pz (phase damping written as its equivalent phase-flip channel). */
  | ({ readonly kind: 'phase_flip'; readonly qubit: number; readonly pz: number } & Guarded);

/** True when the register satisfies the guard. */
export function guardHolds(reg: Uint8Array, g: Guard): boolean {
  for (let j = 0; j < g.clbits.length; j++) if (reg[g.clbits[j]!] !== g.bits[j]) return false;
  return true;
}

export interface Program {
  readonly numQubits: number;
  readonly numClbits: number;
  readonly steps: readonly Step[];
  /** Terminal measurements that give their clbit its final value: [qubit, clbit]. */
  readonly terminal: readonly (readonly [number, number])[];
  /** For each clbit, the qubit of its last writer (−1: never written), for readout errors. */
  readonly clbitSource: Int32Array;
  /** True when some step branches (mid-circuit measurement, reset, noise) or depends on a branch (a conditioned gate). */
  readonly branching: boolean;
  /** True when the circuit has conditioned gates (a dynamic circuit). */
  readonly dynamic: boolean;
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

/**
 * The guard of a condition, checked like a gate's operands. `null`: a value that no bits can
 * form (at least 2^len), so the gate never applies.
 */
function guardOf(cond: Condition, index: number, numClbits: number): Guard | null {
  const path = `/ops/${index}/condition`;
  const { clbits, value } = cond;
  for (const c of clbits) if (!Number.isInteger(c) || c < 0 || c >= numClbits) return unsupported(`condition clbit ${c} is out of range 0..${numClbits - 1}`, `${path}/clbits`, 'CLBIT_OUT_OF_RANGE');
  if (clbits.length === 0) return unsupported('a condition reads at least one clbit', `${path}/clbits`, 'BAD_CONDITION');
  if (typeof value === 'number' ? !Number.isSafeInteger(value) || value < 0 : value < 0n)
    return unsupported(`condition value ${value} is not a non-negative integer`, `${path}/value`, 'BAD_CONDITION');
  // Exact: the value is split into bits as a bigint (a register may be far wider than 53 bits).
  const bits: number[] = [];
  let v = typeof value === 'bigint' ? value : BigInt(value);
  for (let j = 0; j < clbits.length; j++) {
    bits.push(Number(v & 1n));
    v >>= 1n;
  }
  if (v !== 0n) return null;
  // The same clbit twice must ask for the same bit, else the condition is never true.
  const want = new Map<number, number>();
  for (let j = 0; j < clbits.length; j++) {
    const prior = want.get(clbits[j]!);
    if (prior !== undefined && prior !== bits[j]) return null;
    want.set(clbits[j]!, bits[j]!);
  }
  return { clbits: [...want.keys()], bits: [...want.values()] };
}

const guardKey = (g: Guard | undefined): string => (g === undefined ? '' : g.clbits.map((c, j) => `${c}=${g.bits[j]}`).join(','));

export function buildProgram(c: Circuit, noise: NoiseModel | undefined, blockQubits: number): Program {
  const n = c.numQubits;
  const ops = c.ops;
  const dynamic = ops.some((op) => op.kind === 'conditioned');
  // Terminal measurements: walking backwards, a measure is terminal if no gate/reset on its qubit
  // follows and no later condition reads its clbit before another measurement overwrites it.
  const touched = new Uint8Array(n);
  const read = new Uint8Array(c.numClbits);
  const terminalAt = new Uint8Array(ops.length);
  for (let i = ops.length - 1; i >= 0; i--) {
    const op = ops[i]!;
    switch (op.kind) {
      case 'measure':
        if (!Number.isInteger(op.qubit) || op.qubit < 0 || op.qubit >= n) unsupported(`qubit ${op.qubit} is out of range 0..${n - 1}`, `/ops/${i}`, 'QUBIT_OUT_OF_RANGE');
        if (!Number.isInteger(op.clbit) || op.clbit < 0 || op.clbit >= c.numClbits) unsupported(`clbit ${op.clbit} is out of range 0..${c.numClbits - 1}`, `/ops/${i}`, 'CLBIT_OUT_OF_RANGE');
        if (touched[op.qubit] === 0 && read[op.clbit] === 0) terminalAt[i] = 1;
        read[op.clbit] = 0;
        break;
      case 'gate':
        for (const q of op.qubits) touched[q] = 1;
        break;
      case 'conditioned':
        for (const q of op.gate.qubits) touched[q] = 1;
        for (const b of op.condition.clbits) if (Number.isInteger(b) && b >= 0 && b < c.numClbits) read[b] = 1;
        break;
      case 'reset':
        if (!Number.isInteger(op.qubit) || op.qubit < 0 || op.qubit >= n) unsupported(`qubit ${op.qubit} is out of range 0..${n - 1}`, `/ops/${i}`, 'QUBIT_OUT_OF_RANGE');
        touched[op.qubit] = 1;
        break;
      case 'barrier':
        break;
    }
  }
  const steps: Step[] = [];
  // Gates waiting to be fused into one step, all under the same guard (none: a unitary step).
  let pending: GateItem[] = [];
  let pendingGuard: Guard | undefined;
  let gates = 0;
  const flush = (): void => {
    if (pending.length === 0) return;
    const plan = planUnitary(fuseSingleQubitRuns(pending), n, blockQubits);
    steps.push(pendingGuard === undefined ? { kind: 'unitary', plan } : { kind: 'conditioned', when: pendingGuard, plan });
    pending = [];
  };
  const lastWriter = new Int32Array(c.numClbits).fill(-1);
  ops.forEach((op, i) => {
    if (op.kind === 'measure') lastWriter[op.clbit] = i;
  });
  // A clbit's readout error is drawn when it is recorded, from the qubit of its last writer; in a
  // dynamic program a mid-circuit measurement draws it itself (its measure step), so not again here.
  const clbitSource = new Int32Array(c.numClbits).fill(-1);
  lastWriter.forEach((i, b) => {
    const op = ops[i];
    if (op?.kind === 'measure' && (!dynamic || terminalAt[i] === 1)) clbitSource[b] = op.qubit;
  });
  const terminal: [number, number][] = [];
  // A reset of a qubit nothing has touched yet is a no-op (it is already |0⟩): no branching step.
  const started = new Uint8Array(n);
  const addGate = (op: GateOp, i: number, when: Guard | undefined): void => {
    if (guardKey(when) !== guardKey(pendingGuard)) flush();
    pendingGuard = when;
    pending.push(gateItem(op, i, n));
    for (const q of op.qubits) started[q] = 1;
    const channels = noise?.afterGate(op.name, op.qubits) ?? [];
    if (channels.length > 0) flush();
    const guarded = when === undefined ? {} : { when };
    for (const ch of channels) {
      if (ch.kind === 'depolarizing') {
        const d = 1 << ch.qubits.length;
        const pErr = ch.p * (1 - 1 / (d * d));
        if (pErr > 0) steps.push({ kind: 'pauli', qubits: ch.qubits, pErr, ...guarded });
      } else if (ch.kind === 'amplitude_damping') {
        if (ch.gamma > 0) steps.push({ kind: 'amplitude_damping', qubit: ch.qubit, gamma: ch.gamma, ...guarded });
      } else {
        const pz = (1 - Math.sqrt(1 - ch.lambda)) / 2;
        if (pz > 0) steps.push({ kind: 'phase_flip', qubit: ch.qubit, pz, ...guarded });
      }
    }
  };
  ops.forEach((op, i) => {
    switch (op.kind) {
      case 'barrier':
        return;
      case 'gate':
        gates++;
        addGate(op, i, undefined);
        return;
      case 'conditioned': {
        gates++;
        const when = guardOf(op.condition, i, c.numClbits);
        if (when === null) {
          gateItem(op.gate, i, n); // still checked: a never-true condition does not excuse a malformed gate
          return;
        }
        addGate(op.gate, i, when);
        return;
      }
      case 'measure': {
        if (terminalAt[i] === 1) {
          if (lastWriter[op.clbit] === i) terminal.push([op.qubit, op.clbit]);
          return;
        }
        flush();
        started[op.qubit] = 1;
        const ro = dynamic ? noise?.readout(op.qubit) : undefined;
        steps.push({ kind: 'measure', qubit: op.qubit, clbit: op.clbit, ...(ro !== undefined && (ro[0] > 0 || ro[1] > 0) ? { readout: ro } : {}) });
        return;
      }
      case 'reset':
        if (started[op.qubit] === 0) return;
        flush();
        steps.push({ kind: 'reset', qubit: op.qubit });
        return;
    }
  });
  flush();
  const branching = steps.some((s) => s.kind !== 'unitary');
  return { numQubits: n, numClbits: c.numClbits, steps, terminal, clbitSource, branching, dynamic, gates };
}
