/**
 * What a canceled execution job is charged (docs/execution.md#canceling): what its run consumed.
 * A run stopped before it produced results consumed nothing: the hold is released whole. A remote
 * run the provider finished anyway (the cancel came too late, or the provider cannot stop jobs)
 * was consumed: its price is captured, as for a completed run, and its results stay on the job.
 * Local runs (simulator, emulated) are stopped on the compute pool; results they produce after the
 * cancel are discarded and not charged.
 */
import type { ExecutionJob } from './execution-job.js';
import type { CanceledRun } from './ports.js';

export const CANCEL_MESSAGES = {
  stopped: 'Canceled while it ran: the run was stopped before it produced results; nothing was consumed, so nothing was captured and the hold was released.',
  discarded: 'Canceled while it ran: the local run finished before it could stop; its results were discarded and nothing was captured (the hold was released).',
  remoteRan: 'Canceled while it ran, but the provider had already run it (or could not stop it): what it consumed, its price, was captured and its results are kept.',
  remoteStopped: 'Canceled while it ran: the provider stopped the run before it finished; nothing was consumed, so nothing was captured and the hold was released.',
} as const;

/** Nothing consumed. */
export const stoppedRun = (message: string = CANCEL_MESSAGES.stopped): CanceledRun => ({ consumedMicros: 0n, result: null, message });

/** The run produced `result` (costing `actualMicros`) although a cancel was requested. */
export function ranAnyway(job: ExecutionJob, result: unknown, actualMicros: bigint): CanceledRun {
  return job.driver === 'remote' ? { consumedMicros: actualMicros, result, message: CANCEL_MESSAGES.remoteRan } : stoppedRun(CANCEL_MESSAGES.discarded);
}
