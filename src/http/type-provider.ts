import type { FastifyTypeProvider } from 'fastify';
import type { Static, TSchema } from 'typebox';

/**
 * Request parts are typed from their TypeBox schemas. Replies are not: handlers return
 * the `data` of the envelope and a hook wraps it, so the reply type cannot be the schema.
 */
export interface QrailTypeProvider extends FastifyTypeProvider {
  validator: this['schema'] extends TSchema ? Static<this['schema']> : unknown;
  serializer: unknown;
}
