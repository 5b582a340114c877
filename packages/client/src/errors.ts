import type { ErrorFacts, ErrorProblem, QrailErrorCode } from './types.js';

/**
 * The one error a failed answer becomes, whichever shape it came in: the platform envelope
 * (`{status: "error", error: {code, message, details}, meta: {request_id}}`), the Account Jobs
 * interface's own (`{error: {code, message, details}, request_id}`) or OAuth's token endpoint
 * (`{error: "invalid_client", error_description}`). Branch on `code`, never on `message`.
 */

/** Which interface's error shape the answer had. */
export type ErrorShape = 'platform' | 'jobs' | 'oauth' | 'unknown';

export interface QrailApiErrorInit {
  status: number;
  code: string;
  message: string;
  requestId?: string | undefined;
  details?: unknown;
  shape: ErrorShape;
  method: string;
  path: string;
  retryAfterMs?: number | undefined;
  body?: unknown;
}

export class QrailApiError extends Error {
  override readonly name = 'QrailApiError';
  /** The HTTP status. */
  readonly status: number;
  /** A SCREAMING_SNAKE code of docs/errors.md (OAuth's token endpoint: its RFC 6749 code, e.g. `invalid_client`). */
  readonly code: QrailErrorCode | (string & {});
  /** The server's request id (`meta.request_id`, `request_id` or the `X-Request-Id` header). */
  readonly requestId: string | undefined;
  /** `details` as sent: a list of problems (each with its JSON path) or an object of facts. */
  readonly details: ErrorProblem[] | ErrorFacts | undefined;
  readonly shape: ErrorShape;
  /** The request, e.g. `POST` and `/v1/jobs`. */
  readonly method: string;
  readonly path: string;
  /** From `Retry-After`, when the answer had one (429, 503). */
  readonly retryAfterMs: number | undefined;
  /** The parsed answer body (or its text when it was not JSON). */
  readonly body: unknown;
  /** The server's own message, as sent (`message` adds the request and code before it). */
  readonly serverMessage: string;

  constructor(init: QrailApiErrorInit) {
    super(`${init.method} ${init.path}: ${init.status} ${init.code}: ${init.message}`);
    this.status = init.status;
    this.code = init.code;
    this.requestId = init.requestId;
    this.details = normaliseDetails(init.details);
    this.shape = init.shape;
    this.method = init.method;
    this.path = init.path;
    this.retryAfterMs = init.retryAfterMs;
    this.body = init.body;
    this.serverMessage = init.message;
  }

  /** The problems of `details` with their JSON paths (validation, CIRCUIT_INVALID); empty otherwise. */
  get problems(): ErrorProblem[] {
    return Array.isArray(this.details) ? this.details : [];
  }

  /** True for a QrailApiError, and when given, one with this code. */
  static is(err: unknown, code?: QrailErrorCode | (string & {})): err is QrailApiError {
    return err instanceof QrailApiError && (code === undefined || err.code === code);
  }
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function normaliseDetails(details: unknown): ErrorProblem[] | ErrorFacts | undefined {
  if (Array.isArray(details)) return details.filter(isRecord).map((p) => ({ ...p, message: typeof p['message'] === 'string' ? p['message'] : '' }));
  return isRecord(details) ? details : undefined;
}

function str(v: unknown): string | undefined {
  return typeof v === 'string' ? v : undefined;
}

/** Reads any of the three error shapes; `headerRequestId` covers answers without a body id. */
export function errorFromBody(body: unknown, meta: { status: number; method: string; path: string; headerRequestId?: string | undefined; retryAfterMs?: number | undefined }): QrailApiError {
  const base = { status: meta.status, method: meta.method, path: meta.path, retryAfterMs: meta.retryAfterMs, body };
  if (isRecord(body)) {
    const error = body['error'];
    if (isRecord(error) && typeof error['code'] === 'string') {
      const envelope = body['status'] === 'error';
      const metaId = isRecord(body['meta']) ? str(body['meta']['request_id']) : undefined;
      return new QrailApiError({
        ...base,
        code: error['code'],
        message: str(error['message']) ?? '',
        details: error['details'],
        shape: envelope ? 'platform' : 'jobs',
        requestId: (envelope ? metaId : str(body['request_id'])) ?? meta.headerRequestId,
      });
    }
    if (typeof error === 'string') {
      return new QrailApiError({ ...base, code: error, message: str(body['error_description']) ?? '', shape: 'oauth', requestId: meta.headerRequestId });
    }
  }
  return new QrailApiError({ ...base, code: `HTTP_${meta.status}`, message: typeof body === 'string' ? body.slice(0, 200) : 'unexpected answer', shape: 'unknown', requestId: meta.headerRequestId });
}
