import { EXIT, type CliIo } from './cli-command.js';

/**
 * How every command reports. Human output is text on stdout; with `--json`, stdout carries
 * exactly one JSON document and nothing else. Failures go to stderr: as text naming the code,
 * the request id and each detail at its JSON path, or with `--json` as
 * `{"error": {code, message, status, request_id, details}}`.
 */

export interface CliFailure {
  /** The service's SCREAMING_SNAKE code, or a CLI code (USAGE, NETWORK_ERROR, NOT_LOGGED_IN, JOB_FAILED …). */
  readonly code: string;
  readonly message: string;
  readonly status?: number;
  readonly requestId?: string;
  readonly details?: unknown;
}

export function printJson(io: CliIo, value: unknown): void {
  io.out(`${JSON.stringify(value, null, 2)}\n`);
}

interface DetailItem {
  readonly path?: unknown;
  readonly code?: unknown;
  readonly message?: unknown;
  readonly line?: unknown;
  readonly column?: unknown;
}

/** One line per validation problem: `  /circuit/gates/0/op  UNKNOWN_GATE  unknown gate 'hadamard'`. */
export function detailLines(details: unknown): string[] {
  if (Array.isArray(details)) {
    return (details as DetailItem[]).map((d) => {
      const at = typeof d.line === 'number' ? ` (line ${d.line}${typeof d.column === 'number' ? `, column ${d.column}` : ''})` : '';
      const path = typeof d.path === 'string' && d.path !== '' ? d.path : '/';
      return `  ${path}${at}  ${typeof d.code === 'string' ? `${d.code}  ` : ''}${typeof d.message === 'string' ? d.message : JSON.stringify(d)}`;
    });
  }
  if (details !== null && typeof details === 'object' && Object.keys(details).length > 0) return [`  details: ${JSON.stringify(details)}`];
  return [];
}

/** Prints a failure on stderr and returns exit code 1. */
export function reportFailure(io: CliIo, json: boolean, f: CliFailure, exitCode: number = EXIT.FAILURE): number {
  if (json) {
    const error = { code: f.code, message: f.message, status: f.status ?? null, request_id: f.requestId ?? null, ...(f.details === undefined ? {} : { details: f.details }) };
    io.err(`${JSON.stringify({ error })}\n`);
    return exitCode;
  }
  const meta = [f.status === undefined ? undefined : `HTTP ${f.status}`, f.requestId === undefined ? undefined : `request_id ${f.requestId}`].filter((x) => x !== undefined);
  io.err(`error ${f.code}: ${f.message}${meta.length > 0 ? ` (${meta.join(', ')})` : ''}\n`);
  const lines = detailLines(f.details);
  if (lines.length > 0) io.err(`${lines.join('\n')}\n`);
  return exitCode;
}

/** Thrown by a command's helpers to stop with a reported failure (exit 1 unless told otherwise). */
export class CommandFailure extends Error {
  constructor(
    readonly failure: CliFailure,
    readonly exitCode: number = EXIT.FAILURE,
  ) {
    super(failure.message);
    this.name = 'CommandFailure';
  }
}
