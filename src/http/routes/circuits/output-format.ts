import { Type } from 'typebox';

/** The `output_format` field of the routes that return a circuit (see `qasmOutput`, circuits/qasm). */
export const OutputFormat = Type.Union([Type.Literal('json'), Type.Literal('qasm2'), Type.Literal('qasm3')], {
  description: 'json (default): the circuit in wire format 0.2; qasm2/qasm3: also the OpenQASM text in `qasm`',
});

/** The `output` options of the same routes: how the OpenQASM text is written. */
export const OutputOptions = Type.Object(
  {
    inline_gates: Type.Optional(
      Type.Boolean({
        description:
          'true (default): user gates of an OpenQASM input are inlined. false: their `gate` definitions are kept in `qasm` and each call whose ops are unchanged is written as the call (the others inlined, with a warning); the circuit then carries gate_definitions and gate_calls',
      }),
    ),
  },
  { additionalProperties: false },
);

/** What the parse and the export need from `output`. */
export function keepsGates(output: { inline_gates?: boolean } | undefined): boolean {
  return output?.inline_gates === false;
}
