/**
 * Group commit: requests that arrive while earlier ones are in the database wait and then go
 * together, in one statement and one transaction (docs/decisions/jobs-submission-group-commit.md).
 *
 * Nothing waits for a timer: a request goes at once when fewer than `maxInFlight` batches are
 * in the database, so an idle service answers as fast as without batching; under load the
 * queue fills while batches run, and each batch takes up to `maxBatch` waiting requests.
 */
export interface GroupCommitOptions<I, O> {
  /** Most items in one batch; 1 turns batching off (every item goes at once, alone, whatever `maxInFlight` says). */
  readonly maxBatch: number;
  /** Most batches in the database at once (each holds one pooled connection). */
  readonly maxInFlight: number;
  /** One item in its own transaction. */
  one(item: I): Promise<O>;
  /** Two or more items in one transaction; outcomes in the items' order. Throws if nothing was applied. */
  many(items: readonly I[]): Promise<O[]>;
  /** A batch failed (`many` threw) and its items are being retried one by one. */
  onBatchError?(e: unknown, size: number): void;
}

interface Waiting<I, O> {
  readonly item: I;
  // Properties, not methods: they are the promise's own callbacks, passed on unbound.
  readonly resolve: (o: O) => void;
  readonly reject: (e: unknown) => void;
}

export function groupCommit<I, O>(o: GroupCommitOptions<I, O>): (item: I) => Promise<O> {
  if (!Number.isInteger(o.maxBatch) || o.maxBatch < 1) throw new RangeError(`maxBatch must be a positive integer, got ${o.maxBatch}`);
  if (!Number.isInteger(o.maxInFlight) || o.maxInFlight < 1) throw new RangeError(`maxInFlight must be a positive integer, got ${o.maxInFlight}`);
  if (o.maxBatch === 1) return (item) => o.one(item);
  const queue: Waiting<I, O>[] = [];
  let inFlight = 0;

  const settle = (w: Waiting<I, O>) => o.one(w.item).then(w.resolve, w.reject);

  async function send(batch: Waiting<I, O>[]): Promise<void> {
    if (batch.length === 1) return settle(batch[0] as Waiting<I, O>);
    let outs: O[];
    try {
      outs = await o.many(batch.map((w) => w.item));
      if (outs.length !== batch.length) throw new Error(`a batch of ${batch.length} returned ${outs.length} outcomes`);
    } catch (e) {
      // The batch's transaction was rolled back (or its answer lost): each item on its own, so
      // that one item's failure is only its own. Idempotency keys make a repeat after a lost
      // commit answer a replay, not a second job.
      try {
        o.onBatchError?.(e, batch.length);
      } catch {
        // A failing report must not leave the batch's callers waiting.
      }
      await Promise.all(batch.map(settle));
      return;
    }
    batch.forEach((w, i) => w.resolve(outs[i] as O));
  }

  function pump(): void {
    while (inFlight < o.maxInFlight && queue.length > 0) {
      const batch = queue.splice(0, o.maxBatch);
      inFlight++;
      void send(batch).finally(() => {
        inFlight--;
        pump();
      });
    }
  }

  return (item) =>
    new Promise<O>((resolve, reject) => {
      queue.push({ item, resolve, reject });
      pump();
    });
}
