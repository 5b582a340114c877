import { context, isSpanContextValid, propagation, SpanKind, SpanStatusCode, trace, type Attributes, type Context, type Span } from '@opentelemetry/api';

/**
 * The spans the code opens, over the OpenTelemetry API only (no SDK): without a registered
 * provider (tracing off, the default) every call here is a no-op.
 */
export const tracer = trace.getTracer('qrail');

let enabled = false;
/** True once this process started tracing (tracing.ts): apps built afterwards add their request spans. */
export const tracingEnabled = (): boolean => enabled;
export function markTracingEnabled(): void {
  enabled = true;
}

/** Runs `fn` in a child span of the active one; nothing is recorded when no span is active (background polls stay untraced). */
export async function inSpan<T>(name: string, attributes: Attributes, fn: () => Promise<T>, kind: SpanKind = SpanKind.INTERNAL): Promise<T> {
  if (trace.getActiveSpan() === undefined) return fn();
  return tracer.startActiveSpan(name, { kind, attributes }, async (span) => {
    try {
      return await fn();
    } catch (e) {
      span.recordException(e instanceof Error ? e : String(e));
      span.setStatus({ code: SpanStatusCode.ERROR });
      throw e;
    } finally {
      span.end();
    }
  });
}

/** The active span's W3C `traceparent`, to be stored with work that continues elsewhere (a queued job); undefined when none is recording. */
export function currentTraceparent(): string | undefined {
  if (trace.getActiveSpan()?.isRecording() !== true) return undefined;
  const carrier: Record<string, string> = {};
  propagation.inject(context.active(), carrier);
  return carrier['traceparent'];
}

/** Starts a span whose parent is a stored `traceparent` (or a new root), and the context that makes it active. */
export function spanFrom(traceparent: string | undefined, name: string, attributes: Attributes, kind: SpanKind = SpanKind.CONSUMER): { span: Span; ctx: Context } {
  const parent = traceparent === undefined ? context.active() : propagation.extract(context.active(), { traceparent });
  const span = tracer.startSpan(name, { kind, attributes }, parent);
  return { span, ctx: trace.setSpan(parent, span) };
}

/** Adds attributes to the active span (a job's handling): a no-op when none is recording. */
export function annotateActiveSpan(attributes: Attributes): void {
  trace.getActiveSpan()?.setAttributes(attributes);
}

/** `trace_id`/`span_id` of a span, the fields a log line carries to be joined with its trace. */
export function traceFields(span: Span | undefined): { trace_id?: string; span_id?: string } {
  const c = span?.spanContext();
  return c !== undefined && isSpanContextValid(c) ? { trace_id: c.traceId, span_id: c.spanId } : {};
}

/** A pino `mixin`: every line written while a span is active carries its ids (nothing while tracing is off). */
export const activeTraceFields = (): { trace_id?: string; span_id?: string } => traceFields(trace.getActiveSpan());

export { context, propagation, SpanKind, SpanStatusCode, trace };
