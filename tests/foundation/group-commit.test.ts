import { describe, expect, it } from 'vitest';
import { groupCommit } from '../../src/store/jobs/group-commit.js';

/** A fake store: records what went alone and what went together; each call answers when released. */
function fakeStore(opts: { manyFails?: (items: readonly number[]) => boolean; oneFails?: (item: number) => boolean; manyLength?: (n: number) => number } = {}) {
  const calls: Array<{ kind: 'one' | 'many'; items: number[] }> = [];
  const gates: Array<() => void> = [];
  const wait = () => new Promise<void>((r) => gates.push(r));
  return {
    calls,
    /** Lets every call in the database so far finish. */
    releaseAll: () => gates.splice(0).forEach((g) => g()),
    one: async (item: number) => {
      calls.push({ kind: 'one', items: [item] });
      await wait();
      if (opts.oneFails?.(item) === true) throw new Error(`item ${item} failed`);
      return `one:${item}`;
    },
    many: async (items: readonly number[]) => {
      calls.push({ kind: 'many', items: [...items] });
      await wait();
      if (opts.manyFails?.(items) === true) throw new Error('batch failed');
      const n = opts.manyLength?.(items.length) ?? items.length;
      return items.slice(0, n).map((i) => `many:${i}`);
    },
  };
}

/** Lets queued microtasks and promise callbacks run. */
const settle = () => new Promise((r) => setImmediate(r));

async function drive<T>(store: { releaseAll: () => void }, ps: Array<Promise<T>>): Promise<Array<PromiseSettledResult<T>>> {
  const all = Promise.allSettled(ps);
  let done = false;
  void all.then(() => {
    done = true;
  });
  while (!done) {
    await settle();
    store.releaseAll();
  }
  return all;
}

describe('groupCommit', () => {
  it('an item arriving when nothing is in flight goes at once, alone', async () => {
    const s = fakeStore();
    const submit = groupCommit({ maxBatch: 8, maxInFlight: 1, one: s.one, many: s.many });
    const p = submit(1);
    // Sent synchronously: no timer, no waiting for company.
    expect(s.calls).toEqual([{ kind: 'one', items: [1] }]);
    s.releaseAll();
    await expect(p).resolves.toBe('one:1');
  });

  it('items arriving while a batch is in flight go together, in arrival order, up to maxBatch; each caller gets its own outcome', async () => {
    const s = fakeStore();
    const submit = groupCommit({ maxBatch: 3, maxInFlight: 1, one: s.one, many: s.many });
    const ps = [1, 2, 3, 4, 5, 6, 7].map(submit);
    const out = await drive(s, ps);
    expect(s.calls).toEqual([
      { kind: 'one', items: [1] },
      { kind: 'many', items: [2, 3, 4] },
      { kind: 'many', items: [5, 6, 7] },
    ]);
    expect(out.map((r) => (r.status === 'fulfilled' ? r.value : 'rejected'))).toEqual(['one:1', 'many:2', 'many:3', 'many:4', 'many:5', 'many:6', 'many:7']);
  });

  it('never has more than maxInFlight batches in the database', async () => {
    const s = fakeStore();
    const submit = groupCommit({ maxBatch: 2, maxInFlight: 2, one: s.one, many: s.many });
    const ps = [1, 2, 3, 4, 5, 6].map(submit);
    // 1 and 2 went at once (two in flight); 3–6 wait.
    expect(s.calls).toEqual([
      { kind: 'one', items: [1] },
      { kind: 'one', items: [2] },
    ]);
    await drive(s, ps);
    expect(s.calls.slice(2)).toEqual([
      { kind: 'many', items: [3, 4] },
      { kind: 'many', items: [5, 6] },
    ]);
  });

  it('a failed batch is retried item by item: one bad item fails alone', async () => {
    const s = fakeStore({ manyFails: () => true, oneFails: (i) => i === 3 });
    const errors: Array<{ size: number; message: string }> = [];
    const submit = groupCommit({ maxBatch: 8, maxInFlight: 1, one: s.one, many: s.many, onBatchError: (e, size) => errors.push({ size, message: (e as Error).message }) });
    const out = await drive(s, [1, 2, 3, 4].map(submit));
    expect(s.calls).toEqual([
      { kind: 'one', items: [1] },
      { kind: 'many', items: [2, 3, 4] },
      { kind: 'one', items: [2] },
      { kind: 'one', items: [3] },
      { kind: 'one', items: [4] },
    ]);
    expect(errors).toEqual([{ size: 3, message: 'batch failed' }]);
    expect(out.map((r) => (r.status === 'fulfilled' ? r.value : (r.reason as Error).message))).toEqual(['one:1', 'one:2', 'item 3 failed', 'one:4']);
  });

  it('a throwing onBatchError does not leave callers waiting', async () => {
    const s = fakeStore({ manyFails: () => true });
    const submit = groupCommit({
      maxBatch: 8,
      maxInFlight: 1,
      one: s.one,
      many: s.many,
      onBatchError: () => {
        throw new Error('logger down');
      },
    });
    const out = await drive(s, [1, 2, 3].map(submit));
    expect(out.map((r) => (r.status === 'fulfilled' ? r.value : 'rejected'))).toEqual(['one:1', 'one:2', 'one:3']);
  });

  it('a batch answering with the wrong number of outcomes is not trusted: its items go alone', async () => {
    const s = fakeStore({ manyLength: (n) => n - 1 });
    const errors: number[] = [];
    const submit = groupCommit({ maxBatch: 8, maxInFlight: 1, one: s.one, many: s.many, onBatchError: (_e, size) => errors.push(size) });
    const out = await drive(s, [1, 2, 3].map(submit));
    expect(errors).toEqual([2]);
    expect(out.map((r) => (r.status === 'fulfilled' ? r.value : 'rejected'))).toEqual(['one:1', 'one:2', 'one:3']);
  });

  it('maxBatch 1 turns batching off: every item goes at once, whatever maxInFlight says', async () => {
    const s = fakeStore();
    const submit = groupCommit({ maxBatch: 1, maxInFlight: 1, one: s.one, many: s.many });
    const ps = [1, 2, 3].map(submit);
    expect(s.calls).toEqual([1, 2, 3].map((i) => ({ kind: 'one', items: [i] })));
    await drive(s, ps);
    expect(s.calls.every((c) => c.kind === 'one')).toBe(true);
  });

  it('refuses limits that are not positive integers', () => {
    const s = fakeStore();
    expect(() => groupCommit({ maxBatch: 0, maxInFlight: 1, one: s.one, many: s.many })).toThrow(RangeError);
    expect(() => groupCommit({ maxBatch: 4, maxInFlight: 1.5, one: s.one, many: s.many })).toThrow(RangeError);
  });
});
