/**
 * The immutable in-memory circuit IR. It is never exposed on the wire (spec §1 rule 6):
 * the wire format (schema 0.2) is parsed into it and serialised from it.
 *
 * Conventions used everywhere: qubit and clbit indices are 0-based; bitstrings are
 * written with clbit 0 rightmost (as Qiskit and OpenQASM); angles are radians;
 * circuit equality is up to global phase.
 */
export interface GateOp {
  readonly kind: 'gate';
  /** A name from the gate catalogue (`gates.ts`). */
  readonly name: string;
  readonly qubits: readonly number[];
  readonly params: readonly number[];
}

export interface MeasureOp {
  readonly kind: 'measure';
  readonly qubit: number;
  readonly clbit: number;
}

export interface ResetOp {
  readonly kind: 'reset';
  readonly qubit: number;
}

export interface BarrierOp {
  readonly kind: 'barrier';
  readonly qubits: readonly number[];
}

export type Operation = GateOp | MeasureOp | ResetOp | BarrierOp;

export interface Circuit {
  readonly numQubits: number;
  readonly numClbits: number;
  /** In program order. Terminal measurements are ordinary `measure` ops at the end. */
  readonly ops: readonly Operation[];
  readonly metadata: Readonly<Record<string, unknown>>;
}

export function gate(name: string, qubits: readonly number[], params: readonly number[] = []): GateOp {
  return Object.freeze({ kind: 'gate', name, qubits: Object.freeze([...qubits]), params: Object.freeze([...params]) });
}

export function measure(qubit: number, clbit: number): MeasureOp {
  return Object.freeze({ kind: 'measure', qubit, clbit });
}

export function reset(qubit: number): ResetOp {
  return Object.freeze({ kind: 'reset', qubit });
}

export function barrier(qubits: readonly number[]): BarrierOp {
  return Object.freeze({ kind: 'barrier', qubits: Object.freeze([...qubits]) });
}

export function circuit(numQubits: number, numClbits: number, ops: readonly Operation[], metadata: Readonly<Record<string, unknown>> = {}): Circuit {
  return Object.freeze({
    numQubits,
    numClbits,
    ops: Object.freeze([...ops]),
    metadata: Object.freeze({ ...metadata }),
  });
}

/** A copy with other ops: the IR is never mutated in place. */
export function withOps(c: Circuit, ops: readonly Operation[]): Circuit {
  return circuit(c.numQubits, c.numClbits, ops, c.metadata);
}

/** Qubits an operation acts on. */
export function opQubits(op: Operation): readonly number[] {
  switch (op.kind) {
    case 'gate':
    case 'barrier':
      return op.qubits;
    case 'measure':
    case 'reset':
      return [op.qubit];
  }
}
