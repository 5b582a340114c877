/**
 * The Account Jobs interface (spec §4.1): plain JSON bodies (no envelope), errors
 * `{error:{code,message,details}, request_id}`.
 */
import { jobPageQuery } from '../page-query.js';
import { Type } from 'typebox';
import { currentTraceparent } from '../../../telemetry/trace.js';
import type { App } from '../../app-types.js';
import { jobsErrors } from '../../envelope-schemas.js';
import { Obj } from '../../schema-helpers.js';
import { JobListSchema, TAG_KEY_PATTERN, TAG_VALUE_MAX, TAGS_MAX } from './schemas.js';
import { agentOf, requireAgent } from './agent-auth.js';
import type { SubmitJobBody } from '../../../jobs/jobs-service.js';
import { JOB_STATUSES, type JobStatus } from '../../../jobs/job.js';

export const SubmitJobSchema = Type.Object(
  {
    capability_id: Type.String({ minLength: 1, maxLength: 128 }),
    request: Type.Object({}, { additionalProperties: true, maxProperties: 32, description: 'Input matching the capability’s request_schema in GET /v1/catalog' }),
    idempotency_key: Type.String({ maxLength: 128, pattern: '^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$' }),
    max_total_price: Type.String({ maxLength: 16, pattern: '^(?:0|[1-9]\\d{0,5})(?:\\.\\d{1,6})?$', description: 'USD ceiling as a decimal string, at most 1.000000' }),
    tags: Type.Optional(Type.Ref('JobTags')),
  },
  { additionalProperties: false },
);

/** The filters of GET /v1/jobs; every one given must match. */
const ListQuery = Type.Object(
  {
    status: Type.Optional(
      Type.Union(
        JOB_STATUSES.map((x) => Type.Literal(x)),
        { description: 'Only jobs in this state' },
      ),
    ),
    capability_id: Type.Optional(Type.String({ minLength: 1, maxLength: 128, description: 'Only jobs of this capability' })),
    tag: Type.Optional(
      Type.Array(Type.String({ pattern: `${TAG_KEY_PATTERN.slice(0, -1)}:.{0,${TAG_VALUE_MAX}}$`, maxLength: 64 + 1 + TAG_VALUE_MAX }), {
        maxItems: TAGS_MAX,
        description: 'key:value; repeat it for more tags (a job must have every one)',
      }),
    ),
    idempotency_key: Type.Optional(Type.String({ maxLength: 128, description: 'The job submitted with this key (at most one)' })),
    ...jobPageQuery(),
  },
  { additionalProperties: false },
);

interface ListQueryValue {
  status?: JobStatus;
  capability_id?: string;
  created_after?: string;
  created_before?: string;
  tag?: string[];
  idempotency_key?: string;
  limit?: number;
  cursor?: string;
}

const read = [{ jobsToken: [] }, { jobsOAuth: ['jobs:read'] }];
const write = [{ jobsToken: [] }, { jobsOAuth: ['jobs:write'] }];

export default async function jobsRoutes(app: App): Promise<void> {
  const jobs = app.services.jobs;
  const canRead = requireAgent(app, 'jobs:read');
  const canWrite = requireAgent(app, 'jobs:write');

  app.get(
    '/v1/catalog',
    {
      config: { surface: 'jobs' },
      schema: {
        tags: ['jobs'],
        operationId: 'listCapabilities',
        summary: 'The live catalog of job capabilities, with pricing rules, request schemas and whether each can run now (public)',
        response: {
          200: Obj({ capabilities: Type.Array(Type.Ref('CatalogEntry')) }, { description: 'Every capability with its price formula, request schema, a complete example body and its availability' }),
        },
      },
    },
    async () => ({ capabilities: await jobs.catalog() }),
  );

  app.post(
    '/v1/jobs',
    {
      config: { surface: 'jobs', idempotencyField: 'idempotency_key' },
      onRequest: canWrite,
      schema: {
        tags: ['jobs'],
        operationId: 'runAccountJob',
        summary: 'Submit a prepaid job: quoted, funds reserved and queued in one step (202 with the Job)',
        security: write,
        body: SubmitJobSchema,
        // 403 scope; 409 idempotency key reused or in flight, price above max_total_price, balance, spend limits; 503 (the edge's) also CAPABILITY_UNAVAILABLE.
        response: { 202: Type.Ref('Job', { description: 'The job, queued (or, for a retried idempotency key, as it is now)' }), ...jobsErrors(403, 409) },
      },
    },
    async (req, reply) => {
      const agent = agentOf(req);
      const { job, replayed } = await jobs.submit(agent, req.body as SubmitJobBody, req.id);
      reply.code(202).header('location', `/v1/jobs/${job.id}`);
      if (replayed) reply.header('idempotent-replayed', 'true');
      else app.services.metrics.inc('qrail_jobs_submitted_total', { capability: job.capabilityId });
      const traceparent = replayed ? undefined : currentTraceparent();
      if (traceparent !== undefined) await jobs.continueTrace(job.id, traceparent);
      req.log.info({ job_id: job.id, account_id: job.accountId, capability: job.capabilityId, status: job.status, replayed }, 'job submitted');
      return jobs.view(job);
    },
  );

  app.get(
    '/v1/jobs',
    {
      config: { surface: 'jobs' },
      onRequest: canRead,
      schema: {
        tags: ['jobs'],
        operationId: 'listAccountJobs',
        summary: 'The account’s jobs, newest first, at most 100 per page, filtered by status, capability, creation time, tags or idempotency key',
        security: read,
        querystring: ListQuery,
        response: { 200: { ...JobListSchema, description: 'A page of jobs' }, ...jobsErrors(403) },
      },
    },
    async (req) => {
      const q = req.query as ListQueryValue;
      const r = await jobs.list(agentOf(req).accountId, {
        idempotencyKey: q.idempotency_key,
        status: q.status,
        capabilityId: q.capability_id,
        createdAfter: q.created_after,
        createdBefore: q.created_before,
        tags: q.tag,
        limit: q.limit,
        cursor: q.cursor,
      });
      return { jobs: r.jobs.map((j) => jobs.view(j)), next_cursor: r.nextCursor, has_more: r.hasMore };
    },
  );

  app.post(
    '/v1/jobs/:job_id/cancel',
    {
      config: { surface: 'jobs' },
      onRequest: canWrite,
      schema: {
        tags: ['jobs'],
        operationId: 'cancelAccountJob',
        summary: 'Cancel a job: not yet running → failed / CANCELED now, reservation released; running → asked to stop, then failed / CANCELED (nothing captured)',
        security: write,
        params: Type.Object({ job_id: Type.String({ format: 'uuid' }) }),
        // 404 no such job of the account; 409 it already ended another way (or its result is saved).
        response: { 200: Type.Ref('Job', { description: 'The job as it is now: failed / CANCELED, or running with cancel_requested_at set' }), ...jobsErrors(403, 404, 409) },
      },
    },
    async (req) => jobs.view(await jobs.cancel(agentOf(req).accountId, req.params.job_id.toLowerCase(), req.id)),
  );

  app.get(
    '/v1/jobs/:job_id',
    {
      config: { surface: 'jobs' },
      onRequest: canRead,
      schema: {
        tags: ['jobs'],
        operationId: 'getAccountJob',
        summary: 'One job of the account, with result and receipt when completed',
        security: read,
        params: Type.Object({ job_id: Type.String({ format: 'uuid' }) }),
        response: { 200: Type.Ref('Job', { description: 'The job as it is now' }), ...jobsErrors(403, 404) },
      },
    },
    async (req) => jobs.view(await jobs.get(agentOf(req).accountId, req.params.job_id.toLowerCase())),
  );

  app.get(
    '/v1/account/balance',
    {
      config: { surface: 'jobs' },
      onRequest: canRead,
      schema: {
        tags: ['jobs'],
        operationId: 'getAccountBalance',
        summary: 'The core balance jobs are paid from',
        security: read,
        response: { 200: Type.Ref('AccountBalance', { description: 'The balance now' }), ...jobsErrors(403) },
      },
    },
    async (req) => jobs.balance(agentOf(req).accountId),
  );
}
