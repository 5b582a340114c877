/**
 * A circuit compiled for the stabilizer method: Clifford primitives, measurements, resets,
 * conditioned primitives and Pauli noise channels. A gate that is not Clifford is refused with
 * SIMULATION_NOT_CLIFFORD naming its operation and the methods that can run it.
 */
import type { Circuit, Condition } from '../../circuits/ir.js';
import { fail } from '../../errors/app-error.js';
import { SIMULATION_ERRORS } from '../error-codes.js';
import type { NoiseModel } from '../noise.js';
import { cliffordPrims, isPauliPrim, type Prim } from './clifford-gates.js';

/**
 * A Pauli channel: on one qubit, X, Y, Z with probabilities px, py, pz; on two qubits (`b` ≥ 0),
 * each of the 15 non-identity Paulis with probability p2 / 15 (depolarizing).
 */
export interface PauliChannel {
  readonly a: number;
  readonly b: number;
  readonly px: number;
  readonly py: number;
  readonly pz: number;
  readonly p2: number;
}

export type StabInstr =
  | { readonly k: 'gate'; readonly p: Prim }
  | { readonly k: 'measure'; readonly q: number; readonly c: number; readonly ro: readonly [number, number] | null }
  | { readonly k: 'reset'; readonly q: number }
  | { readonly k: 'if'; readonly cond: Condition; readonly prims: readonly Prim[]; readonly pauliOnly: boolean; readonly noise: readonly PauliChannel[] }
  | { readonly k: 'noise'; readonly ch: PauliChannel };

export interface StabProgram {
  readonly n: number;
  readonly numClbits: number;
  readonly instrs: readonly StabInstr[];
  /** Mid-circuit measurement, reset or conditioned gate: no single final state. */
  readonly branching: boolean;
  /** A conditioned gate that is not a Pauli: frames cannot carry it, shots run one by one. */
  readonly perShot: boolean;
  readonly noisy: boolean;
  /** Amplitude damping was replaced by its Pauli twirl (not exact). */
  readonly twirled: boolean;
  readonly gates: number;
}

/** The methods that run any gate, for the refusal message. */
const GENERAL_METHODS = 'statevector, matrix_product_state or density_matrix';

/** Pauli channels of the noise after a gate; amplitude damping by its Pauli twirl. */
function channels(noise: NoiseModel | undefined, name: string, qubits: readonly number[], twirl: { used: boolean }): PauliChannel[] {
  const out: PauliChannel[] = [];
  for (const ch of noise?.afterGate(name, qubits) ?? []) {
    if (ch.kind === 'depolarizing') {
      // ρ → (1−p)ρ + p·I/d: each non-identity Pauli with probability p/d².
      if (ch.qubits.length === 1) out.push({ a: ch.qubits[0]!, b: -1, px: ch.p / 4, py: ch.p / 4, pz: ch.p / 4, p2: 0 });
      else out.push({ a: ch.qubits[0]!, b: ch.qubits[1]!, px: 0, py: 0, pz: 0, p2: (ch.p * 15) / 16 });
    } else if (ch.kind === 'phase_damping') {
      out.push({ a: ch.qubit, b: -1, px: 0, py: 0, pz: (1 - Math.sqrt(1 - ch.lambda)) / 2, p2: 0 });
    } else {
      twirl.used = true;
      const g = ch.gamma;
      out.push({ a: ch.qubit, b: -1, px: g / 4, py: g / 4, pz: (1 - g / 2 - Math.sqrt(1 - g)) / 2, p2: 0 });
    }
  }
  return out;
}

export function compileStabilizer(c: Circuit, noise?: NoiseModel): StabProgram {
  const instrs: StabInstr[] = [];
  const twirl = { used: false };
  const lastUse = new Int32Array(c.numQubits).fill(-1);
  c.ops.forEach((op, i) => {
    if (op.kind === 'gate') for (const q of op.qubits) lastUse[q] = i;
    else if (op.kind === 'conditioned') for (const q of op.gate.qubits) lastUse[q] = i;
    else if (op.kind === 'reset') lastUse[op.qubit] = i;
  });
  let branching = false;
  let perShot = false;
  let gates = 0;
  const measured = new Uint8Array(c.numQubits);
  // A reset of a qubit nothing has touched yet is a no-op (it is already |0⟩), as in the state-vector engine.
  const started = new Uint8Array(c.numQubits);
  const refuse = (i: number, name: string): never => {
    const message = `operation ${i} (${name}) is not a Clifford gate at these parameters; the stabilizer method runs Clifford circuits only — use ${GENERAL_METHODS}`;
    throw fail(SIMULATION_ERRORS.SIMULATION_NOT_CLIFFORD, message, [
      { path: `/circuit/gates/${i}`, code: 'NOT_CLIFFORD', message, gate: name, methods: ['statevector', 'matrix_product_state', 'density_matrix'] },
    ]);
  };
  c.ops.forEach((op, i) => {
    switch (op.kind) {
      case 'barrier':
        return;
      case 'gate': {
        gates++;
        const prims = cliffordPrims(op.name, op.qubits, op.params);
        if (prims === null) return refuse(i, op.name);
        for (const p of prims) instrs.push({ k: 'gate', p });
        for (const ch of channels(noise, op.name, op.qubits, twirl)) instrs.push({ k: 'noise', ch });
        for (const q of op.qubits) {
          if (measured[q] === 1) branching = true;
          started[q] = 1;
        }
        return;
      }
      case 'conditioned': {
        gates++;
        branching = true;
        const prims = cliffordPrims(op.gate.name, op.gate.qubits, op.gate.params);
        if (prims === null) return refuse(i, op.gate.name);
        const pauliOnly = prims.every((p) => isPauliPrim(p.g));
        if (!pauliOnly) perShot = true;
        for (const q of op.gate.qubits) started[q] = 1;
        instrs.push({ k: 'if', cond: op.condition, prims, pauliOnly, noise: channels(noise, op.gate.name, op.gate.qubits, twirl) });
        return;
      }
      case 'measure': {
        measured[op.qubit] = 1;
        started[op.qubit] = 1;
        if (lastUse[op.qubit]! > i) branching = true;
        const ro = noise?.readout(op.qubit);
        instrs.push({ k: 'measure', q: op.qubit, c: op.clbit, ro: ro !== undefined && (ro[0] > 0 || ro[1] > 0) ? ro : null });
        return;
      }
      case 'reset':
        if (started[op.qubit] === 0) return;
        branching = true;
        instrs.push({ k: 'reset', q: op.qubit });
        return;
    }
  });
  return {
    n: c.numQubits,
    numClbits: c.numClbits,
    instrs,
    branching,
    perShot,
    noisy: instrs.some((s) => s.k === 'noise' || (s.k === 'measure' && s.ro !== null) || (s.k === 'if' && s.noise.length > 0)),
    twirled: twirl.used,
    gates,
  };
}
