import type { BackgroundWorker } from '../worker.js';
import type { MailOutboxStore, MailTransport } from './mail.js';

/** Retry backoff: 5 s doubling per attempt, at most an hour. */
export function retryDelayMs(attempts: number): number {
  return Math.min(3_600_000, 5_000 * 2 ** Math.max(0, attempts - 1));
}

/**
 * Sends the outbox: claims due messages (each claim is committed before the send, so a message
 * is attempted by one worker once per claim), sends, and records the outcome. A refused or failed
 * send is retried with backoff; a crash in the middle leaves the row in `sending`, never resent,
 * because the relay may have accepted it (the owner can ask for a new link).
 */
export class MailOutboxWorker implements BackgroundWorker {
  readonly name = 'mail-outbox';
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<unknown> = Promise.resolve();
  private pending = false;

  constructor(
    private readonly store: MailOutboxStore,
    private readonly transport: MailTransport,
    private readonly opts: { from: string; pollMs: number; maxAttempts: number },
    private readonly onError: (e: unknown) => void = () => undefined,
    private readonly now: () => Date = () => new Date(),
  ) {}

  start(): void {
    if (this.timer !== undefined) return;
    this.timer = setInterval(() => this.nudge(), this.opts.pollMs);
    this.timer.unref();
    this.nudge();
  }

  /** A message was just written: send it now rather than at the next poll (only while started). */
  nudge(): void {
    if (this.timer === undefined || this.pending) return;
    this.pending = true;
    this.running = this.running
      .then(async () => {
        this.pending = false;
        await this.drain();
      })
      .catch(this.onError);
  }

  async stop(): Promise<void> {
    if (this.timer !== undefined) clearInterval(this.timer);
    this.timer = undefined;
    await this.running;
    await this.transport.close();
  }

  /** Sends every due message; returns how many were sent. */
  async drain(): Promise<number> {
    let sent = 0;
    for (;;) {
      const batch = await this.store.claimDue(this.now(), 10);
      if (batch.length === 0) return sent;
      for (const m of batch) {
        try {
          await this.transport.send(m, this.opts.from);
          await this.store.markSent(m.id, this.now(), this.transport.kind, this.transport.keepsBody);
          sent += 1;
        } catch (e) {
          const error = (e instanceof Error ? e.message : String(e)).slice(0, 500);
          const next = m.attempts >= this.opts.maxAttempts ? null : new Date(this.now().getTime() + retryDelayMs(m.attempts));
          await this.store.markFailed(m.id, error, next);
          this.onError(e);
        }
      }
    }
  }
}
