import type { App } from '../app-types.js';
import type { Meter } from '../../telemetry/meter.js';

/**
 * One line per request and its metrics, when the response is sent: method, route pattern (never
 * the URL, which may carry ids or tokens), status, duration, request id, account (when known)
 * and the error code, the client's address and user agent, and (tracing on) its trace and span ids.
 * Fastify's own two request lines are off (app.ts).
 */
export function registerMetrics(app: App, meter: Meter): void {
  app.decorateRequest('errorCode', undefined);
  app.addHook('onResponse', (req, reply, done) => {
    const route = req.routeOptions.url ?? 'unmatched';
    const seconds = Number(process.hrtime.bigint() - req.startedAt) / 1e9;
    const status = reply.statusCode;
    meter.inc('qrail_http_requests_total', { method: req.method, route, status: String(status) });
    meter.observe('qrail_http_request_duration_seconds', { method: req.method, route }, seconds);
    const code = req.errorCode;
    if (code !== undefined) meter.inc('qrail_http_errors_total', { code, status: String(status) });
    const line = {
      method: req.method,
      route,
      status,
      duration_ms: Math.round(seconds * 100_000) / 100,
      // Proxy-aware (TRUST_PROXY): the client's address, not the load balancer's.
      client_ip: req.ip,
      ...(typeof req.headers['user-agent'] === 'string' ? { user_agent: req.headers['user-agent'].slice(0, 200) } : {}),
      ...(req.principal === undefined ? {} : { account_id: req.principal.accountId }),
      ...(code === undefined ? {} : { error_code: code }),
    };
    if (status >= 500) req.log.error(line, 'request');
    else req.log.info(line, 'request');
    done();
  });
}
