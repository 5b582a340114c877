import { isAppError } from '../errors/app-error.js';
import { OPTIMIZATION_ERRORS } from '../optimization/error-codes.js';
import { noopMeter, secondsSince, type Meter } from '../telemetry/meter.js';
import { ComputeWorkerError, type ComputePool, type RunOptions } from './compute-pool.js';
import type { ComputeTaskName, TaskInput, TaskOutput } from './compute-tasks.js';

const isOptimize = (task: ComputeTaskName, out: unknown): out is TaskOutput<'optimize'> => task === 'optimize' && typeof out === 'object' && out !== null && 'timedOut' in out;

// Every optimization (the endpoint's and the circuit.optimize job's) runs as this task: its outcome is counted here once.
function optimized(meter: Meter, input: unknown, outcome: 'verified' | 'timeout' | 'unverified' | 'error'): void {
  const profile = (input as Partial<TaskInput<'optimize'>>).profile ?? 'unknown';
  meter.inc('qrail_optimizer_runs_total', { profile, outcome });
}

/**
 * The pool with its figures: each task's duration (queue wait included) by kind and outcome
 * (`ok`, the error's code, or `crashed`), and at scrape the busy threads, queued tasks and crashes.
 */
export function meteredPool(pool: ComputePool, meter: Meter = noopMeter): ComputePool {
  meter.collect('qrail_compute_threads_busy', () => [[{}, pool.stats().busy]]);
  meter.collect('qrail_compute_tasks_queued', () => [[{}, pool.stats().queued]]);
  meter.collect('qrail_compute_threads_crashed_total', () => [[{}, pool.stats().crashed]]);
  return {
    threads: pool.threads,
    async run<K extends ComputeTaskName>(task: K, input: TaskInput<K>, opts?: RunOptions): Promise<TaskOutput<K>> {
      const start = performance.now();
      let outcome = 'ok';
      try {
        const out = await pool.run(task, input, opts);
        if (isOptimize(task, out)) optimized(meter, input, out.timedOut ? 'timeout' : 'verified');
        return out;
      } catch (e) {
        outcome = e instanceof ComputeWorkerError ? 'crashed' : isAppError(e) ? e.code : 'error';
        if (task === 'optimize') optimized(meter, input, outcome === OPTIMIZATION_ERRORS.OPTIMIZATION_UNVERIFIED.code ? 'unverified' : 'error');
        throw e;
      } finally {
        meter.observe('qrail_compute_task_seconds', { task, outcome }, secondsSince(start));
      }
    },
    warm: () => pool.warm(),
    stats: () => pool.stats(),
    close: () => pool.close(),
  };
}
