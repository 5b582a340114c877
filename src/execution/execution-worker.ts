/**
 * Execution jobs on the one queue (src/queue/queue-worker.ts): what a claimed hardware job (or
 * remote job due for a poll, or a run whose owner died) does. It runs on its device's driver,
 * and the hold is settled in the same transaction that stores the outcome — capture on
 * completion, release on failure — so a job is charged at most once and never left half settled.
 *
 * Restarts: a job's seed is fixed at submission, so an emulated run repeated after a
 * crash gives the same counts and is charged once (the capture happens with the status
 * change, under the lease). A remote submission is never repeated blindly: the job records
 * that a submission started before sending it, and the provider's job id is stored (with the
 * "submitted as" event) as soon as the provider answers. A submission left uncertain (a
 * timeout after sending, or a worker that died between the mark and the id) is settled by
 * asking the provider for a job carrying our tag (`driver.findSubmitted`): present → its id is
 * adopted and polled; absent → the mark is cleared and it is sent again; the provider cannot
 * say → asked again later, within EXECUTION_REMOTE_MAX_FAILURES, then the job fails
 * REMOTE_SUBMISSION_UNCERTAIN (nothing charged). See docs/decisions/execution-remote-reconciliation.md.
 *
 * A provider outage (the device's provider cannot be asked) before submission does not fail
 * the job: it waits, parked, and if the outage outlasts its hold, the hold expires and the
 * job ends HOLD_LAPSED with the funds released.
 *
 * Cancel (docs/execution.md#canceling): a cancel requested while a job runs aborts a local run
 * (the lease's signal reaches the compute pool) and is sent to a remote provider that can stop
 * jobs; the job ends failed / CANCELED with what it consumed captured (cancel-rule.ts).
 */
import { parseCircuitInput } from '../circuits/wire-format.js';
import { STABILIZER_MAX_QUBITS } from '../simulation/index.js';
import { isAppError } from '../errors/app-error.js';
import type { CancelRequests } from '../queue/cancel-requests.js';
import type { Meter } from '../telemetry/meter.js';
import { QueueWorker, type Lease, type QueueHandler, type StepLog } from '../queue/queue-worker.js';
import { CANCEL_MESSAGES, ranAnyway, stoppedRun } from './cancel-rule.js';
import type { DeviceDirectory, ResolvedDevice } from './device-directory.js';
import type { DeviceDriver, DriverOutcome, RunInput } from './drivers/driver.js';
import type { ExecutionJob } from './execution-job.js';
import type { HardwareRunOptions } from './hardware-workload.js';
import { resultJson, type ExecutionService } from './execution-service.js';
import type { CanceledRun, ExecutionClaim, ExecutionStore } from './ports.js';
import type { ExecutionSettings } from './settings.js';
import { splitByRegisters, storedRegisters } from './register-split.js';

export interface ExecutionWorkerOptions {
  readonly id: string;
  readonly onError?: (e: unknown, jobId?: string) => void;
  /** Cancel requests taken by this process (ExecutionService), delivered to the running job at once. */
  readonly cancels?: CancelRequests;
  /** Jobs finished by provider and status; the queue's own figures. */
  readonly meter?: Meter;
  readonly logStep?: StepLog;
}

/** The worker's own states of an uncertain submission (never a driver's answer). */
type Reconciled = { readonly state: 'uncertain'; readonly message: string } | { readonly state: 'absent' };

export type ExecutionStep = { readonly jobId: string; readonly outcome: 'completed' | 'failed' | 'parked' | 'lease_lost' } | null;
type Step = NonNullable<ExecutionStep>;

export type ExecutionWorker = QueueWorker<ExecutionClaim, Step>;

export function createExecutionWorker(store: ExecutionStore, settings: ExecutionSettings, directory: DeviceDirectory, service: ExecutionService, opts: ExecutionWorkerOptions): ExecutionWorker {
  return new QueueWorker(store, metered(new ExecutionHandler(store, settings, directory, service, opts), opts.meter), {
    name: 'execution-worker',
    id: opts.id,
    leaseMs: settings.leaseMs,
    pollMs: settings.pollMs,
    maxAttempts: settings.maxAttempts,
    concurrency: 1,
    ...(opts.onError === undefined ? {} : { onError: opts.onError }),
    ...(opts.cancels === undefined ? {} : { cancels: opts.cancels }),
    ...(opts.meter === undefined ? {} : { meter: opts.meter }),
    ...(opts.logStep === undefined ? {} : { logStep: opts.logStep }),
  });
}

/** Counts the jobs each step ended (completed or failed), by provider. */
function metered(h: QueueHandler<ExecutionClaim, Step>, meter: Meter | undefined): QueueHandler<ExecutionClaim, Step> {
  if (meter === undefined) return h;
  const count = async (claim: ExecutionClaim, step: Promise<Step>): Promise<Step> => {
    const s = await step;
    if (s.outcome === 'completed' || s.outcome === 'failed') meter.inc('qrail_execution_jobs_finished_total', { provider: claim.job.provider, status: s.outcome });
    return s;
  };
  return {
    handle: (claim, lease) => count(claim, h.handle(claim, lease)),
    giveUp: (claim, lease) => count(claim, h.giveUp(claim, lease)),
    canceled: (claim, lease) => count(claim, h.canceled(claim, lease)),
  };
}

// Stored circuits were validated when accepted; a simulator run's may be as wide as the stabilizer method takes.
const STORED_LIMITS = { maxQubits: STABILIZER_MAX_QUBITS, maxGates: 10_000_000, maxDepth: 10_000_000 };

/**
 * The stored (translated) circuit as the driver runs it, with a hardware job's tasks (result
 * types: every task's translated circuit, stored in run_options); null when it cannot be read back.
 */
function runInput(job: ExecutionJob, d: ResolvedDevice, signal?: AbortSignal): RunInput | null {
  const tr = job.translation as { circuit: unknown } | null;
  const parsed = parseCircuitInput(tr?.circuit ?? job.circuit, STORED_LIMITS);
  if (!parsed.ok) return null;
  const options = job.kind === 'hardware' ? (job.run_options as HardwareRunOptions | null | undefined) : null;
  let hardware: RunInput['hardware'];
  if (options?.hardware?.circuits !== undefined) {
    const circuits = options.hardware.circuits.map((c) => parseCircuitInput(c, STORED_LIMITS));
    if (circuits.some((c) => !c.ok)) return null;
    hardware = { circuits: circuits.map((c) => (c as Extract<typeof c, { ok: true }>).circuit), options };
  }
  return {
    jobId: job.id,
    device: d.profile,
    circuit: hardware?.circuits[0] ?? parsed.circuit,
    shots: job.shots,
    seed: Number(job.seed),
    ...(hardware === undefined ? {} : { hardware }),
    ...(signal === undefined ? {} : { signal }),
  };
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

  /** Ends the job failed / CANCELED, capturing what the run consumed (releasing the rest). */
  private async endCanceled(job: ExecutionJob, worker: string, run: CanceledRun): Promise<Step> {
    const ok = await this.store.cancel(job, worker, run);
    return { jobId: job.id, outcome: ok ? 'failed' : 'lease_lost' };
  }

  private async completed(job: ExecutionJob, worker: string, outcome: Extract<DriverOutcome, { state: 'completed' }>): Promise<Step> {
    const result = resultJson(splitByRegisters(outcome.result, storedRegisters(job.circuit)));
    const actual = BigInt(job.estimated_micros);
    try {
      const settled = await this.store.complete(job, worker, result, actual, ranAnyway(job, result, actual));
      return { jobId: job.id, outcome: settled === 'completed' ? 'completed' : settled === 'canceled' ? 'failed' : 'lease_lost' };
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

  /**
   * Claimed with a cancel requested: a local run, or a remote one never accepted, ends now with
   * nothing consumed; an accepted remote job is canceled at the provider, then settled by what
   * the provider says it did.
   */
  async canceled(claim: ExecutionClaim, lease: Lease): Promise<Step> {
    const { job } = claim;
    const worker = lease.worker;
    const uncertain = job.remote_job_id === null && job.remote_submit_started_at !== null;
    const d = (job.remote_job_id === null && !uncertain) || job.driver !== 'remote' ? undefined : await this.directory.get(job.device);
    const driver = d?.driver;
    const input = d === undefined ? null : runInput(job, d);
    let remoteId = job.remote_job_id;
    // A submission that may have arrived: found by its tag, it is canceled at the provider like any accepted job.
    if (uncertain && driver?.findSubmitted !== undefined && input !== null) {
      const found = await lease.keep(() => driver.findSubmitted!(job.id, input)).catch(() => ({ found: 'unknown' as const }));
      if (found.found === 'present') remoteId = found.remoteJobId;
      else if (found.found === 'unknown' && job.remote_failures + 1 <= this.settings.remoteMaxFailures) {
        const ok = await this.store.park(job.id, worker, { afterMs: this.backoff(job), failed: true, note: 'cancel requested; the provider could not say whether it has the job' });
        return { jobId: job.id, outcome: ok ? 'parked' : 'lease_lost' };
      }
    }
    if (remoteId === null || d === undefined || driver?.poll === undefined || input === null) return this.endCanceled(job, worker, stoppedRun());
    const rid = remoteId;
    let outcome: DriverOutcome;
    try {
      outcome = await lease.keep(async () => {
        await driver.cancel?.(rid);
        return driver.poll!(rid, input);
      });
    } catch (e) {
      this.opts.onError?.(e, job.id);
      outcome = { state: 'retry', message: 'the provider could not be asked' };
    }
    return this.afterCancel(job, worker, driver, outcome);
  }

  /** Where a run stands after its cancel was requested, settled by the cancel rule (cancel-rule.ts). */
  private async afterCancel(job: ExecutionJob, worker: string, driver: DeviceDriver, outcome: DriverOutcome): Promise<Step> {
    switch (outcome.state) {
      case 'completed': {
        const result = resultJson(splitByRegisters(outcome.result, storedRegisters(job.circuit)));
        return this.endCanceled(job, worker, ranAnyway(job, result, BigInt(job.estimated_micros)));
      }
      case 'failed':
        return this.endCanceled(job, worker, stoppedRun(job.driver === 'remote' && job.remote_job_id !== null ? CANCEL_MESSAGES.remoteStopped : CANCEL_MESSAGES.stopped));
      case 'pending':
      case 'retry': {
        const remoteId = outcome.state === 'pending' ? outcome.remoteJobId : job.remote_job_id;
        // Never accepted by the provider: nothing runs there.
        if (remoteId === null) return this.endCanceled(job, worker, stoppedRun());
        if (outcome.state === 'retry' && job.remote_failures + 1 > this.settings.remoteMaxFailures) {
          return this.endCanceled(job, worker, stoppedRun(`${CANCEL_MESSAGES.stopped} The provider could not be reached to confirm it (${outcome.message}).`));
        }
        // Just accepted: ask the provider to stop it now rather than at the next claim.
        if (outcome.state === 'pending' && job.remote_job_id === null) await driver.cancel?.(remoteId).catch(() => false);
        const ok = await this.store.park(job.id, worker, {
          afterMs: this.settings.remotePollMs,
          ...(outcome.state === 'pending' ? { remoteJobId: remoteId } : { failed: true }),
          note: `cancel sent to the provider; waiting for it to stop (${outcome.state === 'pending' ? outcome.remoteStatus : outcome.message})`,
        });
        return { jobId: job.id, outcome: ok ? 'parked' : 'lease_lost' };
      }
    }
  }

  async handle(claim: ExecutionClaim, lease: Lease): Promise<Step> {
    const { job } = claim;
    const worker = lease.worker;
    if (job.kind === 'simulator') return this.resumeSimulator(job, worker);
    if (claim.holdStatus !== 'pending') return this.failed(job, worker, 'HOLD_LAPSED', `The hold is ${claim.holdStatus ?? 'missing'}; the job was not run and nothing was charged.`);
    const d = await this.directory.get(job.device);
    if (d === undefined || d.driver === null) return this.failed(job, worker, 'DEVICE_OFFLINE', `The device ${job.device} is no longer available on this deployment.`);
    // A remote job already accepted keeps being polled even if the device is reported down meanwhile.
    if (!d.available && job.remote_job_id === null && d.providerUnreachable && d.reasons.every((r) => r.code === 'device_offline')) {
      // A provider outage: the job keeps its hold and waits (the hold's expiry ends the wait).
      const ok = await this.store.park(job.id, worker, { afterMs: this.backoff(job), note: `waiting for the provider: ${d.statusDetail ?? 'it cannot be reached'}` });
      return { jobId: job.id, outcome: ok ? 'parked' : 'lease_lost' };
    }
    if (!d.available && job.remote_job_id === null) {
      const offline = d.reasons.some((r) => r.code === 'device_offline');
      return this.failed(
        job,
        worker,
        'DEVICE_OFFLINE',
        offline ? `${job.device} is ${d.status}; the job was not run and its hold was released.` : `${job.device} is not available: ${d.reasons.map((r) => r.message).join(' ')}`,
      );
    }
    const input = runInput(job, d, lease.signal);
    if (input === null) return this.failed(job, worker, 'EXECUTION_FAILED', 'The stored translated circuit could not be read.');
    const driver = d.driver;

    let outcome: DriverOutcome | Reconciled | 'lease_lost';
    try {
      outcome = await lease.keep(async (): Promise<DriverOutcome | Reconciled | 'lease_lost'> => {
        if (driver.kind !== 'remote') return driver.submit(input);
        if (job.remote_job_id !== null) return driver.poll!(job.remote_job_id, input);
        if (job.remote_submit_started_at !== null) return this.reconcile(job, driver, input);
        if (!(await this.store.markSubmitStarted(job.id, worker))) return 'lease_lost';
        const sent = await driver.submit(input);
        // Uncertain: looked up by its tag at the next claim (after a poll interval, so a provider
        // that indexes new jobs a moment late still finds it), never resent before that.
        if (sent.state === 'failed' && sent.code === 'REMOTE_SUBMISSION_UNCERTAIN' && driver.findSubmitted !== undefined) return { state: 'uncertain', message: sent.message };
        return sent;
      });
    } catch (e) {
      // A local run stopped by the cancel: nothing was produced.
      if (lease.cancelRequested && job.remote_job_id === null) return this.endCanceled(job, worker, stoppedRun());
      this.opts.onError?.(e, job.id);
      return this.failed(job, worker, isAppError(e) ? e.code : 'EXECUTION_FAILED', isAppError(e) ? e.message : 'The run failed unexpectedly.');
    }
    if (outcome === 'lease_lost') return { jobId: job.id, outcome: 'lease_lost' };
    if (outcome.state === 'uncertain' || outcome.state === 'absent') {
      // Nothing known to run at the provider: a cancel ends it now.
      if (lease.cancelRequested && outcome.state === 'absent') return this.endCanceled(job, worker, stoppedRun());
      return this.unsettled(job, worker, outcome);
    }
    if (lease.cancelRequested) return this.afterCancel(job, worker, driver, outcome);

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
        // A provider's Retry-After is honoured: never asked again sooner than it said.
        const backoff = Math.max(this.backoff(job), outcome.retryAfterMs ?? 0);
        const ok = await this.store.park(job.id, worker, { afterMs: backoff, failed: true, clearSubmit: job.remote_job_id === null, note: `transient: ${outcome.message}` });
        return { jobId: job.id, outcome: ok ? 'parked' : 'lease_lost' };
      }
    }
  }

  private backoff(job: ExecutionJob): number {
    return Math.min(this.settings.remotePollMs * 2 ** job.remote_failures, 10 * 60_000);
  }

  /**
   * A submission that may or may not have reached the provider: looked up by our tag. Found →
   * its id is adopted (the `pending` outcome parks the job with it, as a normal submission).
   */
  private async reconcile(job: ExecutionJob, driver: DeviceDriver, input: RunInput): Promise<DriverOutcome | Reconciled> {
    if (driver.findSubmitted === undefined) {
      return {
        state: 'failed',
        code: 'REMOTE_SUBMISSION_UNCERTAIN',
        message: 'The worker stopped while submitting to the remote provider, which cannot be asked whether it got the job; it is not sent again.',
      };
    }
    const found = await driver.findSubmitted(job.id, input).catch(() => ({ found: 'unknown' as const }));
    if (found.found === 'present') return { state: 'pending', remoteJobId: found.remoteJobId, remoteStatus: 'found at the provider by its tag' };
    if (found.found === 'absent') return { state: 'absent' };
    return { state: 'uncertain', message: 'the provider could not say whether it has the job' };
  }

  /** After an uncertain submission: absent → sent again at once; unknown → asked again later, within the failure limit. */
  private async unsettled(job: ExecutionJob, worker: string, r: Reconciled): Promise<Step> {
    if (r.state === 'absent') {
      const ok = await this.store.park(job.id, worker, { afterMs: 0, clearSubmit: true, note: 'the provider has no job with our tag: the submission never arrived; sending it again' });
      return { jobId: job.id, outcome: ok ? 'parked' : 'lease_lost' };
    }
    if (job.remote_failures + 1 > this.settings.remoteMaxFailures) {
      return this.failed(
        job,
        worker,
        'REMOTE_SUBMISSION_UNCERTAIN',
        `The submission may or may not have reached the provider, which could not tell after ${job.remote_failures + 1} tries (${r.message}); it is not sent again.`,
      );
    }
    const ok = await this.store.park(job.id, worker, { afterMs: this.backoff(job), failed: true, note: `submission uncertain (${r.message}); looking it up by its tag` });
    return { jobId: job.id, outcome: ok ? 'parked' : 'lease_lost' };
  }

  /** A simulator run whose API request died mid-run: run it again (same seed) to its end. */
  private async resumeSimulator(job: ExecutionJob, worker: string): Promise<Step> {
    const d = await this.directory.get(job.device);
    // A sweep's stored circuit keeps its symbolic parameters; the row's run_options bind them.
    const parsed = parseCircuitInput(job.circuit, STORED_LIMITS, { allowParameters: true });
    if (d === undefined || !parsed.ok) return this.failed(job, worker, 'EXECUTION_FAILED', 'The simulator job could not be resumed.');
    try {
      await this.service.finishSimulatorRun(job, parsed.circuit, worker, d);
    } catch {
      return { jobId: job.id, outcome: 'failed' };
    }
    return { jobId: job.id, outcome: 'completed' };
  }
}
