/**
 * The compute pool: CPU-heavy tasks (compute-tasks.ts) run on a few `worker_threads`, so the
 * event loop keeps answering health checks and every other request meanwhile. An adapter at
 * the edge: the domains stay free of node: I/O, the tasks see only plain data.
 *
 * - Threads start lazily, on the first task (building an app costs nothing), at most `threads`.
 * - A task waits in a FIFO queue while every thread is busy.
 * - A thread that dies (uncaught error, exit, out of memory, over its hard timeout) fails its
 *   task with a `ComputeWorkerError` (a 500) and is replaced when the next task needs a thread.
 * - A task whose `signal` aborts (its HTTP client went away) is dropped from the queue, or, when
 *   running, told to stop through a flag shared with its thread (the optimizer checks it between
 *   rewrites); a thread that has not answered within `CANCEL_GRACE_MS` is terminated and replaced,
 *   so abandoned work never holds a thread for the rest of its budget.
 * - `close()` fails queued and running tasks with 503 SERVICE_DRAINING and terminates the threads.
 * - `threads: 0` runs the same task functions in-process (the behaviour before the pool).
 */
import { Worker } from 'node:worker_threads';
import { fail } from '../errors/app-error.js';
import { HTTP_ERRORS } from '../errors/http-error-codes.js';
import { COMPUTE_TASKS, type ComputeTaskName, type TaskContext, type TaskInput, type TaskOutput } from './compute-tasks.js';
import { COMPUTE_ERRORS } from './error-codes.js';
import type { UnsoundRule } from '../optimization/optimize.js';
import { decodeError, type TaskProgress, type TaskProgressMessage, type TaskReply, type TaskRequest } from './task-protocol.js';

export interface RunOptions {
  /**
   * Hard ceiling on one task's run time in a thread (ms, from when a thread takes it). Past it the
   * thread is terminated and the task fails; a guard against a runaway task holding a thread forever.
   * Tasks keep their own (softer) time budgets; this is far above them.
   */
  readonly hardTimeoutMs?: number;
  /** Aborted when nobody waits for the result any more (the client disconnected): the task is dropped or stopped. */
  readonly signal?: AbortSignal;
  /** Told how far the task has got while it runs (tasks that report it: simulate, simulate.workload). */
  readonly onProgress?: (p: TaskProgress) => void;
}

/** What the pool did with canceled tasks (tests and diagnostics). */
export interface PoolStats {
  /** Tasks running in a thread now. */
  readonly busy: number;
  readonly queued: number;
  /** Canceled while waiting in the queue: never started. */
  readonly canceledQueued: number;
  /** Canceled while running: told to stop. */
  readonly canceledRunning: number;
  /** Of those, stopped by themselves within the grace. */
  readonly stoppedInGrace: number;
  /** Of those, terminated (and later replaced) because they did not stop within the grace. */
  readonly terminatedAfterGrace: number;
  /** Threads that died while running a task nobody had canceled (the task failed with ComputeWorkerError). */
  readonly crashed: number;
}

/** How long a running task that was told to stop may take to answer before its thread is terminated. */
export const CANCEL_GRACE_MS = 1_000;

export interface ComputePool {
  /** Worker threads; 0 = tasks run in-process on the event loop. */
  readonly threads: number;
  run<K extends ComputeTaskName>(task: K, input: TaskInput<K>, opts?: RunOptions): Promise<TaskOutput<K>>;
  /** Starts the threads now rather than on first use (the server, after it listens: a thread's start costs about a second). */
  warm(): void;
  stats(): PoolStats;
  close(): Promise<void>;
}

/**
 * The hard timeout for a task whose own (soft) time budget is `budgetMs`: far above it, since the
 * work checks its budget itself; only a runaway thread ever reaches it.
 */
export function hardTimeoutFor(budgetMs: number): number {
  return 3 * budgetMs + 60_000;
}

/** A worker thread died while running a task (a 500: nothing about it is the caller's fault). */
export class ComputeWorkerError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ComputeWorkerError';
  }
}

const canceled = (task: string) => fail(COMPUTE_ERRORS.COMPUTE_CANCELED, `The compute task "${task}" was canceled: its request went away.`);

const closing = () => fail(HTTP_ERRORS.SERVICE_DRAINING, 'This instance is shutting down; retry the request.', undefined, { 'retry-after': '1' });

interface Pending {
  readonly id: number;
  readonly task: string;
  readonly input: unknown;
  readonly hardTimeoutMs: number | undefined;
  readonly resolve: (v: unknown) => void;
  readonly reject: (e: unknown) => void;
  readonly onProgress: ((p: TaskProgress) => void) | undefined;
  /** Set once the caller gave up on it; its late answer is dropped. */
  canceled: boolean;
  detach: (() => void) | undefined;
}

interface Slot {
  readonly worker: Worker;
  current: Pending | undefined;
  timer: ReturnType<typeof setTimeout> | undefined;
  /** Why the thread is going away, when known before its exit event. */
  failure: string | undefined;
  /** Shared with the thread: the id of the task it must stop (the thread reads it between steps). */
  readonly cancelFlag: Int32Array;
}

export interface ThreadPoolOptions {
  readonly threads: number;
  /** The worker script (tests use a fixture); default worker-entry (through its TypeScript bootstrap when run from source). */
  readonly workerUrl?: URL;
}

/** The untyped thread pool; `createComputePool` puts the task types on it. */
export class ThreadPool {
  private readonly slots: Slot[] = [];
  private readonly queue: Pending[] = [];
  private nextId = 1;
  private closed = false;
  private counts = { canceledQueued: 0, canceledRunning: 0, stoppedInGrace: 0, terminatedAfterGrace: 0, crashed: 0 };
  private readonly workerUrl: URL;

  constructor(private readonly opts: ThreadPoolOptions) {
    if (!Number.isInteger(opts.threads) || opts.threads < 1) throw new Error(`ThreadPool needs at least one thread, got ${opts.threads}`);
    // Built (dist/*.js): the compiled entry runs as is; from source, the bootstrap registers tsx first.
    this.workerUrl = opts.workerUrl ?? (import.meta.url.endsWith('.js') ? new URL('./worker-entry.js', import.meta.url) : new URL('./worker-bootstrap.js', import.meta.url));
  }

  /** Threads started and alive (for tests and diagnostics). */
  get liveThreads(): number {
    return this.slots.length;
  }

  stats(): PoolStats {
    return { busy: this.slots.filter((s) => s.current !== undefined).length, queued: this.queue.length, ...this.counts };
  }

  run(task: string, input: unknown, opts: RunOptions = {}): Promise<unknown> {
    if (this.closed) return Promise.reject(closing());
    const signal = opts.signal;
    if (signal?.aborted === true) {
      this.counts.canceledQueued++;
      return Promise.reject(canceled(task));
    }
    return new Promise((resolve, reject) => {
      const p: Pending = { id: this.nextId++, task, input, hardTimeoutMs: opts.hardTimeoutMs, resolve, reject, onProgress: opts.onProgress, canceled: false, detach: undefined };
      if (signal !== undefined) {
        const onAbort = () => this.cancel(p);
        signal.addEventListener('abort', onAbort, { once: true });
        p.detach = () => signal.removeEventListener('abort', onAbort);
      }
      this.queue.push(p);
      this.pump();
    });
  }

  /** The caller gave up on `p`: drop it if queued; if running, ask its thread to stop, and terminate it past the grace. */
  private cancel(p: Pending): void {
    if (this.closed || p.canceled) return;
    const q = this.queue.indexOf(p);
    if (q >= 0) {
      this.queue.splice(q, 1);
      p.canceled = true;
      this.counts.canceledQueued++;
      p.reject(canceled(p.task));
      return;
    }
    const slot = this.slots.find((s) => s.current === p);
    if (slot === undefined) return; // already answered
    p.canceled = true;
    this.counts.canceledRunning++;
    p.reject(canceled(p.task));
    Atomics.store(slot.cancelFlag, 0, p.id);
    // The thread stays busy until it answers (freed then) or is terminated (replaced on exit).
    if (slot.timer !== undefined) clearTimeout(slot.timer);
    slot.timer = setTimeout(() => {
      if (slot.current !== p) return;
      this.counts.terminatedAfterGrace++;
      slot.failure = `it did not stop within ${CANCEL_GRACE_MS} ms of being canceled`;
      void slot.worker.terminate();
    }, CANCEL_GRACE_MS);
    slot.timer.unref();
  }

  /** Starts every thread now, idle. */
  warm(): void {
    while (!this.closed && this.slots.length < this.opts.threads) this.spawn();
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    for (const p of this.queue.splice(0)) p.reject(closing());
    // Each exit handler fails its running task with SERVICE_DRAINING.
    await Promise.all(this.slots.map((s) => s.worker.terminate()));
  }

  private pump(): void {
    while (!this.closed && this.queue.length > 0) {
      const slot = this.slots.find((s) => s.current === undefined) ?? (this.slots.length < this.opts.threads ? this.spawn() : undefined);
      if (slot === undefined) return;
      const p = this.queue.shift()!;
      try {
        slot.worker.postMessage({ id: p.id, task: p.task, input: p.input } satisfies TaskRequest);
      } catch (e) {
        // Input that cannot be cloned: the caller's bug, reported as is; the thread stays free.
        p.detach?.();
        p.reject(e);
        continue;
      }
      slot.current = p;
      slot.worker.ref();
      if (p.hardTimeoutMs !== undefined) {
        slot.timer = setTimeout(() => {
          slot.failure = `it ran past the hard timeout of ${p.hardTimeoutMs} ms`;
          void slot.worker.terminate();
        }, p.hardTimeoutMs);
        slot.timer.unref();
      }
    }
  }

  private spawn(): Slot {
    const cancelFlag = new Int32Array(new SharedArrayBuffer(4));
    const worker = new Worker(this.workerUrl, { name: 'qrail-compute', workerData: { cancelFlag } });
    // An idle thread never keeps the process alive; a busy one does (see pump / settle).
    worker.unref();
    const slot: Slot = { worker, current: undefined, timer: undefined, failure: undefined, cancelFlag };
    this.slots.push(slot);

    worker.on('message', (m: TaskReply | TaskProgressMessage) => {
      const p = slot.current;
      if (p === undefined || m.id !== p.id) return;
      if ('progress' in m) {
        if (!p.canceled) p.onProgress?.(m.progress);
        return;
      }
      this.settle(slot);
      if (p.canceled) this.counts.stoppedInGrace++;
      else if (m.ok) p.resolve(m.output);
      else p.reject(decodeError(m.error, p.task));
      this.pump();
    });
    worker.on('messageerror', (e) => {
      const p = slot.current;
      if (p === undefined) return;
      this.settle(slot);
      if (p.canceled) this.counts.stoppedInGrace++;
      p.reject(new ComputeWorkerError(`the reply of compute task "${p.task}" could not be deserialized: ${e.message}`));
      this.pump();
    });
    worker.on('error', (e) => {
      slot.failure ??= `${e.name}: ${e.message}`;
    });
    worker.on('exit', (code) => {
      const i = this.slots.indexOf(slot);
      if (i >= 0) this.slots.splice(i, 1);
      const p = slot.current;
      this.settle(slot);
      if (p !== undefined && !p.canceled) {
        if (!this.closed) this.counts.crashed++;
        p.reject(this.closed ? closing() : new ComputeWorkerError(`compute worker thread died (exit code ${code}) while running "${p.task}"${slot.failure === undefined ? '' : `: ${slot.failure}`}`));
      }
      // A replacement starts now if tasks are waiting, else with the next task.
      this.pump();
    });
    return slot;
  }

  private settle(slot: Slot): void {
    slot.current?.detach?.();
    slot.current = undefined;
    if (slot.timer !== undefined) clearTimeout(slot.timer);
    slot.timer = undefined;
    slot.worker.unref();
  }
}

export interface ComputePoolOptions {
  readonly threads: number;
  /**
   * Test-only, and only with `threads: 0` (functions cannot cross to a thread): unsound rewrites
   * the optimizer applies, so a test can show that it fails closed.
   */
  readonly unsoundRules?: readonly UnsoundRule[];
}

/** `threads` worker threads, or in-process execution for 0. Nothing starts until the first task. */
export function createComputePool(opts: ComputePoolOptions): ComputePool {
  if (opts.unsoundRules !== undefined && opts.threads !== 0) throw new Error('unsoundRules need an in-process pool (threads: 0)');
  if (opts.threads === 0) {
    let closed = false;
    let canceledQueued = 0;
    return {
      threads: 0,
      async run(task, input, runOpts) {
        if (closed) throw closing();
        const signal = runOpts?.signal;
        if (signal?.aborted === true) {
          canceledQueued++;
          throw canceled(task);
        }
        const fn = COMPUTE_TASKS[task] as (i: typeof input, ctx: TaskContext) => TaskOutput<typeof task> | Promise<TaskOutput<typeof task>>;
        const onProgress = runOpts?.onProgress;
        return fn(input, {
          cancelled: () => signal?.aborted === true,
          ...(onProgress === undefined ? {} : { progress: (fraction: number, phase: string) => onProgress({ fraction, phase }) }),
          ...(opts.unsoundRules === undefined ? {} : { unsoundRules: opts.unsoundRules }),
        });
      },
      warm() {},
      stats: () => ({ busy: 0, queued: 0, canceledQueued, canceledRunning: 0, stoppedInGrace: 0, terminatedAfterGrace: 0, crashed: 0 }),
      async close() {
        closed = true;
      },
    };
  }
  const pool = new ThreadPool({ threads: opts.threads });
  return {
    threads: opts.threads,
    run: (task, input, runOpts) => pool.run(task, input, runOpts) as Promise<TaskOutput<typeof task>>,
    warm: () => pool.warm(),
    stats: () => pool.stats(),
    close: () => pool.close(),
  };
}
