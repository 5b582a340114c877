import { Ajv, type ErrorObject, type Options } from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { FastifySchema, FastifySchemaCompiler, FastifyServerOptions } from 'fastify';

type ValidatorFactory = NonNullable<NonNullable<NonNullable<FastifyServerOptions['schemaController']>['compilersFactory']>['buildValidator']>;

// ajv-formats is CommonJS; its default export differs between loaders.
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as (a: Ajv) => Ajv;

const base: Options = { allErrors: true, removeAdditional: false, useDefaults: true, strict: false };

type Validate = ((data: unknown, context?: object) => boolean) & { errors?: unknown; schemaEnv?: unknown };

/**
 * Validators not compiled yet. Compiling the ~140 route schemas (and making the Ajv instances with
 * their formats) took 1–1.5 s of a start on a loaded machine, before the listener opened; now each
 * compiles on its first request, or when `compileDeferredValidators` runs them after the listener
 * opened (serve does), whichever comes first.
 */
const deferred = new Set<() => void>();

/** Compiles every deferred validator, yielding to the event loop between them; resolves with their count. */
export async function compileDeferredValidators(): Promise<number> {
  let n = 0;
  for (const compile of deferred) {
    compile();
    n++;
    await new Promise((r) => setImmediate(r));
  }
  return n;
}

/**
 * Bodies are validated strictly (no type coercion: "5" is not a number); query strings,
 * params and headers arrive as text, so they are coerced.
 */
export function buildValidatorCompiler(sharedSchemas: () => Record<string, unknown>): FastifySchemaCompiler<FastifySchema> {
  let ajvs: { strict: Ajv; coercing: Ajv } | undefined;
  const instances = () => {
    if (ajvs === undefined) {
      ajvs = { strict: addFormats(new Ajv({ ...base, coerceTypes: false })), coercing: addFormats(new Ajv({ ...base, coerceTypes: 'array' })) };
      for (const [id, s] of Object.entries(sharedSchemas())) {
        if (ajvs.strict.getSchema(id) === undefined) ajvs.strict.addSchema(s as object, id);
        if (ajvs.coercing.getSchema(id) === undefined) ajvs.coercing.addSchema(s as object, id);
      }
    }
    return ajvs;
  };
  return ({ schema, httpPart }) => {
    let compiled: Validate | undefined;
    const compile = (): Validate => {
      if (compiled === undefined) {
        deferred.delete(compile);
        const { strict, coercing } = instances();
        compiled = (httpPart === 'body' ? strict : coercing).compile(schema as object) as Validate;
      }
      return compiled;
    };
    deferred.add(compile);
    const validate: Validate = (data, context) => {
      const v = compile();
      const ok = v(data, context);
      validate.errors = v.errors;
      return ok;
    };
    // Fastify hands an Ajv validator (which has schemaEnv) the request as parent, so coercion and
    // defaults can replace the root value (a querystring); this one forwards it.
    validate.schemaEnv = true;
    return validate as unknown as ReturnType<FastifySchemaCompiler<FastifySchema>>;
  };
}

/**
 * Fastify's `schemaController.compilersFactory.buildValidator`: called for the root and again
 * for every encapsulated context that adds shared schemas, with that context's schemas.
 */
export const validatorFactory = ((externalSchemas: unknown) => buildValidatorCompiler(() => (externalSchemas ?? {}) as Record<string, unknown>)) as unknown as ValidatorFactory;

const KEYWORD_CODES: Record<string, string> = {
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

function escapePointer(s: string): string {
  return s.replace(/~/g, '~0').replace(/\//g, '~1');
}

/** As many problems as the circuit parser lists: a large bad body must not make a larger answer. */
export const MAX_VALIDATION_DETAILS = 100;

export function validationDetails(errors: readonly Partial<ErrorObject>[], part: string) {
  const out: { in: string; path: string; code: string; message: string }[] = [];
  const seen = new Set<string>();
  for (const e of errors) {
    let path = e.instancePath ?? '';
    const params = (e.params ?? {}) as Record<string, unknown>;
    let message = e.message ?? 'is invalid';
    if (e.keyword === 'required' && typeof params['missingProperty'] === 'string') {
      path += `/${escapePointer(params['missingProperty'])}`;
      message = 'is required';
    } else if (e.keyword === 'additionalProperties' && typeof params['additionalProperty'] === 'string') {
      path += `/${escapePointer(params['additionalProperty'])}`;
      message = 'is not an allowed property';
    } else if (e.keyword === 'enum' && Array.isArray(params['allowedValues'])) {
      message = `must be one of ${(params['allowedValues'] as unknown[]).map((v) => JSON.stringify(v)).join(', ')}`;
    }
    const code = KEYWORD_CODES[e.keyword ?? ''] ?? 'INVALID';
    const key = `${path}|${code}|${message}`;
    if (seen.has(key)) continue;
    if (out.length === MAX_VALIDATION_DETAILS) {
      out.push({ in: part, path: '', code: 'TOO_MANY_PROBLEMS', message: `more than ${MAX_VALIDATION_DETAILS} problems: the first ones are listed` });
      break;
    }
    seen.add(key);
    out.push({ in: part, path, code, message });
  }
  return out;
}
