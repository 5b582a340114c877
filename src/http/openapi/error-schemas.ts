import { Type, type TSchema } from 'typebox';
import type { ErrorCodeSpec } from '../../errors/app-error.js';
import { ERROR_CATALOGUE } from '../../errors/catalogue.js';
import { HTTP_ERRORS } from '../../errors/http-error-codes.js';
import { BILLING_ERRORS } from '../../billing/error-codes.js';
import { CIRCUITS_ERRORS } from '../../circuits/error-codes.js';
import { COUPLING_ERRORS } from '../../coupling/error-codes.js';
import { JOBS_ERRORS } from '../../jobs/error-codes.js';
import { AUTH_ERRORS } from '../../auth/error-codes.js';
import { ORG_ERRORS } from '../../orgs/error-codes.js';

/**
 * The error bodies of the OpenAPI document: one component per interface and status, whose
 * `code` is the enum of the catalogue's codes with that status that the interface can answer.
 * Documentation only: responses are serialised as the handlers build them (see app.ts).
 */
export type ErrorInterface = 'platform' | 'jobs';

const codes = (...specs: ErrorCodeSpec[]) => specs.map((s) => s.code);

/** Answered only by the Account Jobs interface. */
const JOBS_ONLY = new Set(codes(JOBS_ERRORS.UNKNOWN_CAPABILITY, JOBS_ERRORS.PRICE_ABOVE_MAXIMUM, JOBS_ERRORS.JOB_NOT_FOUND, JOBS_ERRORS.CAPABILITY_UNAVAILABLE));

/**
 * What the Account Jobs interface answers: the HTTP plumbing, its own codes, a submission's
 * spend refusals, and the problems a capability's `prepare` finds in a request (circuits, pairs).
 */
const JOBS_CODES = new Set([
  ...codes(...Object.values(HTTP_ERRORS)),
  ...[...JOBS_ONLY],
  ...codes(JOBS_ERRORS.JOB_NOT_CANCELABLE, AUTH_ERRORS.INSUFFICIENT_SCOPE, ORG_ERRORS.ORG_HEADER_MISMATCH),
  ...codes(BILLING_ERRORS.INSUFFICIENT_BALANCE, BILLING_ERRORS.SPEND_LIMIT_PER_JOB, BILLING_ERRORS.SPEND_LIMIT_DAILY, BILLING_ERRORS.SPEND_LIMIT_MONTHLY),
  ...codes(CIRCUITS_ERRORS.CIRCUIT_INVALID, COUPLING_ERRORS.COUPLING_PAIR_INVALID),
]);

/**
 * Statuses no operation answers: 405 concerns a path with a method it does not have (no
 * operation), 499 a client that went away before the answer.
 */
const NOT_AN_OPERATION_STATUS = new Set([405, 499]);

/** The catalogue's codes an interface answers with this status (in catalogue order). */
export function errorCodes(iface: ErrorInterface, status: number): string[] {
  return ERROR_CATALOGUE.filter((c) => c.status === status && (iface === 'jobs' ? JOBS_CODES.has(c.code) : !JOBS_ONLY.has(c.code))).map((c) => c.code);
}

/** Every error status an interface can answer (per the catalogue). */
export function errorStatuses(iface: ErrorInterface): number[] {
  const out = new Set<number>();
  for (const c of ERROR_CATALOGUE) if (!NOT_AN_OPERATION_STATUS.has(c.status) && errorCodes(iface, c.status).length > 0) out.add(c.status);
  return [...out].sort((a, b) => a - b);
}

export const errorSchemaId = (iface: ErrorInterface, status: number) => `${iface === 'platform' ? 'Platform' : 'Jobs'}Error${status}`;

const Str = Type.String({ maxLength: 4096 });
const Strings = Type.Array(Str, { maxItems: 4096 });
const Int = Type.Integer();
const Usd = Type.String({ pattern: '^-?(?:0|[1-9]\\d*)\\.\\d{6}$', description: 'USD with six decimals' });

/** One problem of a request: where it is and what is wrong (validation, circuits, amounts). */
export const ErrorProblemSchema = Type.Object(
  {
    in: Type.Optional(
      Type.Union(
        ['body', 'querystring', 'params', 'headers'].map((s) => Type.Literal(s)),
        { description: 'The request part' },
      ),
    ),
    path: Type.Optional(Type.String({ description: 'JSON Pointer (RFC 6901) into that part, e.g. /circuit/gates/3/qubits/1' })),
    code: Type.Optional(Type.String({ description: 'A stable SCREAMING_SNAKE problem code, e.g. UNKNOWN_PROPERTY, QUBIT_OUT_OF_RANGE' })),
    message: Type.String(),
    line: Type.Optional(Type.Integer({ minimum: 1, description: 'OpenQASM: line of the problem' })),
    column: Type.Optional(Type.Integer({ minimum: 1, description: 'OpenQASM: column of the problem' })),
    known: Type.Optional(Type.Array(Type.String(), { description: 'The valid values (unknown capability)' })),
  },
  { additionalProperties: false, $id: 'ErrorProblem' },
);

const Reason = Type.Object({ code: Type.String(), message: Type.String() }, { additionalProperties: false });

/**
 * Facts about an error that are not a list of problems, by code (docs/errors.md). Each member
 * belongs to the codes named in its description.
 */
export const ErrorFactsSchema = Type.Object(
  {
    reason: Type.Optional(
      Type.Union([Type.String(), Type.Null()], { description: 'UNAUTHENTICATED: missing, malformed, unknown, expired, revoked, wrong_audience…; media and translation failures: what failed' }),
    ),
    allow: Type.Optional(Type.Array(Type.String(), { description: 'METHOD_NOT_ALLOWED: the methods of this path' })),
    limit: Type.Optional(
      Type.Union([Int, Type.String()], { description: 'RATE_LIMITED, CONCURRENCY_LIMITED: the number; spend refusals: the control (per_job_max, daily_limit, monthly_limit, hardware_allowed)' }),
    ),
    limit_value: Type.Optional(Usd),
    window_seconds: Type.Optional(Int),
    retry_after_seconds: Type.Optional(Int),
    in_flight: Type.Optional(Int),
    queued: Type.Optional(Int),
    idempotency_key: Type.Optional(Type.String()),
    original_route: Type.Optional(Type.String({ description: 'IDEMPOTENCY_KEY_REUSED (platform): the route the key was first used on' })),
    job_id: Type.Optional(Type.String({ description: 'The job concerned (Jobs IDEMPOTENCY_KEY_REUSED: the original job)' })),
    org_id: Type.Optional(Type.String({ description: 'ORG_NOT_FOUND, ORG_HEADER_MISMATCH: the organization the request named' })),
    feature: Type.Optional(Type.String()),
    reasons: Type.Optional(Type.Array(Type.Union([Type.String(), Reason]))),
    amount: Type.Optional(Usd),
    available: Type.Optional(Type.String({ description: 'INSUFFICIENT_BALANCE: the available balance, USD' })),
    required: Type.Optional(Type.String({ description: 'INSUFFICIENT_BALANCE: the amount needed, USD' })),
    spent: Type.Optional(Usd),
    held: Type.Optional(Usd),
    requested: Type.Optional(Usd),
    refundable: Type.Optional(Usd),
    quoted_price: Type.Optional(Usd),
    max_total_price: Type.Optional(Usd),
    quote: Type.Optional(Type.Ref('JobQuote')),
    hold_id: Type.Optional(Type.String()),
    status: Type.Optional(Type.String({ description: 'The state of the object concerned (hold, held job, device, processor answer)' })),
    valid_until: Type.Optional(Type.String({ format: 'date-time' })),
    device: Type.Optional(Type.String()),
    devices: Type.Optional(Strings),
    device_available: Type.Optional(Type.Boolean()),
    device_qubits: Type.Optional(Int),
    shots: Type.Optional(Int),
    estimated_cost: Type.Optional(Type.Union([Usd, Type.Null()])),
    qubits_used: Type.Optional(Int),
    op_index: Type.Optional(Int),
    steps: Type.Optional(
      Type.Array(
        Type.Object(
          { method: Type.String(), path: Type.String(), body: Type.Optional(Type.Record(Type.String(), Type.Union([Type.String(), Type.Integer()]))), note: Type.Optional(Type.String()) },
          { additionalProperties: false },
        ),
      ),
    ),
    num_qubits: Type.Optional(Int),
    max_qubits: Type.Optional(Int),
    qubits: Type.Optional(Type.Array(Int)),
    gate: Type.Optional(Type.String()),
    native_gates: Type.Optional(Strings),
    operation: Type.Optional(Type.String()),
    method: Type.Optional(Type.String()),
    path: Type.Optional(Type.String()),
    valid_devices: Type.Optional(Strings),
    valid_names: Type.Optional(Strings),
    known: Type.Optional(Strings),
    needed_bytes: Type.Optional(Int),
    copy_bytes: Type.Optional(Int),
    limit_bytes: Type.Optional(Int),
    time_budget_ms: Type.Optional(Int),
    timeout_ms: Type.Optional(Int),
    required_scope: Type.Optional(Type.String({ description: 'The first of required_scopes' })),
    required_scopes: Type.Optional(Type.Array(Str, { maxItems: 16, description: 'Any one of these scopes allows the operation' })),
    granted_scopes: Type.Optional(Strings),
    service: Type.Optional(Type.String()),
    engine: Type.Optional(Type.String()),
    upstream_status: Type.Optional(Int),
    upstream_code: Type.Optional(Type.String()),
    upstream_type: Type.Optional(Type.String()),
    upstream_message: Type.Optional(Type.String()),
    processor: Type.Optional(Type.String()),
    type: Type.Optional(Type.String()),
    code: Type.Optional(Type.Union([Type.String(), Type.Null()])),
    timestamp: Type.Optional(Int),
    now: Type.Optional(Int),
    tolerance_seconds: Type.Optional(Int),
  },
  { additionalProperties: false, $id: 'ErrorFacts' },
);

function errorBody(iface: ErrorInterface, status: number): TSchema {
  return Type.Object(
    {
      code: Type.String({ enum: errorCodes(iface, status), description: 'Stable SCREAMING_SNAKE code; clients branch on it (docs/errors.md)' }),
      message: Type.String({ description: 'For people; may change' }),
      details: Type.Optional(Type.Union([Type.Array(Type.Ref('ErrorProblem')), Type.Ref('ErrorFacts')])),
    },
    { additionalProperties: false },
  );
}

/** The component schemas of every error body (added to the app as shared schemas). */
export function errorComponentSchemas(): TSchema[] {
  const out: TSchema[] = [ErrorProblemSchema, ErrorFactsSchema];
  for (const status of errorStatuses('platform')) {
    out.push(
      Type.Object(
        { status: Type.Literal('error'), error: errorBody('platform', status), meta: Type.Ref('Meta') },
        { additionalProperties: false, $id: errorSchemaId('platform', status), title: `Platform error ${status}` },
      ),
    );
  }
  for (const status of errorStatuses('jobs')) {
    out.push(Type.Object({ error: errorBody('jobs', status), request_id: Type.String() }, { additionalProperties: false, $id: errorSchemaId('jobs', status), title: `Account Jobs error ${status}` }));
  }
  return out;
}
