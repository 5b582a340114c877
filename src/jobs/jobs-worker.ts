/**
 * The durable worker (DESIGN §4): claims a job with a lease, runs its capability, saves the
 * result (`result_saved`) and only then moves money (`completed`, capture ≤ reserved, receipt).
 * A worker that dies loses its lease; the next claim finishes a `result_saved` job without
 * running it again, and re-runs or fails a `running` one as its capability says. The hold is
 * captured at most once (the ledger enforces it too), so a job is never charged twice.
 */
import { isAppError } from '../errors/app-error.js';
import type { BackgroundWorker } from '../worker.js';
import type { CapabilityRegistry } from './capability.js';
import type { JobStatus } from './job.js';
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
  /** Called after each stored transition (tests use it to crash at a precise point). */
  readonly afterTransition?: (jobId: string, status: JobStatus) => void | Promise<void>;
}

export type StepOutcome = { readonly jobId: string; readonly status: JobStatus | 'lease_lost' } | null;

export class JobsWorker implements BackgroundWorker {
  readonly name = 'jobs-worker';
  private loops: Promise<void>[] = [];
  private stopping = false;
  private readonly wakers = new Set<() => void>();

  constructor(
    private readonly repo: JobsRepository,
    private readonly registry: CapabilityRegistry,
    private readonly opts: JobsWorkerOptions,
  ) {}

  start(): void {
    if (this.loops.length > 0) return;
    this.stopping = false;
    for (let i = 0; i < this.opts.concurrency; i++) this.loops.push(this.loop(`${this.opts.id}/${i}`));
  }

  async stop(): Promise<void> {
    this.stopping = true;
    for (const w of this.wakers) w();
    await Promise.all(this.loops);
    this.loops = [];
  }

  /** Claims and processes at most one job; null when there was nothing to do. */
  async runOnce(workerId = `${this.opts.id}/once`): Promise<StepOutcome> {
    const claim = await this.repo.claim(workerId, this.opts.leaseMs);
    if (claim === null) return null;
    return this.process(claim, workerId);
  }

  /** Runs until no job is claimable (tests, CLI). Returns the outcomes in order. */
  async drain(max = 10_000): Promise<StepOutcome[]> {
    const out: StepOutcome[] = [];
    for (let i = 0; i < max; i++) {
      const o = await this.runOnce();
      if (o === null) break;
      out.push(o);
    }
    return out;
  }

  private async loop(workerId: string): Promise<void> {
    while (!this.stopping) {
      let did: StepOutcome = null;
      try {
        did = await this.runOnce(workerId);
      } catch (e) {
        this.opts.onError?.(e);
      }
      if (did === null && !this.stopping) {
        await new Promise<void>((resolve) => {
          const wake = () => {
            clearTimeout(t);
            this.wakers.delete(wake);
            resolve();
          };
          const t = setTimeout(wake, this.opts.pollMs);
          this.wakers.add(wake);
        });
      }
    }
  }

  private async transitioned(jobId: string, status: JobStatus): Promise<void> {
    await this.opts.afterTransition?.(jobId, status);
  }

  private async failed(jobId: string, workerId: string, code: string, message: string): Promise<StepOutcome> {
    const j = await this.repo.fail(jobId, workerId, code, message);
    if (j === null) return { jobId, status: 'lease_lost' };
    await this.transitioned(jobId, 'failed');
    return { jobId, status: j.status };
  }

  private async completed(jobId: string, workerId: string): Promise<StepOutcome> {
    const j = await this.repo.complete(jobId, workerId);
    if (j === null) return { jobId, status: 'lease_lost' };
    await this.transitioned(jobId, j.status);
    return { jobId, status: j.status };
  }

  private async process(claim: Claim, workerId: string): Promise<StepOutcome> {
    const { job, previousStatus } = claim;
    // The result is durable: only the money step is left, never run again.
    if (previousStatus === 'result_saved') return this.completed(job.id, workerId);

    const cap = this.registry.get(job.capabilityId);
    if (cap === undefined) return this.failed(job.id, workerId, 'CAPABILITY_UNAVAILABLE', `The capability ${job.capabilityId} is no longer in the catalog.`);
    if (claim.holdStatus !== 'pending') return this.failed(job.id, workerId, 'HOLD_EXPIRED', 'The reservation expired before the job ran; nothing was charged.');
    if (previousStatus === 'running') {
      if (cap.onInterrupted === 'fail') return this.failed(job.id, workerId, 'WORKER_LOST', 'The worker running this job stopped; this capability is not re-run automatically. Nothing was charged.');
      if (job.attempts > this.opts.maxAttempts) return this.failed(job.id, workerId, 'WORKER_LOST', `The job was interrupted ${job.attempts - 1} times; giving up. Nothing was charged.`);
      await this.repo.markRerun(job.id, workerId);
    }
    await this.transitioned(job.id, 'running');

    // Keep the lease while the capability runs, so long jobs are not taken over.
    const beat = setInterval(() => {
      this.repo.heartbeat(job.id, workerId, this.opts.leaseMs).catch((e: unknown) => this.opts.onError?.(e, job.id));
    }, Math.max(50, Math.floor(this.opts.leaseMs / 3)));
    let result: Record<string, unknown>;
    try {
      result = await cap.run(cap.prepare(job.request), { jobId: job.id, accountId: job.accountId, attempt: job.attempts });
    } catch (e) {
      clearInterval(beat);
      if (isAppError(e)) return this.failed(job.id, workerId, e.code, e.message);
      this.opts.onError?.(e, job.id);
      return this.failed(job.id, workerId, 'CAPABILITY_FAILED', 'The capability failed unexpectedly; nothing was charged.');
    }
    clearInterval(beat);
    if (!(await this.repo.saveResult(job.id, workerId, result, this.opts.leaseMs))) return { jobId: job.id, status: 'lease_lost' };
    await this.transitioned(job.id, 'result_saved');
    return this.completed(job.id, workerId);
  }
}
