import { readFileSync, writeFileSync } from 'node:fs';
import type { Circuit } from '../../packages/client/src/index.js';
import { UsageError } from './cli-command.js';

/**
 * A file that cannot be read or written, in words with its path: the errno a person can act on
 * (missing, a directory, no permission) is named, never shown raw.
 */
export function fileProblem(e: unknown, file: string, verb: 'read' | 'write' = 'read'): string {
  switch ((e as { code?: string }).code) {
    case 'ENOENT':
      return verb === 'read' ? `file not found: ${file}` : `folder not found for ${file}`;
    case 'EISDIR':
      return `is a directory: ${file}`;
    case 'EACCES':
    case 'EPERM':
      return `permission denied: ${file}`;
    case 'ENOTDIR':
      return `not a folder in the path: ${file}`;
    default:
      return `cannot ${verb} ${file}: ${(e as Error).message}`;
  }
}

/**
 * Circuits from and to files. `*.qasm` is OpenQASM source (2 or 3, from its header); anything
 * else is JSON: a circuit in wire format 0.2/0.1, or a request body with a `circuit` field (so
 * an example from docs/api-guide.md works as is). A file that cannot be read is a usage error
 * (exit 2): the service was never asked.
 */
export function readCircuitFile(file: string): Circuit {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    throw new UsageError(fileProblem(e, file));
  }
  if (/\.qasm$/i.test(file) || /^\s*(\/\/[^\n]*\n\s*)*OPENQASM\b/.test(text)) {
    const version = /OPENQASM\s+(\d)/.exec(text)?.[1];
    return { format: version === '3' ? 'qasm3' : 'qasm2', source: text };
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (e) {
    throw new UsageError(`${file} is neither OpenQASM nor JSON: ${(e as Error).message}`);
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) throw new UsageError(`${file}: expected a JSON object (a circuit, or a body with "circuit")`);
  const body = parsed as Record<string, unknown>;
  // The service validates the circuit and answers every problem at its JSON path.
  return (typeof body['circuit'] === 'object' && body['circuit'] !== null && !('num_qubits' in body) ? body['circuit'] : body) as Circuit;
}

/** Reads a JSON object file (`--request FILE.json`). */
export function readJsonObject(file: string): Record<string, unknown> {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    throw new UsageError(fileProblem(e, file));
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (e) {
    throw new UsageError(`${file} is not JSON: ${(e as Error).message}`);
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) throw new UsageError(`${file}: expected a JSON object`);
  return parsed as Record<string, unknown>;
}

/** The output format an `--out` file asks for: `.qasm` → OpenQASM 3 unless `qasm2` is named. */
export function outputFormatFor(file: string | undefined, format: string | undefined): 'json' | 'qasm2' | 'qasm3' | undefined {
  if (format === 'json' || format === 'qasm2' || format === 'qasm3') return format;
  if (file === undefined) return undefined;
  return /\.qasm$/i.test(file) ? 'qasm3' : 'json';
}

/** Writes the circuit (JSON) or its OpenQASM text to `file`. */
export function writeCircuitFile(file: string, circuit: unknown, qasm: string | undefined): void {
  try {
    writeFileSync(file, qasm ?? `${JSON.stringify(circuit, null, 2)}\n`);
  } catch (e) {
    throw new UsageError(fileProblem(e, file, 'write'));
  }
}
