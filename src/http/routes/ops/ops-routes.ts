import type { App } from '../../app-types.js';

/** Liveness, readiness and metrics: raw bodies for probes and Prometheus, not the envelope. */
export default async function opsRoutes(app: App): Promise<void> {
  const raw = { surface: 'raw' as const, rateLimit: false as const };

  app.get('/healthz', { config: raw, schema: { tags: ['operations'], summary: 'Liveness probe' } }, async () => ({ status: 'ok' }));

  app.get('/readyz', { config: raw, schema: { tags: ['operations'], summary: 'Readiness probe (database reachable, not draining)' } }, async (_req, reply) => {
    if (app.draining) return reply.code(503).send({ status: 'draining' });
    try {
      await app.db.ping();
      return { status: 'ready', database: app.db.driver };
    } catch {
      return reply.code(503).send({ status: 'unavailable', database: app.db.driver });
    }
  });

  app.get('/metrics', { config: raw, schema: { tags: ['operations'], summary: 'Prometheus metrics' } }, async (_req, reply) => {
    return reply.type('text/plain; version=0.0.4').send(app.services.metrics.render());
  });
}
