import { principalOf } from '../../plugins/auth.js';
import type { App } from '../../app-types.js';
import { errors, okResponse } from '../../envelope-schemas.js';
import { OptimizeJobListQuery, OptimizeJobPage, OptimizeJobParams, optimizeJobView, OptimizeJobView } from './optimize-job-schemas.js';

/**
 * An optimize job of the caller's account (async POST /v1/circuits/optimize): read it (polling:
 * status, progress while it runs, result or error when it ended) and cancel it. Another
 * account's job answers 404 like a missing one.
 */
export function optimizeJobRoutes(app: App): void {
  const auth = { onRequest: app.requireSession };
  const tags = ['circuits'];
  app.get(
    '/v1/circuits/optimize/jobs',
    {
      ...auth,
      schema: {
        tags,
        operationId: 'listOptimizeJobs',
        summary: 'The account’s optimize jobs, newest first, at most 100 per page, filtered by status or creation time',
        querystring: OptimizeJobListQuery,
        response: { 200: okResponse(OptimizeJobPage, 'A page of optimize jobs') },
      },
    },
    async (req) => {
      const q = req.query;
      const page = await app.services.optimizeJobs.list(principalOf(req.principal).accountId, {
        status: q.status,
        createdAfter: q.created_after,
        createdBefore: q.created_before,
        limit: q.limit,
        cursor: q.cursor,
      });
      return { jobs: page.items.map(optimizeJobView), next_cursor: page.nextCursor, has_more: page.hasMore };
    },
  );

  app.get(
    '/v1/circuits/optimize/jobs/:job_id',
    {
      ...auth,
      schema: {
        tags,
        operationId: 'getOptimizeJob',
        summary: 'Read an optimize job: queued, running (with progress), completed (with the result), failed (with the error) or canceled',
        params: OptimizeJobParams,
        response: { 200: okResponse(OptimizeJobView, 'The job as it is now'), ...errors(404) },
      },
    },
    async (req) => optimizeJobView(await app.services.optimizeJobs.get(principalOf(req.principal).accountId, req.params.job_id.toLowerCase())),
  );

  app.post(
    '/v1/circuits/optimize/jobs/:job_id/cancel',
    {
      ...auth,
      schema: {
        tags,
        operationId: 'cancelOptimizeJob',
        summary: 'Cancel an optimize job: queued → canceled now; running → its computation is stopped and it ends canceled (idempotent)',
        params: OptimizeJobParams,
        // 404 no such job of the account; 409 it already ended completed or failed.
        response: { 200: okResponse(OptimizeJobView, 'The job as it is now: canceled, or running with cancel_requested_at set'), ...errors(404, 409) },
      },
    },
    async (req) => optimizeJobView((await app.services.optimizeJobs.cancel(principalOf(req.principal).accountId, req.params.job_id.toLowerCase())).job),
  );
}
