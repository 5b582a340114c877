/**
 * Example circuits served by GET /v1/circuits/example, as normalized wire format 0.2.
 * Each one is parsed by the tests to prove it is valid.
 */
import type { WireCircuitV02 } from './wire-schema.js';

export const EXAMPLE_NAMES = ['bell', 'ghz', 'optimizable'] as const;
export type ExampleName = (typeof EXAMPLE_NAMES)[number];

const EXAMPLES: Record<ExampleName, WireCircuitV02> = {
  bell: {
    schema: '0.2',
    num_qubits: 2,
    num_clbits: 2,
    gates: [
      { op: 'h', qubits: [0] },
      { op: 'cx', qubits: [0, 1] },
    ],
    measurements: [
      { qubit: 0, clbit: 0 },
      { qubit: 1, clbit: 1 },
    ],
    metadata: { name: 'bell', description: 'Bell state (|00⟩ + |11⟩)/√2: outcomes 00 and 11, half each.' },
  },
  ghz: {
    schema: '0.2',
    num_qubits: 3,
    num_clbits: 3,
    gates: [
      { op: 'h', qubits: [0] },
      { op: 'cx', qubits: [0, 1] },
      { op: 'cx', qubits: [1, 2] },
    ],
    measurements: [
      { qubit: 0, clbit: 0 },
      { qubit: 1, clbit: 1 },
      { qubit: 2, clbit: 2 },
    ],
    metadata: { name: 'ghz', description: '3-qubit GHZ state (|000⟩ + |111⟩)/√2: outcomes 000 and 111, half each.' },
  },
  optimizable: {
    schema: '0.2',
    num_qubits: 3,
    num_clbits: 3,
    gates: [
      { op: 'h', qubits: [0] },
      { op: 'h', qubits: [0] },
      { op: 'x', qubits: [1] },
      { op: 'cx', qubits: [0, 1] },
      { op: 'cx', qubits: [0, 1] },
      { op: 'rz', qubits: [2], params: [Math.PI / 4] },
      { op: 'rz', qubits: [2], params: [Math.PI / 4] },
      { op: 't', qubits: [0] },
      { op: 'tdg', qubits: [0] },
      { op: 'h', qubits: [1] },
      { op: 'cx', qubits: [1, 2] },
      { op: 's', qubits: [2] },
      { op: 'sdg', qubits: [2] },
    ],
    measurements: [
      { qubit: 0, clbit: 0 },
      { qubit: 1, clbit: 1 },
      { qubit: 2, clbit: 2 },
    ],
    metadata: {
      name: 'optimizable',
      description: 'Redundant on purpose: h·h, cx·cx, t·tdg and s·sdg cancel and the two rz(pi/4) merge, leaving x, h, rz(pi/2), cx (13 gates → 4).',
    },
  },
};

export function isExampleName(name: string): name is ExampleName {
  return (EXAMPLE_NAMES as readonly string[]).includes(name);
}

/** A fresh copy of the example (callers may mutate it). */
export function getExample(name: ExampleName): WireCircuitV02 {
  return structuredClone(EXAMPLES[name]);
}
