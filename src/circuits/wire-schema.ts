/**
 * The circuit wire format as JSON Schema (TypeBox): schema 0.2 (current), legacy 0.1,
 * and OpenQASM source. Served by GET /v1/circuits/schema. The validator in
 * wire-format.ts checks the same rules by hand so that every problem gets a stable code
 * and a JSON path; these schemas are the published contract.
 */
import { Type, type Static } from 'typebox';
import { GATES, NON_GATE_OPS } from './gates.js';
import { MAX_REGISTERS, REGISTER_NAME } from './ir.js';
import { MAX_GATE_BODY_CHARS, MAX_GATE_DEFINITIONS } from './qasm/gate-definition-text.js';
import { MAX_METADATA_CHARS } from './scan-circuit-input.js';
import { MAX_CONDITION_BITS, MAX_CONDITION_DIGITS } from './wire-condition.js';
import { MAX_PARAMETERS, PARAMETER_NAME_PATTERN } from './param-expr.js';

/*
 * Size bounds valid for every deployment, so that a client can check a circuit before sending it
 * (the deployment's own limits are in GET /v1/circuits/schema): the highest CIRCUIT_MAX_QUBITS and
 * CIRCUIT_MAX_GATES a deployment may set, and the largest body it may accept (BODY_LIMIT_BYTES).
 */
const MAX_QUBITS_ANY_DEPLOYMENT = 1024;
const MAX_OPERATIONS_ANY_DEPLOYMENT = 10_000_000;
const MAX_TEXT_ANY_DEPLOYMENT = 64 * 1024 * 1024;
const MAX_GATE_PARAMS = [...GATES.values()].reduce((m, g) => Math.max(m, g.params), 0);
const MAX_OP_NAME = [...GATES.keys(), ...NON_GATE_OPS].reduce((m, n) => Math.max(m, n.length), 0);

const Index = Type.Integer({ minimum: 0 });
const Indices = (description?: string) => Type.Array(Index, { maxItems: MAX_QUBITS_ANY_DEPLOYMENT, ...(description === undefined ? {} : { description }) });
const Param = Type.Union([
  Type.Number({ description: 'An angle in radians' }),
  Type.String({
    maxLength: MAX_TEXT_ANY_DEPLOYMENT,
    description:
      'An expression in radians with pi, e.g. "pi/4" or "-3*pi/2"; with declared `parameters`, an expression of them: numbers, pi, names, + - * /, unary minus, parentheses (at most 256 characters, 16 levels), e.g. "2*theta+pi/4"',
  }),
]);
const Params = (description?: string) => Type.Array(Param, { maxItems: MAX_GATE_PARAMS, ...(description === undefined ? {} : { description }) });
/** Free-form, kept as given; its JSON is at most MAX_METADATA_CHARS characters, so it has at most that many members. */
const Metadata = (description?: string) => Type.Record(Type.String(), Type.Unknown(), { maxProperties: MAX_METADATA_CHARS, ...(description === undefined ? {} : { description }) });
const Register = Type.Object({ name: Type.String({ pattern: REGISTER_NAME.source, maxLength: 64 }), size: Type.Integer({ minimum: 1 }) }, { additionalProperties: false });
const Identifier = Type.String({ pattern: REGISTER_NAME.source, maxLength: 64 });
const GateDefinitionSchema = Type.Object(
  {
    name: Identifier,
    params: Type.Optional(Type.Array(Identifier, { maxItems: 64 })),
    qubits: Type.Array(Identifier, { minItems: 1, maxItems: 64 }),
    body: Type.String({ maxLength: MAX_GATE_BODY_CHARS, pattern: '^[^{}]*$', description: 'The OpenQASM statements of the body, e.g. "rz(2*a) q0; cx q0, q1;"' }),
  },
  { additionalProperties: false },
);
const GateCallSchema = Type.Object(
  {
    gate: Identifier,
    params: Type.Optional(Type.Array(Type.Number(), { maxItems: 64 })),
    qubits: Indices(),
    start: Index,
    count: Index,
  },
  { additionalProperties: false },
);
const OP_NAMES = [...GATES.keys(), ...NON_GATE_OPS];

export const WireConditionSchema = Type.Object(
  {
    clbits: Type.Array(Index, { minItems: 1, maxItems: MAX_CONDITION_BITS, description: 'The clbits read, clbits[0] the least significant bit of the value (distinct, each < num_clbits)' }),
    value: Type.Union(
      [
        Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER }),
        Type.String({ pattern: '^[0-9]+$', minLength: 1, maxLength: MAX_CONDITION_DIGITS + 1, description: 'A value of any size as decimal digits (required above 2^53 − 1)' }),
      ],
      {
        description:
          'The gate applies on shots where the clbits, as an integer, equal this (< 2^len(clbits)); an unmeasured clbit reads 0. Up to 2^53 − 1 a number (answers use one); above, a decimal string (a register may be 64 or 301 bits wide)',
      },
    ),
  },
  { additionalProperties: false, description: 'Gates only: a dynamic circuit (OpenQASM 3 `if (c == k)`, `if (c[i])`); the optimizer keeps a conditioned gate as a barrier on its qubits' },
);

export const WireGateSchema = Type.Object(
  {
    op: Type.String({ enum: OP_NAMES, description: 'A catalogue gate, or measure, reset, barrier' }),
    qubits: Indices('Qubit indices; their number is the gate arity (barrier: any, at least one)'),
    params: Type.Optional(Params('Exactly the gate parameter count; omitted for none')),
    clbits: Type.Optional(Type.Array(Index, { minItems: 1, maxItems: 1, description: 'measure only: the classical bit written' })),
    condition: Type.Optional(WireConditionSchema),
  },
  { additionalProperties: false },
);

export const WireMeasurementSchema = Type.Object({ qubit: Index, clbit: Index }, { additionalProperties: false, description: 'A terminal measurement, after all gates' });

export const CircuitV02Schema = Type.Object(
  {
    schema: Type.Literal('0.2'),
    num_qubits: Type.Integer({ minimum: 1 }),
    num_clbits: Type.Optional(Type.Integer({ minimum: 0, description: 'Default 0' })),
    parameters: Type.Optional(
      Type.Array(Type.String({ pattern: PARAMETER_NAME_PATTERN, maxLength: 64 }), {
        maxItems: MAX_PARAMETERS,
        // Repeats are refused by the wire-format check (DUPLICATE_PARAMETER), linearly; Ajv's uniqueItems is pairwise.
        description: 'Declared symbolic parameters; gate params may be expressions of them, bound per run by parameter_values',
      }),
    ),
    quantum_registers: Type.Optional(
      Type.Array(Register, {
        maxItems: MAX_REGISTERS,
        description: 'Quantum registers in declaration order over qubits 0.. (sizes sum to num_qubits; names distinct from the classical registers); default one register q. Kept for OpenQASM export',
      }),
    ),
    registers: Type.Optional(
      Type.Array(Register, {
        maxItems: MAX_REGISTERS,
        description: 'Classical registers in declaration order over clbits 0.. (sizes sum to num_clbits); counts keys then separate registers by a space, the last register leftmost',
      }),
    ),
    gates: Type.Array(WireGateSchema, { maxItems: MAX_OPERATIONS_ANY_DEPLOYMENT, description: 'In program order' }),
    measurements: Type.Optional(Type.Array(WireMeasurementSchema, { maxItems: MAX_OPERATIONS_ANY_DEPLOYMENT, description: 'Default []' })),
    gate_definitions: Type.Optional(
      Type.Array(GateDefinitionSchema, {
        maxItems: MAX_GATE_DEFINITIONS,
        description: 'User gate definitions of an imported OpenQASM program, kept for export with output.inline_gates false (the ops are the truth: gates hold their expansion)',
      }),
    ),
    gate_calls: Type.Optional(
      Type.Array(GateCallSchema, {
        maxItems: MAX_OPERATIONS_ANY_DEPLOYMENT,
        description: 'Calls of gate_definitions in op order: each is exported as the call only while ops start..start+count (gates, then measurements) equal its expansion',
      }),
    ),
    metadata: Type.Optional(Metadata('Free-form, kept as given')),
  },
  { additionalProperties: false, $id: 'CircuitV02', title: 'qrail circuit, wire format schema 0.2' },
);

export const WireOperationV01Schema = Type.Object(
  {
    gate: Type.String({ maxLength: MAX_OP_NAME, description: 'A catalogue gate or measure, reset, barrier' }),
    targets: Indices(),
    controls: Type.Optional(Indices('Prepended to targets: cx is controls [c], targets [t]')),
    params: Type.Optional(Params()),
  },
  { additionalProperties: false },
);

export const CircuitV01Schema = Type.Object(
  {
    version: Type.Literal('0.1'),
    qubits: Type.Integer({ minimum: 1 }),
    operations: Type.Array(WireOperationV01Schema, { maxItems: MAX_OPERATIONS_ANY_DEPLOYMENT }),
    metadata: Type.Optional(Metadata()),
  },
  {
    additionalProperties: false,
    $id: 'CircuitV01',
    title: 'qrail circuit, legacy schema 0.1 (deprecated)',
    description: '`measure` of target q writes clbit q; there are as many clbits as qubits when any measure is present',
  },
);

export const QasmInputSchema = Type.Object(
  {
    format: Type.Union([Type.Literal('qasm2'), Type.Literal('qasm3')]),
    source: Type.String({ maxLength: MAX_TEXT_ANY_DEPLOYMENT, description: 'OpenQASM 2.0 or 3.0 program text' }),
  },
  { additionalProperties: false, $id: 'QasmInput', title: 'A circuit as OpenQASM source' },
);

export const CircuitInputSchema = Type.Union([CircuitV02Schema, CircuitV01Schema, QasmInputSchema], {
  title: 'Any accepted circuit input (put it under "circuit" in request bodies)',
});

export type WireCircuitV02 = Static<typeof CircuitV02Schema>;
export type WireGate = Static<typeof WireGateSchema>;
