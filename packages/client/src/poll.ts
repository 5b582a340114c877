import { sleep } from './transport.js';

/** How `waitForJob` polls. To give up after a while, pass `signal: AbortSignal.timeout(ms)`. */
export interface WaitOptions<T> {
  /** Aborting stops the wait; it rejects with the signal's reason. */
  signal?: AbortSignal | undefined;
  /** Called after every read with the job as it is then (also the last, finished one). */
  onProgress?: ((job: T) => void) | undefined;
  /** First delay between reads (default 500 ms), growing by half each read… */
  intervalMs?: number | undefined;
  /** …up to this (default 5 s). */
  maxIntervalMs?: number | undefined;
}

/** Reads until `done` says so; each read is one request (with the client's own retries). */
export async function pollUntil<T>(read: (signal: AbortSignal | undefined) => Promise<T>, done: (value: T) => boolean, options: WaitOptions<T> = {}): Promise<T> {
  const max = options.maxIntervalMs ?? 5000;
  let delay = Math.min(options.intervalMs ?? 500, max);
  for (;;) {
    const value = await read(options.signal);
    options.onProgress?.(value);
    if (done(value)) return value;
    await sleep(delay, options.signal);
    delay = Math.min(max, Math.round(delay * 1.5));
  }
}
