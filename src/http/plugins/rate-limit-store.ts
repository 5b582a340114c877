import { Redis } from 'ioredis';

export interface RateLimitHit {
  readonly count: number;
  readonly resetMs: number;
}

/**
 * Fixed-window counter: one hit, the count in the window, and ms until it resets. The
 * in-process store answers synchronously (no promise on every request's hot path).
 */
export interface RateLimitStore {
  hit(key: string, windowMs: number): RateLimitHit | Promise<RateLimitHit>;
  /** The count in the key's current window without adding to it (0 when none is open). */
  peek(key: string): RateLimitHit | Promise<RateLimitHit>;
  close(): Promise<void>;
}

export class MemoryRateLimitStore implements RateLimitStore {
  private readonly windows = new Map<string, { count: number; resetAt: number }>();
  private readonly sweeper: NodeJS.Timeout;

  constructor() {
    this.sweeper = setInterval(() => this.sweep(), 30_000);
    this.sweeper.unref();
  }

  hit(key: string, windowMs: number): RateLimitHit {
    const now = Date.now();
    let w = this.windows.get(key);
    if (w === undefined || w.resetAt <= now) {
      w = { count: 0, resetAt: now + windowMs };
      this.windows.set(key, w);
    }
    w.count += 1;
    return { count: w.count, resetMs: w.resetAt - now };
  }

  peek(key: string): RateLimitHit {
    const now = Date.now();
    const w = this.windows.get(key);
    return w === undefined || w.resetAt <= now ? { count: 0, resetMs: 0 } : { count: w.count, resetMs: w.resetAt - now };
  }

  private sweep(): void {
    const now = Date.now();
    for (const [k, w] of this.windows) if (w.resetAt <= now) this.windows.delete(k);
  }

  async close() {
    clearInterval(this.sweeper);
  }
}

// INCR and set the expiry only when the window opens, atomically, so every node shares one window.
const HIT_SCRIPT = `
local c = redis.call('INCR', KEYS[1])
if c == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
local ttl = redis.call('PTTL', KEYS[1])
if ttl < 0 then redis.call('PEXPIRE', KEYS[1], ARGV[1]); ttl = tonumber(ARGV[1]) end
return {c, ttl}
`;

const PEEK_SCRIPT = `
local c = redis.call('GET', KEYS[1])
if not c then return {0, 0} end
return {tonumber(c), redis.call('PTTL', KEYS[1])}
`;

export class RedisRateLimitStore implements RateLimitStore {
  private readonly redis: Redis;

  constructor(
    url: string,
    private readonly prefix = 'qrail:rl:',
    commandTimeoutMs = 1_000,
  ) {
    // A command fails after commandTimeoutMs (the breaker in fallback-rate-limit-store.ts also bounds the
    // wait); no retry of a command: a rate-limit hit is worth less than the request it would delay.
    this.redis = new Redis(url, { lazyConnect: false, maxRetriesPerRequest: 0, enableOfflineQueue: true, commandTimeout: commandTimeoutMs, connectTimeout: 2_000 });
    this.redis.on('error', () => undefined);
  }

  async hit(key: string, windowMs: number): Promise<RateLimitHit> {
    const r = (await this.redis.eval(HIT_SCRIPT, 1, this.prefix + key, String(windowMs))) as [number, number];
    return { count: Number(r[0]), resetMs: Number(r[1]) };
  }

  async peek(key: string): Promise<RateLimitHit> {
    const r = (await this.redis.eval(PEEK_SCRIPT, 1, this.prefix + key)) as [number, number];
    return { count: Number(r[0]), resetMs: Math.max(0, Number(r[1])) };
  }

  async close() {
    this.redis.disconnect();
  }
}
