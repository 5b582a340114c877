import type { RateLimitHit, RateLimitStore } from './rate-limit-store.js';

export type RateLimitSharing = 'shared' | 'local';

export interface FallbackOptions {
  /** The most a request waits for the shared store before counting locally. */
  readonly timeoutMs: number;
  /** How long the breaker stays open (local counting, no call to the shared store) before one request probes it again. */
  readonly cooldownMs: number;
  /** Called once per change of state (a log line), with the failure that opened the breaker. */
  readonly onChange: (state: RateLimitSharing, cause?: unknown) => void;
  /** Called for each hit counted locally because the shared store failed or the breaker is open. */
  readonly onFallback: () => void;
}

class Timeout extends Error {
  constructor(ms: number) {
    super(`the shared rate-limit store did not answer within ${ms} ms`);
  }
}

/**
 * A shared (Redis) rate-limit store behind a circuit breaker (issue #38 item 3): each call to it
 * waits at most `timeoutMs`; a failure or timeout opens the breaker, and for `cooldownMs` every
 * hit is counted in this process instead — limits keep holding per node, and a request pays no
 * network wait. Then a single request probes the shared store; its answer closes the breaker.
 */
export class FallbackRateLimitStore implements RateLimitStore {
  private openUntil = 0;
  private probing = false;
  private current: RateLimitSharing = 'shared';

  constructor(
    private readonly shared: RateLimitStore,
    private readonly local: RateLimitStore,
    private readonly opts: FallbackOptions,
    private readonly now: () => number = Date.now,
  ) {}

  get state(): RateLimitSharing {
    return this.current;
  }

  hit(key: string, windowMs: number): RateLimitHit | Promise<RateLimitHit> {
    return this.call(
      () => this.shared.hit(key, windowMs),
      () => this.local.hit(key, windowMs),
    );
  }

  peek(key: string): RateLimitHit | Promise<RateLimitHit> {
    return this.call(
      () => this.shared.peek(key),
      () => this.local.peek(key),
    );
  }

  private call(remote: () => RateLimitHit | Promise<RateLimitHit>, local: () => RateLimitHit | Promise<RateLimitHit>): RateLimitHit | Promise<RateLimitHit> {
    if (this.current === 'local' && (this.probing || this.now() < this.openUntil)) {
      this.opts.onFallback();
      return local();
    }
    if (this.current === 'local') this.probing = true;
    return this.guarded(remote, local);
  }

  private async guarded(remote: () => RateLimitHit | Promise<RateLimitHit>, local: () => RateLimitHit | Promise<RateLimitHit>): Promise<RateLimitHit> {
    let timer: NodeJS.Timeout | undefined;
    try {
      const answer = await Promise.race([
        Promise.resolve().then(remote),
        new Promise<never>((_, reject) => {
          timer = setTimeout(() => reject(new Timeout(this.opts.timeoutMs)), this.opts.timeoutMs);
        }),
      ]);
      if (this.current === 'local') {
        this.current = 'shared';
        this.opts.onChange('shared');
      }
      return answer;
    } catch (err) {
      this.openUntil = this.now() + this.opts.cooldownMs;
      if (this.current === 'shared') {
        this.current = 'local';
        this.opts.onChange('local', err);
      }
      this.opts.onFallback();
      return await local();
    } finally {
      if (timer !== undefined) clearTimeout(timer);
      this.probing = false;
    }
  }

  async close(): Promise<void> {
    await Promise.all([this.shared.close(), this.local.close()]);
  }
}
