import type { BackgroundWorker } from '../worker.js';

/** One ledger transfer as the money journal logs it. */
export interface JournalEntry {
  readonly transferId: string;
  readonly kind: string;
  readonly amountMicros: bigint;
  readonly accountId: string | null;
  readonly holdId: string | null;
  readonly from: string;
  readonly to: string;
  readonly description: string;
  readonly createdAt: Date;
}

/**
 * The queue of transfers not logged yet (a trigger fills it in the transfer's own transaction).
 * `drain` takes up to `limit`, hands each to `each` and removes them in one transaction, so a
 * batch is logged at least once; it returns how many it took.
 */
export interface JournalQueue {
  drain(limit: number, each: (e: JournalEntry) => void): Promise<number>;
}

const BATCH = 200;

/**
 * Logs every money movement with its ids (issue #25): one line per ledger transfer, written by the
 * worker role after the transfer committed, whichever code path moved the money. Runs every
 * `intervalMs` and drains the queue in batches; 0 turns it off.
 */
export class LedgerJournalWorker implements BackgroundWorker {
  readonly name = 'ledger-journal';
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<unknown> = Promise.resolve();
  private stopped = false;

  constructor(
    private readonly queue: JournalQueue,
    private readonly intervalMs: number,
    private readonly log: (e: JournalEntry) => void,
    private readonly onError: (e: unknown) => void,
  ) {}

  start(): void {
    if (this.timer !== undefined || this.intervalMs === 0) return;
    this.stopped = false;
    const tick = () => {
      this.running = this.running.then(() => this.drainNow());
      this.timer = setTimeout(tick, this.intervalMs);
      this.timer.unref();
    };
    this.timer = setTimeout(tick, this.intervalMs);
    this.timer.unref();
  }

  /** Logs everything queued now; never throws. Returns how many transfers it logged. */
  async drainNow(): Promise<number> {
    let total = 0;
    try {
      for (;;) {
        const n = await this.queue.drain(BATCH, this.log);
        total += n;
        if (n < BATCH || this.stopped) break;
      }
    } catch (e) {
      this.onError(e);
    }
    return total;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
    await this.running;
    // What committed before the stop is logged before the process ends.
    await this.drainNow();
  }
}
