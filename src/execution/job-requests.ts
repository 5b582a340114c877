/**
 * The account's execution jobs as a list (GET /v1/execute/jobs) and the cancel request
 * (POST /v1/execute/{provider}/{job_id}/cancel), over the execution store.
 */
import { fail } from '../errors/app-error.js';
import { JOBS_ERRORS } from '../jobs/error-codes.js';
import { given, keysetPage, pageBounds, pageSize, type PageRequest } from '../kernel/list-cursor.js';
import type { CancelRequests } from '../queue/cancel-requests.js';
import type { ProviderId } from '../devices/device-catalogue.js';
import { EXECUTION_ERRORS } from './error-codes.js';
import type { ExecutionJob, ExecutionStatus } from './execution-job.js';
import type { ExecutionStore } from './ports.js';
import { jobView } from './views.js';

/** The query of GET /v1/execute/jobs (validated by the route's schema). */
export interface ExecutionListRequest extends PageRequest {
  readonly provider?: ProviderId | undefined;
  readonly device?: string | undefined;
  readonly status?: ExecutionStatus | undefined;
}

/** A page of the account's jobs (their views) with the cursor of the next. */
export async function listJobs(store: ExecutionStore, accountId: string, q: ExecutionListRequest) {
  const filters = { ...given({ provider: q.provider, device: q.device, status: q.status }), ...pageBounds(q) };
  const page = await keysetPage(
    pageSize(q.limit),
    (limit) => store.list(accountId, { ...filters, limit }),
    (j) => ({ createdAtMicros: BigInt(j.created_us), id: j.id }),
  );
  // One query for the page's events; queue positions and held amounts only where they apply.
  const events = await store.eventsOf(page.items.map((j) => j.id));
  const jobs = await Promise.all(
    page.items.map(async ({ created_us: _, ...j }) => {
      const [pos, held] = await Promise.all([store.queuePosition(j), j.kind === 'hardware' ? store.heldJob(j.id) : Promise.resolve(null)]);
      return jobView(j, { queuePosition: pos, events: events.get(j.id) ?? [], heldJob: held });
    }),
  );
  return { jobs, next_cursor: page.nextCursor, has_more: page.hasMore };
}

/** The cancel request: the job as it is after it (see ExecutionService.cancel). */
export async function cancelJob(store: ExecutionStore, cancels: CancelRequests | undefined, accountId: string, jobId: string, provider: ProviderId): Promise<ExecutionJob> {
  const notFound = () => fail(EXECUTION_ERRORS.EXECUTION_HELD_JOB_NOT_FOUND, `No execution job ${jobId} for this account.`);
  const j = await store.getJob(jobId);
  if (j === null || j.account_id !== accountId || j.provider !== provider) {
    const held = j === null && provider === 'provider-two' ? await store.heldJob(jobId) : null;
    if (held !== null && held.accountId === accountId) {
      throw fail(JOBS_ERRORS.JOB_NOT_CANCELABLE, `The held job was not continued, so nothing runs: release its hold instead (POST /v1/billing/hardware/hold/${jobId}/release).`, {
        job_id: jobId,
        status: held.status,
        path: `/v1/billing/hardware/hold/${jobId}/release`,
      });
    }
    throw notFound();
  }
  const r = await store.requestCancel(accountId, jobId);
  if (r === null) throw notFound();
  if (r.outcome === 'not_cancelable') {
    throw fail(JOBS_ERRORS.JOB_NOT_CANCELABLE, `The execution job cannot be canceled: it already ended ${r.job.status}${r.job.error_code === null ? '' : ` (${r.job.error_code})`}.`, {
      job_id: jobId,
      status: r.job.status,
    });
  }
  // Committed: a run in this process stops at once (elsewhere at its next heartbeat; a parked remote job is due now).
  if (r.outcome === 'requested') cancels?.request(jobId);
  return r.job;
}
