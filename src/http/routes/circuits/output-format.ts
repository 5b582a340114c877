import { Type } from 'typebox';
import type { Circuit } from '../../../circuits/ir.js';
import { toQasm2, toQasm3 } from '../../../circuits/qasm/export-qasm.js';

/** The `output_format` field of the routes that return a circuit. */
export const OutputFormat = Type.Union([Type.Literal('json'), Type.Literal('qasm2'), Type.Literal('qasm3')], {
  description: 'json (default): the circuit in wire format 0.2; qasm2/qasm3: also the OpenQASM text in `qasm`',
});

export type OutputFormatName = 'json' | 'qasm2' | 'qasm3';

/** `{ qasm }` for a QASM output format, nothing for json (the wire circuit is always returned). */
export function qasmOutput(c: Circuit, fmt: OutputFormatName | undefined): { qasm?: string } {
  if (fmt === 'qasm2') return { qasm: toQasm2(c) };
  if (fmt === 'qasm3') return { qasm: toQasm3(c) };
  return {};
}
