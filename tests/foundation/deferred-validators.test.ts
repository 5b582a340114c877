import type { FastifySchema } from 'fastify';
import { describe, expect, it } from 'vitest';
import { buildValidatorCompiler, compileDeferredValidators } from '../../src/http/plugins/validation.js';

/** A JSON Schema where Fastify's type expects its route-schema shape. */
const js = (schema: object) => schema as FastifySchema;

/**
 * Route validators compile on first use or when serve compiles the rest after listening
 * (start-up time, bench/startup.ts): the deferred ones must validate, coerce and report exactly
 * as compiled ones, and an invalid schema still fails, at the latest in the after-listen pass.
 */
describe('deferred request validators', () => {
  const compiler = buildValidatorCompiler(() => ({ Shared: { $id: 'Shared', type: 'integer', minimum: 1 } }));
  const body = compiler({
    schema: js({ type: 'object', properties: { n: { $ref: 'Shared#' } }, required: ['n'], additionalProperties: false }),
    httpPart: 'body',
    method: 'POST',
    url: '/x',
  }) as unknown as ((d: unknown, c?: object) => boolean) & {
    errors?: Array<{ keyword: string; instancePath: string }>;
  };
  const query = compiler({ schema: js({ type: 'object', properties: { limit: { type: 'integer' } } }), httpPart: 'querystring', method: 'GET', url: '/x' }) as unknown as (d: unknown) => boolean;

  it('validates bodies strictly and reports the errors of the last call', () => {
    expect(body({ n: 2 })).toBe(true);
    expect(body({ n: '2' })).toBe(false);
    expect(body.errors?.map((e) => [e.keyword, e.instancePath])).toEqual([['type', '/n']]);
    expect(body({ n: 0, extra: 1 })).toBe(false);
    expect(body.errors?.map((e) => e.keyword).sort()).toEqual(['additionalProperties', 'minimum']);
    expect(body({ n: 3 })).toBe(true);
  });

  it('coerces query strings, and compiles what no request used in the after-listen pass', async () => {
    const q = { limit: '5' };
    expect(await compileDeferredValidators()).toBeGreaterThanOrEqual(1);
    expect(query(q)).toBe(true);
    expect(q.limit).toBe(5);
    expect(await compileDeferredValidators()).toBe(0);
  });

  it('an invalid schema fails when it compiles', async () => {
    compiler({ schema: js({ type: 'object', properties: { a: { $ref: 'Missing#' } } }), httpPart: 'body', method: 'POST', url: '/y' });
    await expect(compileDeferredValidators()).rejects.toThrow(/Missing/);
  });
});
