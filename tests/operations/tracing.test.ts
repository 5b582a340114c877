import { InMemorySpanExporter, type ReadableSpan } from '@opentelemetry/sdk-trace-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/http/app-types.js';
import { startTracing, type Tracing } from '../../src/telemetry/tracing.js';
import { buildTestApp } from '../helpers/app.js';
import { bell } from '../helpers/circuits.js';
import { key, newAgent, submit, expectAllInvariants } from '../jobs/helpers.js';
import { signUp } from '../helpers/app.js';
import { fundAccount } from '../helpers/ledger.js';
import { holdGridTasks, quoteAndHold, settleExecutionJob } from '../execution/helpers.js';

const parentOf = (s: ReadableSpan): string | undefined => s.parentSpanContext?.spanId;

describe('traces: a paid job from submission to completion', () => {
  const exporter = new InMemorySpanExporter();
  let tracing: Tracing;
  let app: App;
  const logged: Array<Record<string, unknown>> = [];

  beforeAll(async () => {
    // Tracing starts before the app is built, as `qrail serve` does with OTEL_EXPORTER_OTLP_ENDPOINT.
    tracing = startTracing({ exporter });
    app = await buildTestApp({ LOG_LEVEL: 'info' }, { logDestination: { write: (l: string) => void logged.push(JSON.parse(l) as Record<string, unknown>) } });
  });
  afterAll(async () => {
    await expectAllInvariants(app);
    await app.close();
    await tracing.shutdown();
  });

  it('joins the request, its SQL, the worker that ran the job and its compute task in one trace, with the request id', async () => {
    const agent = await newAgent(app);
    exporter.reset();
    // The caller's own trace continues through the service (W3C trace context).
    const callerTrace = '4bf92f3577b34da6a3ce929d0e0e4736';
    const sub = await submit(app, agent, { capability_id: 'circuit.simulate', idempotency_key: key('trace'), max_total_price: '0.01', request: { circuit: bell, shots: 64, seed: 1 } });
    expect(sub.statusCode).toBe(202);
    const jobId = sub.json().job_id as string;
    const requestId = sub.headers['x-request-id'];
    const traced = await app.inject({
      method: 'GET',
      url: `/v1/jobs/${jobId}`,
      headers: { ...agent.auth, traceparent: `00-${callerTrace}-00f067aa0ba902b7-01` },
    });
    expect(traced.statusCode).toBe(200);
    await app.services.jobsWorker.drain();

    const spans = exporter.getFinishedSpans();
    const http = spans.find((s) => s.name === 'POST /v1/jobs');
    expect(http, spans.map((s) => s.name).join(', ')).toBeDefined();
    expect(http!.attributes['qrail.request_id']).toBe(requestId);
    expect(http!.attributes['http.response.status_code']).toBe(202);
    const trace = http!.spanContext().traceId;
    const inTrace = spans.filter((s) => s.spanContext().traceId === trace);
    const byId = new Map(inTrace.map((s) => [s.spanContext().spanId, s]));

    // SQL of the submission, under the request's span.
    expect(inTrace.some((s) => s.name === 'db.query' && parentOf(s) === http!.spanContext().spanId && String(s.attributes['db.query.text']).includes('jobs_submit'))).toBe(true);
    // The worker's handling continues the trace, as a child of the request's span.
    const worker = inTrace.find((s) => s.name === 'jobs run');
    expect(worker, inTrace.map((s) => s.name).join(', ')).toBeDefined();
    expect(parentOf(worker!)).toBe(http!.spanContext().spanId);
    expect(worker!.attributes['qrail.item_id']).toBe(jobId);
    // Under the worker: the compute task and the completing SQL (capture and receipt in one statement).
    const under = (s: ReadableSpan, ancestor: ReadableSpan): boolean => {
      for (let p = parentOf(s); p !== undefined; p = byId.get(p) === undefined ? undefined : parentOf(byId.get(p)!)) if (p === ancestor.spanContext().spanId) return true;
      return false;
    };
    expect(inTrace.some((s) => s.name.startsWith('compute ') && under(s, worker!))).toBe(true);
    expect(inTrace.some((s) => s.name === 'db.query' && String(s.attributes['db.query.text']).includes('jobs_complete') && under(s, worker!))).toBe(true);

    // An incoming traceparent is continued, not replaced.
    const get = spans.find((s) => s.name === 'GET /v1/jobs/:job_id');
    expect(get?.spanContext().traceId).toBe(callerTrace);
    expect(parentOf(get!)).toBe('00f067aa0ba902b7');
    // No statement parameters in any span: the credential's secret never appears.
    expect(JSON.stringify(spans.map((s) => s.attributes))).not.toContain(agent.secret);
    // The worker's span says whose job it ran.
    expect(worker!.attributes['qrail.account_id']).toBe(agent.accountId);

    // Logs join traces: the request line names its trace and span, the client's address and
    // user agent; the worker's line for the job names the worker span.
    const submitLine = logged.find((l) => l['msg'] === 'request' && l['route'] === '/v1/jobs' && l['method'] === 'POST');
    expect(submitLine).toMatchObject({ trace_id: trace, span_id: http!.spanContext().spanId, client_ip: '127.0.0.1', user_agent: 'lightMyRequest' });
    expect(logged.find((l) => l['msg'] === 'request' && l['trace_id'] === callerTrace)).toMatchObject({ span_id: get!.spanContext().spanId });
    const handled = logged.find((l) => l['msg'] === 'queue item handled' && l['item_id'] === jobId);
    expect(handled).toMatchObject({ trace_id: trace, span_id: worker!.spanContext().spanId });
  });

  it('continues a held hardware job: the worker that runs the execution job is a child of the continuing request', async () => {
    const u = await signUp(app);
    await fundAccount(app, u.accountId, 5_000_000n);
    const { held } = await quoteAndHold(app, u.auth, 'p2-grid-9', 16);
    exporter.reset();
    const cont = await app.inject({ method: 'POST', url: `/v1/execute/provider-two/held/${held.job_id}`, headers: u.auth, payload: { circuit: bell, client_token: key('trace-held') } });
    expect(cont.statusCode).toBe(202);
    expect(await settleExecutionJob(app, held.job_id)).toContain('completed');

    const spans = exporter.getFinishedSpans();
    const http = spans.find((s) => s.name === 'POST /v1/execute/provider-two/held/:job_id');
    expect(http, spans.map((s) => s.name).join(', ')).toBeDefined();
    const worker = spans.find((s) => s.attributes['qrail.item_id'] === held.job_id && parentOf(s) !== undefined && s.kind !== http!.kind);
    expect(worker, spans.map((s) => `${s.name} ${String(s.attributes['qrail.item_id'])}`).join(', ')).toBeDefined();
    expect(worker!.spanContext().traceId).toBe(http!.spanContext().traceId);
    expect(parentOf(worker!)).toBe(http!.spanContext().spanId);
  });

  it("an async simulator run: the worker that runs it continues the submitting request's trace", async () => {
    const u = await signUp(app);
    exporter.reset();
    const run = await app.inject({ method: 'POST', url: '/v1/execute/provider-two', headers: u.auth, payload: { circuit: bell, shots: 16, async: true, client_token: key('trace-async') } });
    expect(run.statusCode).toBe(202);
    const jobId = run.json().data.job_id as string;
    expect(await settleExecutionJob(app, jobId)).toContain('completed');
    const spans = exporter.getFinishedSpans();
    const http = spans.find((s) => s.name === 'POST /v1/execute/provider-two');
    expect(http, spans.map((s) => s.name).join(', ')).toBeDefined();
    const worker = spans.find((s) => s.attributes['qrail.item_id'] === jobId && s.kind !== http!.kind);
    expect(worker, spans.map((s) => `${s.name} ${String(s.attributes['qrail.item_id'])}`).join(', ')).toBeDefined();
    expect(parentOf(worker!)).toBe(http!.spanContext().spanId);
  });

  it("a held batch: every job it queued is run under the continuing request's span", async () => {
    const u = await signUp(app);
    await fundAccount(app, u.accountId, 5_000_000n);
    const held = await holdGridTasks(app, u.auth, 2);
    exporter.reset();
    const b = await app.inject({ method: 'POST', url: `/v1/execute/provider-two/held/${held.job_id}/batch`, headers: u.auth, payload: { circuits: [bell, bell], client_token: key('trace-batch') } });
    expect(b.statusCode).toBe(202);
    const ids = (b.json().data.jobs as { job_id: string }[]).map((j) => j.job_id);
    expect(ids).toHaveLength(2);
    for (const id of ids) expect(await settleExecutionJob(app, id)).toBeDefined();
    const spans = exporter.getFinishedSpans();
    const http = spans.find((s) => s.name === 'POST /v1/execute/provider-two/held/:job_id/batch');
    expect(http, spans.map((s) => s.name).join(', ')).toBeDefined();
    for (const id of ids) {
      const worker = spans.find((s) => s.attributes['qrail.item_id'] === id && s.kind !== http!.kind);
      expect(worker, id).toBeDefined();
      expect(parentOf(worker!)).toBe(http!.spanContext().spanId);
    }
  });
});
