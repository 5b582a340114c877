/**
 * The Account Jobs interface (spec §4.1): plain JSON bodies (no envelope), errors
 * `{error:{code,message,details}, request_id}`.
 */
import { Type } from 'typebox';
import type { App } from '../../app-types.js';
import { JobsErrorSchema } from '../../envelope-schemas.js';
import { agentOf, requireAgent } from './agent-auth.js';
import { LIST_MAX, type SubmitJobBody } from '../../../jobs/jobs-service.js';
import { JOB_STATUSES } from '../../../jobs/job.js';

const Open = Type.Object({}, { additionalProperties: true });
const Price = Type.String({ pattern: '^(?:0|[1-9]\\d*)\\.\\d{6}$' });

export const SubmitJobSchema = Type.Object(
  {
    capability_id: Type.String({ minLength: 1, maxLength: 128 }),
    request: Type.Object({}, { additionalProperties: true, maxProperties: 32, description: 'Input matching the capability’s request_schema in GET /v1/catalog' }),
    idempotency_key: Type.String({ maxLength: 128, pattern: '^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$' }),
    max_total_price: Type.String({ maxLength: 16, pattern: '^(?:0|[1-9]\\d{0,5})(?:\\.\\d{1,6})?$', description: 'USD ceiling as a decimal string, at most 1.000000' }),
  },
  { additionalProperties: false },
);

const Transition = Type.Object({
  from: Type.Union([Type.String(), Type.Null()]),
  to: Type.String(),
  at: Type.String({ format: 'date-time' }),
  note: Type.Optional(Type.String()),
});

export const JobSchema = Type.Object(
  {
    job_id: Type.String({ format: 'uuid' }),
    status: Type.Union(JOB_STATUSES.map((s) => Type.Literal(s))),
    capability_id: Type.String(),
    product: Type.Optional(Type.Union([Type.Literal('product-one'), Type.Literal('product-two'), Type.Literal('robotics')])),
    payment_rail: Type.Literal('account_core_balance'),
    quoted_price: Price,
    reserved_price: Price,
    max_total_price: Type.Optional(Price),
    retrieval_url: Type.String({ format: 'uri' }),
    receipt_reference: Type.Union([Type.String(), Type.Null()]),
    idempotency_key: Type.Optional(Type.String()),
    quote: Type.Optional(Open),
    result: Type.Optional(Type.Union([Open, Type.Null()])),
    receipt: Type.Optional(Type.Union([Open, Type.Null()])),
    error_code: Type.Optional(Type.Union([Type.String(), Type.Null()])),
    error_message: Type.Optional(Type.Union([Type.String(), Type.Null()])),
    attempts: Type.Optional(Type.Integer()),
    created_at: Type.Optional(Type.String({ format: 'date-time' })),
    updated_at: Type.Optional(Type.String({ format: 'date-time' })),
    transitions: Type.Optional(Type.Array(Transition)),
  },
);

const JobsError = JobsErrorSchema;
const errors = { 400: JobsError, 401: JobsError, 403: JobsError, 404: JobsError, 409: JobsError, 429: JobsError, 503: JobsError };

const CatalogEntry = Type.Object({
  capability_id: Type.String(),
  product: Type.String(),
  title: Type.String(),
  description: Type.String(),
  payment_rail: Type.String(),
  pricing: Open,
  request_schema: Open,
  example: Open,
  on_interrupted: Type.String(),
});

const security = [{ bearer: [] }];

export default async function jobsRoutes(app: App): Promise<void> {
  const jobs = app.services.jobs;
  const read = requireAgent(app, 'jobs:read');
  const write = requireAgent(app, 'jobs:write');

  app.get('/v1/catalog', {
    config: { surface: 'jobs' },
    schema: { tags: ['jobs'], summary: 'The live catalog of job capabilities, with pricing rules and request schemas (public)', response: { 200: Type.Object({ capabilities: Type.Array(CatalogEntry) }), 429: JobsError } },
  }, async () => ({ capabilities: jobs.catalog() }));

  app.post('/v1/jobs', {
    config: { surface: 'jobs', idempotencyField: 'idempotency_key' },
    onRequest: write,
    schema: {
      tags: ['jobs'], summary: 'runAccountJob: submit a prepaid job (202 with the Job)', security, body: SubmitJobSchema,
      response: { 202: JobSchema, ...errors },
    },
  }, async (req, reply) => {
    const agent = agentOf(req);
    const { job, replayed } = await jobs.submit(agent, req.body as SubmitJobBody);
    reply.code(202).header('location', `/v1/jobs/${job.id}`);
    if (replayed) reply.header('idempotent-replayed', 'true');
    return jobs.view(job);
  });

  app.get('/v1/jobs', {
    config: { surface: 'jobs' },
    onRequest: read,
    schema: {
      tags: ['jobs'], summary: 'listAccountJobs: the account’s jobs, newest first, at most 100 per page', security,
      querystring: Type.Object({
        idempotency_key: Type.Optional(Type.String({ maxLength: 128 })),
        limit: Type.Optional(Type.Integer({ minimum: 1, maximum: LIST_MAX, description: 'Page size (default 50, at most 100)' })),
        cursor: Type.Optional(Type.String({ maxLength: 200, description: 'next_cursor of the previous page' })),
      }, { additionalProperties: false }),
      response: { 200: Type.Object({ jobs: Type.Array(JobSchema, { maxItems: LIST_MAX }), next_cursor: Type.Union([Type.String(), Type.Null()]) }), ...errors },
    },
  }, async (req) => {
    const r = await jobs.list(agentOf(req).accountId, { idempotencyKey: req.query.idempotency_key, limit: req.query.limit, cursor: req.query.cursor });
    return { jobs: r.jobs.map((j) => jobs.view(j)), next_cursor: r.nextCursor };
  });

  app.get('/v1/jobs/:job_id', {
    config: { surface: 'jobs' },
    onRequest: read,
    schema: {
      tags: ['jobs'], summary: 'getAccountJob: one job of the account, with result and receipt when completed', security,
      params: Type.Object({ job_id: Type.String({ format: 'uuid' }) }),
      response: { 200: JobSchema, ...errors },
    },
  }, async (req) => jobs.view(await jobs.get(agentOf(req).accountId, req.params.job_id.toLowerCase())));

  app.get('/v1/account/balance', {
    config: { surface: 'jobs' },
    onRequest: read,
    schema: {
      tags: ['jobs'], summary: 'getAccountBalance: the core balance jobs are paid from', security,
      response: { 200: Type.Object({}, { additionalProperties: true }), ...errors },
    },
  }, async (req) => jobs.balance(agentOf(req).accountId));
}
