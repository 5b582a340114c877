import type { Context, Span } from '@opentelemetry/api';
import { context, propagation, SpanKind, SpanStatusCode, trace, traceFields, tracer, tracingEnabled } from '../../telemetry/trace.js';
import type { App } from '../app-types.js';

const SPANS = new WeakMap<object, { span: Span; ctx: Context }>();

/**
 * One server span per request (a no-op while tracing is off): continues an incoming W3C
 * `traceparent`, carries the request id, and is the active span while the request's hooks and
 * handler run, so the SQL, compute and job spans below it join the same trace. The context is
 * entered again before the handler: reading a body leaves the context the socket's events run in.
 */
export function registerTracing(app: App): void {
  // Off (the default): no hooks at all, so requests pay nothing for it.
  if (!tracingEnabled()) return;
  app.addHook('onRequest', (req, _reply, done) => {
    const parent = propagation.extract(context.active(), req.headers);
    const span = tracer.startSpan(
      `${req.method} ${req.routeOptions.url ?? 'unmatched'}`,
      { kind: SpanKind.SERVER, attributes: { 'http.request.method': req.method, 'qrail.request_id': req.id } },
      parent,
    );
    const ctx = trace.setSpan(parent, span);
    SPANS.set(req, { span, ctx });
    // Every line logged for this request (its request line included) names the trace and span.
    req.log = req.log.child(traceFields(span));
    context.with(ctx, done);
  });
  app.addHook('preHandler', (req, _reply, done) => {
    const s = SPANS.get(req);
    if (s === undefined) return done();
    context.with(s.ctx, done);
  });
  app.addHook('onResponse', (req, reply, done) => {
    const s = SPANS.get(req);
    if (s !== undefined) {
      s.span.setAttributes({
        'http.route': req.routeOptions.url ?? 'unmatched',
        'http.response.status_code': reply.statusCode,
        ...(req.errorCode === undefined ? {} : { 'qrail.error_code': req.errorCode }),
      });
      if (reply.statusCode >= 500) s.span.setStatus({ code: SpanStatusCode.ERROR });
      if (req.principal !== undefined) s.span.setAttribute('qrail.account_id', req.principal.accountId);
      s.span.end();
      SPANS.delete(req);
    }
    done();
  });
}
