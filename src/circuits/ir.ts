/**
 * The immutable in-memory circuit IR. It is never exposed on the wire (spec §1 rule 6):
 * the wire format (schema 0.2) is parsed into it and serialised from it.
 *
 * Conventions used everywhere: qubit and clbit indices are 0-based; bitstrings are
 * written with clbit 0 rightmost (as Qiskit and OpenQASM); angles are radians;
 * circuit equality is up to global phase.
 */
import type { ParamExpr } from './param-expr.js';

export interface GateOp {
  readonly kind: 'gate';
  /** A name from the gate catalogue (`gates.ts`). */
  readonly name: string;
  readonly qubits: readonly number[];
  readonly params: readonly number[];
  /**
   * Symbolic parameters (a parameterized circuit): exprs[i] set means params[i] is NaN until
   * bound (src/circuits/parameters.ts), so a consumer that ignores exprs fails closed on NaN.
   */
  readonly exprs?: readonly (ParamExpr | null)[];
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

/**
 * A classical condition on measured bits (QASM 3 `if (c == k)`, `if (c[i])`): true when the
 * integer the clbits form, clbits[0] least significant, equals `value`. A condition reads a whole
 * register, however wide (QASMBench compares 301-bit registers), so `value` may exceed 2^53: it
 * is a number up to Number.MAX_SAFE_INTEGER and a bigint above (one canonical form, made by
 * `conditioned`, so equal conditions compare equal with ===); read it with `conditionValue`
 * (docs/decisions/circuits-wide-conditions.md).
 */
export interface Condition {
  readonly clbits: readonly number[];
  readonly value: number | bigint;
}

/** The canonical form of a condition value: a number when it is a safe integer, else a bigint. */
export function canonicalConditionValue(v: number | bigint): number | bigint {
  if (typeof v === 'number') return v;
  return v <= BigInt(Number.MAX_SAFE_INTEGER) && v >= 0n ? Number(v) : v;
}

/** A condition's value as a bigint, for exact comparison and bit tests (a number is a safe integer by construction). */
export function conditionValue(c: Condition): bigint {
  return typeof c.value === 'bigint' ? c.value : BigInt(c.value);
}

/** Bit i of a condition's value (0 or 1). */
export function conditionBit(c: Condition, i: number): 0 | 1 {
  return ((conditionValue(c) >> BigInt(i)) & 1n) === 1n ? 1 : 0;
}

/**
 * A gate applied only when its condition holds (a dynamic circuit). Its own kind, not a field
 * of GateOp, so that code written for unconditioned gates cannot apply it unconditionally by
 * accident: every exhaustive switch over `kind` must decide what a conditioned gate is.
 */
export interface ConditionedOp {
  readonly kind: 'conditioned';
  readonly condition: Condition;
  readonly gate: GateOp;
}

export type Operation = GateOp | MeasureOp | ResetOp | BarrierOp | ConditionedOp;

export interface Circuit {
  readonly numQubits: number;
  readonly numClbits: number;
  /** In program order. Terminal measurements are ordinary `measure` ops at the end. */
  readonly ops: readonly Operation[];
  readonly metadata: Readonly<Record<string, unknown>>;
  /** Declared symbolic parameters, in order (absent: none). Gates refer to them through `exprs`. */
  readonly parameters?: readonly string[];
  /**
   * Classical registers in declaration order; their sizes sum to numClbits (absent: one register `c`).
   * A single register of another name is kept for OpenQASM export; counts split only with several (`splitsCounts`).
   */
  readonly registers?: readonly ClassicalRegister[];
  /**
   * Quantum registers in declaration order; their sizes sum to numQubits (absent: one register `q`).
   * Only names and layout: kept by transformations that keep the wires (`withOps`), dropped by
   * those that change them (routing onto a device), where the old names would mislabel qubits.
   */
  readonly quantumRegisters?: readonly QuantumRegister[];
  /**
   * User `gate` definitions of the imported OpenQASM, in declaration order, and the top-level
   * calls of them (each the span of ops it expanded to). Kept only when asked for (OpenQASM export
   * with `inline_gates: false`); the ops stay the truth: a call is exported as a call only while
   * its span still equals its expansion (src/circuits/qasm/gate-calls.ts).
   */
  readonly gateDefinitions?: readonly GateDefinition[];
  readonly gateCalls?: readonly GateCall[];
}

/** `gate name(params) qubits { body }`, the body as OpenQASM statement text. */
export interface GateDefinition {
  readonly name: string;
  readonly params: readonly string[];
  readonly qubits: readonly string[];
  readonly body: string;
}

/** A call of a user gate: `ops[start .. start+count)` is what it expanded to. */
export interface GateCall {
  readonly name: string;
  readonly params: readonly number[];
  readonly qubits: readonly number[];
  readonly start: number;
  readonly count: number;
}

export interface ClassicalRegister {
  readonly name: string;
  readonly size: number;
}

/** Registers of each kind a circuit may declare (wire format and OpenQASM import alike). */
export const MAX_REGISTERS = 64;
/** Register names: OpenQASM identifiers in ASCII, at most 64 characters. */
export const REGISTER_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,63}$/;

/** The same shape as a classical register: a name and a number of consecutive qubits. */
export type QuantumRegister = ClassicalRegister;

/** What a circuit carries besides its ops: kept by `withOps`. */
export interface CircuitExtras {
  readonly parameters?: readonly string[] | undefined;
  readonly registers?: readonly ClassicalRegister[] | undefined;
  readonly quantumRegisters?: readonly QuantumRegister[] | undefined;
  readonly gateDefinitions?: readonly GateDefinition[] | undefined;
  readonly gateCalls?: readonly GateCall[] | undefined;
}

/** The default layout (one register `q`, or none) is not stored, so such circuits equal those built without it. */
function isDefaultQuantumLayout(regs: readonly QuantumRegister[] | undefined, numQubits: number): boolean {
  return regs === undefined || regs.length === 0 || (regs.length === 1 && regs[0]!.name === 'q' && regs[0]!.size === numQubits);
}

/** Likewise for classical bits: one register `c` over all of them (or none) is the default and not stored. */
function isDefaultClassicalLayout(regs: readonly ClassicalRegister[] | undefined, numClbits: number): boolean {
  return regs === undefined || regs.length === 0 || (regs.length === 1 && regs[0]!.name === 'c' && regs[0]!.size === numClbits);
}

/**
 * Whether counts keys are split by register (Qiskit's "10 0"): only with two registers or more;
 * a single register, whatever its name, gives plain bitstrings.
 */
export function splitsCounts(registers: readonly ClassicalRegister[] | undefined): registers is readonly ClassicalRegister[] {
  return registers !== undefined && registers.length > 1;
}

export function gate(name: string, qubits: readonly number[], params: readonly number[] = []): GateOp {
  return Object.freeze({ kind: 'gate', name, qubits: Object.freeze([...qubits]), params: Object.freeze([...params]) });
}

/** A gate with symbolic parameters: params[i] is NaN wherever exprs[i] is set. */
export function symbolicGate(name: string, qubits: readonly number[], params: readonly number[], exprs: readonly (ParamExpr | null)[]): GateOp {
  if (exprs.every((e) => e === null)) return gate(name, qubits, params);
  return Object.freeze({
    kind: 'gate',
    name,
    qubits: Object.freeze([...qubits]),
    params: Object.freeze(params.map((p, i) => (exprs[i] === null ? p : Number.NaN))),
    exprs: Object.freeze([...exprs]),
  });
}

export function measure(qubit: number, clbit: number): MeasureOp {
  return Object.freeze({ kind: 'measure', qubit, clbit });
}

export function reset(qubit: number): ResetOp {
  return Object.freeze({ kind: 'reset', qubit });
}

export function conditioned(g: GateOp, condition: Condition): ConditionedOp {
  return Object.freeze({ kind: 'conditioned', condition: Object.freeze({ clbits: Object.freeze([...condition.clbits]), value: canonicalConditionValue(condition.value) }), gate: g });
}

export function barrier(qubits: readonly number[]): BarrierOp {
  return Object.freeze({ kind: 'barrier', qubits: Object.freeze([...qubits]) });
}

export function circuit(numQubits: number, numClbits: number, ops: readonly Operation[], metadata: Readonly<Record<string, unknown>> = {}, extras: CircuitExtras = {}): Circuit {
  return Object.freeze({
    numQubits,
    numClbits,
    ops: Object.freeze([...ops]),
    metadata: Object.freeze({ ...metadata }),
    // Only when present, so circuits without them compare equal to those built before they existed.
    ...(extras.parameters === undefined || extras.parameters.length === 0 ? {} : { parameters: Object.freeze([...extras.parameters]) }),
    ...(isDefaultClassicalLayout(extras.registers, numClbits) ? {} : { registers: Object.freeze(extras.registers!.map((r) => Object.freeze({ name: r.name, size: r.size }))) }),
    ...(isDefaultQuantumLayout(extras.quantumRegisters, numQubits) ? {} : { quantumRegisters: Object.freeze(extras.quantumRegisters!.map((r) => Object.freeze({ name: r.name, size: r.size }))) }),
    ...gateExtras(extras),
  });
}

function gateExtras(extras: CircuitExtras): { gateDefinitions?: readonly GateDefinition[]; gateCalls?: readonly GateCall[] } {
  const defs = extras.gateDefinitions;
  if (defs === undefined || defs.length === 0) return {};
  const gateDefinitions = Object.freeze(defs.map((d) => Object.freeze({ name: d.name, params: Object.freeze([...d.params]), qubits: Object.freeze([...d.qubits]), body: d.body })));
  const calls = extras.gateCalls ?? [];
  if (calls.length === 0) return { gateDefinitions };
  const gateCalls = Object.freeze(calls.map((k) => Object.freeze({ name: k.name, params: Object.freeze([...k.params]), qubits: Object.freeze([...k.qubits]), start: k.start, count: k.count })));
  return { gateDefinitions, gateCalls };
}

/**
 * A copy with other ops: the IR is never mutated in place. Everything else is kept, gate calls
 * too: their spans may no longer match, which export checks (src/circuits/qasm/gate-calls.ts).
 */
export function withOps(c: Circuit, ops: readonly Operation[]): Circuit {
  return circuit(c.numQubits, c.numClbits, ops, c.metadata, {
    parameters: c.parameters,
    registers: c.registers,
    quantumRegisters: c.quantumRegisters,
    gateDefinitions: c.gateDefinitions,
    gateCalls: c.gateCalls,
  });
}

/** A copy with other user gate calls (see src/circuits/qasm/gate-calls.ts). */
export function withGateCalls(c: Circuit, gateCalls: readonly GateCall[]): Circuit {
  return circuit(c.numQubits, c.numClbits, c.ops, c.metadata, {
    parameters: c.parameters,
    registers: c.registers,
    quantumRegisters: c.quantumRegisters,
    gateDefinitions: c.gateDefinitions,
    gateCalls,
  });
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
    case 'conditioned':
      return op.gate.qubits;
  }
}
