import type { FastifyRequest } from 'fastify';
import { fail } from '../../errors/app-error.js';
import { HTTP_ERRORS } from '../../errors/http-error-codes.js';
import type { App } from '../app-types.js';

/**
 * Objects and arrays a JSON body may nest. JSON.parse itself copes with any depth, but what
 * consumes the value afterwards often recurses (schema validation, JSON.stringify of a
 * response echoing it, jsonb storage, the circuit parsers), and a body of a few hundred KB
 * of `[[[[…` reaches depths where that overflows the stack: a 500. No request qrail accepts
 * needs more than a handful of levels.
 */
export const MAX_JSON_DEPTH = 64;

/** Depth of the deepest container, counted in one linear pass; stops as soon as it exceeds `limit`. */
export function jsonDepthExceeds(text: string, limit: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c)
        i++; // backslash: the next character is escaped, whatever it is
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) {
      inString = true;
    } else if (c === 0x5b || c === 0x7b) {
      if (++depth > limit) return true;
    } else if (c === 0x5d || c === 0x7d) {
      depth--;
    }
  }
  return false;
}

/**
 * Replaces Fastify's application/json parser with the same parser (same prototype-poisoning
 * rules, same empty-body and syntax errors) behind a nesting check done before parsing.
 */
export function registerJsonBody(app: App): void {
  const defaultParser = app.getDefaultJsonParser(app.initialConfig.onProtoPoisoning ?? 'error', app.initialConfig.onConstructorPoisoning ?? 'error');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (req: FastifyRequest, body: string | Buffer, done) => {
    const text = typeof body === 'string' ? body : body.toString('utf8');
    if (jsonDepthExceeds(text, MAX_JSON_DEPTH)) {
      done(fail(HTTP_ERRORS.JSON_TOO_DEEP, `The request body nests objects and arrays more than ${MAX_JSON_DEPTH} levels deep.`), undefined);
      return;
    }
    // Fastify's default JSON parser is callback-style (it answers through `done`); its type also allows a promise.
    void defaultParser(req, text, done);
  });
}
