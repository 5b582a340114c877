/**
 * The small shape checks every part of the wire format's reader uses (wire-format.ts and the
 * gate definitions in wire-gate-definitions.ts), in one place: a problem list, the object test,
 * JSON-pointer escaping and the unknown-property check.
 */
import type { CircuitProblemCode } from './error-codes.js';

export interface WireProblem {
  readonly path: string;
  readonly code: CircuitProblemCode;
  readonly message: string;
}

/** Where problems are collected (a bounded list: see MAX_CIRCUIT_PROBLEMS). */
export interface WireProblems {
  push(...items: WireProblem[]): number;
}

export const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** A key as one JSON-pointer segment (RFC 6901). */
export function escapePointer(s: string): string {
  return s.replace(/~/g, '~0').replace(/\//g, '~1');
}

export function checkKeys(obj: Record<string, unknown>, allowed: readonly string[], path: string, out: WireProblems): void {
  for (const k of Object.keys(obj)) {
    if (!allowed.includes(k)) out.push({ path: `${path}/${escapePointer(k)}`, code: 'UNKNOWN_PROPERTY', message: `unknown property '${k}' (allowed: ${allowed.join(', ')})` });
  }
}
