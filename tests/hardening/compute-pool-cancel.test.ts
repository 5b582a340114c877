/**
 * Issue #17 defect 9, at the pool: an aborted task is dropped from the queue, or its thread is
 * told to stop (and reused), or — when it does not stop within the grace — terminated and
 * replaced. The HTTP behaviour is in compute-cancel.test.ts.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { ThreadPool } from '../../src/compute/compute-pool.js';
import { isAppError } from '../../src/errors/app-error.js';
import { waitFor } from '../helpers/wait-for.js';

const WORKER = new URL('./fixtures/cancel-aware-worker.js', import.meta.url);
const pools: ThreadPool[] = [];
const pool1 = () => {
  const p = new ThreadPool({ threads: 1, workerUrl: WORKER });
  pools.push(p);
  return p;
};
afterEach(async () => {
  for (const p of pools.splice(0)) await p.close();
});

const until = (ok: () => boolean) => waitFor(ok, { what: 'the pool state' });

const canceledCode = (e: unknown) => (isAppError(e) ? e.code : String(e));

describe('ThreadPool cancellation', () => {
  it('a running task that checks the flag stops; its thread is reused', async () => {
    const pool = pool1();
    const first = (await pool.run('echo', 1)) as { threadId: number };
    const ac = new AbortController();
    const spin = pool.run('spin', null, { signal: ac.signal });
    await until(() => pool.stats().busy === 1);
    ac.abort();
    await expect(spin.catch(canceledCode)).resolves.toBe('COMPUTE_CANCELED');
    const next = (await pool.run('echo', 2)) as { threadId: number };
    expect(next.threadId).toBe(first.threadId);
    expect(pool.stats()).toMatchObject({ canceledRunning: 1, stoppedInGrace: 1, terminatedAfterGrace: 0 });
  });

  it('a running task that ignores it is terminated after the grace and its thread replaced', async () => {
    const pool = pool1();
    const first = (await pool.run('echo', 1)) as { threadId: number };
    const ac = new AbortController();
    const hang = pool.run('hang', null, { signal: ac.signal });
    await until(() => pool.stats().busy === 1);
    ac.abort();
    await expect(hang.catch(canceledCode)).resolves.toBe('COMPUTE_CANCELED');
    const next = (await pool.run('echo', 2)) as { threadId: number };
    expect(next.threadId).not.toBe(first.threadId);
    expect(pool.stats()).toMatchObject({ canceledRunning: 1, stoppedInGrace: 0, terminatedAfterGrace: 1 });
    expect(pool.liveThreads).toBe(1);
  });

  it('a queued task is dropped; an already-aborted signal never queues', async () => {
    const pool = pool1();
    const blocker = new AbortController();
    const spin = pool.run('spin', null, { signal: blocker.signal });
    const ac = new AbortController();
    const queued = pool.run('echo', 'never', { signal: ac.signal });
    await until(() => pool.stats().queued === 1);
    ac.abort();
    await expect(queued.catch(canceledCode)).resolves.toBe('COMPUTE_CANCELED');
    expect(pool.stats().queued).toBe(0);
    await expect(pool.run('echo', 'x', { signal: AbortSignal.abort() }).catch(canceledCode)).resolves.toBe('COMPUTE_CANCELED');
    blocker.abort();
    await spin.catch(() => undefined);
    expect(pool.stats()).toMatchObject({ canceledQueued: 2, canceledRunning: 1 });
  });
});
