import { z } from 'zod';
import { JOB_STATUSES } from '../../jobs/job.js';

/**
 * The input schemas of the MCP tools (zod objects; the SDK publishes them as JSON Schema in
 * tools/list). They bound what a model may send and say what each field means; the Account Jobs
 * API behind every tool stays the judge (the same rules as POST /v1/jobs and GET /v1/jobs, so a
 * value these let through can still be refused there, with its error code). They are strict: an
 * argument a tool does not have (a typo such as `statuses`) is refused naming it, never ignored.
 */

/** The longest wait_for_job may block one tool call (the job continues after it). */
export const WAIT_MAX_SECONDS = 60;
export const WAIT_DEFAULT_SECONDS = 30;

const jobId = z.uuid().describe('The job_id that submit_job (or list_jobs) returned');
const capabilityId = z.string().min(1).max(128).describe('A capability_id from list_capabilities, e.g. circuit.simulate');

export const LIST_CAPABILITIES_INPUT = z.strictObject({
  capability_id: capabilityId.optional().describe('Only this capability (default: all of them)'),
  detail: z
    .enum(['summary', 'full'])
    .optional()
    .describe('summary: ids, titles, prices and availability; full: also the description, the JSON Schema of the request and an example request. Default: full for one capability_id, else summary'),
});

export const NO_INPUT = z.strictObject({});

/** A USD amount as the API takes it: a decimal string of at most six decimals. */
const USD_TEXT = /^(?:0|[1-9]\d{0,5})(?:\.\d{1,6})?$/;
const PRICE_RULE = 'a non-negative amount in USD with at most 6 decimals, as a string ("0.01") or a number (0.01)';

/**
 * max_total_price: a decimal string, or a JSON number converted exactly through its shortest
 * decimal form (what JSON.stringify writes: 0.01 → "0.01"), so a number never rounds to another
 * amount; one that needs more than six decimals (0.0000001 is "1e-7") is refused, not rounded.
 */
const maxTotalPrice = z
  .union([z.string().regex(USD_TEXT, `max_total_price must be ${PRICE_RULE}`), z.number().refine((n) => USD_TEXT.test(String(n)), `max_total_price must be ${PRICE_RULE}`)])
  // After the union (a transform inside it would hide the refusal's message behind "Invalid input").
  .transform((v) => (typeof v === 'number' ? String(v) : v))
  .describe(
    'The most you will pay, in USD: a decimal string (e.g. "0.01"; at most "1.000000") or a number with at most 6 decimals. A quote above it is refused with PRICE_ABOVE_MAXIMUM and nothing is reserved.',
  );

export const SUBMIT_JOB_INPUT = z.strictObject({
  capability_id: capabilityId,
  request: z.record(z.string().max(64), z.unknown()).describe('The input of the capability: an object matching its request_schema from list_capabilities (example_request is a valid one)'),
  idempotency_key: z
    .string()
    .regex(/^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$/)
    .describe(
      'Your unique key for this submission (1–128 of A-Za-z0-9._:-, e.g. "bell-run-2025-06-01-1"). Repeating a call with the same key and the same arguments returns the same job and charges once; a new job needs a new key.',
    ),
  max_total_price: maxTotalPrice,
  tags: z
    .record(z.string().regex(/^[A-Za-z0-9_][A-Za-z0-9_.-]{0,63}$/), z.string().max(128))
    .optional()
    .describe('Your labels for the job: at most 16 keys to short strings; list_jobs filters by them'),
});

export const JOB_ID_INPUT = z.strictObject({ job_id: jobId });

export const WAIT_FOR_JOB_INPUT = z.strictObject({
  job_id: jobId,
  timeout_seconds: z.number().int().min(1).max(WAIT_MAX_SECONDS).optional().describe(`How long to wait at most (1–${WAIT_MAX_SECONDS} s, default ${WAIT_DEFAULT_SECONDS}); call again to keep waiting`),
});

export const LIST_JOBS_INPUT = z.strictObject({
  status: z.enum(JOB_STATUSES).optional().describe('Only jobs in this state'),
  capability_id: capabilityId.optional().describe('Only jobs of this capability'),
  created_after: z.iso.datetime({ offset: true }).optional().describe('Only jobs created at or after this time (RFC 3339)'),
  created_before: z.iso.datetime({ offset: true }).optional().describe('Only jobs created before this time (RFC 3339)'),
  tag: z.array(z.string().max(193)).max(16).optional().describe('Tags as "key:value"; a job must have every one'),
  idempotency_key: z.string().max(128).optional().describe('Only the job submitted with this key'),
  limit: z.number().int().min(1).max(100).optional().describe('Page size (1–100, default 50)'),
  cursor: z.string().max(200).optional().describe('next_cursor of the previous page (with the same filters)'),
});
