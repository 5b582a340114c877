import type { BackgroundWorker } from '../worker.js';
import type { BillingPorts } from './ports.js';

/**
 * Releases every pending hold past its expiry, each in its own transaction and exactly
 * once (the hold row is re-checked under the wallet lock, so a concurrent capture or a
 * second sweeper simply finds nothing to do). Returns the ids it expired.
 */
export async function expireDueHolds(p: Pick<BillingPorts, 'uow' | 'ledger' | 'hardware'>, opts: { now?: Date; limit?: number } = {}): Promise<string[]> {
  const now = opts.now ?? new Date();
  const expired: string[] = [];
  for (const id of await p.ledger.dueHoldIds(p.uow.autocommit, now, opts.limit ?? 500)) {
    const done = await p.uow.run(async (tx) => {
      const r = await p.ledger.expireHold(tx, id, now);
      if (r !== null && !r.alreadyReleased) await p.hardware.markHeldJobExpired(tx, id);
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

  constructor(
    private readonly ports: Pick<BillingPorts, 'uow' | 'ledger' | 'hardware'>,
    private readonly intervalMs = 5_000,
    private readonly onError: (e: unknown) => void = () => undefined,
  ) {}

  start(): void {
    if (this.timer !== undefined) return;
    this.timer = setInterval(() => {
      this.running = this.running.then(() => expireDueHolds(this.ports)).catch(this.onError);
    }, this.intervalMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    if (this.timer !== undefined) clearInterval(this.timer);
    this.timer = undefined;
    await this.running;
  }
}
