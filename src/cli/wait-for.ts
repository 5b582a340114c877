import type { CliContext } from './cli-command.js';
import { progressReporter } from './job-output.js';
import { CommandFailure } from './output.js';

/** Exit code of a wait stopped with Ctrl-C: the shell's convention for SIGINT (128 + 2). */
export const EXIT_INTERRUPTED = 130;

/**
 * Waits for a job through the client's `waitForJob`, with a progress line on stderr, an
 * optional time limit and Ctrl-C ending the wait (not the job): both end with a message saying
 * how to pick the job up again.
 */
export async function waitWithProgress<T extends { readonly status: string }>(
  ctx: CliContext,
  opts: { readonly what: string; readonly resume: string; readonly timeoutSeconds?: number; readonly quiet?: boolean },
  wait: (signal: AbortSignal, onProgress: (job: T) => void) => Promise<T>,
): Promise<T> {
  const interrupt = new AbortController();
  const onSigint = () => interrupt.abort(new Error('interrupted'));
  process.once('SIGINT', onSigint);
  const signals = [interrupt.signal, ...(opts.timeoutSeconds === undefined ? [] : [AbortSignal.timeout(opts.timeoutSeconds * 1000)])];
  const progress = progressReporter(ctx.io, opts.what);
  let last: T | undefined;
  try {
    return await wait(AbortSignal.any(signals), (job) => {
      last = job;
      if (opts.quiet !== true) progress.update(job.status);
    });
  } catch (e) {
    const status = last?.status ?? 'unknown';
    if (interrupt.signal.aborted) throw new CommandFailure({ code: 'INTERRUPTED', message: `stopped waiting; ${opts.what} is ${status} and continues: ${opts.resume}` }, EXIT_INTERRUPTED);
    if (opts.timeoutSeconds !== undefined && (e as { name?: string }).name === 'TimeoutError') {
      throw new CommandFailure({ code: 'WAIT_TIMEOUT', message: `${opts.what} is still ${status} after ${opts.timeoutSeconds} s; it continues: ${opts.resume}` });
    }
    throw e;
  } finally {
    progress.done();
    process.off('SIGINT', onSigint);
  }
}
