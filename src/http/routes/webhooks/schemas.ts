import { PageCursor, PageLimit } from '../page-query.js';
import { Type } from 'typebox';
import { LIST_MAX } from '../../../kernel/list-cursor.js';
import { ALL_EVENTS, WEBHOOK_EVENT_TYPES, eventBody, type WebhookEvent } from '../../../webhooks/events.js';
import type { AttemptRecord, DeliveryRecord, EndpointRecord } from '../../../webhooks/ports.js';
import { Iso, Nullable, NullableIso, NullableUsd, Obj, Usd } from '../../schema-helpers.js';

const EventType = Type.Union(
  [...WEBHOOK_EVENT_TYPES, ALL_EVENTS].map((t) => Type.Literal(t)),
  { description: 'An event type of the catalog (docs/webhooks.md), or `*` for all' },
);

export const CreateEndpointBody = Type.Object(
  {
    url: Type.String({ minLength: 1, maxLength: 2048, description: 'http(s) URL that receives the events (POST, JSON); its host must resolve to public addresses' }),
    event_types: Type.Array(EventType, { minItems: 1, maxItems: 32, description: 'Each type at most once' }),
    description: Type.Optional(Type.String({ maxLength: 200 })),
  },
  { additionalProperties: false },
);

export const EndpointParams = Type.Object({ endpoint_id: Type.String({ format: 'uuid' }) });
export const DeliveryParams = Type.Object({ delivery_id: Type.String({ format: 'uuid' }) });

export const DeliveryQuery = Type.Object(
  {
    status: Type.Optional(
      Type.Union(
        ['pending', 'succeeded', 'failed', 'canceled'].map((s) => Type.Literal(s)),
        { description: 'Only deliveries in this state' },
      ),
    ),
    limit: PageLimit,
    cursor: PageCursor,
  },
  { additionalProperties: false },
);

export const EventQuery = Type.Object(
  {
    type: Type.Optional(
      Type.Union(
        WEBHOOK_EVENT_TYPES.map((t) => Type.Literal(t)),
        { description: 'Only events of this type' },
      ),
    ),
    limit: PageLimit,
    cursor: PageCursor,
  },
  { additionalProperties: false },
);

export const EndpointView = Obj({
  endpoint_id: Type.String({ format: 'uuid' }),
  url: Type.String(),
  description: Nullable(Type.String()),
  event_types: Type.Array(Type.String()),
  status: Type.Union([Type.Literal('enabled'), Type.Literal('disabled'), Type.Literal('deleted')]),
  disabled_reason: Nullable(Type.String(), '`sustained_failure` when the service disabled it'),
  disabled_at: NullableIso,
  failing_since: Nullable(Iso, 'First failed attempt since the last success; null while healthy'),
  created_at: Iso,
});

const AttemptView = Obj({
  attempt: Type.Integer({ minimum: 1 }),
  started_at: Iso,
  duration_ms: Type.Integer({ minimum: 0 }),
  status_code: Nullable(Type.Integer(), 'The HTTP status answered; null when no answer came (`error` says why)'),
  error: Nullable(Type.String()),
  response_excerpt: Nullable(Type.String({ maxLength: 512 }), 'The first 512 characters of the response body'),
});

export const DeliveryView = Obj({
  delivery_id: Type.String({ format: 'uuid' }),
  endpoint_id: Type.String({ format: 'uuid' }),
  event_id: Type.String({ format: 'uuid' }),
  event_type: Type.String(),
  sequence: Type.Integer({ minimum: 1, description: 'The event’s per-account sequence number' }),
  manual: Type.Boolean({ description: 'A redelivery asked for by the owner (sent beside the ordered stream)' }),
  status: Type.Union(['pending', 'succeeded', 'failed', 'canceled'].map((s) => Type.Literal(s))),
  attempts: Type.Integer({ minimum: 0 }),
  next_attempt_at: Nullable(Iso, 'When a pending delivery is tried next'),
  last_attempt_at: NullableIso,
  last_status_code: Nullable(Type.Integer()),
  last_error: Nullable(Type.String()),
  created_at: Iso,
  completed_at: NullableIso,
  attempt_log: Type.Array(AttemptView, { description: 'Every attempt, oldest first' }),
});

const Str = Type.String();
const NStr = Nullable(Type.String());
const Uuid = Type.String({ format: 'uuid' });

/** `data` of each event type (docs/webhooks.md#event-catalog), as migration 0900's triggers build it. */
const EventData = Type.Union(
  [
    Obj(
      {
        job_id: Uuid,
        capability_id: Str,
        status: Str,
        previous_status: NStr,
        tags: Type.Ref('JobTags'),
        quoted_price: Usd,
        receipt_reference: NStr,
        amount_captured: NStr,
        error_code: NStr,
        error_message: NStr,
      },
      { description: 'job.*' },
    ),
    Obj(
      { job_id: Uuid, provider: Str, device: Str, kind: Str, shots: Type.Integer(), status: Str, previous_status: NStr, actual_price: NullableUsd, error_code: NStr, error_message: NStr },
      { description: 'execution_job.*' },
    ),
    Obj({ hold_id: Uuid, kind: Str, ref_id: Str, description: Str, amount: Usd, released: Usd, expires_at: Str }, { description: 'hold.expired' }),
    Obj({ available: Usd, held: Usd, threshold: Usd, auto_recharge_enabled: Type.Boolean() }, { description: 'wallet.low_balance' }),
    Obj(
      { attempt_id: Uuid, trigger: Str, amount: Usd, status: Str, payment_intent_id: NStr, failure_code: NStr, failure_message: NStr },
      { description: 'auto_recharge.succeeded, auto_recharge.failed' },
    ),
    Obj({ reason: NStr, consecutive_failures: Type.Integer() }, { description: 'auto_recharge.paused' }),
    Obj({ endpoint_id: Uuid, url: Str, reason: Str, failing_since: NStr, disabled_at: Str }, { description: 'webhook_endpoint.disabled' }),
  ],
  { description: 'What the event is about; its fields depend on `type`' },
);

export const EventView = Obj({
  id: Type.String({ format: 'uuid' }),
  type: Type.String(),
  created_at: Iso,
  account_id: Type.String({ format: 'uuid' }),
  sequence: Nullable(Type.Integer({ minimum: 1 }), 'Per-account order; null for the moment between the state change and its dispatch'),
  data: EventData,
});

export const page = <T extends Parameters<typeof Type.Array>[0]>(name: string, item: T) =>
  Obj({
    [name]: Type.Array(item, { maxItems: LIST_MAX }),
    next_cursor: Nullable(Type.String(), 'Pass as cursor for the next page; null on the last'),
    has_more: Type.Boolean({ description: 'Whether a next page exists (next_cursor is set exactly then)' }),
  });

const iso = (d: Date | null) => d?.toISOString() ?? null;

export function endpointView(e: EndpointRecord) {
  return {
    endpoint_id: e.id,
    url: e.url,
    description: e.description,
    event_types: [...e.eventTypes],
    status: e.status,
    disabled_reason: e.disabledReason,
    disabled_at: iso(e.disabledAt),
    failing_since: iso(e.failingSince),
    created_at: e.createdAt.toISOString(),
  };
}

export function deliveryView(d: DeliveryRecord, attempts: readonly AttemptRecord[]) {
  return {
    delivery_id: d.id,
    endpoint_id: d.endpointId,
    event_id: d.eventId,
    event_type: d.eventType,
    sequence: d.sequence,
    manual: d.manual,
    status: d.status,
    attempts: d.attempts,
    next_attempt_at: iso(d.nextAttemptAt),
    last_attempt_at: iso(d.lastAttemptAt),
    last_status_code: d.lastStatusCode,
    last_error: d.lastError,
    created_at: d.createdAt.toISOString(),
    completed_at: iso(d.completedAt),
    attempt_log: attempts.map((a) => ({
      attempt: a.attempt,
      started_at: a.startedAt.toISOString(),
      duration_ms: a.durationMs,
      status_code: a.statusCode,
      error: a.error,
      response_excerpt: a.responseExcerpt,
    })),
  };
}

export const eventView = (e: WebhookEvent) => eventBody(e);
