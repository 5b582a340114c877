import { Type } from 'typebox';
import { BIT_ORDER } from '../../../execution/views.js';
import { Iso, MapOf, Nullable, NullableIso, NullableUsd, Obj, SubmittedBy, Usd } from '../../schema-helpers.js';
import { DeviceMitigationSchema, MitigationSchema } from './mitigation-schemas.js';

/** Response schemas of the execution endpoints (src/execution/views.ts and capabilities.ts build them). */

const Str = Type.String();
const Strings = Type.Array(Type.String());
const Provider = Type.Union([Type.Literal('provider-one'), Type.Literal('provider-two')]);
const Kind = Type.Union([Type.Literal('simulator'), Type.Literal('hardware')]);
const Driver = Type.Union(['simulator', 'emulated', 'remote'].map((d) => Type.Literal(d)));
const DeviceStatus = Type.Union(['online', 'offline', 'maintenance'].map((s) => Type.Literal(s)));

export const ReasonSchema = Obj(
  {
    code: Type.Union(
      ['no_session', 'provider_not_configured', 'credentials_missing', 'device_offline', 'wallet_not_funded', 'hardware_disabled_by_spend_controls', 'quote_hold_required'].map((c) => Type.Literal(c)),
    ),
    message: Str,
  },
  { $id: 'ExecutionReason', description: 'Why an option is not ready: a stable code and what to do' },
);
const Reasons = Type.Array(Type.Ref('ExecutionReason'));

/** A counts key: clbit bits, registers separated by a space (several registers). */
const KEY = '^[01]*( [01]+)*$';
const Registers = Type.Array(Obj({ name: Type.String({ maxLength: 64 }), size: Type.Integer({ minimum: 1 }) }), {
  maxItems: 64,
  description: 'The classical registers in declaration order (present with several): keys show them separated by a space, the last leftmost',
});
const ExpectationSchema = Obj(
  {
    value: Type.Number({ description: '⟨H⟩ of the observable' }),
    terms: Type.Array(Type.Number(), { maxItems: 256, description: '⟨coeff·P⟩ of each term, in order' }),
    kind: Type.Union([Type.Literal('exact'), Type.Literal('estimated')], {
      description: 'exact: from the state vector (simulator); estimated: from the shots (hardware: one task per group, see groups)',
    }),
    stderr: Type.Optional(Type.Number({ minimum: 0, description: 'Standard error of an estimate' })),
    groups: Type.Optional(
      Type.Array(
        Obj({
          basis: Type.String({ pattern: '^[IXYZ]+$', maxLength: 1024, description: 'The measurement basis per qubit (rightmost = qubit 0; I: not measured)' }),
          terms: Type.Array(Type.Integer({ minimum: 0 }), { maxItems: 256, description: 'Indices of the observable’s terms this group estimates' }),
          shots: Type.Integer({ minimum: 0 }),
          value: Type.Number({ description: 'Σ coeff·⟨P⟩ over the group’s terms' }),
          stderr: Type.Number({ minimum: 0 }),
          counts: MapOf(Type.Integer({ minimum: 0 }), KEY, 'The group circuit’s counts: clbit q measured qubit q, after the basis rotations'),
        }),
        { maxItems: 256, description: 'Hardware: the qubit-wise commuting groups, one task each, in task order' },
      ),
    ),
  },
  { description: 'Expectation value of the Pauli-sum observable (Pauli strings: rightmost character = qubit 0, as Qiskit)' },
);
const Memory = Type.Array(Type.String({ pattern: KEY, maxLength: 4096 }), { maxItems: 10_000, description: 'Per-shot outcomes in shot order; their histogram equals counts' });
const Statevector = Type.Array(Type.Array(Type.Number(), { minItems: 2, maxItems: 2, description: '[re, im]' }), {
  maxItems: 2 ** 20,
  description: 'Final amplitudes as [re, im] pairs; index bit k ↔ qubit k (at most 20 qubits)',
});
const ResultTypes = Type.Array(Type.String({ enum: ['counts', 'memory', 'probabilities', 'statevector', 'expectation'] }), { maxItems: 5, description: 'The result types computed' });

const Truncation = Obj(
  {
    fidelity_lower_bound: Type.Number({
      minimum: 0,
      maximum: 1,
      description: '(1 − D²/2)² with D = Σ √(2 − 2√(1 − w)) over the truncations (w: discarded weight): a rigorous bound on |⟨exact|result⟩|²',
    }),
    fidelity_estimate: Type.Number({ minimum: 0, maximum: 1, description: '∏ (1 − w): the usual estimate (exact for one truncation)' }),
    max_bond_dimension_reached: Type.Integer({ minimum: 1 }),
    truncations: Type.Integer({ minimum: 0 }),
    discarded_weight: Type.Number({ minimum: 0 }),
  },
  { description: 'matrix_product_state: what the truncation cost (fidelity_lower_bound 1 and truncations 0: the run was exact)' },
);

const SweepPoint = Obj(
  {
    parameter_values: MapOf(Type.Number(), '^[A-Za-z_][A-Za-z0-9_]{0,63}$', 'The values this point ran at'),
    seed: Type.Integer({ minimum: 0 }),
    counts: MapOf(Type.Integer({ minimum: 0 }), KEY, 'Shots per measured bitstring'),
    probabilities: Type.Optional(MapOf(Type.Number({ minimum: 0, maximum: 1 }), KEY, 'Probability per bitstring')),
    probabilities_kind: Type.Union([Type.Literal('exact'), Type.Literal('estimated'), Type.Literal('omitted')]),
    memory: Type.Optional(Memory),
    statevector: Type.Optional(Statevector),
    expectation: Type.Optional(ExpectationSchema),
    mitigation: Type.Optional(MitigationSchema),
    truncation: Type.Optional(Truncation),
    notes: Strings,
  },
  { description: 'The results of one point of a parameter sweep' },
);

export const ExecutionResultsSchema = Obj(
  {
    counts: MapOf(Type.Integer({ minimum: 0 }), KEY, 'Shots per measured bitstring (see bit_order); empty for a sweep (see points)'),
    bit_order: Type.Literal(BIT_ORDER),
    shots: Type.Integer({ minimum: 1 }),
    probabilities: Type.Optional(MapOf(Type.Number({ minimum: 0, maximum: 1 }), KEY, 'Probability per bitstring (exact for the noiseless simulator on small circuits)')),
    probabilities_kind: Type.Union([Type.Literal('exact'), Type.Literal('estimated'), Type.Literal('omitted')], {
      description: 'exact: from the state vector; estimated: from the counts; omitted: too many outcomes',
    }),
    notes: Strings,
    meta: Type.Optional(
      Obj({
        seed: Type.Optional(Type.Integer()),
        simulator: Type.Optional(Str),
        method: Type.Optional(
          Type.Union([Type.Literal('statevector'), Type.Literal('stabilizer'), Type.Literal('matrix_product_state'), Type.Literal('density_matrix')], {
            description: 'The simulation method that ran (docs/simulator.md#methods)',
          }),
        ),
        method_reason: Type.Optional(Type.String({ description: 'method auto: why this method was chosen' })),
        trajectories: Type.Optional(Type.Integer({ minimum: 0 })),
        remote_provider: Type.Optional(Type.Union([Type.Literal('ionq'), Type.Literal('ibm')])),
        memory: Type.Optional(Type.Array(Type.String({ maxLength: 300 }), { maxItems: 100_000, description: 'Per-shot samples in shot order, as the provider gave them (IBM: hex, clbit i = bit i)' })),
        remote_job_id: Type.Optional(Str),
        target: Type.Optional(Str),
      }),
    ),
    result_types: Type.Optional(ResultTypes),
    registers: Type.Optional(Registers),
    memory: Type.Optional(Memory),
    statevector: Type.Optional(Statevector),
    expectation: Type.Optional(ExpectationSchema),
    mitigation: Type.Optional(MitigationSchema),
    truncation: Type.Optional(Truncation),
    parameters: Type.Optional(Type.Array(Type.String({ maxLength: 64 }), { maxItems: 64, description: 'A sweep: the circuit parameters, in declaration order' })),
    points: Type.Optional(Type.Array(SweepPoint, { maxItems: 1000, description: 'A sweep: the results per point, in the order of parameter_values' })),
  },
  { $id: 'ExecutionResults', description: 'Measurement results of a completed run' },
);

const Layout = MapOf(Type.Integer({ minimum: 0 }), '^(0|[1-9][0-9]*)$', 'Circuit qubit → physical qubit');

export const TranslationSchema = Obj(
  {
    initial_layout: Layout,
    final_layout: Layout,
    swaps_inserted: Type.Integer({ minimum: 0 }),
    gates_before: Type.Integer({ minimum: 0 }),
    gates_after: Type.Integer({ minimum: 0 }),
    two_qubit_gates_after: Type.Integer({ minimum: 0 }),
    verification: Obj({
      equivalent: Type.Union([Type.Literal(true), Type.Literal('unknown'), Type.Literal('skipped')]),
      method: Str,
      checked: Str,
      reason: Type.Optional(Str),
    }),
  },
  { $id: 'ExecutionTranslation', description: 'How a hardware run was placed, routed and rewritten into native gates, and the proof it is equivalent' },
);

export const ExecutionJobSchema = Obj(
  {
    job_id: Type.String({ format: 'uuid' }),
    submitted_by: SubmittedBy,
    provider: Provider,
    device: Str,
    kind: Kind,
    driver: Nullable(Driver),
    status: Type.Union(
      ['queued', 'running', 'completed', 'failed', 'held', 'continued', 'released', 'expired'].map((s) => Type.Literal(s)),
      {
        description: 'queued → running → completed | failed; a held job not continued: held, released or expired',
      },
    ),
    client_token: Nullable(Str),
    shots: Type.Integer({ minimum: 1 }),
    seed: Nullable(Type.Integer()),
    queue_position: Nullable(Type.Integer({ minimum: 1 })),
    progress: Type.Optional(
      Nullable(
        Obj({ fraction: Type.Number({ minimum: 0, maximum: 1 }), phase: Str, at: Iso }),
        'While a simulator or emulated run is running: the fraction of its state evolution done (a sweep counts its points), its phase (`simulating`) and when it was reported (at most once a second); null otherwise',
      ),
    ),
    results: Nullable(Type.Ref('ExecutionResults'), 'Set when completed, and on a canceled job whose run the provider completed anyway (it was paid for)'),
    translation: Nullable(Type.Ref('ExecutionTranslation')),
    cost: Obj({ currency: Type.Literal('USD'), estimated: Usd, actual: NullableUsd, hold_id: Nullable(Str), held: NullableUsd }),
    failure: Nullable(Obj({ code: Str, message: Str })),
    cancel_requested_at: NullableIso,
    remote: Nullable(Obj({ provider: Type.Union([Type.Literal('ionq'), Type.Literal('ibm')]), job_id: Nullable(Str) })),
    created_at: NullableIso,
    started_at: NullableIso,
    finished_at: NullableIso,
    expires_at: Type.Optional(Iso),
    events: Type.Array(Obj({ from: Nullable(Str), to: Str, at: Iso, note: Nullable(Str) })),
    links: Obj({ self: Str, continue: Type.Optional(Str), release: Type.Optional(Str) }),
    replayed: Type.Optional(Type.Boolean({ description: 'true when this answer is the job a client_token already created' })),
  },
  { $id: 'ExecutionJob', description: 'An execution job: status, queue position, results (counts with bit_order), translation, cost and failure' },
);

export const HeldTasksSchema = Obj(
  {
    job_id: Type.String({ format: 'uuid' }),
    status: Type.Union(
      ['held', 'continued', 'released', 'expired'].map((x) => Type.Literal(x)),
      { description: 'held while tasks remain; continued once every task was taken' },
    ),
    device: Str,
    shots: Type.Integer({ minimum: 1 }),
    tasks: Type.Integer({ minimum: 1, description: 'Tasks the hold was placed for (the quote’s tasks)' }),
    tasks_used: Type.Integer({ minimum: 0, description: 'Tasks taken by continuations so far' }),
    tasks_remaining: Type.Integer({ minimum: 0 }),
    price_per_task: Usd,
    hold_id: Str,
    expires_at: Iso,
  },
  { $id: 'ExecutionHeldTasks', description: 'A held job’s tasks: placed, taken by continuations, left (the hold_id holds the untaken tasks’ money while any remain)' },
);

export const DeviceSchema = Obj(
  {
    id: Str,
    provider: Provider,
    name: Str,
    kind: Kind,
    driver: Driver,
    num_qubits: Type.Integer({ minimum: 1, description: 'Physical qubits; on a simulator device, the statevector method’s limit (see methods for the others)' }),
    topology: Str,
    native_gates: Strings,
    coupling_map: Nullable(Type.Array(Type.Array(Type.Integer({ minimum: 0 }), { minItems: 2, maxItems: 2 })), 'Coupled physical qubit pairs; null when all-to-all'),
    faulty: Obj(
      {
        qubits: Type.Array(Type.Integer({ minimum: 0 }), { description: 'Physical qubits the provider reports faulty (IBM: `operational` 0)' }),
        pairs: Type.Array(Type.Array(Type.Integer({ minimum: 0 }), { minItems: 2, maxItems: 2 }), {
          description: 'Coupled pairs the provider reports faulty (IBM: `operational` 0, or a basis two-qubit gate with `gate_error` 1)',
        }),
      },
      {
        description:
          'What the provider reports unusable in its latest report: never routed over and absent from coupling_map; a circuit that needs them is refused with 422 EXECUTION_FAULTY_QUBITS. Empty lists when none (or no report).',
      },
    ),
    supports_mid_circuit_measurement: Type.Boolean(),
    supports_reset: Type.Boolean(),
    supports_dynamic_circuits: Type.Boolean({
      description:
        'Runs dynamic circuits (gates conditioned on measured bits: a wire `condition`, QASM `if`). The simulators do; a held continuation with one on a device without is refused with 422 DEVICE_DYNAMIC_CIRCUITS_UNSUPPORTED before any task is taken.',
    }),
    status: DeviceStatus,
    status_detail: Nullable(Str),
    available: Type.Boolean(),
    reasons: Reasons,
    queue_depth: Type.Integer({ minimum: 0 }),
    queue: Obj({ queued: Type.Integer({ minimum: 0 }), running: Type.Integer({ minimum: 0 }) }),
    requires_hold: Type.Boolean(),
    methods: Nullable(
      Type.Array(
        Obj({
          method: Type.Union([Type.Literal('statevector'), Type.Literal('stabilizer'), Type.Literal('matrix_product_state'), Type.Literal('density_matrix')]),
          max_qubits: Type.Integer({ minimum: 1 }),
          result_types: Strings,
        }),
      ),
      'Simulator devices: the simulation methods a run may ask for (`method`), each with its qubit limit and result types; null on hardware',
    ),
    pricing: Nullable(Obj({ currency: Type.Literal('USD'), per_task: Usd, per_shot: Usd, formula: Str })),
    source: Type.Union([Type.Literal('provider'), Type.Literal('deployment')], {
      description: "provider: status, queue, gates, coupling and calibration from the provider's latest report; deployment: this deployment's own figures",
    }),
    provider_queue_length: Nullable(Type.Integer({ minimum: 0 }), 'Jobs waiting at the provider (all its users), from its latest report; null when not reported'),
    snapshot_fetched_at: NullableIso,
    calibration: Nullable(
      Obj(
        {
          source: Type.Union([Type.Literal('provider'), Type.Literal('deployment')], { description: "provider: measured by the provider; deployment: the emulation's own figures" }),
          calibrated_at: Iso,
          mean: Obj({
            t1_us: Nullable(Type.Number()),
            t2_us: Nullable(Type.Number()),
            error_1q: Nullable(Type.Number()),
            error_2q: Nullable(Type.Number()),
            readout_error: Nullable(Type.Number()),
          }),
          t1_us: Type.Optional(Type.Array(Type.Number(), { maxItems: 10_000 })),
          t2_us: Type.Optional(Type.Array(Type.Number(), { maxItems: 10_000 })),
          gate_time_1q_ns: Type.Optional(Type.Number()),
          gate_time_2q_ns: Type.Optional(Type.Number()),
          error_1q: Type.Optional(Type.Array(Type.Number(), { maxItems: 10_000 })),
          error_2q: Type.Optional(Type.Union([Type.Number(), MapOf(Type.Number(), '^[0-9]+-[0-9]+$')], { description: 'Per coupled pair "a-b", or one figure for all-to-all devices' })),
          readout_error: Type.Optional(Type.Array(Type.Number(), { maxItems: 10_000 })),
        },
        { description: "Remote devices: the provider's figures (means), null until it has reported; emulated devices: the deployment's per-qubit figures" },
      ),
    ),
    backend: Nullable(Str, "Remote devices: the provider's system it runs on (IBM_QUANTUM_BACKENDS, IONQ_TARGET), e.g. ibm_fez or qpu.forte-1; null otherwise"),
    provider_systems: Type.Array(Obj({ backend: Str, status: DeviceStatus, status_detail: Nullable(Str), num_qubits: Type.Integer({ minimum: 0 }) }), {
      maxItems: 200,
      description: 'Remote devices: every system of the provider in its latest report (IonQ: what GET /backends lists, so IONQ_TARGET can name another; IBM: the mapped backends); empty elsewhere',
    }),
    mitigation: DeviceMitigationSchema,
  },
  { $id: 'ExecutionDevice' },
);

const DeviceOption = Obj({ device: Str, status: DeviceStatus, ready: Type.Boolean(), reasons: Reasons });
const Option = Obj({
  ready: Type.Boolean(),
  reasons: Reasons,
  endpoint: Str,
  devices: Type.Array(DeviceOption),
  requires: Type.Optional(Type.Array(Type.Union([Type.Literal('quote'), Type.Literal('hold')]))),
});
const Readiness = Obj({ ready: Type.Boolean(), reasons: Reasons, endpoint: Str });
const MediaReadiness = Obj({
  chat: Obj({ ready: Type.Boolean(), reasons: Strings, model: Nullable(Str) }),
  tts: Obj({ ready: Type.Boolean(), reasons: Strings, engine: Nullable(Type.Union([Type.Literal('espeak'), Type.Literal('openai')])) }),
});

export const CapabilitiesSchema = Obj(
  {
    session: Obj({ authenticated: Type.Boolean(), account_id: Nullable(Type.String({ format: 'uuid' })) }),
    payment: Obj({ ready: Type.Boolean(), reasons: Reasons, available: NullableUsd, held: NullableUsd, note: Str }),
    provider_one: Obj({ simulator: Option, hardware: Option }),
    provider_two: Obj({ simulator: Option, hardware: Option }),
    held_job_continuation: Obj({
      ready: Type.Boolean(),
      reasons: Reasons,
      endpoint: Str,
      held_jobs: Type.Array(Obj({ job_id: Type.String({ format: 'uuid' }), device: Str, expires_at: Iso, ready: Type.Boolean(), reasons: Reasons })),
    }),
    hardware_quote: Readiness,
    hardware_hold: Readiness,
    media: MediaReadiness,
  },
  { $id: 'ExecutionCapabilities', description: 'Every execution option for this caller with ready and, when not, the reasons' },
);
