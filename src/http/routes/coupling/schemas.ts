import { Type } from 'typebox';
import { circuitField } from '../circuits/schemas.js';
import { MapOf, Obj } from '../../schema-helpers.js';

/** Request and response schemas of the coupling endpoints (also the OpenAPI contract). */

export const CircuitField = circuitField('A circuit: wire format schema 0.2, legacy 0.1, or OpenQASM source. Problems are reported as 400 CIRCUIT_INVALID with paths under this field.');

export const Mode = Type.Union([Type.Literal('qualitative'), Type.Literal('measured'), Type.Literal('auto')], {
  description: 'qualitative: structure only; measured: from the final state, falling back to qualitative when out of scope; auto (default): measured when in scope, qualitative otherwise',
});

const QubitPair = Type.Array(Type.Integer({ minimum: 0 }), { minItems: 2, maxItems: 2, description: 'Two distinct qubits, e.g. [0, 3]' });

export const Pairs = Type.Array(QubitPair, {
  maxItems: 100_000,
  description: 'The pairs to analyse; all pairs a < b when omitted. Answered as [min, max] in request order; repeats answered once.',
});

export const CouplingBody = Type.Object(
  {
    circuit: CircuitField,
    mode: Type.Optional(Mode),
    pairs: Type.Optional(Pairs),
  },
  { additionalProperties: false },
);

export const CompareBody = Type.Object(
  {
    before: CircuitField,
    after: CircuitField,
    qubit_map: Type.Optional(
      Type.Array(Type.Integer({ minimum: 0 }), {
        // One entry per qubit of `before`, so never more than the largest CIRCUIT_MAX_QUBITS allowed.
        maxItems: 1024,
        description: 'qubit_map[q] = the qubit of `after` that holds qubit q of `before` at the end of the circuit (a router’s final layout). Default: the identity. At most 1024 entries.',
      }),
    ),
    mode: Type.Optional(Mode),
    pairs: Type.Optional(Pairs),
    tolerance: Type.Optional(Type.Number({ minimum: 0, maximum: 1, description: 'Largest difference of a measured quantity still counted as equal. Default 1e-6.' })),
  },
  { additionalProperties: false },
);

const PairOut = Type.Array(Type.Integer(), { minItems: 2, maxItems: 2 });

const Fallback = Obj({
  requested: Type.Union([Type.Literal('measured'), Type.Literal('auto')]),
  reason_code: Type.Union(['TOO_MANY_QUBITS', 'MID_CIRCUIT_MEASUREMENT', 'RESET', 'DYNAMIC_CIRCUIT', 'TIME_BUDGET_EXCEEDED', 'SIMULATION_UNAVAILABLE'].map((c) => Type.Literal(c))),
  reason: Type.String(),
});

export const Qualitative = Obj({
  interaction_graph: Obj({
    num_qubits: Type.Integer(),
    edges: Type.Array(Obj({ qubits: PairOut, weight: Type.Integer(), gates: MapOf(Type.Integer({ minimum: 1 }), '^[a-z0-9_]+$', 'Two-qubit operations on the pair, by gate name') })),
  }),
  components: Type.Array(Type.Array(Type.Integer()), { description: 'Connected components of the interaction graph' }),
  light_cones: Type.Array(Type.Array(Type.Integer()), { description: 'light_cones[q]: the initial qubits that can influence qubit q at the end' }),
  pairs: Type.Array(
    Obj({
      qubits: PairOut,
      interaction_weight: Type.Integer(),
      light_cone_overlap: Type.Number(),
      may_be_entangled: Type.Boolean(),
      score: Type.Number({ description: '0 = provably uncoupled; see docs/coupling.md' }),
    }),
  ),
  pairs_may_be_entangled: Type.Integer(),
});

const Measured = Obj({
  entropies_bits: Type.Array(Type.Number(), { description: 'Single-qubit von Neumann entropy, bits; index = qubit' }),
  pairs: Type.Array(
    Obj({
      qubits: PairOut,
      concurrence: Type.Number(),
      mutual_information_bits: Type.Number(),
      pair_entropy_bits: Type.Number(),
    }),
  ),
  simulated_qubits: Type.Array(Type.Integer(), { description: 'Qubits gates act on; all others are exactly |0⟩' }),
});

export const CouplingData = Obj(
  {
    mode_requested: Mode,
    mode_used: Type.Union([Type.Literal('qualitative'), Type.Literal('measured')]),
    fallback: Type.Optional(Fallback),
    num_qubits: Type.Integer(),
    pairs_scope: Type.Union([Type.Literal('all'), Type.Literal('requested')]),
    limits: Obj({ measured_max_qubits: Type.Integer(), time_budget_ms: Type.Integer() }),
    qualitative: Qualitative,
    measured: Type.Optional(Measured),
    warnings: Type.Array(Type.String()),
  },
  { $id: 'CouplingReport', description: 'Coupling of qubit pairs: qualitative always, measured when in scope, and why it fell back' },
);

const Delta = Obj({ before: Type.Number(), after: Type.Number(), delta: Type.Number() });
const Side = Obj({ num_qubits: Type.Integer(), mode_used: Type.Union([Type.Literal('qualitative'), Type.Literal('measured')]), fallback: Type.Optional(Fallback) });
const QualSide = Obj({ may_be_entangled: Type.Boolean(), score: Type.Number() });
const Status = Type.Union(['preserved', 'changed', 'gained', 'lost', 'uncoupled'].map((s) => Type.Literal(s)));

export const CompareData = Obj({
  mode_requested: Mode,
  basis: Type.Union([Type.Literal('measured'), Type.Literal('qualitative')], { description: 'measured when both circuits were measured' }),
  tolerance: Type.Number(),
  preserved: Type.Boolean(),
  qubit_map: Type.Array(Type.Integer()),
  before: Side,
  after: Side,
  summary: Obj({
    pairs: Type.Integer(),
    preserved: Type.Integer(),
    changed: Type.Integer(),
    gained: Type.Integer(),
    lost: Type.Integer(),
    uncoupled: Type.Integer(),
  }),
  entropies: Type.Optional(Type.Array(Obj({ qubit: Type.Integer(), after_qubit: Type.Integer(), before: Type.Number(), after: Type.Number(), delta: Type.Number() }))),
  pairs: Type.Array(
    Obj({
      qubits: PairOut,
      after_qubits: PairOut,
      status: Status,
      qualitative: Obj({ before: QualSide, after: QualSide }),
      measured: Type.Optional(Obj({ concurrence: Delta, mutual_information_bits: Delta })),
    }),
  ),
  warnings: Type.Array(Type.String()),
});
