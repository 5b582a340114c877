import { afterEach, describe, expect, it } from 'vitest';
import { ComputeWorkerError, createComputePool, ThreadPool } from '../../src/compute/compute-pool.js';
import { ComputeTaskError, decodeError, encodeError } from '../../src/compute/task-protocol.js';
import { defaultComputeThreads, loadConfig } from '../../src/config/config.js';
import { ConfigError } from '../../src/config/env-parser.js';
import { AppError, isAppError } from '../../src/errors/app-error.js';
import { DEFAULT_CIRCUIT_LIMITS } from '../../src/circuits/wire-format.js';

const TOY = new URL('./fixtures/toy-compute-worker.js', import.meta.url);
const pools: ThreadPool[] = [];
const toyPool = (threads: number) => {
  const p = new ThreadPool({ threads, workerUrl: TOY });
  pools.push(p);
  return p;
};
afterEach(async () => {
  for (const p of pools.splice(0)) await p.close();
});

type Echo = { input: unknown; threadId: number };

describe('ThreadPool (toy worker)', () => {
  it('starts no thread until the first task, then at most `threads`; queues the rest in order', async () => {
    const pool = toyPool(1);
    expect(pool.liveThreads).toBe(0);
    const results = (await Promise.all([1, 2, 3, 4].map((n) => pool.run('echo', { n })))) as Echo[];
    expect(results.map((r) => r.input)).toEqual([{ n: 1 }, { n: 2 }, { n: 3 }, { n: 4 }]);
    expect(new Set(results.map((r) => r.threadId)).size).toBe(1);
    expect(pool.liveThreads).toBe(1);
  });

  it('warm() starts every thread ahead of the first task', async () => {
    const pool = toyPool(2);
    pool.warm();
    expect(pool.liveThreads).toBe(2);
    expect(((await pool.run('echo', 'x')) as Echo).input).toBe('x');
    expect(pool.liveThreads).toBe(2);
  });

  it('uses up to `threads` threads for concurrent tasks', async () => {
    const pool = toyPool(2);
    const results = (await Promise.all([1, 2, 3, 4].map((n) => pool.run('echo', n)))) as Echo[];
    expect(results.map((r) => r.input)).toEqual([1, 2, 3, 4]);
    expect(pool.liveThreads).toBe(2);
  });

  it('a thread that exits fails its task with a ComputeWorkerError and is replaced for the queued task', async () => {
    const pool = toyPool(1);
    const first = (await pool.run('echo', 0)) as Echo;
    const crashed = pool.run('exit', null);
    const queued = pool.run('echo', 'after');
    const err = await crashed.catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ComputeWorkerError);
    expect(isAppError(err)).toBe(false); // → the generic 500
    expect((err as Error).message).toMatch(/exit code 7.*"exit"/);
    const next = (await queued) as Echo;
    expect(next.input).toBe('after');
    expect(next.threadId).not.toBe(first.threadId);
    expect(pool.liveThreads).toBe(1);
  });

  it('an uncaught error in a thread fails its task with that error named, and the pool goes on', async () => {
    const pool = toyPool(1);
    const err = await pool.run('throw-uncaught', null).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ComputeWorkerError);
    expect((err as Error).message).toContain('kaboom in the worker');
    expect(((await pool.run('echo', 'still here')) as Echo).input).toBe('still here');
  });

  it('a task past its hard timeout fails instead of holding the thread forever', async () => {
    const pool = toyPool(1);
    const err = await pool.run('hang', null, { hardTimeoutMs: 50 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ComputeWorkerError);
    expect((err as Error).message).toMatch(/hard timeout of 50 ms/);
    expect(((await pool.run('echo', 1)) as Echo).input).toBe(1);
  });

  it('rebuilds an AppError from the worker; anything else is a ComputeTaskError', async () => {
    const pool = toyPool(1);
    const app = await pool.run('app-error', 'x').catch((e: unknown) => e);
    expect(app).toBeInstanceOf(AppError);
    expect(app).toMatchObject({ code: 'TOY_REFUSED', statusCode: 422, message: 'refused', details: { why: 'x' } });
    const other = await pool.run('nope', null).catch((e: unknown) => e);
    expect(other).toBeInstanceOf(ComputeTaskError);
    expect(isAppError(other)).toBe(false);
  });

  it('close() fails running and queued tasks with 503 SERVICE_DRAINING and refuses new ones', async () => {
    const pool = toyPool(1);
    const running = pool.run('hang', null).catch((e: unknown) => e);
    const queued = pool.run('echo', 1).catch((e: unknown) => e);
    await pool.close();
    for (const e of [await running, await queued, await pool.run('echo', 2).catch((x: unknown) => x)]) {
      expect(e).toBeInstanceOf(AppError);
      expect(e).toMatchObject({ code: 'SERVICE_DRAINING', statusCode: 503 });
    }
    expect(pool.liveThreads).toBe(0);
  });
});

describe('error transfer', () => {
  it('an AppError survives encode → structured clone → decode with code, status, message, details and headers', () => {
    const original = new AppError('SOME_CODE', 409, 'conflict', { details: [{ path: '/a/0', code: 'X', message: 'm' }], headers: { 'retry-after': '2' } });
    const back = decodeError(structuredClone(encodeError(original)), 't');
    expect(back).toBeInstanceOf(AppError);
    expect(back).toMatchObject({ code: 'SOME_CODE', statusCode: 409, message: 'conflict', details: original.details, headers: { 'retry-after': '2' } });
  });

  it('any other error becomes a ComputeTaskError naming the task (logged, never shown to the client)', () => {
    const back = decodeError(structuredClone(encodeError(new RangeError('Array buffer allocation failed'))), 'optimize');
    expect(back).toBeInstanceOf(ComputeTaskError);
    expect(back.message).toBe('compute task "optimize" failed in a worker thread: RangeError: Array buffer allocation failed');
  });
});

describe('the real compute worker (TypeScript through the tsx bootstrap)', () => {
  it('runs a task in a thread and returns an AppError as itself', async () => {
    const pool = createComputePool({ threads: 1 });
    try {
      const circuit = {
        schema: '0.2' as const,
        num_qubits: 2,
        num_clbits: 0,
        gates: [
          { op: 'h', qubits: [0] },
          { op: 'h', qubits: [0] },
          { op: 'cx', qubits: [0, 1] },
        ],
        measurements: [],
        metadata: {},
      };
      const input = { circuit, limits: DEFAULT_CIRCUIT_LIMITS, profile: 'safe' as const, backendHint: 'generic' as const, includeSteps: true };
      const r = await pool.run('optimize', input);
      expect(r.circuit.gates).toEqual([{ op: 'cx', qubits: [0, 1] }]);
      expect(r.metricsBefore.total).toBe(3);
      const err = await pool.run('optimize', { ...input, backendHint: 'provider-one', device: 'p2-ion-11' }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(AppError);
      expect(err).toMatchObject({ code: 'OPTIMIZATION_DEVICE_UNKNOWN', statusCode: 400 });
    } finally {
      await pool.close();
    }
  });
});

describe('COMPUTE_THREADS', () => {
  it('defaults to the cores less one, between 1 and 4', () => {
    expect([1, 2, 3, 8, 64].map((c) => defaultComputeThreads(c))).toEqual([1, 1, 2, 4, 4]);
    expect(loadConfig({}).computeThreads).toBe(defaultComputeThreads());
  });

  it('accepts 0 (in-process) up to 64 and names the variable otherwise', () => {
    expect(loadConfig({ COMPUTE_THREADS: '0' }).computeThreads).toBe(0);
    expect(loadConfig({ COMPUTE_THREADS: '3' }).computeThreads).toBe(3);
    for (const bad of ['-1', '65', 'two', '1.5']) {
      expect(() => loadConfig({ COMPUTE_THREADS: bad })).toThrow(ConfigError);
      expect(() => loadConfig({ COMPUTE_THREADS: bad })).toThrow(/COMPUTE_THREADS/);
    }
  });
});
