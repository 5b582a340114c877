import { Type, type TProperties, type TSchema } from 'typebox';

/**
 * Building blocks of response schemas. Response objects are closed (every member listed): the
 * OpenAPI document is the contract clients generate code from, and the response test checks real
 * answers against it. They never filter an answer: responses are serialised as built (app.ts).
 */

/** A closed object: exactly these members (optional ones marked with Type.Optional). */
export const Obj = <P extends TProperties>(properties: P, options: { description?: string; $id?: string; title?: string } = {}) => Type.Object(properties, { additionalProperties: false, ...options });

export const Nullable = <T extends TSchema>(schema: T, description?: string) => Type.Union([schema, Type.Null()], description === undefined ? {} : { description });

/** A map from keys matching `keyPattern` to values of one schema (counts by bitstring, layouts by qubit). */
export const MapOf = <T extends TSchema>(value: T, keyPattern: string, description?: string) =>
  Type.Unsafe<Record<string, unknown>>({ type: 'object', propertyNames: { pattern: keyPattern }, additionalProperties: value, ...(description === undefined ? {} : { description }) });

export const Iso = Type.String({ format: 'date-time' });
export const NullableIso = Nullable(Iso);

/** USD amounts in answers: decimal strings with exactly six decimals (micro-USD), never floats. */
export const Usd = Type.String({ pattern: '^-?(?:0|[1-9]\\d*)\\.\\d{6}$', description: 'USD with exactly six decimals, e.g. "0.120000"' });
export const NullableUsd = Nullable(Usd);

/** A pair of qubit indices. */
export const QubitPair = Type.Array(Type.Integer({ minimum: 0 }), { minItems: 2, maxItems: 2 });

/** Keys of measurement counts: one character per classical bit, clbit 0 rightmost. */
export const BITSTRING = '^[01]*$';

/** Who submitted a job, run, hold or ledger transfer (issue #39 item 6); null when not recorded (before organizations, or money not spent by anyone: a top-up, a grant). */
export const SubmittedBy = Nullable(
  Obj({
    kind: Type.Union([Type.Literal('user'), Type.Literal('credential'), Type.Literal('token')], {
      description:
        'user: a person’s session (id: user id); credential: a machine credential or its access token (id: credential id); token: an access token of a session exchange or trusted issuer (id: its subject)',
    }),
    id: Type.String(),
  }),
  'Who submitted it: the person or machine credential',
);
