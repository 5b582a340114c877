import { defineCode } from './app-error.js';

/** Codes of the HTTP plumbing, shared by every route. */
export const HTTP_ERRORS = {
  VALIDATION_FAILED: defineCode('VALIDATION_FAILED', 400, 'The request does not match the schema; `details` lists each problem with its JSON path.'),
  MALFORMED_JSON: defineCode('MALFORMED_JSON', 400, 'The body is not valid JSON.'),
  JSON_TOO_DEEP: defineCode('JSON_TOO_DEEP', 400, 'The JSON body nests arrays/objects more than 64 levels deep; refused before parsing.'),
  BAD_REQUEST: defineCode('BAD_REQUEST', 400, 'The request is malformed in a way not covered by a more specific code (e.g. a URL with broken percent-encoding or an over-long path parameter).'),
  UNAUTHENTICATED: defineCode('UNAUTHENTICATED', 401, 'A valid bearer session is required; `details.reason` says whether it was missing, malformed, expired or revoked.'),
  FORBIDDEN: defineCode('FORBIDDEN', 403, 'The caller is authenticated but not allowed to do this.'),
  NOT_FOUND: defineCode('NOT_FOUND', 404, 'No such route or resource.'),
  METHOD_NOT_ALLOWED: defineCode('METHOD_NOT_ALLOWED', 405, 'The route exists but not with this method; the `Allow` header lists the methods.'),
  PAYLOAD_TOO_LARGE: defineCode('PAYLOAD_TOO_LARGE', 413, 'The body is larger than the configured limit.'),
  UNSUPPORTED_MEDIA_TYPE: defineCode('UNSUPPORTED_MEDIA_TYPE', 415, 'The Content-Type is not accepted by this route (use application/json).'),
  RATE_LIMITED: defineCode('RATE_LIMITED', 429, 'Too many requests; retry after the number of seconds in `Retry-After`.'),
  INTERNAL_ERROR: defineCode('INTERNAL_ERROR', 500, 'An unexpected error; no internals are exposed. Quote `meta.request_id` when reporting it.'),
  SERVICE_DRAINING: defineCode('SERVICE_DRAINING', 503, 'The process is shutting down; retry on another instance (Jobs: reuse the idempotency key).'),
  TRANSACTION_CONFLICT: defineCode(
    'TRANSACTION_CONFLICT',
    503,
    'A concurrent change collided with this one (database deadlock or serialization failure); nothing was applied; retry (Jobs: reuse the idempotency key).',
  ),
  STORE_UNAVAILABLE: defineCode('STORE_UNAVAILABLE', 503, 'The database cannot be reached; retry (Jobs: reuse the idempotency key).'),
  // Shared by the platform's Idempotency-Key header, the Jobs `idempotency_key` field and ledger grant keys: one meaning
  // (one mechanism: docs/decisions/foundation-idempotency-one-mechanism.md).
  IDEMPOTENCY_KEY_REUSED: defineCode(
    'IDEMPOTENCY_KEY_REUSED',
    409,
    'This idempotency key was already used by this account with another request (platform: another route or body, `details.original_route`; Jobs: another capability, request or max_total_price, `details.job_id` is the original job; operator credit grant: another amount, `details.transfer_id`).',
  ),
  IDEMPOTENCY_KEY_IN_FLIGHT: defineCode(
    'IDEMPOTENCY_KEY_IN_FLIGHT',
    409,
    'Another request with this idempotency key is being processed right now; retry after `Retry-After` seconds to get its response (Jobs: its job).',
  ),
  INVALID_CHARACTERS: defineCode(
    'INVALID_CHARACTERS',
    400,
    'A header, path parameter, query parameter or body string (or property name) contains U+0000 or an unpaired UTF-16 surrogate; `details` names each with `in` and `path`.',
  ),
  INVALID_CURSOR: defineCode('INVALID_CURSOR', 400, 'The `cursor` query parameter is not a `next_cursor` returned by this list (GET /v1/jobs, GET /v1/execute/jobs).'),
  FEATURE_UNAVAILABLE: defineCode('FEATURE_UNAVAILABLE', 503, 'The feature is not configured on this deployment; the message says what to configure.'),
} as const;
