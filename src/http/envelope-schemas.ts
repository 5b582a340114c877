import { Type, type TSchema } from 'typebox';
import { errorSchemaId, type ErrorInterface } from './openapi/error-schemas.js';

export const MetaSchema = Type.Object(
  {
    version: Type.String(),
    request_id: Type.String(),
    processing_time_ms: Type.Number({ minimum: 0 }),
  },
  { $id: 'Meta', additionalProperties: false },
);

/** The 2xx schema of a platform route: `{status:'ok', data, meta}`; `description` is the response's. */
export function okResponse<T extends TSchema>(data: T, description?: string) {
  return Type.Object({ status: Type.Literal('ok'), data, meta: Type.Ref('Meta') }, { additionalProperties: false, ...(description === undefined ? {} : { description }) });
}

/**
 * Error statuses a platform route answers beyond those of the edge (400, 401 with a session,
 * 413/415 with a body, 429, 500, 503), which the OpenAPI document adds itself
 * (src/http/openapi/finish-document.ts). The body is the interface's error shape.
 */
export function errors(...statuses: number[]) {
  return errorRefs('platform', statuses);
}

/** The same for an Account Jobs route (`{error, request_id}` bodies). */
export function jobsErrors(...statuses: number[]) {
  return errorRefs('jobs', statuses);
}

function errorRefs(iface: ErrorInterface, statuses: number[]): Record<number, TSchema> {
  return Object.fromEntries(statuses.map((s) => [s, Type.Ref(errorSchemaId(iface, s))]));
}

/** A response with no body (a redirect). */
export const noBody = (description: string) => ({ description, type: 'null' as const });

/** An HTML page. */
export const htmlPage = (description: string) => ({ description, content: { 'text/html': { schema: { type: 'string' as const } } } });
