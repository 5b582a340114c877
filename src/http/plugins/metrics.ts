import type { App } from '../app-types.js';
import type { MetricsRegistry } from '../metrics-registry.js';

/** Feeds every response into the registry (GET /metrics renders it). */
export function registerMetrics(app: App, metrics: MetricsRegistry): void {
  app.addHook('onResponse', (req, reply, done) => {
    const route = req.routeOptions.url ?? 'unmatched';
    metrics.observe(req.method, route, reply.statusCode, Number(process.hrtime.bigint() - req.startedAt) / 1e9);
    done();
  });
}
