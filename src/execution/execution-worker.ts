/**
 * Execution jobs on the one queue (src/queue/queue-worker.ts): what a claimed hardware job (or
 * remote job due for a poll, or a run whose owner died) does. It runs on its device's driver,
 * and the hold is settled in the same transaction that stores the outcome — capture on
 * completion, release on failure — so a job is charged at most once and never left half settled.
 *
 * Restarts: a job's seed is fixed at submission, so an emulated run repeated after a
 * crash gives the same counts and is charged once (the capture happens with the status
 * change, under the lease). A remote submission is never repeated: the job records that
 * a submission started before sending it, and a job found in that state without a remote
 * id fails as REMOTE_SUBMISSION_UNCERTAIN (nothing charged).
 */
import { parseCircuitInput } from '../circuits/wire-format.js';
import { isAppError } from '../errors/app-error.js';
import { QueueWorker, type Lease, type QueueHandler } from '../queue/queue-worker.js';
import type { DeviceDirectory } from './device-directory.js';
import type { DriverOutcome, RunInput } from './drivers/driver.js';
import type { ExecutionJob } from './execution-job.js';
import { resultJson, type ExecutionService } from './execution-service.js';
import type { ExecutionClaim, ExecutionStore } from './ports.js';
import type { ExecutionSettings } from './settings.js';

export interface ExecutionWorkerOptions {
  readonly id: string;
  readonly onError?: (e: unknown, jobId?: string) => void;
}

export type ExecutionStep = { readonly jobId: string; readonly outcome: 'completed' | 'failed' | 'parked' | 'lease_lost' } | null;
type Step = NonNullable<ExecutionStep>;

export type ExecutionWorker = QueueWorker<ExecutionClaim, Step>;

export function createExecutionWorker(store: ExecutionStore, settings: ExecutionSettings, directory: DeviceDirectory, service: ExecutionService, opts: ExecutionWorkerOptions): ExecutionWorker {
  return new QueueWorker(store, new ExecutionHandler(store, settings, directory, service, opts), {
    name: 'execution-worker',
    id: opts.id,
    leaseMs: settings.leaseMs,
    pollMs: settings.pollMs,
    maxAttempts: settings.maxAttempts,
    concurrency: 1,
    ...(opts.onError === undefined ? {} : { onError: opts.onError }),
  });
}

class ExecutionHandler implements QueueHandler<ExecutionClaim, Step> {
  constructor(
    private readonly store: ExecutionStore,
    private readonly settings: ExecutionSettings,
    private readonly directory: DeviceDirectory,
    private readonly service: ExecutionService,
    private readonly opts: ExecutionWorkerOptions,
  ) {}

  /** Fails the job and releases its hold, in one transaction. */
  private async failed(job: ExecutionJob, worker: string, code: string, message: string): Promise<Step> {
    const ok = await this.store.fail(job, worker, code, message);
    return { jobId: job.id, outcome: ok ? 'failed' : 'lease_lost' };
  }

  private async completed(job: ExecutionJob, worker: string, outcome: Extract<DriverOutcome, { state: 'completed' }>): Promise<Step> {
    try {
      const ok = await this.store.complete(job, worker, resultJson(outcome.result), BigInt(job.estimated_micros));
      return { jobId: job.id, outcome: ok ? 'completed' : 'lease_lost' };
    } catch (e) {
      if (isAppError(e) && e.code === 'HOLD_NOT_PENDING')
        return this.failed(job, worker, 'HOLD_LAPSED', 'The hold was no longer pending when the run finished (it expired or was settled); nothing was charged.');
      throw e;
    }
  }

  giveUp(claim: ExecutionClaim, lease: Lease): Promise<Step> {
    const { job } = claim;
    const message = job.kind === 'simulator' ? 'The run was interrupted too many times.' : `The job was interrupted ${job.attempts - 1} times; giving up.`;
    return this.failed(job, lease.worker, 'WORKER_LOST', message);
  }

  async handle(claim: ExecutionClaim, lease: Lease): Promise<Step> {
    const { job } = claim;
    const worker = lease.worker;
    if (job.kind === 'simulator') return this.resumeSimulator(job, worker);
    if (claim.holdStatus !== 'pending') return this.failed(job, worker, 'HOLD_LAPSED', `The hold is ${claim.holdStatus ?? 'missing'}; the job was not run and nothing was charged.`);
    const d = await this.directory.get(job.device);
    if (d === undefined || d.driver === null) return this.failed(job, worker, 'DEVICE_OFFLINE', `The device ${job.device} is no longer available on this deployment.`);
    // A remote job already accepted keeps being polled even if the device is reported down meanwhile.
    if (!d.available && job.remote_job_id === null) {
      const offline = d.reasons.some((r) => r.code === 'device_offline');
      return this.failed(
        job,
        worker,
        'DEVICE_OFFLINE',
        offline ? `${job.device} is ${d.status}; the job was not run and its hold was released.` : `${job.device} is not available: ${d.reasons.map((r) => r.message).join(' ')}`,
      );
    }
    const tr = job.translation as { circuit: unknown } | null;
    const parsed = parseCircuitInput(tr?.circuit ?? job.circuit, { maxQubits: 1_000, maxGates: 10_000_000, maxDepth: 10_000_000 });
    if (!parsed.ok) return this.failed(job, worker, 'EXECUTION_FAILED', 'The stored translated circuit could not be read.');
    const input: RunInput = { jobId: job.id, device: d.profile, circuit: parsed.circuit, shots: job.shots, seed: Number(job.seed) };
    const driver = d.driver;

    let outcome: DriverOutcome | 'lease_lost';
    try {
      outcome = await lease.keep(async (): Promise<DriverOutcome | 'lease_lost'> => {
        if (driver.kind !== 'remote') return driver.submit(input);
        if (job.remote_job_id !== null) return driver.poll!(job.remote_job_id, input);
        if (job.remote_submit_started_at !== null) {
          return { state: 'failed', code: 'REMOTE_SUBMISSION_UNCERTAIN', message: 'The worker stopped while submitting to the remote provider; the job is not sent again.' };
        }
        if (!(await this.store.markSubmitStarted(job.id, worker))) return 'lease_lost';
        return driver.submit(input);
      });
    } catch (e) {
      this.opts.onError?.(e, job.id);
      return this.failed(job, worker, isAppError(e) ? e.code : 'EXECUTION_FAILED', isAppError(e) ? e.message : 'The run failed unexpectedly.');
    }
    if (outcome === 'lease_lost') return { jobId: job.id, outcome: 'lease_lost' };

    switch (outcome.state) {
      case 'completed':
        return this.completed(job, worker, outcome);
      case 'failed':
        return this.failed(job, worker, outcome.code, outcome.message);
      case 'pending': {
        const ok = await this.store.park(job.id, worker, {
          afterMs: this.settings.remotePollMs,
          remoteJobId: outcome.remoteJobId,
          note: job.remote_job_id === null ? `submitted as ${outcome.remoteJobId}` : undefined,
        });
        return { jobId: job.id, outcome: ok ? 'parked' : 'lease_lost' };
      }
      case 'retry': {
        if (job.remote_failures + 1 > this.settings.remoteMaxFailures) {
          return this.failed(job, worker, 'REMOTE_UNAVAILABLE', `The remote provider kept failing (${job.remote_failures + 1} times): ${outcome.message}`);
        }
        const backoff = Math.min(this.settings.remotePollMs * 2 ** job.remote_failures, 10 * 60_000);
        const ok = await this.store.park(job.id, worker, { afterMs: backoff, failed: true, clearSubmit: job.remote_job_id === null, note: `transient: ${outcome.message}` });
        return { jobId: job.id, outcome: ok ? 'parked' : 'lease_lost' };
      }
    }
  }

  /** A simulator run whose API request died mid-run: run it again (same seed) to its end. */
  private async resumeSimulator(job: ExecutionJob, worker: string): Promise<Step> {
    const d = await this.directory.get(job.device);
    const parsed = parseCircuitInput(job.circuit);
    if (d === undefined || !parsed.ok) return this.failed(job, worker, 'EXECUTION_FAILED', 'The simulator job could not be resumed.');
    try {
      await this.service.finishSimulatorRun(job, parsed.circuit, worker, d);
    } catch {
      return { jobId: job.id, outcome: 'failed' };
    }
    return { jobId: job.id, outcome: 'completed' };
  }
}
