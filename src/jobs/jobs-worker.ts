/**
 * Account Jobs on the one queue (src/queue/queue-worker.ts; DESIGN §4): what a claimed job
 * does. It runs the job's capability, saves the result (`result_saved`) and only then moves
 * money (`completed`, capture ≤ reserved, receipt). A worker that dies loses its lease; the
 * next claim finishes a `result_saved` job without running it again, and re-runs or fails a
 * `running` one as its capability says. The hold is captured at most once (the ledger enforces
 * it too), so a job is never charged twice. A cancel requested while a job runs aborts its
 * capability (the lease's signal) and ends it failed / CANCELED with nothing captured, whatever
 * the capability did meanwhile (docs/jobs.md#canceling).
 */
import { isAppError } from '../errors/app-error.js';
import type { CancelRequests } from '../queue/cancel-requests.js';
import type { Meter } from '../telemetry/meter.js';
import { annotateActiveSpan } from '../telemetry/trace.js';
import { QueueWorker, type Lease, type QueueHandler, type StepLog } from '../queue/queue-worker.js';
import type { CapabilityRegistry, JobCharge } from './capability.js';
import type { JobRecord, JobStatus } from './job.js';
import type { Claim, JobsRepository } from './ports.js';

export interface JobsWorkerOptions {
  /** Identity written into the lease (unique per loop). */
  readonly id: string;
  readonly leaseMs: number;
  readonly pollMs: number;
  /** Runs of one job before a lease-expired `running` job is failed as WORKER_LOST. */
  readonly maxAttempts: number;
  /** Parallel claim loops in this process. */
  readonly concurrency: number;
  readonly onError?: (e: unknown, jobId?: string) => void;
  /** Cancel requests taken by this process (JobsService), delivered to the running job at once. */
  readonly cancels?: CancelRequests;
  /** Jobs finished by capability, status and code; the queue's own figures. */
  readonly meter?: Meter;
  readonly logStep?: StepLog;
  /** Called after each stored transition (tests use it to crash at a precise point). */
  readonly afterTransition?: (jobId: string, status: JobStatus) => void | Promise<void>;
}

export type StepOutcome = { readonly jobId: string; readonly status: JobStatus | 'lease_lost' } | null;
type Step = NonNullable<StepOutcome>;

export type JobsWorker = QueueWorker<Claim, Step>;

export function createJobsWorker(repo: JobsRepository, registry: CapabilityRegistry, opts: JobsWorkerOptions): JobsWorker {
  return new QueueWorker(repo, new JobsHandler(repo, registry, opts), { name: 'jobs-worker', ...opts });
}

class JobsHandler implements QueueHandler<Claim, Step> {
  constructor(
    private readonly repo: JobsRepository,
    private readonly registry: CapabilityRegistry,
    private readonly opts: JobsWorkerOptions,
  ) {}

  private async transitioned(jobId: string, status: JobStatus): Promise<void> {
    await this.opts.afterTransition?.(jobId, status);
  }

  private finished(job: JobRecord, status: JobStatus, code: string | null): void {
    this.opts.meter?.inc('qrail_jobs_finished_total', { capability: job.capabilityId, status, code: code ?? '' });
  }

  private async failed(job: JobRecord, worker: string, code: string, message: string): Promise<Step> {
    const j = await this.repo.fail(job.id, worker, code, message);
    if (j === null) return { jobId: job.id, status: 'lease_lost' };
    this.finished(job, j.status, j.errorCode);
    await this.transitioned(job.id, 'failed');
    return { jobId: job.id, status: j.status };
  }

  private async completed(job: JobRecord, worker: string): Promise<Step> {
    const j = await this.repo.complete(job.id, worker);
    if (j === null) return { jobId: job.id, status: 'lease_lost' };
    this.finished(job, j.status, j.errorCode);
    await this.transitioned(job.id, j.status);
    return { jobId: job.id, status: j.status };
  }

  /** running → failed / CANCELED, nothing captured; lease_lost when the lease went meanwhile. */
  async canceled(claim: Claim, lease: Lease): Promise<Step> {
    const j = await this.repo.finishCanceled(claim.job.id, lease.worker);
    if (j === null) return { jobId: claim.job.id, status: 'lease_lost' };
    this.finished(claim.job, j.status, j.errorCode);
    await this.transitioned(j.id, j.status);
    return { jobId: j.id, status: j.status };
  }

  giveUp(claim: Claim, lease: Lease): Promise<Step> {
    const { job } = claim;
    // Only a re-run is given up: a saved result is settled without running anything again.
    if (claim.previousStatus === 'result_saved') return this.completed(job, lease.worker);
    return this.failed(job, lease.worker, 'WORKER_LOST', `The job was interrupted ${job.attempts - 1} times; giving up. Nothing was charged.`);
  }

  async handle(claim: Claim, lease: Lease): Promise<Step> {
    const { job, previousStatus } = claim;
    const worker = lease.worker;
    // The handling span (tracing on) says whose job it is, as the request span does.
    annotateActiveSpan({ 'qrail.account_id': job.accountId, 'qrail.capability': job.capabilityId });
    // The result is durable: only the money step is left, never run again.
    if (previousStatus === 'result_saved') return this.completed(job, worker);

    const cap = this.registry.get(job.capabilityId);
    if (cap === undefined) return this.failed(job, worker, 'CAPABILITY_UNAVAILABLE', `The capability ${job.capabilityId} is no longer in the catalog.`);
    if (claim.holdStatus !== 'pending') return this.failed(job, worker, 'HOLD_EXPIRED', 'The reservation expired before the job ran; nothing was charged.');
    if (previousStatus === 'running') {
      if (cap.onInterrupted === 'fail') return this.failed(job, worker, 'WORKER_LOST', 'The worker running this job stopped; this capability is not re-run automatically. Nothing was charged.');
      await this.repo.markRerun(job.id, worker);
    }
    await this.transitioned(job.id, 'running');

    let result: Record<string, unknown>;
    let charge: JobCharge | undefined;
    try {
      const prepared = cap.prepare(job.request);
      // The lease is renewed while the capability runs, so long jobs are not taken over; a cancel aborts the run.
      result = await lease.keep((signal) => cap.run(prepared, { jobId: job.id, accountId: job.accountId, attempt: job.attempts, signal }));
      charge = cap.charge?.(prepared, result);
    } catch (e) {
      // Stopped by a cancel (the error is the abort's, or the capability's reaction to it).
      if (lease.cancelRequested) return this.canceled(claim, lease);
      if (isAppError(e)) return this.failed(job, worker, e.code, e.message);
      this.opts.onError?.(e, job.id);
      return this.failed(job, worker, 'CAPABILITY_FAILED', 'The capability failed unexpectedly; nothing was charged.');
    }
    if (lease.lost) return { jobId: job.id, status: 'lease_lost' };
    // A cancel requested before the result was saved wins: the save is refused and the job ends canceled.
    if (lease.cancelRequested || !(await this.repo.saveResult(job.id, worker, result, this.opts.leaseMs, charge))) return this.canceled(claim, lease);
    await this.transitioned(job.id, 'result_saved');
    return this.completed(job, worker);
  }
}
