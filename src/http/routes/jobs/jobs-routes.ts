/**
 * The Account Jobs interface (spec §4.1): plain JSON bodies (no envelope), errors
 * `{error:{code,message,details}, request_id}`.
 */
import { Type } from 'typebox';
import type { App } from '../../app-types.js';
import { jobsErrors } from '../../envelope-schemas.js';
import { Obj } from '../../schema-helpers.js';
import { JobListSchema } from './schemas.js';
import { agentOf, requireAgent } from './agent-auth.js';
import { LIST_MAX, type SubmitJobBody } from '../../../jobs/jobs-service.js';

export const SubmitJobSchema = Type.Object(
  {
    capability_id: Type.String({ minLength: 1, maxLength: 128 }),
    request: Type.Object({}, { additionalProperties: true, maxProperties: 32, description: 'Input matching the capability’s request_schema in GET /v1/catalog' }),
    idempotency_key: Type.String({ maxLength: 128, pattern: '^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$' }),
    max_total_price: Type.String({ maxLength: 16, pattern: '^(?:0|[1-9]\\d{0,5})(?:\\.\\d{1,6})?$', description: 'USD ceiling as a decimal string, at most 1.000000' }),
  },
  { additionalProperties: false },
);

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
        summary: 'The live catalog of job capabilities, with pricing rules and request schemas (public)',
        response: { 200: Obj({ capabilities: Type.Array(Type.Ref('CatalogEntry')) }, { description: 'Every capability with its price formula, request schema and a complete example body' }) },
      },
    },
    async () => ({ capabilities: jobs.catalog() }),
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
        // 403 scope; 409 idempotency key reused or in flight, price above max_total_price, balance, spend limits.
        response: { 202: Type.Ref('Job', { description: 'The job, queued (or, for a retried idempotency key, as it is now)' }), ...jobsErrors(403, 409) },
      },
    },
    async (req, reply) => {
      const agent = agentOf(req);
      const { job, replayed } = await jobs.submit(agent, req.body as SubmitJobBody);
      reply.code(202).header('location', `/v1/jobs/${job.id}`);
      if (replayed) reply.header('idempotent-replayed', 'true');
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
        summary: 'The account’s jobs, newest first, at most 100 per page',
        security: read,
        querystring: Type.Object(
          {
            idempotency_key: Type.Optional(Type.String({ maxLength: 128 })),
            limit: Type.Optional(Type.Integer({ minimum: 1, maximum: LIST_MAX, description: 'Page size (default 50, at most 100)' })),
            cursor: Type.Optional(Type.String({ maxLength: 200, description: 'next_cursor of the previous page' })),
          },
          { additionalProperties: false },
        ),
        response: { 200: { ...JobListSchema, description: 'A page of jobs' }, ...jobsErrors(403) },
      },
    },
    async (req) => {
      const r = await jobs.list(agentOf(req).accountId, { idempotencyKey: req.query.idempotency_key, limit: req.query.limit, cursor: req.query.cursor });
      return { jobs: r.jobs.map((j) => jobs.view(j)), next_cursor: r.nextCursor };
    },
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
