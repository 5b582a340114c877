import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CatalogEntry, Job, QrailClient } from '../../../packages/client/src/index.js';
import { answer } from './tool-results.js';
import { JOB_ID_INPUT, LIST_CAPABILITIES_INPUT, LIST_JOBS_INPUT, NO_INPUT, SUBMIT_JOB_INPUT, WAIT_DEFAULT_SECONDS, WAIT_FOR_JOB_INPUT } from './tool-inputs.js';
import { BALANCE_OUTPUT, JOB_OUTPUT, LIST_CAPABILITIES_OUTPUT, LIST_JOBS_OUTPUT, RECEIPT_OUTPUT, WAIT_FOR_JOB_OUTPUT } from './tool-outputs.js';

/**
 * The qrail tools of the MCP server, one set for both transports (stdio: `qrail mcp`; HTTP:
 * `/mcp`). Each tool is one call (wait_for_job: a bounded series of reads) of the Account Jobs
 * REST API through the typed client, so it needs the same scope and costs exactly what that call
 * costs: a tool never prices, reserves or charges anything itself.
 */
export type AgentJobsPort = Pick<QrailClient['jobs'], 'catalog' | 'balance' | 'submit' | 'get' | 'cancel' | 'list' | 'waitForJob'>;

const READ = { readOnlyHint: true, openWorldHint: false } as const;

/** The arguments a model gave, without the optional ones it left out (the client sends no `undefined`). */
function given<T extends object>(args: T): { [K in keyof T]?: Exclude<T[K], undefined> } {
  return Object.fromEntries(Object.entries(args).filter(([, v]) => v !== undefined)) as { [K in keyof T]?: Exclude<T[K], undefined> };
}

/**
 * A capability as a model needs it: to choose one (summary: id, title, price, availability) and
 * to build its request (full: also the description, the request's JSON Schema and an example).
 * The full catalog is tens of kilobytes, so it is there on request only.
 */
function capabilityView(c: CatalogEntry, full: boolean): Record<string, unknown> {
  const summary = {
    capability_id: c.capability_id,
    product: c.product,
    title: c.title,
    price_formula: c.pricing.formula,
    example_price: c.pricing.example_price ?? null,
    currency: c.pricing.currency,
    available: c.available,
    unavailable_reason: c.unavailable_reason,
  };
  return full ? { ...summary, description: c.description, request_schema: c.request_schema, example_request: c.example.request } : summary;
}

/** The text of the compact catalog: one line per capability, and how to get the rest. */
function catalogSummary(capabilities: readonly Record<string, unknown>[]): string {
  const lines = capabilities.map(
    (c) =>
      `${String(c['capability_id'])}: ${String(c['title'])}; example ${(c['example_price'] as string | null) ?? '?'} USD; ${c['available'] === true ? 'available' : `unavailable (${String(c['unavailable_reason'])})`}`,
  );
  return `${capabilities.length} capabilities (the same in structuredContent, with price formulas):\n${lines.join('\n')}\nCall list_capabilities with capability_id (or detail: "full") for a request schema and an example request.`;
}

function receiptView(job: Job): Record<string, unknown> {
  return {
    job_id: job.job_id,
    status: job.status,
    receipt_reference: job.receipt_reference,
    quoted_price: job.quoted_price,
    reserved_price: job.reserved_price,
    receipt: job.receipt,
  };
}

/** An abort signal for `ms` that also follows the caller's (AbortSignal.any needs Node 20.3). */
function deadline(ms: number, outer: AbortSignal): { signal: AbortSignal; timedOut: () => boolean; done: () => void } {
  const ctl = new AbortController();
  let expired = false;
  const timer = setTimeout(() => {
    expired = true;
    ctl.abort(new DOMException('wait_for_job timed out', 'TimeoutError'));
  }, ms);
  const onAbort = () => ctl.abort(outer.reason);
  if (outer.aborted) ctl.abort(outer.reason);
  outer.addEventListener('abort', onAbort, { once: true });
  return {
    signal: ctl.signal,
    timedOut: () => expired,
    done: () => {
      clearTimeout(timer);
      outer.removeEventListener('abort', onAbort);
    },
  };
}

export function registerJobsTools(server: McpServer, jobs: AgentJobsPort): void {
  server.registerTool(
    'list_capabilities',
    {
      title: 'List qrail capabilities',
      description:
        'The catalog of paid capabilities you can run as jobs (circuit simulation, analysis, optimization, coupling, provider simulators, speech): for each its capability_id, title, price formula and an example price in USD, and whether it can run now (available, or unavailable_reason). With capability_id (or detail "full"): also what it does, the JSON Schema of its request and a valid example request. Free.',
      inputSchema: LIST_CAPABILITIES_INPUT,
      outputSchema: LIST_CAPABILITIES_OUTPUT,
      annotations: READ,
    },
    async ({ capability_id, detail }) => {
      const full = (detail ?? (capability_id === undefined ? 'summary' : 'full')) === 'full';
      return answer(
        async () => {
          const { capabilities } = await jobs.catalog();
          return { capabilities: capabilities.filter((c) => capability_id === undefined || c.capability_id === capability_id).map((c) => capabilityView(c, full)) };
        },
        // The full form's text stays JSON (asked for); the summary's is a few lines, not a second copy.
        (v) => (full ? undefined : catalogSummary(v.capabilities)),
      );
    },
  );

  server.registerTool(
    'get_balance',
    {
      title: 'Read the balance',
      description: 'The account balance jobs are paid from, in USD: available (spendable now), held (reserved by jobs not yet finished) and total. Free.',
      inputSchema: NO_INPUT,
      outputSchema: BALANCE_OUTPUT,
      annotations: READ,
    },
    async () => answer(async () => ({ ...(await jobs.balance()) })),
  );

  server.registerTool(
    'submit_job',
    {
      title: 'Submit a paid job',
      description:
        'Runs a capability as a prepaid job: the request is priced, the price is reserved from the balance when it is at most max_total_price, and the job is queued; returns the job (status queued, quoted_price). The reservation is charged only when the job completes and released when it fails or is canceled. Retrying with the same idempotency_key and arguments returns the same job and never charges twice. Refusals come back as errors with a code: PRICE_ABOVE_MAXIMUM, INSUFFICIENT_FUNDS, SPEND_LIMIT_EXCEEDED, IDEMPOTENCY_KEY_REUSED, CAPABILITY_UNAVAILABLE, VALIDATION_FAILED (with the paths of the problems).',
      inputSchema: SUBMIT_JOB_INPUT,
      outputSchema: JOB_OUTPUT,
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    },
    async ({ tags, ...rest }) => answer(async () => ({ ...(await jobs.submit({ ...rest, ...(tags === undefined ? {} : { tags }) })) })),
  );

  server.registerTool(
    'get_job',
    {
      title: 'Read a job',
      description: 'A job as it is now: status (queued, running, completed, failed), prices, and once completed its result and receipt; error_code and error_message when it failed. Free.',
      inputSchema: JOB_ID_INPUT,
      outputSchema: JOB_OUTPUT,
      annotations: READ,
    },
    async ({ job_id }) => answer(async () => ({ ...(await jobs.get(job_id)) })),
  );

  server.registerTool(
    'wait_for_job',
    {
      title: 'Wait for a job',
      description: `Waits until the job is completed or failed, at most timeout_seconds (default ${WAIT_DEFAULT_SECONDS}), reading it every few hundred milliseconds. Returns {finished, job}: finished true with the job's result and receipt, or false with the job as it is when the time ran out (call again to keep waiting; the job continues either way). Free.`,
      inputSchema: WAIT_FOR_JOB_INPUT,
      outputSchema: WAIT_FOR_JOB_OUTPUT,
      annotations: READ,
    },
    async ({ job_id, timeout_seconds }, extra) =>
      answer(async () => {
        const d = deadline((timeout_seconds ?? WAIT_DEFAULT_SECONDS) * 1000, extra.signal);
        try {
          const job = await jobs.waitForJob(job_id, { signal: d.signal, intervalMs: 250, maxIntervalMs: 2000 });
          return { finished: true, job };
        } catch (e) {
          if (!d.timedOut()) throw e;
          return { finished: false, job: await jobs.get(job_id) };
        } finally {
          d.done();
        }
      }),
  );

  server.registerTool(
    'get_receipt',
    {
      title: 'Read a job’s receipt',
      description:
        'What a job cost: its receipt (amount reserved, captured and released in USD, the balance after, the ledger transfer ids) once it completed or was canceled, else null, with its status and prices. Free.',
      inputSchema: JOB_ID_INPUT,
      outputSchema: RECEIPT_OUTPUT,
      annotations: READ,
    },
    async ({ job_id }) => answer(async () => receiptView(await jobs.get(job_id))),
  );

  server.registerTool(
    'cancel_job',
    {
      title: 'Cancel a job',
      description:
        'Cancels a job: one not yet running ends failed with error_code CANCELED at once and its reservation is released; a running one is asked to stop and ends so (wait_for_job shows it). Nothing is charged either way. Repeating it answers the same; a job that already completed or failed otherwise gives JOB_NOT_CANCELABLE.',
      inputSchema: JOB_ID_INPUT,
      outputSchema: JOB_OUTPUT,
      annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
    },
    async ({ job_id }) => answer(async () => ({ ...(await jobs.cancel(job_id)) })),
  );

  server.registerTool(
    'list_jobs',
    {
      title: 'List jobs',
      description: 'The account’s jobs, newest first, filtered by status, capability, creation time, tags or idempotency key; at most 100 per page, with next_cursor and has_more. Free.',
      inputSchema: LIST_JOBS_INPUT,
      outputSchema: LIST_JOBS_OUTPUT,
      annotations: READ,
    },
    async (query) => answer(async () => ({ ...(await jobs.list(given(query))) })),
  );
}
