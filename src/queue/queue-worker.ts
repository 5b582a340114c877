/**
 * The one job queue's worker loop (DESIGN §4, §8), for every kind of durable work: Account
 * Jobs (src/jobs/jobs-worker.ts) and execution jobs (src/execution/execution-worker.ts) are
 * handlers plugged into it. It claims an item under a lease (the store's claim takes a lease-
 * expired item first, else the oldest queued one, skipping rows other workers hold locked),
 * gives up on an item run too often, renews the lease while the handler works, and polls when idle.
 *
 * What a lease guarantees: only its holder can move the item on (every store write checks the
 * lease owner and the item's state), so a worker that stalled past its lease finds the item
 * taken and changes nothing (`lease_lost`); a terminal state is written once, by the holder,
 * in the transaction that moves the item's money.
 */
import type { BackgroundWorker } from '../worker.js';
import type { CancelRequests } from './cancel-requests.js';
import { noopMeter, secondsSince, type Meter } from '../telemetry/meter.js';
import { context, spanFrom, SpanStatusCode, traceFields, tracingEnabled } from '../telemetry/trace.js';

/** The longest wait between two rounds of a loop whose rounds keep failing. */
const MAX_BACKOFF_MS = 5_000;
export interface QueueClaim {
  readonly id: string;
  /**
   * Runs of the item so far, this claim's included. A claim that only resumes work already
   * done (a saved result to settle, a remote job to poll) does not count as a run.
   */
  readonly attempts: number;
  /** A cancel was requested while the item ran (its worker died, or it was parked): it is ended, not run. */
  readonly cancelRequested: boolean;
  /** When the item became claimable, for a first claim whose kind knows it (metrics: the wait before a worker took it). */
  readonly claimableSince?: Date | undefined;
  /** The trace of the request that queued the item (W3C traceparent), when tracing is on: the handling span continues it. */
  readonly traceparent?: string | undefined;
}

/** What a heartbeat found: the lease still held, held with a cancel requested (stop the work), or lost. */
export type Heartbeat = 'held' | 'cancel' | 'lost';

/** The queue's storage (src/store/queue/pg-queue.ts implements it for each kind's table). */
export interface QueuePort<C extends QueueClaim> {
  /** The next claimable item, leased to `worker` for `leaseMs`; null when nothing is due. */
  claim(worker: string, leaseMs: number): Promise<C | null>;
  /** Extends the lease if `worker` still holds it ('lost' once it does not) and reports a requested cancel. */
  heartbeat(id: string, worker: string, leaseMs: number): Promise<Heartbeat>;
}

/** The claim's lease, as a handler sees it. */
export interface Lease {
  readonly worker: string;
  /** True once a heartbeat found the lease taken over (another worker claimed the item after it expired). */
  readonly lost: boolean;
  /** True once a cancel of the item was requested (a heartbeat found it, or this process was told). */
  readonly cancelRequested: boolean;
  /** Aborted when a cancel is requested: the work given to `keep` stops on it (compute tasks are aborted). */
  readonly signal: AbortSignal;
  /** Runs `work`, renewing the lease every third of its length until `work` settles. */
  keep<T>(work: (signal: AbortSignal) => Promise<T>): Promise<T>;
}

/** What one kind of item does once claimed. */
export interface QueueHandler<C extends QueueClaim, O> {
  /** Takes the item to its next stored state under the lease: terminal, or parked until later. */
  handle(claim: C, lease: Lease): Promise<O>;
  /** The item was run more than `maxAttempts` times (its workers kept dying): fail it, releasing its money. */
  giveUp(claim: C, lease: Lease): Promise<O>;
  /** The item was claimed with a cancel requested: end it canceled (its state machine's cancel), settling what it consumed. */
  canceled(claim: C, lease: Lease): Promise<O>;
}

export interface QueueWorkerOptions {
  /** The background worker's name (`services.workers`, logs). */
  readonly name: string;
  /** Identity written into the lease (unique per process; each loop adds `/n`). */
  readonly id: string;
  readonly leaseMs: number;
  /** Idle wait between claims that found nothing. */
  readonly pollMs: number;
  /** Runs of one item before it is given up. */
  readonly maxAttempts: number;
  /** Parallel claim loops in this process. */
  readonly concurrency: number;
  readonly onError?: (e: unknown, itemId?: string) => void;
  /** Cancel requests taken by this process, delivered to the leases at once (else at their next heartbeat). */
  readonly cancels?: CancelRequests;
  /** Claims, waits, handling time and lost leases, labelled with `name`. */
  readonly meter?: Meter;
  /** One line per item handled: its id, what the claim did, the outcome, the time taken. */
  readonly logStep?: StepLog;
}

/** A structured log line (the worker's logger binds its name). */
export type StepLog = (fields: Record<string, unknown>, msg: string) => void;

export interface LeaseOptions {
  readonly onError?: ((e: unknown, itemId?: string) => void) | undefined;
  readonly cancels?: CancelRequests | undefined;
  /** A cancel already known (the claim found it): the signal starts aborted. */
  readonly cancelRequested?: boolean;
  /** Another reason to stop (the caller's own cancel, e.g. the Account Job a run belongs to). */
  readonly parent?: AbortSignal | undefined;
}

/**
 * The lease `worker` holds on item `id`, renewed by `keep`. Also for work that holds a lease
 * outside the worker loop (a simulator run inside its API request). A cancel requested for the
 * item aborts its signal; the lease is still renewed, since its holder has to end the item.
 */
export function leaseOf(store: Pick<QueuePort<QueueClaim>, 'heartbeat'>, id: string, worker: string, leaseMs: number, o: LeaseOptions = {}): Lease {
  let lost = false;
  const stop = new AbortController();
  const cancel = () => {
    if (!stop.signal.aborted) stop.abort(new Error(`a cancel of ${id} was requested`));
  };
  if (o.cancelRequested === true) cancel();
  return {
    worker,
    get lost() {
      return lost;
    },
    get cancelRequested() {
      return stop.signal.aborted;
    },
    signal: stop.signal,
    async keep<T>(work: (signal: AbortSignal) => Promise<T>): Promise<T> {
      const beat = setInterval(
        () => {
          store.heartbeat(id, worker, leaseMs).then(
            (h) => {
              if (h === 'cancel') cancel();
              if (h !== 'lost') return;
              // Someone else holds it now: stop renewing; the handler's next write finds the lease lost.
              lost = true;
              clearInterval(beat);
            },
            (e: unknown) => o.onError?.(e, id),
          );
        },
        Math.max(50, Math.floor(leaseMs / 3)),
      );
      const unwatch = o.cancels?.watch(id, cancel);
      const parent = o.parent;
      if (parent?.aborted === true) cancel();
      parent?.addEventListener('abort', cancel, { once: true });
      try {
        return await work(stop.signal);
      } finally {
        clearInterval(beat);
        unwatch?.();
        parent?.removeEventListener('abort', cancel);
      }
    },
  };
}

/** The metrics' name of a worker's queue: `jobs-worker` → `jobs`, as the store's gauges name it. */
export const queueLabel = (workerName: string): string => workerName.replace(/-worker$/, '');

export class QueueWorker<C extends QueueClaim, O> implements BackgroundWorker {
  readonly name: string;
  private loops: Promise<void>[] = [];
  private stopping = false;
  private readonly wakers = new Set<() => void>();

  constructor(
    private readonly store: QueuePort<C>,
    private readonly handler: QueueHandler<C, O>,
    private readonly opts: QueueWorkerOptions,
  ) {
    this.name = opts.name;
  }

  start(): void {
    if (this.loops.length > 0) return;
    this.stopping = false;
    for (let i = 0; i < this.opts.concurrency; i++) this.loops.push(this.loop(`${this.opts.id}/${i}`));
  }

  /** Stops claiming and waits for the items in hand. */
  async stop(): Promise<void> {
    this.stopping = true;
    for (const w of this.wakers) w();
    await Promise.all(this.loops);
    this.loops = [];
  }

  /** Claims and handles at most one item; null when nothing was due. A handler's error propagates. */
  async runOnce(workerId = `${this.opts.id}/once`): Promise<O | null> {
    const meter = this.opts.meter ?? noopMeter;
    const queue = { queue: queueLabel(this.name) };
    const claimStart = performance.now();
    const claim = await this.store.claim(workerId, this.opts.leaseMs);
    meter.observe('qrail_queue_claim_query_seconds', queue, secondsSince(claimStart));
    if (claim === null) return null;
    if (claim.claimableSince !== undefined) meter.observe('qrail_queue_claim_wait_seconds', queue, Math.max(0, (Date.now() - claim.claimableSince.getTime()) / 1000));
    const lease = this.lease(claim.id, workerId, claim.cancelRequested);
    const outcome = claim.cancelRequested ? 'canceled' : claim.attempts > this.opts.maxAttempts ? 'given_up' : claim.attempts > 1 ? 'rerun' : 'run';
    meter.inc('qrail_queue_claims_total', { ...queue, outcome });
    const start = performance.now();
    let result: O | undefined;
    // Tracing on: the handling is a span continuing the trace of the request that queued the item.
    const traced = tracingEnabled() ? spanFrom(claim.traceparent, `${queue.queue} ${outcome}`, { 'qrail.queue': queue.queue, 'qrail.item_id': claim.id, 'qrail.attempt': claim.attempts }) : undefined;
    try {
      const run = (): Promise<O> => {
        // Asked to stop while it ran (its worker died meanwhile) or while parked: ended, never run again.
        if (outcome === 'canceled') return this.handler.canceled(claim, lease);
        if (outcome === 'given_up') return this.handler.giveUp(claim, lease);
        return this.handler.handle(claim, lease);
      };
      result = traced === undefined ? await run() : await context.with(traced.ctx, run);
      return result;
    } catch (e) {
      traced?.span.setStatus({ code: SpanStatusCode.ERROR });
      throw e;
    } finally {
      traced?.span.end();
      const seconds = secondsSince(start);
      meter.observe('qrail_queue_handle_seconds', queue, seconds);
      if (lease.lost) meter.inc('qrail_queue_leases_lost_total', queue);
      this.opts.logStep?.(
        {
          ...queue,
          item_id: claim.id,
          attempt: claim.attempts,
          claim: outcome,
          step: result ?? 'error',
          lease_lost: lease.lost,
          duration_ms: Math.round(seconds * 1000),
          ...traceFields(traced?.span),
        },
        'queue item handled',
      );
    }
  }

  /** Runs until nothing is due (tests, CLI). Returns the outcomes in order. */
  async drain(max = 10_000): Promise<O[]> {
    const out: O[] = [];
    for (let i = 0; i < max; i++) {
      const o = await this.runOnce();
      if (o === null) break;
      out.push(o);
    }
    return out;
  }

  private lease(id: string, worker: string, cancelRequested: boolean): Lease {
    return leaseOf(this.store, id, worker, this.opts.leaseMs, { onError: this.opts.onError, cancels: this.opts.cancels, cancelRequested });
  }

  private async loop(workerId: string): Promise<void> {
    // Consecutive failed rounds (the database is down): the wait doubles up to MAX_BACKOFF_MS, so
    // an outage costs a few attempts a second per loop, not one every pollMs.
    let failures = 0;
    while (!this.stopping) {
      let did: O | null = null;
      try {
        did = await this.runOnce(workerId);
        failures = 0;
      } catch (e) {
        failures += 1;
        this.opts.onError?.(e);
      }
      if (did === null && !this.stopping) await this.idle(Math.min(Math.max(MAX_BACKOFF_MS, this.opts.pollMs), this.opts.pollMs * 2 ** failures));
    }
  }

  /** Waits `ms`, or less when stop() wakes it. */
  private idle(ms: number): Promise<void> {
    return new Promise<void>((resolve) => {
      const wake = () => {
        clearTimeout(t);
        this.wakers.delete(wake);
        resolve();
      };
      const t = setTimeout(wake, ms);
      this.wakers.add(wake);
    });
  }
}
