/**
 * An IBM backend's instruction set architecture (ISA) as the ISA check needs it: what
 * qiskit-ibm-runtime's `is_isa_circuit` asks of a circuit's every instruction
 * (`target.instruction_supported(name, qargs)`) and what its `check_faulty` asks of its qubits.
 * Two sources give one: IBM's own `/configuration` (+ `/properties`) answers, and the device spec
 * the device directory built from our snapshot of them (what the driver holds at submit time).
 */
import type { DeviceSpec } from '../../devices/device-catalogue.js';

export interface IsaTarget {
  readonly backend: string;
  readonly numQubits: number;
  /** Instruction names the backend runs (gates and `measure`, `reset`, `delay`, `if_else`, …). */
  readonly instructions: ReadonlySet<string>;
  /** Directed pairs `a-b` a two-qubit instruction may act on; null = every pair. */
  readonly pairs: ReadonlySet<string> | null;
  readonly faultyQubits: ReadonlySet<number>;
  /** Undirected `a-b` (a < b). */
  readonly faultyPairs: ReadonlySet<string>;
}

/** Instructions every target takes (Qiskit adds measure to every backend target; a barrier is never checked). */
const ALWAYS = ['measure', 'barrier'];

const strings = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []);

/** The instructions IBM's configuration declares: `basis_gates` and `supported_instructions` together. */
export function ibmInstructions(configuration: unknown): string[] {
  const c = (configuration ?? {}) as { basis_gates?: unknown; supported_instructions?: unknown };
  return [...new Set([...strings(c.basis_gates), ...strings(c.supported_instructions)])].sort();
}

/**
 * Whether the backend runs dynamic circuits (OpenQASM 3 `if`): its configuration lists `if_else`
 * among its instructions, as qiskit-ibm-runtime builds `IfElseOp` into a backend's target only then.
 */
export const ibmSupportsDynamicCircuits = (configuration: unknown): boolean => ibmInstructions(configuration).includes('if_else');

const undirected = (a: number, b: number): string => `${Math.min(a, b)}-${Math.max(a, b)}`;

/**
 * The ISA of an IBM backend from its recorded `/configuration` answer and the faulty parts of its
 * `/properties` (`ibmFaulty` of ibm-runtime-snapshots.ts).
 */
export function ibmIsaTarget(configuration: unknown, faulty: { readonly qubits: readonly number[]; readonly edges: readonly (readonly [number, number])[] }): IsaTarget {
  const c = (configuration ?? {}) as { backend_name?: unknown; n_qubits?: unknown; basis_gates?: unknown; coupling_map?: unknown };
  const pairs = new Set<string>();
  for (const e of Array.isArray(c.coupling_map) ? (c.coupling_map as unknown[]) : []) {
    if (Array.isArray(e) && e.length === 2 && Number.isInteger(e[0]) && Number.isInteger(e[1])) pairs.add(`${e[0]}-${e[1]}`);
  }
  return {
    backend: typeof c.backend_name === 'string' ? c.backend_name : 'unknown',
    numQubits: typeof c.n_qubits === 'number' ? c.n_qubits : 0,
    instructions: new Set([...ibmInstructions(configuration), ...ALWAYS]),
    pairs: c.coupling_map === null ? null : pairs,
    faultyQubits: new Set(faulty.qubits),
    faultyPairs: new Set(faulty.edges.map(([a, b]) => undirected(a, b))),
  };
}

/**
 * The ISA of the device the driver runs on, from its spec: the provider's instructions when the
 * snapshot carried them (`spec.instructions`), else the native gates with what the spec says it
 * supports. Its coupling map is undirected (IBM's bases qrail translates to, cz and cx, are listed
 * in both directions by IBM), so each edge allows both orders.
 */
export function specIsaTarget(spec: DeviceSpec, backend: string): IsaTarget {
  const own = spec.instructions ?? [...spec.nativeGates, ...(spec.supportsReset ? ['reset'] : []), ...(spec.supportsDynamicCircuits ? ['if_else'] : [])];
  const pairs = spec.couplingMap === null ? null : new Set(spec.couplingMap.flatMap(([a, b]) => [`${a}-${b}`, `${b}-${a}`]));
  return {
    backend,
    numQubits: spec.numQubits,
    instructions: new Set([...own, ...ALWAYS]),
    pairs,
    faultyQubits: new Set(spec.faultyQubits ?? []),
    faultyPairs: new Set((spec.faultyEdges ?? []).map(([a, b]) => undirected(a, b))),
  };
}

export { undirected as undirectedPair };
