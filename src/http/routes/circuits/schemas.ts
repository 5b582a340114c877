import { Type } from 'typebox';
import { CIRCUIT_ANY_INPUT, CIRCUIT_INPUT } from '../../openapi/finish-document.js';
import { MapOf, Nullable, Obj, QubitPair } from '../../schema-helpers.js';

/** Request and response schemas of the circuit endpoints (also the OpenAPI contract). */

/**
 * A request field holding a circuit. Validated by the circuit parser (every problem with its own
 * code and path, and `validate` answers 200 with them), so the edge validator lets any value
 * through; the document shows it as one of the three input forms.
 */
export const circuitField = (description = 'A circuit: wire format 0.2, legacy 0.1, or OpenQASM source') => Type.Unsafe<unknown>({ [CIRCUIT_INPUT]: true, description });

/**
 * The circuit of `validate`: the edge lets any value through as for `circuitField`, and the
 * document admits any object besides the three forms (a broken circuit is this endpoint's input).
 */
export const anyCircuitField = (description = 'A circuit to check, valid or not: wire format 0.2, legacy 0.1, or OpenQASM source') => Type.Unsafe<unknown>({ [CIRCUIT_ANY_INPUT]: true, description });

const Str = Type.String();
const Strings = Type.Array(Type.String());
const Int = Type.Integer({ minimum: 0 });
const Ints = Type.Array(Int);
const Status = Type.Union(['compatible', 'needs_translation', 'incompatible'].map((s) => Type.Literal(s)));

export const CircuitProblemSchema = Obj(
  {
    path: Type.String({ description: 'JSON Pointer into the request body, e.g. /circuit/gates/3/qubits/1' }),
    code: Type.String({ description: 'A stable problem code, e.g. UNKNOWN_GATE, QUBIT_OUT_OF_RANGE (docs/wire-format.md)' }),
    message: Str,
    line: Type.Optional(Type.Integer({ minimum: 1 })),
    column: Type.Optional(Type.Integer({ minimum: 1 })),
  },
  { $id: 'CircuitProblem', description: 'One problem of a circuit, at its JSON path (OpenQASM: with line and column)' },
);

const Summary = Obj({
  input_format: Type.Union(['json-0.2', 'json-0.1', 'qasm2', 'qasm3'].map((s) => Type.Literal(s))),
  num_qubits: Int,
  num_clbits: Int,
  operation_count: Int,
  gate_count: Int,
  two_qubit_count: Int,
  measurement_count: Int,
  depth: Int,
});

export const ValidateData = Obj({
  valid: Type.Boolean(),
  errors: Type.Array(Type.Ref('CircuitProblem')),
  warnings: Strings,
  circuit: Type.Optional(Type.Ref('CircuitV02', { description: 'The normalized 0.2 circuit (valid circuits only)' })),
  qasm: Type.Optional(Type.String({ description: 'OpenQASM text when output_format is qasm2 or qasm3' })),
  summary: Type.Optional(Summary),
});

export const SchemaData = Obj({
  current_schema: Type.Literal('0.2'),
  accepted: Strings,
  json_schema: Type.Ref('JsonSchema', { description: 'The JSON Schema of a circuit input: any of wire format 0.2, legacy 0.1 or OpenQASM source' }),
  gates: Type.Array(Obj({ name: Str, arity: Type.Integer({ minimum: 1 }), params: Int, origin: Str })),
  non_gate_operations: Strings,
  operations: Type.Array(
    Obj({
      name: Str,
      qubits: Type.Union([Type.Integer(), Type.Literal('any')], { description: 'qubits it acts on; barrier takes one or more' }),
      clbits: Int,
      params: Int,
    }),
    { description: 'measure, reset and barrier with their arity (wire format: measurements[] and gates[] entries)' },
  ),
  limits: Obj({ max_qubits: Type.Integer(), max_gates: Type.Integer(), max_depth: Type.Integer() }),
});

export const ExampleData = Obj({
  names: Strings,
  examples: Type.Array(Obj({ name: Str, circuit: Type.Ref('CircuitV02') })),
  circuit: Type.Optional(Type.Ref('CircuitV02', { description: 'The named example (when name is given)' })),
});

const DeviceCompatibility = Obj({
  device: Str,
  provider: Str,
  status: Status,
  reasons: Strings,
  non_native_gates: Strings,
  uncoupled_pairs: Type.Array(QubitPair),
});

export const CircuitAnalysisSchema = Obj(
  {
    num_qubits: Int,
    num_clbits: Int,
    qubits_used: Ints,
    num_qubits_used: Int,
    depth: Int,
    operation_count: Int,
    gate_count: Int,
    conditioned_gate_count: Type.Integer({ minimum: 0, description: 'Gates conditioned on measured bits (a dynamic circuit; included in gate_count)' }),
    dynamic: Type.Boolean({ description: 'Whether some gate is conditioned on measured bits' }),
    counts_by_kind: MapOf(Int, '^[a-z0-9_]+$', 'Operations per gate name (and measure, reset, barrier)'),
    single_qubit_count: Int,
    two_qubit_count: Int,
    multi_qubit_count: Int,
    t_count: Int,
    non_clifford_rotations: Int,
    measurement_count: Int,
    measurements: Type.Array(Obj({ qubit: Int, clbit: Int, terminal: Type.Boolean() })),
    interaction_graph: Obj({ nodes: Ints, edges: Type.Array(Obj({ qubits: QubitPair, weight: Type.Integer({ minimum: 1 }) })) }),
    compatibility: Type.Array(Obj({ provider: Str, status: Status, compatible_devices: Strings, devices: Type.Array(DeviceCompatibility) })),
    entanglement: Obj({
      components: Type.Array(Ints),
      possibly_entangled_pairs: Type.Array(QubitPair),
      entangled_pairs: Nullable(Type.Array(QubitPair)),
      correlated_pairs: Nullable(Type.Array(QubitPair)),
      entangled_pairs_method: Nullable(Str),
      entangled_pairs_unavailable_reason: Nullable(Str),
    }),
    providers: Type.Array(Obj({ id: Str, name: Str })),
    warnings: Strings,
  },
  { $id: 'CircuitAnalysis', description: 'Counts, depth, T-count, interaction graph, per-device compatibility and entanglement of a circuit' },
);

const Metrics = Obj({
  total: Type.Integer({ description: 'Gates (measure/reset/barrier excluded)' }),
  two_qubit: Type.Integer(),
  t_count: Type.Integer({ description: 't/tdg plus z-rotations by odd multiples of π/4' }),
  depth: Type.Integer(),
  t_depth: Type.Integer({ description: 'Most T gates (as t_count counts them) on any chain of gates over shared qubits' }),
  cost_model: Type.Optional(
    Type.Union([Type.Literal('native'), Type.Literal('nam')], {
      description: "How target_total counts (after optimization only): 'native' = one per gate of the target's own gate set; 'nam' = gates in {h, rz, x, cx} (the generic target; u3 decomposed)",
    }),
  ),
  target_total: Type.Optional(Type.Integer({ description: 'Gates as the target counts them, in cost_model; profiles are ranked by it' })),
});

/** An operation of the certificate, in the optimizer's own form (angles as numbers, in radians). */
export const CertificateOperationSchema = Type.Union(
  [
    Obj({ kind: Type.Literal('gate'), name: Str, qubits: Ints, params: Type.Array(Type.Number()) }),
    Obj({ kind: Type.Literal('measure'), qubit: Int, clbit: Int }),
    Obj({ kind: Type.Literal('reset'), qubit: Int }),
    Obj({ kind: Type.Literal('barrier'), qubits: Ints }),
  ],
  { $id: 'CertificateOperation' },
);

/** A rewrite step of the certificate, as the independent checker replays it. */
const CertificateStep = Obj({
  rule: Str,
  positions: Ints,
  replaced: Type.Array(Type.Ref('CertificateOperation')),
  inserted: Type.Array(Type.Ref('CertificateOperation')),
  anchor: Type.Optional(Type.Union([Type.Literal('first'), Type.Literal('last')])),
  insertAt: Type.Optional(Int),
  order: Type.Optional(Type.Array(Int, { description: 'Rule reorder only: the new op list is order.map((i) => ops[i])' })),
  inPlace: Type.Optional(
    Type.Array(Type.Union([Type.Ref('CertificateOperation'), Type.Null()]), { description: 'Rule phase-teleport only: the op at positions[i] becomes inPlace[i] (null removes it)' }),
  ),
  witness: Type.Optional(Obj({ trace: Type.Array(Ints, { description: 'The reduction trace the phase-teleport checker replays' }) })),
  numQubits: Type.Optional(Type.Integer({ description: 'Rule widen only: the register width from this step on (wires borrowed from the device for routing)' })),
  span: Type.Optional(Type.Array(Int, { minItems: 2, maxItems: 2, description: 'Rule phase-teleport only: the range [from, to) of the op list whose path sum the trace reduces' })),
});

const ProofMethod = Obj({
  method: Str,
  checked: Str,
  local_steps: Type.Optional(Int),
  global_steps: Type.Optional(Int),
  equivalent: Type.Optional(Type.Boolean()),
  elapsed_ms: Type.Optional(Type.Number()),
  justifies: Type.Optional(Strings),
  bindings: Type.Optional(Int),
});

/** The fields an optimization result has in both the HTTP answer and a circuit.optimize job. */
export const optimizeResultProperties = {
  circuit: Type.Ref('CircuitV02', { description: 'The optimized circuit' }),
  profile: Type.Union(['safe', 'balanced', 'aggressive'].map((p) => Type.Literal(p))),
  backend_hint: Type.Union(['generic', 'provider-one', 'provider-two'].map((p) => Type.Literal(p))),
  metrics_before: Metrics,
  metrics_after: Metrics,
  passes: Strings,
  timed_out: Type.Boolean(),
  notes: Strings,
  warnings: Strings,
};

export const OptimizeData = Obj({
  ...optimizeResultProperties,
  qasm: Type.Optional(Type.String({ description: 'The optimized circuit as OpenQASM when output_format is qasm2 or qasm3' })),
  device: Nullable(Str),
  proof: Obj({
    verified: Type.Literal(true),
    methods: Type.Array(ProofMethod),
    certificate: Obj({
      digest: Type.String({ description: 'sha256 of the canonical certificate' }),
      step_count: Int,
      global_steps: Int,
      steps: Type.Optional(Type.Array(CertificateStep, { description: 'Inlined when include_steps is not false and there are at most 2000' })),
    }),
  }),
  elapsed_ms: Type.Number(),
});

export const ProofSummary = Obj({
  verified: Type.Literal(true),
  methods: Type.Array(ProofMethod),
  certificate: Obj({ digest: Str, step_count: Int, global_steps: Int }),
});
