/**
 * The one error type of qrail. Domain code throws `AppError`s built by the factories
 * of its own `error-codes.ts`; the HTTP error handler maps them to the envelope.
 * Codes are stable SCREAMING_SNAKE strings, all listed in `catalogue.ts` and in
 * docs/errors.md (a test keeps the two in step).
 */
export interface ErrorDetail {
  /** JSON Pointer (RFC 6901) into the request, e.g. `/circuit/gates/17/qubits/1`. */
  readonly path?: string;
  readonly code?: string;
  readonly message: string;
  readonly [key: string]: unknown;
}

export class AppError extends Error {
  readonly code: string;
  readonly statusCode: number;
  readonly details: unknown;
  readonly headers: Readonly<Record<string, string>>;

  constructor(code: string, statusCode: number, message: string, options: { details?: unknown; headers?: Record<string, string>; cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'AppError';
    this.code = code;
    this.statusCode = statusCode;
    this.details = options.details;
    this.headers = options.headers ?? {};
  }
}

export interface ErrorCodeSpec {
  readonly code: string;
  readonly status: number;
  readonly description: string;
}

/** Declares a code once: its status and its documentation travel with it. */
export function defineCode(code: string, status: number, description: string): ErrorCodeSpec {
  if (!/^[A-Z][A-Z0-9_]*$/.test(code)) throw new Error(`error code ${code} is not SCREAMING_SNAKE`);
  return Object.freeze({ code, status, description });
}

export function fail(spec: ErrorCodeSpec, message: string, details?: unknown, headers?: Record<string, string>): AppError {
  const opts: { details?: unknown; headers?: Record<string, string> } = {};
  if (details !== undefined) opts.details = details;
  if (headers !== undefined) opts.headers = headers;
  return new AppError(spec.code, spec.status, message, opts);
}

export function isAppError(e: unknown): e is AppError {
  return e instanceof AppError;
}
