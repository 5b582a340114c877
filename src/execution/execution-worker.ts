/**
 * The execution worker: claims queued hardware jobs (and remote jobs due for a poll, and
 * jobs whose worker died) under a lease, runs them on their device's driver, and settles
 * the hold in the same transaction that stores the outcome — capture on completion,
 * release on failure — so a job is charged at most once and never left half settled.
 *
 * Restarts: a job's seed is fixed at submission, so an emulated run repeated after a
 * crash gives the same counts and is charged once (the capture happens with the status
 * change, under the lease). A remote submission is never repeated: the job records that
 * a submission started before sending it, and a job found in that state without a remote
 * id fails as REMOTE_SUBMISSION_UNCERTAIN (nothing charged).
 */
import { parseCircuitInput } from '../circuits/wire-format.js';
import { isAppError } from '../errors/app-error.js';
import { captureHold, releaseHold } from '../billing/store/ledger-sql.js';
import type { Database } from '../store/db.js';
import {
  claimJob, heartbeat, lockOwnedJob, markCompleted, markFailed, markSubmitStarted, parkJob,
  type ExecutionClaim, type ExecutionJobRow,
} from '../store/repositories/execution-repository.js';
import type { BackgroundWorker } from '../worker.js';
import type { DeviceDirectory } from './device-directory.js';
import type { DriverOutcome, RunInput } from './drivers/driver.js';
import { resultJson, type ExecutionService } from './execution-service.js';
import type { ExecutionSettings } from './settings.js';

export interface ExecutionWorkerOptions {
  readonly id: string;
  readonly onError?: (e: unknown, jobId?: string) => void;
}

export type ExecutionStep = { readonly jobId: string; readonly outcome: 'completed' | 'failed' | 'parked' | 'lease_lost' } | null;

export class ExecutionWorker implements BackgroundWorker {
  readonly name = 'execution-worker';
  private loop: Promise<void> | undefined;
  private stopping = false;
  private wake: (() => void) | undefined;

  constructor(
    private readonly db: Database,
    private readonly settings: ExecutionSettings,
    private readonly directory: DeviceDirectory,
    private readonly service: ExecutionService,
    private readonly opts: ExecutionWorkerOptions,
  ) {}

  start(): void {
    if (this.loop !== undefined) return;
    this.stopping = false;
    this.loop = this.run();
  }

  async stop(): Promise<void> {
    this.stopping = true;
    this.wake?.();
    await this.loop;
    this.loop = undefined;
  }

  private async run(): Promise<void> {
    while (!this.stopping) {
      let did: ExecutionStep = null;
      try {
        did = await this.runOnce(`${this.opts.id}/loop`);
      } catch (e) {
        this.opts.onError?.(e);
      }
      if (did === null && !this.stopping) {
        await new Promise<void>((resolve) => {
          const t = setTimeout(() => { this.wake = undefined; resolve(); }, this.settings.pollMs);
          this.wake = () => { clearTimeout(t); this.wake = undefined; resolve(); };
        });
      }
    }
  }

  /** Claims and processes at most one job; null when nothing is due. */
  async runOnce(workerId = `${this.opts.id}/once`): Promise<ExecutionStep> {
    const claim = await claimJob(this.db, workerId, this.settings.leaseMs);
    if (claim === null) return null;
    return this.process(claim, workerId);
  }

  /** Runs until nothing is due (tests, CLI). */
  async drain(max = 1_000): Promise<ExecutionStep[]> {
    const out: ExecutionStep[] = [];
    for (let i = 0; i < max; i++) {
      const s = await this.runOnce();
      if (s === null) break;
      out.push(s);
    }
    return out;
  }

  /** Fails the job and releases its hold, in one transaction. */
  private async failed(job: ExecutionJobRow, worker: string, code: string, message: string): Promise<ExecutionStep> {
    const ok = await this.db.tx(async (q) => {
      if ((await lockOwnedJob(q, job.id, worker)) === null) return false;
      if (job.hold_id !== null) {
        const h = await q.query<{ status: string }>('SELECT status FROM billing_holds WHERE id = $1', [job.hold_id]);
        if (h.rows[0]?.status === 'pending') await releaseHold(q, { holdId: job.hold_id, reason: `execution job failed: ${code}` });
      }
      await markFailed(q, job.id, worker, 'running', code, message);
      return true;
    });
    return { jobId: job.id, outcome: ok ? 'failed' : 'lease_lost' };
  }

  private async completed(job: ExecutionJobRow, worker: string, outcome: Extract<DriverOutcome, { state: 'completed' }>): Promise<ExecutionStep> {
    const actual = BigInt(job.estimated_micros);
    try {
      const ok = await this.db.tx(async (q) => {
        if ((await lockOwnedJob(q, job.id, worker)) === null) return false;
        if (job.hold_id !== null) {
          await captureHold(q, { holdId: job.hold_id, amountMicros: actual, description: `hardware run ${job.provider}/${job.device}: ${job.shots} shots (job ${job.id})` });
        }
        await markCompleted(q, job.id, worker, resultJson(outcome.result), actual);
        return true;
      });
      return { jobId: job.id, outcome: ok ? 'completed' : 'lease_lost' };
    } catch (e) {
      if (isAppError(e) && e.code === 'HOLD_NOT_PENDING') return this.failed(job, worker, 'HOLD_LAPSED', 'The hold was no longer pending when the run finished (it expired or was settled); nothing was charged.');
      throw e;
    }
  }

  private async process(claim: ExecutionClaim, worker: string): Promise<ExecutionStep> {
    const { job } = claim;
    if (job.kind === 'simulator') return this.resumeSimulator(job, worker);
    if (claim.holdStatus !== 'pending') return this.failed(job, worker, 'HOLD_LAPSED', `The hold is ${claim.holdStatus ?? 'missing'}; the job was not run and nothing was charged.`);
    const d = await this.directory.get(job.device);
    if (d === undefined || d.driver === null) return this.failed(job, worker, 'DEVICE_OFFLINE', `The device ${job.device} is no longer available on this deployment.`);
    // A remote job already accepted keeps being polled even if the device is reported down meanwhile.
    if (!d.available && job.remote_job_id === null) {
      const offline = d.reasons.some((r) => r.code === 'device_offline');
      return this.failed(job, worker, 'DEVICE_OFFLINE', offline ? `${job.device} is ${d.status}; the job was not run and its hold was released.` : `${job.device} is not available: ${d.reasons.map((r) => r.message).join(' ')}`);
    }
    const tr = job.translation as { circuit: unknown } | null;
    const parsed = parseCircuitInput(tr?.circuit ?? job.circuit, { maxQubits: 1_000, maxGates: 10_000_000, maxDepth: 10_000_000 });
    if (!parsed.ok) return this.failed(job, worker, 'EXECUTION_FAILED', 'The stored translated circuit could not be read.');
    const input: RunInput = { jobId: job.id, device: d.profile, circuit: parsed.circuit, shots: job.shots, seed: Number(job.seed) };
    const driver = d.driver;

    let outcome: DriverOutcome;
    const beat = setInterval(() => {
      heartbeat(this.db, job.id, worker, this.settings.leaseMs).catch((e: unknown) => this.opts.onError?.(e, job.id));
    }, Math.max(50, Math.floor(this.settings.leaseMs / 3)));
    try {
      if (driver.kind === 'remote') {
        if (job.remote_job_id !== null) outcome = await driver.poll!(job.remote_job_id, input);
        else if (job.remote_submit_started_at !== null) {
          outcome = { state: 'failed', code: 'REMOTE_SUBMISSION_UNCERTAIN', message: 'The worker stopped while submitting to the remote provider; the job is not sent again.' };
        } else {
          if (!(await markSubmitStarted(this.db, job.id, worker))) return { jobId: job.id, outcome: 'lease_lost' };
          outcome = await driver.submit(input);
        }
      } else {
        if (job.attempts > this.settings.maxAttempts) {
          outcome = { state: 'failed', code: 'WORKER_LOST', message: `The job was interrupted ${job.attempts - 1} times; giving up.` };
        } else outcome = await driver.submit(input);
      }
    } catch (e) {
      clearInterval(beat);
      this.opts.onError?.(e, job.id);
      return this.failed(job, worker, isAppError(e) ? e.code : 'EXECUTION_FAILED', isAppError(e) ? e.message : 'The run failed unexpectedly.');
    }
    clearInterval(beat);

    switch (outcome.state) {
      case 'completed':
        return this.completed(job, worker, outcome);
      case 'failed':
        return this.failed(job, worker, outcome.code, outcome.message);
      case 'pending': {
        const ok = await parkJob(this.db, job.id, worker, { afterMs: this.settings.remotePollMs, remoteJobId: outcome.remoteJobId, note: job.remote_job_id === null ? `submitted as ${outcome.remoteJobId}` : undefined });
        return { jobId: job.id, outcome: ok ? 'parked' : 'lease_lost' };
      }
      case 'retry': {
        if (job.remote_failures + 1 > this.settings.remoteMaxFailures) {
          return this.failed(job, worker, 'REMOTE_UNAVAILABLE', `The remote provider kept failing (${job.remote_failures + 1} times): ${outcome.message}`);
        }
        const backoff = Math.min(this.settings.remotePollMs * 2 ** job.remote_failures, 10 * 60_000);
        const ok = await parkJob(this.db, job.id, worker, { afterMs: backoff, failed: true, clearSubmit: job.remote_job_id === null, note: `transient: ${outcome.message}` });
        return { jobId: job.id, outcome: ok ? 'parked' : 'lease_lost' };
      }
    }
  }

  /** A simulator run whose API request died mid-run: run it again (same seed) to its end. */
  private async resumeSimulator(job: ExecutionJobRow, worker: string): Promise<ExecutionStep> {
    const d = await this.directory.get(job.device);
    const parsed = parseCircuitInput(job.circuit);
    if (d === undefined || !parsed.ok) return this.failed(job, worker, 'EXECUTION_FAILED', 'The simulator job could not be resumed.');
    if (job.attempts > this.settings.maxAttempts) return this.failed(job, worker, 'WORKER_LOST', 'The run was interrupted too many times.');
    try {
      await this.service.finishSimulatorRun(job, parsed.circuit, worker, d);
    } catch {
      return { jobId: job.id, outcome: 'failed' };
    }
    return { jobId: job.id, outcome: 'completed' };
  }
}
