import { Type } from 'typebox';
import type { App } from '../../app-types.js';
import { Obj } from '../../schema-helpers.js';

const Database = Type.Union([Type.Literal('pg'), Type.Literal('pglite')], { description: 'The database driver: PostgreSQL (pg) or embedded PGlite' });

/** Liveness, readiness and metrics: raw bodies for probes and Prometheus, not the envelope. */
export default async function opsRoutes(app: App): Promise<void> {
  const raw = { surface: 'raw' as const, rateLimit: false as const };

  app.get(
    '/healthz',
    {
      config: raw,
      schema: { tags: ['operations'], operationId: 'getLiveness', summary: 'Liveness probe', response: { 200: Obj({ status: Type.Literal('ok') }, { description: 'The process is alive' }) } },
    },
    async () => ({ status: 'ok' }),
  );

  app.get(
    '/readyz',
    {
      config: raw,
      schema: {
        tags: ['operations'],
        operationId: 'getReadiness',
        summary: 'Readiness probe (database reachable, not draining)',
        response: {
          200: Obj({ status: Type.Literal('ready'), database: Database }, { description: 'Ready: the database answers and the instance is not draining' }),
          503: {
            description: 'Not ready: draining (shutting down) or the database is unreachable',
            content: { 'application/json': { schema: Type.Union([Obj({ status: Type.Literal('draining') }), Obj({ status: Type.Literal('unavailable'), database: Database })]) } },
          },
        },
      },
    },
    async (_req, reply) => {
      if (app.draining) return reply.code(503).send({ status: 'draining' });
      try {
        await app.db.ping();
        return { status: 'ready', database: app.db.driver };
      } catch {
        return reply.code(503).send({ status: 'unavailable', database: app.db.driver });
      }
    },
  );

  app.get(
    '/metrics',
    {
      config: raw,
      schema: {
        tags: ['operations'],
        operationId: 'getMetrics',
        summary: 'Prometheus metrics',
        response: { 200: { description: 'Prometheus text exposition format 0.0.4', content: { 'text/plain': { schema: { type: 'string' } } } } },
      },
    },
    async (_req, reply) => {
      return reply.type('text/plain; version=0.0.4').send(app.services.metrics.render());
    },
  );
}
