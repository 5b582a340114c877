import { z } from 'zod';
import { JOB_STATUSES } from '../../jobs/job.js';

/**
 * The output schemas of the MCP tools (published as `outputSchema` in tools/list; the SDK checks
 * each answer's `structuredContent` against them, and so do clients). The API's own objects (job,
 * balance) are open: their main members are typed and the rest passes, so a member the API gains
 * never turns a good answer into a validation failure; the tools' own wrappers are exact.
 */

const usd = z
  .string()
  .regex(/^-?(?:0|[1-9]\d*)\.\d{6}$/)
  .describe('USD with exactly six decimals, e.g. "0.120000"');
const time = z.string().describe('RFC 3339 time');
const anyObject = z.record(z.string(), z.unknown());

const job = z
  .looseObject({
    job_id: z.uuid(),
    status: z.enum(JOB_STATUSES),
    capability_id: z.string(),
    quoted_price: usd,
    reserved_price: usd,
    max_total_price: usd,
    idempotency_key: z.string(),
    tags: z.record(z.string(), z.string()),
    receipt_reference: z.string().nullable(),
    result: anyObject.nullable().describe('The capability’s output once completed (see its catalog entry), else null'),
    receipt: anyObject.nullable().describe('What the job was charged, once completed or canceled, else null'),
    error_code: z.string().nullable(),
    error_message: z.string().nullable(),
    submitted_by: z
      .object({ kind: z.enum(['user', 'credential', 'token']), id: z.string() })
      .nullable()
      .optional()
      .describe('Who submitted the job: a person, a machine credential or another access token'),
    created_at: time,
    updated_at: time,
  })
  .describe('A prepaid job, as GET /v1/jobs/{job_id} answers it');

const capability = z.object({
  capability_id: z.string(),
  product: z.string(),
  title: z.string(),
  price_formula: z.string(),
  example_price: usd.nullable(),
  currency: z.literal('USD'),
  available: z.boolean(),
  unavailable_reason: z.string().nullable(),
  description: z.string().optional().describe('detail "full" only'),
  request_schema: anyObject.optional().describe('detail "full" only: the JSON Schema of the request'),
  example_request: anyObject.optional().describe('detail "full" only: a valid request'),
});

export const LIST_CAPABILITIES_OUTPUT = z.object({ capabilities: z.array(capability) });

export const BALANCE_OUTPUT = z.looseObject({ account_id: z.uuid(), currency: z.literal('USD'), available: usd, held: usd, total: usd, as_of: time });

export const JOB_OUTPUT = job;

export const WAIT_FOR_JOB_OUTPUT = z.object({ finished: z.boolean().describe('true: the job completed or failed; false: the time ran out first'), job });

export const RECEIPT_OUTPUT = z.object({
  job_id: z.uuid(),
  status: z.enum(JOB_STATUSES),
  receipt_reference: z.string().nullable(),
  quoted_price: usd,
  reserved_price: usd,
  receipt: anyObject.nullable(),
});

export const LIST_JOBS_OUTPUT = z.object({ jobs: z.array(job), next_cursor: z.string().nullable(), has_more: z.boolean() });
