import { Type, type TSchema } from 'typebox';

export const MetaSchema = Type.Object(
  {
    version: Type.String(),
    request_id: Type.String(),
    processing_time_ms: Type.Number(),
  },
  { $id: 'Meta' },
);

export const ErrorDetailSchema = Type.Object(
  {
    path: Type.Optional(Type.String({ description: 'JSON Pointer into the request part' })),
    in: Type.Optional(Type.String()),
    code: Type.Optional(Type.String()),
    message: Type.String(),
  },
  { additionalProperties: true },
);

export const ErrorEnvelopeSchema = Type.Object({
  status: Type.Literal('error'),
  error: Type.Object({
    code: Type.String({ description: 'Stable SCREAMING_SNAKE code, see docs/errors.md' }),
    message: Type.String(),
    details: Type.Optional(Type.Unknown()),
  }),
  meta: Type.Ref('Meta'),
});

/** The 200 schema of a platform route: `{status:'ok', data, meta}`. */
export function okResponse<T extends TSchema>(data: T) {
  return Type.Object({ status: Type.Literal('ok'), data, meta: Type.Ref('Meta') });
}

/** Common error responses for OpenAPI. */
export const errorResponses = {
  400: ErrorEnvelopeSchema,
  401: ErrorEnvelopeSchema,
  429: ErrorEnvelopeSchema,
  500: ErrorEnvelopeSchema,
} as const;

/** The error shape of the Account Jobs interface (and of raw routes' framework errors). */
export const JobsErrorSchema = Type.Object({
  error: Type.Object({ code: Type.String(), message: Type.String(), details: Type.Optional(Type.Unknown()) }),
  request_id: Type.String(),
});
