import { pass, type CallOptions, type RequestFn } from '../call.js';
import { pollUntil, type WaitOptions } from '../poll.js';
import type { JsonBody, OptimizeJob, OptimizeResult, Operation, Query } from '../types.js';

type Body<P extends '/v1/circuits/validate' | '/v1/circuits/analyze' | '/v1/circuits/optimize' | '/v1/analysis/coupling' | '/v1/analysis/coupling/compare'> = JsonBody<Operation<P, 'post'>>;

/** An optimize request; `async` is chosen by the method (`optimize` or `optimizeAsync`). */
export type OptimizeBody = Omit<Body<'/v1/circuits/optimize'>, 'async'>;

const OPTIMIZE_ENDED: ReadonlySet<OptimizeJob['status']> = new Set(['completed', 'failed', 'canceled']);

/** Circuits: schema, validation, analysis, examples, optimization (open; a session raises the limits). */
export function circuitsArea(request: RequestFn) {
  const getOptimizeJob = async (jobId: string, options?: CallOptions): Promise<OptimizeJob> =>
    (await request('get', '/v1/circuits/optimize/jobs/{job_id}', { params: { job_id: jobId }, ...pass(options) })).data;
  return {
    async schema(options?: CallOptions) {
      return (await request('get', '/v1/circuits/schema', pass(options))).data;
    },
    /** An invalid circuit is a 200 with `valid: false` and every problem at its JSON path. */
    async validate(body: Body<'/v1/circuits/validate'>, options?: CallOptions) {
      return (await request('post', '/v1/circuits/validate', { body, ...pass(options) })).data;
    },
    async analyze(body: Body<'/v1/circuits/analyze'>, options?: CallOptions) {
      return (await request('post', '/v1/circuits/analyze', { body, ...pass(options) })).data;
    },
    async examples(query?: Query<Operation<'/v1/circuits/example', 'get'>>, options?: CallOptions) {
      return (await request('get', '/v1/circuits/example', { query, ...pass(options) })).data;
    },
    /** The optimized circuit with its proof of equivalence (422 OPTIMIZATION_UNVERIFIED without one). */
    async optimize(body: OptimizeBody, options?: CallOptions): Promise<OptimizeResult> {
      return (await request('post', '/v1/circuits/optimize', { body, ...pass(options) })).data as OptimizeResult;
    },
    /**
     * Validates and queues an optimize job (a session is needed): the job `queued`; then
     * `waitForOptimizeJob`. A circuit with symbolic parameters needs no job: its result comes at once.
     */
    async optimizeAsync(body: OptimizeBody, options?: CallOptions): Promise<OptimizeJob | OptimizeResult> {
      return (await request('post', '/v1/circuits/optimize', { body: { ...body, async: true }, ...pass(options) })).data;
    },
    optimizeJob: getOptimizeJob,
    /** The account's optimize jobs, newest first (`status`, `created_after` / `created_before`, `limit`, `cursor`). */
    async listOptimizeJobs(query?: Query<Operation<'/v1/circuits/optimize/jobs', 'get'>>, options?: CallOptions) {
      return (await request('get', '/v1/circuits/optimize/jobs', { query, ...pass(options) })).data;
    },
    /** Queued: canceled now; running: its computation is stopped (the answer shows `cancel_requested_at` until it ends `canceled`). */
    async cancelOptimizeJob(jobId: string, options?: CallOptions): Promise<OptimizeJob> {
      return (await request('post', '/v1/circuits/optimize/jobs/{job_id}/cancel', { params: { job_id: jobId }, ...pass(options) })).data;
    },
    /** Reads the job until it is completed, failed or canceled (`onProgress` sees its `progress` while it runs), and returns it. */
    async waitForOptimizeJob(jobId: string, options?: WaitOptions<OptimizeJob>): Promise<OptimizeJob> {
      return pollUntil(
        (signal) => getOptimizeJob(jobId, { signal }),
        (job) => OPTIMIZE_ENDED.has(job.status),
        options,
      );
    },
  };
}

/** Coupling analysis: which qubits end up coupled, and whether a rewrite kept that. */
export function couplingArea(request: RequestFn) {
  return {
    async analyze(body: Body<'/v1/analysis/coupling'>, options?: CallOptions) {
      return (await request('post', '/v1/analysis/coupling', { body, ...pass(options) })).data;
    },
    async compare(body: Body<'/v1/analysis/coupling/compare'>, options?: CallOptions) {
      return (await request('post', '/v1/analysis/coupling/compare', { body, ...pass(options) })).data;
    },
  };
}
