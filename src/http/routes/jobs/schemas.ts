import { Type } from 'typebox';
import { JOB_STATUSES } from '../../../jobs/job.js';
import { LIST_MAX } from '../../../jobs/jobs-service.js';
import { BITSTRING, Iso, MapOf, Nullable, Obj, SubmittedBy, Usd } from '../../schema-helpers.js';
import { optimizeResultProperties, ProofSummary } from '../circuits/schemas.js';

/** Response schemas of the Account Jobs interface (src/jobs/job.ts, jobs-service.ts and each capability's run). */

const Str = Type.String();
const Strings = Type.Array(Type.String());
const Int = Type.Integer({ minimum: 0 });
const Scalar = Type.Union([Type.String(), Type.Number(), Type.Boolean()]);
const Product = Type.Union([Type.Literal('product-one'), Type.Literal('product-two'), Type.Literal('robotics')]);
const PaymentRail = Type.Literal('account_core_balance');

export const JobQuoteSchema = Obj(
  {
    price: Usd,
    currency: Type.Literal('USD'),
    formula: Str,
    breakdown: MapOf(Scalar, '^[a-z0-9_]+$', 'The figures the formula used (shots, num_qubits, profile, …), by capability'),
    max_total_price: Usd,
    quoted_at: Iso,
  },
  { $id: 'JobQuote', description: 'How the price of a job was computed' },
);

export const JobReceiptSchema = Obj(
  {
    receipt_reference: Str,
    job_id: Type.String({ format: 'uuid' }),
    capability_id: Str,
    payment_rail: PaymentRail,
    currency: Type.Literal('USD'),
    amount_reserved: Usd,
    amount_captured: Usd,
    amount_released: Usd,
    balance_after: Usd,
    hold_id: Str,
    ledger_transfer_ids: Strings,
    issued_at: Iso,
    submitted_by: Type.Optional(SubmittedBy),
    canceled: Type.Optional(
      Type.Union([Type.Literal('before_running'), Type.Literal('while_running')], { description: 'A canceled job’s receipt: when the cancel took effect (nothing captured either way)' }),
    ),
    note: Type.Optional(Type.String({ description: 'A canceled job’s receipt: the rule that decided what was captured' })),
    lines: Type.Optional(
      Type.Array(
        Obj({
          index: Type.Integer({ minimum: 0 }),
          status: Type.Union([Type.Literal('completed'), Type.Literal('failed')]),
          amount_reserved: Usd,
          amount_captured: Usd,
          amount_released: Usd,
          error_code: Type.Optional(Str),
        }),
        { maxItems: 100, description: 'A batch job’s receipt: one line per item, in order — what was reserved for it, captured (completed) or released (failed); they sum to the totals' },
      ),
    ),
  },
  {
    $id: 'JobReceipt',
    description: 'What a completed job was charged, from which reservation, and the balance after; a canceled job’s receipt shows the reservation released and nothing captured',
  },
);

/** Tag keys: no colon, so `tag=key:value` splits at the first one. */
export const TAG_KEY_PATTERN = '^[A-Za-z0-9_][A-Za-z0-9_.-]{0,63}$';
export const TAG_VALUE_MAX = 128;
export const TAGS_MAX = 16;

export const JobTagsSchema = Type.Unsafe<Record<string, string>>({
  $id: 'JobTags',
  type: 'object',
  maxProperties: TAGS_MAX,
  propertyNames: { pattern: TAG_KEY_PATTERN, maxLength: 64 },
  additionalProperties: { type: 'string', maxLength: TAG_VALUE_MAX },
  description: `Your labels for the job: at most ${TAGS_MAX} keys (1–64 of A-Za-z0-9_.-, no colon) to strings of at most ${TAG_VALUE_MAX} characters; list by them with tag=key:value`,
});

const SimulateResult = Obj(
  {
    counts: MapOf(Type.Integer({ minimum: 0 }), BITSTRING, 'Shots per measured bitstring, clbit 0 rightmost'),
    shots: Type.Integer({ minimum: 1 }),
    seed: Type.Integer(),
    num_qubits: Int,
    num_clbits: Int,
    probabilities: Type.Optional(MapOf(Type.Number({ minimum: 0, maximum: 1 }), BITSTRING)),
    probabilities_kind: Type.Union([Type.Literal('exact'), Type.Literal('estimated'), Type.Literal('omitted')]),
    bit_order: Type.Literal('clbit 0 rightmost'),
    notes: Strings,
    warnings: Strings,
    elapsed_ms: Type.Number(),
    method: Type.Optional(
      Type.Union([Type.Literal('statevector'), Type.Literal('stabilizer'), Type.Literal('matrix_product_state'), Type.Literal('density_matrix')], { description: 'The simulation method that ran' }),
    ),
    method_reason: Type.Optional(Type.String({ description: 'method auto: why this method was chosen' })),
    truncation: Type.Optional(
      Obj(
        { fidelity_lower_bound: Type.Number({ minimum: 0, maximum: 1 }), fidelity_estimate: Type.Number({ minimum: 0, maximum: 1 }), max_bond_dimension_reached: Type.Integer({ minimum: 1 }) },
        { description: 'matrix_product_state: the truncation' },
      ),
    ),
  },
  { title: 'circuit.simulate result' },
);

const OptimizeResult = Obj({ ...optimizeResultProperties, proof: ProofSummary }, { title: 'circuit.optimize result' });

const ProviderSimulateResult = Obj(
  {
    execution_job_id: Type.String({ format: 'uuid' }),
    provider: Type.Union([Type.Literal('provider-one'), Type.Literal('provider-two')]),
    device: Str,
    status: Type.Literal('completed'),
    seed: Type.Integer(),
    shots: Type.Integer({ minimum: 1 }),
    results: Type.Ref('ExecutionResults'),
  },
  { title: 'provider-one.simulate / provider-two.simulate result' },
);

const SpeechResult = Obj(
  {
    mime_type: Type.Literal('audio/wav'),
    engine: Type.Union([Type.Literal('espeak'), Type.Literal('openai')]),
    voice: Str,
    wav: Obj({
      audioFormat: Int,
      channels: Int,
      sampleRate: Int,
      byteRate: Int,
      blockAlign: Int,
      bitsPerSample: Int,
      dataOffset: Int,
      dataBytes: Int,
      durationMs: Type.Number(),
    }),
    audio_base64: Type.String({ description: 'The WAV file, base64' }),
  },
  { title: 'speech.synthesize result' },
);

export const JobResultSchema = Type.Union([SimulateResult, OptimizeResult, Type.Ref('CircuitAnalysis'), Type.Ref('CouplingReport'), ProviderSimulateResult, SpeechResult], {
  $id: 'JobResult',
  description: 'The output of the job’s capability (see its catalog entry); present once the job is completed',
});

const Transition = Obj({ from: Nullable(Type.Union(JOB_STATUSES.map((s) => Type.Literal(s)))), to: Type.Union(JOB_STATUSES.map((s) => Type.Literal(s))), at: Iso, note: Type.Optional(Str) });

export const JobSchema = Obj(
  {
    job_id: Type.String({ format: 'uuid' }),
    status: Type.Union(
      JOB_STATUSES.map((s) => Type.Literal(s)),
      { description: 'quoted → reserved → queued → running → result_saved → completed, or failed' },
    ),
    capability_id: Str,
    product: Type.Optional(Product),
    payment_rail: PaymentRail,
    quoted_price: Usd,
    reserved_price: Usd,
    max_total_price: Usd,
    retrieval_url: Type.String({ format: 'uri' }),
    receipt_reference: Nullable(Str),
    idempotency_key: Str,
    tags: Type.Ref('JobTags'),
    quote: Type.Ref('JobQuote'),
    result: Nullable(Type.Ref('JobResult')),
    receipt: Nullable(Type.Ref('JobReceipt')),
    submitted_by: SubmittedBy,
    error_code: Nullable(Str, 'Set when failed: a machinery code (WORKER_LOST, HOLD_EXPIRED, …) or the capability’s own'),
    error_message: Nullable(Str),
    attempts: Int,
    cancel_requested_at: Nullable(Iso, 'When a cancel was requested while the job ran; it then ends failed / CANCELED'),
    created_at: Iso,
    updated_at: Iso,
    transitions: Type.Optional(Type.Array(Transition, { description: 'Every state change with its time (single-job reads and submissions)' })),
  },
  { $id: 'Job', description: 'A prepaid job of the Account Jobs interface' },
);

export const JobListSchema = Obj({
  jobs: Type.Array(Type.Ref('Job'), { maxItems: LIST_MAX }),
  next_cursor: Nullable(Str, 'Pass as cursor for the next page; null on the last'),
  has_more: Type.Boolean({ description: 'Whether a next page exists (next_cursor is set exactly then)' }),
});

export const BalanceSchema = Obj(
  { account_id: Type.String({ format: 'uuid' }), currency: Type.Literal('USD'), payment_rail: PaymentRail, available: Usd, held: Usd, total: Usd, as_of: Iso },
  { $id: 'AccountBalance', description: 'The core balance jobs are paid from: available + held = total' },
);

/** The members a capability's example request may have (each capability uses some; see its request_schema). */
export const JobRequestExampleSchema = Obj(
  {
    circuit: Type.Optional(Type.Ref('CircuitV02')),
    circuits: Type.Optional(Type.Array(Type.Ref('CircuitV02'), { maxItems: 100 })),
    shots: Type.Optional(Type.Integer({ minimum: 1 })),
    seed: Type.Optional(Type.Integer({ minimum: 0 })),
    devices: Type.Optional(Strings),
    mode: Type.Optional(Str),
    pairs: Type.Optional(Type.Array(Type.Array(Int))),
    profile: Type.Optional(Str),
    backend_hint: Type.Optional(Str),
    text: Type.Optional(Str),
    voice: Type.Optional(Str),
    speed: Type.Optional(Type.Number()),
  },
  { $id: 'JobRequestExample', description: 'A request that validates against the capability’s request_schema' },
);

/**
 * A JSON Schema as the catalog publishes it (a capability's request schema): the keywords those
 * schemas use, recursively.
 */
export const JsonSchemaSchema = Type.Unsafe<Record<string, unknown>>({
  $id: 'JsonSchema',
  type: 'object',
  additionalProperties: false,
  description: 'A JSON Schema (the draft 2020-12 keywords the catalog and the circuit schema use)',
  // `$id` as a pattern: a property literally named $id would be taken for the schema's own id by resolvers.
  patternProperties: { '^\\$id$': { type: 'string' } },
  properties: {
    title: { type: 'string' },
    description: { type: 'string' },
    type: { anyOf: [{ type: 'string' }, { type: 'array', items: { type: 'string' } }] },
    properties: { type: 'object', additionalProperties: { $ref: 'JsonSchema' } },
    patternProperties: { type: 'object', additionalProperties: { $ref: 'JsonSchema' } },
    propertyNames: { $ref: 'JsonSchema' },
    required: { type: 'array', items: { type: 'string' } },
    additionalProperties: { anyOf: [{ type: 'boolean' }, { $ref: 'JsonSchema' }] },
    items: { $ref: 'JsonSchema' },
    anyOf: { type: 'array', items: { $ref: 'JsonSchema' } },
    oneOf: { type: 'array', items: { $ref: 'JsonSchema' } },
    enum: { type: 'array', items: {} },
    const: {},
    default: {},
    format: { type: 'string' },
    pattern: { type: 'string' },
    minimum: { type: 'number' },
    maximum: { type: 'number' },
    minLength: { type: 'integer' },
    maxLength: { type: 'integer' },
    minItems: { type: 'integer' },
    maxItems: { type: 'integer' },
    maxProperties: { type: 'integer' },
    minProperties: { type: 'integer' },
  },
});

export const CatalogEntrySchema = Obj(
  {
    capability_id: Str,
    product: Product,
    title: Str,
    description: Str,
    payment_rail: PaymentRail,
    pricing: Obj({ currency: Type.Literal('USD'), formula: Str, parameters: MapOf(Scalar, '^[a-z0-9_]+$'), example_price: Type.Optional(Usd) }),
    request_schema: Type.Ref('JsonSchema'),
    example: Obj({ capability_id: Str, request: Type.Ref('JobRequestExample'), idempotency_key: Str, max_total_price: Usd }, { description: 'A complete POST /v1/jobs body' }),
    on_interrupted: Type.Union([Type.Literal('rerun'), Type.Literal('fail')], { description: 'What happens when the worker running it dies: run again (safe) or fail uncharged' }),
    available: Type.Boolean({ description: 'Whether it can run on this deployment now; a submission to an unavailable one gets 503 CAPABILITY_UNAVAILABLE, nothing reserved' }),
    unavailable_reason: Nullable(Str, 'Why it cannot run now (what to configure or wait for); null when available'),
  },
  { $id: 'CatalogEntry' },
);
