import { pass, type CallOptions, type RequestFn } from '../call.js';
import { pollUntil, type WaitOptions } from '../poll.js';
import type { ExecutionJob, JsonBody, Operation, Query } from '../types.js';

type RunPath =
  | '/v1/execute/provider-one'
  | '/v1/execute/provider-two'
  | '/v1/execute/provider-two/held/{job_id}'
  | '/v1/execute/provider-one/batch'
  | '/v1/execute/provider-two/batch'
  | '/v1/execute/provider-two/held/{job_id}/batch';
/** A run's body; `client_token` may be left out: the client then makes one, kept across its retries. */
export type RunBody<P extends RunPath> = Omit<JsonBody<Operation<P, 'post'>>, 'client_token'> & { client_token?: string | undefined };

export type Provider = 'provider-one' | 'provider-two';
const FINISHED: ReadonlySet<ExecutionJob['status']> = new Set(['completed', 'failed', 'released', 'expired']);

/** Execution on the providers' simulators and hardware (session, or a machine credential with execute:simulator / execute:hardware). */
export function executionArea(request: RequestFn, newKey: () => string) {
  const withToken = <B extends { client_token?: string | undefined }>(body: B) => ({ ...body, client_token: body.client_token ?? newKey() });
  const getJob = async (provider: Provider, jobId: string, options?: CallOptions): Promise<ExecutionJob> => {
    const params = { params: { job_id: jobId }, ...pass(options) };
    return provider === 'provider-one' ? (await request('get', '/v1/execute/provider-one/{job_id}', params)).data : (await request('get', '/v1/execute/provider-two/{job_id}', params)).data;
  };
  return {
    /** What this caller can run now, each option with `ready` and, when not, `reasons`. */
    async capabilities(options?: CallOptions) {
      return (await request('get', '/v1/execute/capabilities', pass(options))).data;
    },
    /** A provider's devices (Provider Two's unless `provider` says otherwise), each with status, calibration and the mitigation it offers. */
    async devices(options?: CallOptions & { readonly provider?: Provider }) {
      return options?.provider === 'provider-one'
        ? (await request('get', '/v1/execute/provider-one/devices', pass(options))).data
        : (await request('get', '/v1/execute/provider-two/devices', pass(options))).data;
    },
    /** Provider One's simulator: the answer has the counts (`async: true`: the job `queued`; then `waitForJob`). */
    async runProviderOne(body: RunBody<'/v1/execute/provider-one'>, options?: CallOptions): Promise<ExecutionJob> {
      return (await request('post', '/v1/execute/provider-one', { body: withToken(body), ...pass(options) })).data;
    },
    /** Provider Two's simulator (`async: true`: the job `queued`, then `waitForJob`; hardware answers 409 EXECUTION_HOLD_REQUIRED: quote, hold, then `continueHeldJob`). */
    async runProviderTwo(body: RunBody<'/v1/execute/provider-two'>, options?: CallOptions): Promise<ExecutionJob> {
      return (await request('post', '/v1/execute/provider-two', { body: withToken(body), ...pass(options) })).data;
    },
    /** Runs the circuit under a held job (see `billing.quote` and `billing.hold`); it is queued. */
    async continueHeldJob(jobId: string, body: RunBody<'/v1/execute/provider-two/held/{job_id}'>, options?: CallOptions): Promise<ExecutionJob> {
      return (await request('post', '/v1/execute/provider-two/held/{job_id}', { params: { job_id: jobId }, body: withToken(body), ...pass(options) })).data;
    },
    /** Up to 100 circuits on a provider's simulator in one request: each item's job or error (one client_token for the batch). */
    async runBatch(provider: Provider, body: RunBody<'/v1/execute/provider-one/batch'>, options?: CallOptions) {
      const b = { body: withToken(body), ...pass(options) };
      return provider === 'provider-one' ? (await request('post', '/v1/execute/provider-one/batch', b)).data : (await request('post', '/v1/execute/provider-two/batch', b)).data;
    },
    /** Up to the held job's remaining tasks (at most 100) of circuits, one task each, queued as one job each. */
    async continueHeldJobBatch(jobId: string, body: RunBody<'/v1/execute/provider-two/held/{job_id}/batch'>, options?: CallOptions) {
      return (await request('post', '/v1/execute/provider-two/held/{job_id}/batch', { params: { job_id: jobId }, body: withToken(body), ...pass(options) })).data;
    },
    getJob,
    /** The account's execution jobs, newest first, filtered by `provider`, `device`, `status`, `created_after`/`created_before`; `next_cursor` pages. */
    async listJobs(query?: Query<Operation<'/v1/execute/jobs', 'get'>>, options?: CallOptions) {
      return (await request('get', '/v1/execute/jobs', { query, ...pass(options) })).data;
    },
    /** Cancels the job: queued → `failed` / `CANCELED` now, hold released; running → asked to stop (charged only what it consumed). */
    async cancelJob(provider: Provider, jobId: string, options?: CallOptions): Promise<ExecutionJob> {
      const params = { params: { job_id: jobId }, ...pass(options) };
      return provider === 'provider-one'
        ? (await request('post', '/v1/execute/provider-one/{job_id}/cancel', params)).data
        : (await request('post', '/v1/execute/provider-two/{job_id}/cancel', params)).data;
    },
    /** Reads the job until it is completed, failed, released or expired, and returns it. */
    async waitForJob(provider: Provider, jobId: string, options?: WaitOptions<ExecutionJob>): Promise<ExecutionJob> {
      return pollUntil(
        (signal) => getJob(provider, jobId, { signal }),
        (job) => FINISHED.has(job.status),
        options,
      );
    },
  };
}
