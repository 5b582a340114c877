import type { Database } from '../store/db.js';
import type { BackgroundWorker } from '../worker.js';
import { dueHoldIds, expireHold } from './store/ledger-sql.js';
import { markHeldJobExpired } from './store/hardware-sql.js';

/**
 * Releases every pending hold past its expiry, each in its own transaction and exactly
 * once (the hold row is re-checked under the wallet lock, so a concurrent capture or a
 * second sweeper simply finds nothing to do). Returns the ids it expired.
 */
export async function expireDueHolds(db: Database, opts: { now?: Date; limit?: number } = {}): Promise<string[]> {
  const now = opts.now ?? new Date();
  const expired: string[] = [];
  for (const id of await dueHoldIds(db, now, opts.limit ?? 500)) {
    const done = await db.tx(async (q) => {
      const r = await expireHold(q, id, now);
      if (r !== null && !r.alreadyReleased) await markHeldJobExpired(q, id);
      return r !== null && !r.alreadyReleased;
    });
    if (done) expired.push(id);
  }
  return expired;
}

/** Runs `expireDueHolds` every `intervalMs`; `stop()` waits for the current sweep. */
export class HoldExpirySweeper implements BackgroundWorker {
  readonly name = 'billing-hold-expiry';
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<unknown> = Promise.resolve();

  constructor(private readonly db: Database, private readonly intervalMs = 5_000, private readonly onError: (e: unknown) => void = () => undefined) {}

  start(): void {
    if (this.timer !== undefined) return;
    this.timer = setInterval(() => {
      this.running = this.running.then(() => expireDueHolds(this.db)).catch(this.onError);
    }, this.intervalMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    if (this.timer !== undefined) clearInterval(this.timer);
    this.timer = undefined;
    await this.running;
  }
}
