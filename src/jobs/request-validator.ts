import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { ErrorDetail } from '../errors/app-error.js';
import type { JsonSchema } from './capability.js';

// ajv-formats is CommonJS; its default export differs between loaders.
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as (a: Ajv) => Ajv;

const CODES: Record<string, string> = {
  required: 'REQUIRED',
  additionalProperties: 'UNKNOWN_PROPERTY',
  type: 'WRONG_TYPE',
  pattern: 'PATTERN_MISMATCH',
  maxLength: 'TOO_LONG',
  minLength: 'TOO_SHORT',
  maximum: 'TOO_LARGE',
  minimum: 'TOO_SMALL',
  exclusiveMaximum: 'TOO_LARGE',
  exclusiveMinimum: 'TOO_SMALL',
  maxItems: 'TOO_MANY_ITEMS',
  minItems: 'TOO_FEW_ITEMS',
  enum: 'NOT_ALLOWED_VALUE',
  const: 'NOT_ALLOWED_VALUE',
  format: 'BAD_FORMAT',
  anyOf: 'NO_MATCHING_SCHEMA',
  oneOf: 'NO_MATCHING_SCHEMA',
};

/**
 * Problems reported per request at most. With `allErrors`, 200 000 bad array items gave as many
 * problems; spreading them into the submission's list overflowed the stack (a 500), and the
 * answer would have been megabytes.
 */
export const MAX_REQUEST_PROBLEMS = 100;

const esc = (s: string): string => s.replace(/~/g, '~0').replace(/\//g, '~1');

/** Validates job requests against each capability's published schema (strict: no coercion). */
export class RequestValidator {
  private readonly ajv = addFormats(new Ajv({ allErrors: true, strict: false, coerceTypes: false, useDefaults: false }));
  private readonly compiled = new WeakMap<JsonSchema, ValidateFunction>();

  /** Every problem, with JSON Pointers rooted at the SubmitJob body (`/request/...`). */
  check(schema: JsonSchema, request: unknown, root = '/request'): ErrorDetail[] {
    let v = this.compiled.get(schema);
    if (v === undefined) {
      v = this.ajv.compile(schema as object);
      this.compiled.set(schema, v);
    }
    if (v(request)) return [];
    const errors = v.errors ?? [];
    const more: ErrorDetail[] =
      errors.length > MAX_REQUEST_PROBLEMS ? [{ in: 'body', path: root, code: 'TOO_MANY_PROBLEMS', message: `${errors.length} problems; the first ${MAX_REQUEST_PROBLEMS} are listed` }] : [];
    return errors
      .slice(0, MAX_REQUEST_PROBLEMS)
      .map((e: ErrorObject): ErrorDetail => {
        let path = root + e.instancePath;
        let message = e.message ?? 'is invalid';
        const p = e.params as Record<string, unknown>;
        if (e.keyword === 'required' && typeof p['missingProperty'] === 'string') {
          path += `/${esc(p['missingProperty'])}`;
          message = 'is required';
        } else if (e.keyword === 'additionalProperties' && typeof p['additionalProperty'] === 'string') {
          path += `/${esc(p['additionalProperty'])}`;
          message = 'is not an allowed property';
        }
        return { in: 'body', path, code: CODES[e.keyword] ?? 'INVALID', message };
      })
      .concat(more);
  }
}
