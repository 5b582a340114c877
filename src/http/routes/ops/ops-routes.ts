import { timingSafeEqual } from 'node:crypto';
import { Type } from 'typebox';
import { fail } from '../../../errors/app-error.js';
import { HTTP_ERRORS } from '../../../errors/http-error-codes.js';
import type { Config } from '../../../config/config.js';
import type { App } from '../../app-types.js';
import { Obj } from '../../schema-helpers.js';

const RateLimits = Type.Union([Type.Literal('shared'), Type.Literal('local'), Type.Literal('memory')], {
  description: 'shared: counted in Redis across nodes; local: Redis is failing and this process counts alone (its breaker is open); memory: no REDIS_URL',
});
const Database = Type.Union([Type.Literal('pg'), Type.Literal('pglite')], { description: 'The database driver: PostgreSQL (pg) or embedded PGlite' });

const LOOPBACK = /^(127\.|::1$|localhost$)/;

/**
 * Who may read /metrics on the public port (docs/operations.md#metrics): nobody when they have
 * their own listener (METRICS_PORT), the bearer of METRICS_TOKEN when one is set, else anyone
 * only while the service listens on loopback (the embedded default).
 */
function checkMetricsAccess(config: Config, authorization: string | undefined): void {
  if (config.metrics.port !== undefined) throw fail(HTTP_ERRORS.NOT_FOUND, 'Metrics are served on their own listener (METRICS_PORT), not on this port.');
  const token = config.metrics.token;
  if (token !== undefined) {
    const got = authorization?.startsWith('Bearer ') === true ? authorization.slice(7) : undefined;
    const ok = got !== undefined && got.length === token.length && timingSafeEqual(Buffer.from(got), Buffer.from(token));
    if (!ok) throw fail(HTTP_ERRORS.UNAUTHENTICATED, 'Metrics need Authorization: Bearer <METRICS_TOKEN>.', { reason: got === undefined ? 'missing' : 'invalid' });
    return;
  }
  if (!LOOPBACK.test(config.host)) {
    throw fail(HTTP_ERRORS.NOT_FOUND, 'Metrics are not served on a public address without protection: set METRICS_PORT (own listener) or METRICS_TOKEN.');
  }
}

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
          200: Obj(
            { status: Type.Literal('ready'), database: Database, rate_limits: RateLimits },
            { description: 'Ready: the database answers and the instance is not draining (a Redis outage does not make it unready: rate limits are then counted per process, `rate_limits: local`)' },
          ),
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
        return { status: 'ready', database: app.db.driver, rate_limits: app.rateLimitSharing() };
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
        description:
          'Served here only while the service listens on loopback, or with `Authorization: Bearer <METRICS_TOKEN>`; with METRICS_PORT set they are served on that listener instead and this route answers 404 (docs/operations.md#metrics).',
        response: { 200: { description: 'Prometheus text exposition format 0.0.4', content: { 'text/plain': { schema: { type: 'string' } } } } },
      },
    },
    async (req, reply) => {
      checkMetricsAccess(app.config, req.headers.authorization);
      return reply.type(app.services.metrics.contentType).send(await app.services.metrics.render());
    },
  );
}
