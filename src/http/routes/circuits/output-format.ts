import { Type } from 'typebox';

/** The `output_format` field of the routes that return a circuit (see `qasmOutput`, circuits/qasm). */
export const OutputFormat = Type.Union([Type.Literal('json'), Type.Literal('qasm2'), Type.Literal('qasm3')], {
  description: 'json (default): the circuit in wire format 0.2; qasm2/qasm3: also the OpenQASM text in `qasm`',
});
