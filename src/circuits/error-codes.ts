import { defineCode } from '../errors/app-error.js';

/** Error codes owned by the circuits domain. Add each new code here and to docs/errors.md. */
export const CIRCUITS_ERRORS = {
  QASM_PARSE_ERROR: defineCode('QASM_PARSE_ERROR', 400, 'The OpenQASM source could not be imported; `details` gives the line, column and a specific code.'),
  CIRCUIT_INVALID: defineCode('CIRCUIT_INVALID', 400, 'The circuit is not valid; `details` lists every problem as `{path, code, message}`.'),
  EXAMPLE_NOT_FOUND: defineCode('EXAMPLE_NOT_FOUND', 404, 'No example circuit has that name; `details.valid_names` lists the names there are.'),
} as const;

/**
 * Codes of individual circuit problems (the `code` of each `{path, code, message}` entry).
 * They are not HTTP answers by themselves, so they are not in the error catalogue;
 * docs/wire-format.md lists them.
 */
export const CIRCUIT_PROBLEM_CODES = [
  // Structural problems use the same codes as request validation (src/http/plugins/validation.ts).
  'REQUIRED',
  'WRONG_TYPE',
  'UNKNOWN_PROPERTY',
  'TOO_SMALL',
  'UNKNOWN_SCHEMA_VERSION',
  'UNKNOWN_FORMAT',
  'UNKNOWN_GATE',
  'WRONG_ARITY',
  'WRONG_PARAM_COUNT',
  'NON_FINITE_PARAM',
  'QUBIT_OUT_OF_RANGE',
  'CLBIT_OUT_OF_RANGE',
  'DUPLICATE_QUBIT',
  'TOO_MANY_QUBITS',
  'TOO_MANY_GATES',
  'TOO_DEEP',
  'QASM_SYNTAX_ERROR',
  'QASM_UNSUPPORTED',
  'QASM_UNDEFINED',
  'EXPRESSION_TOO_DEEP',
  'EXPRESSION_TOO_LONG',
  'TOO_DEEPLY_NESTED',
  'METADATA_TOO_LARGE',
  'INVALID_CHARACTER',
  'TOO_MANY_PROBLEMS',
  // Symbolic parameters and their bindings (src/circuits/parameters.ts).
  'PARAMETERS_UNBOUND',
  'PARAMETER_UNKNOWN',
  'DUPLICATE_PARAMETER',
  'TOO_MANY_PARAMETERS',
  'REGISTERS_MISMATCH',
  // Kept user gate definitions (OpenQASM export with inline_gates: false, wire gate_definitions/gate_calls).
  'TOO_MANY_DEFINITIONS',
  'GATE_CALL_INVALID',
  // Dynamic circuits: a gate's `condition` on measured bits, OpenQASM `if`/`for` (src/circuits/wire-condition.ts, qasm/control-flow.ts).
  'CONDITION_INVALID',
] as const;
export type CircuitProblemCode = (typeof CIRCUIT_PROBLEM_CODES)[number];
