/**
 * Async optimize (issue 22 item 7): queueing an optimize job for an account, reading it, and
 * canceling it. The request was validated before it gets here (the route answers bad input
 * itself), so a job only fails for what its computation finds.
 */
import { fail } from '../errors/app-error.js';
import type { CancelOutcome, CancelRequests } from '../queue/cancel-requests.js';
import { OPTIMIZE_JOBS_ERRORS } from './error-codes.js';
import { given, keysetPage, pageBounds, pageSize, type PageRequest } from '../kernel/list-cursor.js';
import type { OptimizeJob, OptimizeJobRequest, OptimizeJobStatus, OptimizeJobStore } from './optimize-job.js';

/**
 * Optimize jobs an account may have queued or running at once. They cost no money, so nothing
 * else stops one client from filling the queue every node's workers share.
 */
export const MAX_OPEN_OPTIMIZE_JOBS = 16;

export class OptimizeJobsService {
  constructor(
    private readonly store: OptimizeJobStore,
    private readonly cancels: CancelRequests,
    private readonly newId: () => string,
  ) {}

  /** 429 OPTIMIZE_JOBS_TOO_MANY_OPEN when the account already has MAX_OPEN_OPTIMIZE_JOBS queued or running. */
  async submit(accountId: string, request: OptimizeJobRequest, traceparent: string | undefined): Promise<OptimizeJob> {
    const job = await this.store.insert({ id: this.newId(), accountId, request, traceparent: traceparent ?? null, maxOpen: MAX_OPEN_OPTIMIZE_JOBS });
    if (job === null) {
      throw fail(OPTIMIZE_JOBS_ERRORS.OPTIMIZE_JOBS_TOO_MANY_OPEN, `This account already has ${MAX_OPEN_OPTIMIZE_JOBS} optimize jobs queued or running: wait for one to end or cancel one.`, {
        max_open: MAX_OPEN_OPTIMIZE_JOBS,
      });
    }
    return job;
  }

  /** The account's job; 404 OPTIMIZE_JOB_NOT_FOUND for another account's or a missing one. */
  async get(accountId: string, id: string): Promise<OptimizeJob> {
    const job = await this.store.get(accountId, id);
    if (job === null) throw notFound(id);
    return job;
  }

  /** A page of the account's jobs, newest first (400 INVALID_CURSOR for a cursor this list did not return). */
  list(accountId: string, q: PageRequest & { readonly status?: OptimizeJobStatus | undefined }): Promise<{ items: OptimizeJob[]; nextCursor: string | null; hasMore: boolean }> {
    const bounds = pageBounds(q);
    return keysetPage(
      pageSize(q.limit),
      (n) => this.store.list(accountId, { limit: n, ...given({ status: q.status }), ...bounds }),
      (j) => ({ createdAtMicros: BigInt(j.created_us), id: j.id }),
    );
  }

  /** Queued: canceled now. Running: its worker is asked to stop (here at once, elsewhere at its next heartbeat). Ended otherwise: 409. */
  async cancel(accountId: string, id: string): Promise<{ outcome: CancelOutcome; job: OptimizeJob }> {
    const r = await this.store.requestCancel(accountId, id);
    if (r === null) throw notFound(id);
    if (r.outcome === 'not_cancelable') {
      throw fail(OPTIMIZE_JOBS_ERRORS.OPTIMIZE_JOB_NOT_CANCELABLE, `Optimize job ${id} already ended ${r.job.status}.`, { job_id: id, status: r.job.status });
    }
    if (r.outcome === 'requested') this.cancels.request(id);
    return r;
  }
}

const notFound = (id: string) => fail(OPTIMIZE_JOBS_ERRORS.OPTIMIZE_JOB_NOT_FOUND, `No optimize job ${id} for this account.`, { job_id: id });
