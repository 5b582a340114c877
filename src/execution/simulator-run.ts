/**
 * A simulator execution job's run: it happens inside the request (or Account Job) that created
 * it, under a lease its owner renews while it lives. A run left `running` by a dead owner is
 * taken over once its lease expired — by the execution worker's claim, or here by a retry with
 * its client_token — and run again: the seed is stored, so the counts are the same, and settling
 * checks the lease, so a late finish of the old owner changes nothing
 * (docs/decisions/execution-dead-run-takeover.md). Its lease is the one queue's (src/queue/queue-worker.ts).
 */
import type { Circuit } from '../circuits/ir.js';
import { fail, isAppError } from '../errors/app-error.js';
import type { CancelRequests } from '../queue/cancel-requests.js';
import { leaseOf } from '../queue/queue-worker.js';
import { ranAnyway, stoppedRun } from './cancel-rule.js';
import type { DeviceDirectory, ResolvedDevice } from './device-directory.js';
import type { RunProgress, RunResult } from './drivers/driver.js';
import { EXECUTION_ERRORS, EXECUTION_FAILURE } from './error-codes.js';
import type { ExecutionJob } from './execution-job.js';
import type { ExecutionStore } from './ports.js';
import type { ExecutionSettings } from './settings.js';
import { workloadSpec, type RunOptions } from './workload-request.js';

export interface SimulatorRunDeps {
  readonly store: ExecutionStore;
  readonly settings: ExecutionSettings;
  readonly directory: DeviceDirectory;
  readonly newId: () => string;
  /** Cancel requests of this process, delivered at once to the runs in it. */
  readonly cancels?: CancelRequests | undefined;
}

/** How a retry may resume a run it finds in progress: with this circuit and device; `wait` while its owner lives. */
export interface Adoption {
  readonly circuit: Circuit;
  readonly device: ResolvedDevice;
  readonly wait: boolean;
  /** The caller's own cancel (an Account Job's): the run resumed for it stops with it. */
  readonly signal?: AbortSignal | undefined;
}

export function resultJson(r: RunResult) {
  return {
    counts: r.counts,
    ...(r.probabilities === undefined ? {} : { probabilities: r.probabilities }),
    probabilities_kind: r.probabilitiesKind ?? 'estimated',
    notes: r.notes ?? [],
    ...(r.meta === undefined ? {} : { meta: r.meta }),
    ...(r.extra ?? {}),
  };
}

/** Progress is stored at most this often (one UPDATE a second per running job). */
export const PROGRESS_WRITE_EVERY_MS = 1_000;

/**
 * Stores a run's progress reports, throttled. Best effort: a report that cannot be stored is
 * dropped (the run, its lease and its result do not depend on it), and one arriving after the run
 * ended changes nothing (saveProgress only touches a running job).
 */
function progressWriter(store: ExecutionStore, jobId: string): (p: RunProgress) => void {
  let last = 0;
  return (p) => {
    const now = Date.now();
    if (now - last < PROGRESS_WRITE_EVERY_MS) return;
    last = now;
    const fraction = Math.min(1, Math.max(0, Math.round(p.fraction * 1e4) / 1e4));
    store.saveProgress(jobId, fraction, p.phase).catch(() => undefined);
  };
}

/** A run's lease at its start: its whole time budget (an in-process run cannot heartbeat) plus the lease. */
export function simulatorLeaseMs(settings: ExecutionSettings): number {
  return settings.simulatorTimeBudgetMs + settings.leaseMs;
}

/**
 * Runs a simulator job to its end (the API request, a take-over, or the worker after a crash). A
 * cancel of the job (or `parent`, the caller's own cancel) stops the run on the compute pool and
 * ends the job failed / CANCELED, nothing consumed (simulator runs are free anyway).
 */
export async function finishSimulatorRun(deps: SimulatorRunDeps, row: ExecutionJob, circuit: Circuit, worker: string, d: ResolvedDevice, parent?: AbortSignal): Promise<void> {
  const { store } = deps;
  const driver = d.driver ?? deps.directory.drivers.simulator;
  let outcome;
  // The run may wait for a compute thread longer than its lease: the owner keeps it alive while
  // it lives, so only a dead owner's run is ever taken over (takeOver, the queue's claim).
  const lease = leaseOf(store, row.id, worker, deps.settings.leaseMs, { cancels: deps.cancels, parent, cancelRequested: row.cancel_requested_at !== null });
  try {
    outcome = await lease.keep((signal) => {
      if (signal.aborted) throw new Error('canceled before the run started');
      const options = row.run_options as RunOptions | null | undefined;
      const workload = options === null || options === undefined ? {} : { workload: workloadSpec(options) };
      return driver.submit({ jobId: row.id, device: d.profile, circuit, shots: row.shots, seed: Number(row.seed), signal, onProgress: progressWriter(store, row.id), ...workload });
    });
  } catch (e) {
    if (lease.cancelRequested) {
      await store.cancel(row, worker, stoppedRun());
      return;
    }
    await store.fail(row, worker, isAppError(e) ? e.code : EXECUTION_FAILURE.EXECUTION_FAILED, isAppError(e) ? e.message : 'The simulator failed unexpectedly.');
    throw e;
  }
  if (outcome.state !== 'completed') throw new Error('simulator driver did not complete');
  const result = resultJson(outcome.result);
  if (lease.cancelRequested) await store.cancel(row, worker, ranAnyway(row, result, 0n));
  else await store.complete(row, worker, result, 0n, ranAnyway(row, result, 0n));
}

/**
 * A simulator job found `running` under a client token, until it is not: taken over and run again
 * once its lease has expired (its owner died); while the owner lives, 409 IN_PROGRESS, or waited
 * for (polling every EXECUTION_POLL_MS) when `adopt.wait` — a durable caller such as an Account
 * Job's re-run, which a refusal would only fail.
 */
export async function settleRunningSimulator(deps: SimulatorRunDeps, job: ExecutionJob, adopt: Adoption | undefined): Promise<ExecutionJob> {
  let prior = job;
  while (prior.status === 'running') {
    if (adopt !== undefined) {
      const worker = `api-${deps.newId().slice(0, 8)}`;
      const taken = await deps.store.takeOver(prior.id, worker, simulatorLeaseMs(deps.settings));
      if (taken !== null) {
        if (taken.attempts > deps.settings.maxAttempts) {
          await deps.store.fail(taken, worker, EXECUTION_FAILURE.WORKER_LOST, `The run was interrupted ${taken.attempts - 1} times; giving up. Nothing was charged.`);
        } else {
          await finishSimulatorRun(deps, taken, adopt.circuit, worker, adopt.device, adopt.signal);
        }
        return (await deps.store.getJob(prior.id)) as ExecutionJob;
      }
    }
    if (adopt?.wait !== true) {
      throw fail(EXECUTION_ERRORS.EXECUTION_CLIENT_TOKEN_IN_PROGRESS, 'The run with this client_token is still in progress; retry shortly.', { job_id: prior.id }, { 'retry-after': '1' });
    }
    await new Promise((r) => setTimeout(r, deps.settings.pollMs));
    prior = (await deps.store.getJob(prior.id)) as ExecutionJob;
  }
  return prior;
}
