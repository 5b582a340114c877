/**
 * Async optimize's part of the composition root: the optimize jobs' store, service and worker
 * (on the one queue), the worker's compute on the app's compute pool.
 */
import { randomUUID } from 'node:crypto';
import { hardTimeoutFor, type ComputePool } from '../compute/compute-pool.js';
import { PROFILE_BUDGET_MS } from '../optimization/optimize.js';
import { OptimizeJobsService } from '../optimize-jobs/optimize-jobs-service.js';
import { createOptimizeWorker, type OptimizeWorker } from '../optimize-jobs/optimize-worker.js';
import { CancelRequests } from '../queue/cancel-requests.js';
import type { StepLog } from '../queue/queue-worker.js';
import type { Database } from '../store/db.js';
import { pgOptimizeJobStore } from '../store/optimize-jobs/optimize-jobs-sql.js';
import type { Meter } from '../telemetry/meter.js';

export interface OptimizeJobsServices {
  readonly optimizeJobs: OptimizeJobsService;
  readonly optimizeWorker: OptimizeWorker;
}

/**
 * The lease outlasts the longest profile's budget: with COMPUTE_THREADS=0 the optimizer runs on
 * the event loop and no heartbeat renews the lease meanwhile. A dead worker's job waits this long.
 */
export const OPTIMIZE_LEASE_MS = PROFILE_BUDGET_MS.aggressive + 30_000;
/** Idle wait of the worker between claims that found nothing. */
export const OPTIMIZE_POLL_MS = 500;
/** Runs of one job (workers dying under it) before it fails WORKER_LOST. */
export const OPTIMIZE_MAX_ATTEMPTS = 3;

export function createOptimizeJobsServices(db: Database, compute: ComputePool, deps: { log?: (e: unknown, jobId?: string) => void; logStep?: StepLog; meter?: Meter }): OptimizeJobsServices {
  const store = pgOptimizeJobStore(db);
  // Cancels taken by this process reach its running job at once (others at their next heartbeat).
  const cancels = new CancelRequests();
  const optimizeJobs = new OptimizeJobsService(store, cancels, randomUUID);
  const optimizeWorker = createOptimizeWorker(
    store,
    (input, signal, onProgress) => compute.run('optimize', input, { hardTimeoutMs: hardTimeoutFor(input.timeBudgetMs ?? PROFILE_BUDGET_MS[input.profile]), signal, onProgress }),
    {
      id: `${process.pid}-${randomUUID().slice(0, 8)}`,
      leaseMs: OPTIMIZE_LEASE_MS,
      pollMs: OPTIMIZE_POLL_MS,
      maxAttempts: OPTIMIZE_MAX_ATTEMPTS,
      cancels,
      ...(deps.log === undefined ? {} : { onError: deps.log }),
      ...(deps.logStep === undefined ? {} : { logStep: deps.logStep }),
      ...(deps.meter === undefined ? {} : { meter: deps.meter }),
    },
  );
  return { optimizeJobs, optimizeWorker };
}
