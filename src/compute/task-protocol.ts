/**
 * The messages between the compute pool and its worker threads, and how errors cross the
 * boundary: an `AppError` is rebuilt as the same `AppError` (code, status, message, details,
 * headers), so a 4xx/422 answer does not depend on where the task ran; anything else becomes a
 * `ComputeTaskError`, which the HTTP error handler answers with the generic 500 (message and
 * stack go to the log only).
 */
import { AppError, isAppError } from '../errors/app-error.js';

export interface TaskRequest {
  readonly id: number;
  readonly task: string;
  readonly input: unknown;
}

export type EncodedError =
  | { readonly kind: 'app'; readonly code: string; readonly statusCode: number; readonly message: string; readonly details: unknown; readonly headers: Readonly<Record<string, string>> }
  | { readonly kind: 'other'; readonly name: string; readonly message: string; readonly stack: string | undefined };

export type TaskReply = { readonly id: number; readonly ok: true; readonly output: unknown } | { readonly id: number; readonly ok: false; readonly error: EncodedError };

/** How far a running task has got: a fraction (0–1) and the name of its phase. */
export interface TaskProgress {
  readonly fraction: number;
  readonly phase: string;
}

/** Sent by a thread while its task runs (throttled there), before the task's one reply. */
export interface TaskProgressMessage {
  readonly id: number;
  readonly progress: TaskProgress;
}

/** A non-AppError failure inside a worker (a bug, or an engine limit such as an allocation failure). */
export class ComputeTaskError extends Error {
  constructor(
    readonly task: string,
    message: string,
    workerStack: string | undefined,
  ) {
    super(message);
    this.name = 'ComputeTaskError';
    if (workerStack !== undefined) this.stack = `${this.name}: ${message}\n  (worker thread stack)\n${workerStack}`;
  }
}

export function encodeError(e: unknown): EncodedError {
  if (isAppError(e)) return { kind: 'app', code: e.code, statusCode: e.statusCode, message: e.message, details: e.details, headers: { ...e.headers } };
  if (e instanceof Error) return { kind: 'other', name: e.name, message: e.message, stack: e.stack };
  return { kind: 'other', name: 'Error', message: String(e), stack: undefined };
}

export function decodeError(e: EncodedError, task: string): Error {
  if (e.kind === 'app') {
    return new AppError(e.code, e.statusCode, e.message, { details: e.details, ...(Object.keys(e.headers).length > 0 ? { headers: { ...e.headers } } : {}) });
  }
  return new ComputeTaskError(task, `compute task "${task}" failed in a worker thread: ${e.name}: ${e.message}`, e.stack);
}
