import { pass, type CallOptions, type RequestFn } from '../call.js';
import { pollUntil, type WaitOptions } from '../poll.js';
import type { Job, JsonBody, Operation, Query } from '../types.js';

/** A submission; `idempotency_key` may be left out: the client then makes one, kept across its retries. */
export type SubmitJob = Omit<JsonBody<Operation<'/v1/jobs', 'post'>>, 'idempotency_key'> & { idempotency_key?: string | undefined };

const FINISHED: ReadonlySet<Job['status']> = new Set(['completed', 'failed']);

/**
 * The Account Jobs interface (agents): prepaid jobs for a capability of the catalog, with its own
 * credential (`auth.useClientCredentials` or `auth.useJobsToken`) and error shape.
 */
export function jobsArea(request: RequestFn, newKey: () => string) {
  const get = async (jobId: string, options?: CallOptions): Promise<Job> => (await request('get', '/v1/jobs/{job_id}', { params: { job_id: jobId }, ...pass(options) })).data;
  return {
    /** The capabilities with their price formula, request schema and an example (public). */
    async catalog(options?: CallOptions) {
      return (await request('get', '/v1/catalog', { ...pass(options), auth: 'none' })).data;
    },
    /** Quotes, reserves and queues a job in one step (202); a retry with the same key is the same job. */
    async submit(body: SubmitJob, options?: CallOptions): Promise<Job> {
      return (await request('post', '/v1/jobs', { body: { ...body, idempotency_key: body.idempotency_key ?? newKey() }, ...pass(options) })).data;
    },
    get,
    /**
     * Cancels the job: not yet running → `failed` / `CANCELED` now, its reservation released; running →
     * asked to stop (then `failed` / `CANCELED`, nothing captured). A repeat answers the same.
     */
    async cancel(jobId: string, options?: CallOptions): Promise<Job> {
      return (await request('post', '/v1/jobs/{job_id}/cancel', { params: { job_id: jobId }, ...pass(options) })).data;
    },
    /** Newest first, filtered by `status`, `capability_id`, `created_after`/`created_before`, `tag` (`key:value`, all must match); `next_cursor` pages. */
    async list(query?: Query<Operation<'/v1/jobs', 'get'>>, options?: CallOptions) {
      return (await request('get', '/v1/jobs', { query, ...pass(options) })).data;
    },
    /** The balance jobs are paid from. */
    async balance(options?: CallOptions) {
      return (await request('get', '/v1/account/balance', pass(options))).data;
    },
    /** Reads the job until it is `completed` or `failed`, and returns it (with result and receipt). */
    async waitForJob(jobId: string, options?: WaitOptions<Job>): Promise<Job> {
      return pollUntil(
        (signal) => get(jobId, { signal }),
        (job) => FINISHED.has(job.status),
        options,
      );
    },
  };
}
