/**
 * Optimize jobs on the one queue (src/queue/queue-worker.ts): a claimed job runs the optimize
 * compute task with its stored request, its progress stored at most once a second while it runs,
 * and ends completed with the answer the synchronous optimize gives, failed with the error's code
 * (OPTIMIZATION_UNVERIFIED, …), or canceled: a cancel aborts the compute task through the lease's
 * signal (the pool's shared cancel flag reaches the optimizer between its steps).
 *
 * A job whose worker died is claimed again when its lease lapses and run from the start (the
 * optimizer is deterministic and nothing outside the row was written), up to the attempts limit.
 */
import { isAppError } from '../errors/app-error.js';
import type { TaskProgress } from '../compute/task-protocol.js';
import type { OptimizeTaskInput, OptimizeTaskOutput } from '../compute/compute-tasks.js';
import type { CancelRequests } from '../queue/cancel-requests.js';
import { QueueWorker, type Lease, type QueueHandler, type StepLog } from '../queue/queue-worker.js';
import type { Meter } from '../telemetry/meter.js';
import { OPTIMIZE_JOB_FAILURE } from './error-codes.js';
import { optimizeData } from './optimize-answer.js';
import { CANCELED_WHILE_RUNNING, type OptimizeJobClaim, type OptimizeJobStore } from './optimize-job.js';

/** Runs the optimize task (on the compute pool); aborts on `signal`; reports progress. */
export type OptimizeRunner = (input: OptimizeTaskInput, signal: AbortSignal, onProgress: (p: TaskProgress) => void) => Promise<OptimizeTaskOutput>;

export interface OptimizeWorkerOptions {
  readonly id: string;
  readonly leaseMs: number;
  readonly pollMs: number;
  readonly maxAttempts: number;
  readonly onError?: (e: unknown, jobId?: string) => void;
  readonly cancels?: CancelRequests;
  readonly meter?: Meter;
  readonly logStep?: StepLog;
}

export type OptimizeStep = { readonly jobId: string; readonly outcome: 'completed' | 'failed' | 'canceled' | 'lease_lost' };
export type OptimizeWorker = QueueWorker<OptimizeJobClaim, OptimizeStep>;

/** Progress is stored at most this often (one small UPDATE a second per running job). */
export const PROGRESS_WRITE_EVERY_MS = 1_000;

/** Stores a job's progress, throttled, best effort: a report that cannot be stored is dropped. */
function progressWriter(store: OptimizeJobStore, jobId: string, onError?: (e: unknown, jobId?: string) => void): (p: TaskProgress) => void {
  let last = 0;
  return (p) => {
    const now = Date.now();
    if (now - last < PROGRESS_WRITE_EVERY_MS) return;
    last = now;
    const fraction = Math.min(1, Math.max(0, Math.round(p.fraction * 1e4) / 1e4));
    store.saveProgress(jobId, fraction, p.phase.slice(0, 100)).catch((e: unknown) => onError?.(e, jobId));
  };
}

class OptimizeHandler implements QueueHandler<OptimizeJobClaim, OptimizeStep> {
  constructor(
    private readonly store: OptimizeJobStore,
    private readonly run: OptimizeRunner,
    private readonly opts: OptimizeWorkerOptions,
  ) {}

  async handle(claim: OptimizeJobClaim, lease: Lease): Promise<OptimizeStep> {
    const { job } = claim;
    const req = job.request;
    let out: OptimizeTaskOutput;
    try {
      out = await lease.keep((signal) => this.run(req.task, signal, progressWriter(this.store, job.id, this.opts.onError)));
    } catch (e) {
      if (lease.cancelRequested) return this.canceled(claim, lease);
      if (isAppError(e)) return this.failed(job.id, lease, e.code, e.message);
      this.opts.onError?.(e, job.id);
      return this.failed(job.id, lease, OPTIMIZE_JOB_FAILURE.INTERNAL_ERROR, 'The optimization stopped on an unexpected error; it was logged with the job id.');
    }
    const data = optimizeData(out, {
      profile: req.task.profile,
      backendHint: req.task.backendHint,
      device: req.device,
      includeSteps: req.task.includeSteps,
      warnings: req.warnings,
    });
    const settled = await this.store.complete(job.id, lease.worker, data);
    return { jobId: job.id, outcome: settled };
  }

  giveUp(claim: OptimizeJobClaim, lease: Lease): Promise<OptimizeStep> {
    return this.failed(claim.id, lease, OPTIMIZE_JOB_FAILURE.WORKER_LOST, `The workers running this job stopped ${claim.attempts - 1} times; it is not run again.`);
  }

  async canceled(claim: OptimizeJobClaim, lease: Lease): Promise<OptimizeStep> {
    const ok = await this.store.cancel(claim.id, lease.worker, CANCELED_WHILE_RUNNING);
    return { jobId: claim.id, outcome: ok ? 'canceled' : 'lease_lost' };
  }

  private async failed(id: string, lease: Lease, code: string, message: string): Promise<OptimizeStep> {
    const ok = await this.store.fail(id, lease.worker, code, message);
    return { jobId: id, outcome: ok ? 'failed' : 'lease_lost' };
  }
}

export function createOptimizeWorker(store: OptimizeJobStore, run: OptimizeRunner, opts: OptimizeWorkerOptions): OptimizeWorker {
  return new QueueWorker(store, new OptimizeHandler(store, run, opts), {
    name: 'optimize-worker',
    id: opts.id,
    leaseMs: opts.leaseMs,
    pollMs: opts.pollMs,
    maxAttempts: opts.maxAttempts,
    concurrency: 1,
    ...(opts.onError === undefined ? {} : { onError: opts.onError }),
    ...(opts.cancels === undefined ? {} : { cancels: opts.cancels }),
    ...(opts.meter === undefined ? {} : { meter: opts.meter }),
    ...(opts.logStep === undefined ? {} : { logStep: opts.logStep }),
  });
}
