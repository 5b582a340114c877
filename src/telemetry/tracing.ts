import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BatchSpanProcessor, NodeTracerProvider, SimpleSpanProcessor, type SpanExporter } from '@opentelemetry/sdk-trace-node';
import { SERVICE_VERSION } from '../version.js';
import { markTracingEnabled } from './trace.js';

export interface Tracing {
  /** Flushes the spans still buffered and stops exporting. */
  shutdown(): Promise<void>;
}

/**
 * Starts OpenTelemetry tracing for this process: W3C trace context, async-context propagation, and
 * spans exported over OTLP/HTTP to `endpoint` (OTEL_EXPORTER_OTLP_ENDPOINT; the exporter appends
 * /v1/traces) in batches — or to `exporter`, span by span (tests use an in-memory one). Off unless
 * called: the code's spans (@opentelemetry/api) cost nothing without a registered provider.
 */
export function startTracing(opts: { readonly endpoint?: string; readonly exporter?: SpanExporter; readonly role?: string }): Tracing {
  const processor =
    opts.exporter !== undefined
      ? new SimpleSpanProcessor(opts.exporter)
      : new BatchSpanProcessor(new OTLPTraceExporter(opts.endpoint === undefined ? {} : { url: `${opts.endpoint.replace(/\/+$/, '')}/v1/traces` }));
  const provider = new NodeTracerProvider({
    resource: resourceFromAttributes({ 'service.name': 'qrail', 'service.version': SERVICE_VERSION, ...(opts.role === undefined ? {} : { 'qrail.role': opts.role }) }),
    spanProcessors: [processor],
  });
  provider.register();
  markTracingEnabled();
  return { shutdown: () => provider.shutdown() };
}
