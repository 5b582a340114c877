import type { Config } from '../../config/config.js';
import type { PromMeter } from '../../telemetry/prom-meter.js';
import type { App } from '../app-types.js';
import { FallbackRateLimitStore } from './fallback-rate-limit-store.js';
import { MemoryRateLimitStore, RedisRateLimitStore, type RateLimitStore } from './rate-limit-store.js';

/**
 * The rate-limit store of the app: in-process without REDIS_URL; with it, Redis behind the
 * breaker, its state in `qrail_rate_limit_shared`, in /readyz's body and in one log line per change.
 */
export function rateLimitStore(app: App, config: Config, meter: PromMeter): RateLimitStore {
  if (config.redisUrl === undefined) {
    app.decorate('rateLimitSharing', () => 'memory' as const);
    return new MemoryRateLimitStore();
  }
  const store = new FallbackRateLimitStore(new RedisRateLimitStore(config.redisUrl, `${config.redisKeyPrefix}rl:`, config.redisTimeoutMs), new MemoryRateLimitStore(), {
    timeoutMs: config.redisTimeoutMs,
    cooldownMs: config.redisCooldownMs,
    onChange: (state, cause) => {
      if (state === 'local') app.log.error({ err: cause, rate_limits: state }, 'Redis unavailable: rate limits are counted per process until it answers again');
      else app.log.info({ rate_limits: state }, 'Redis answers again: rate limits are shared');
    },
    onFallback: () => meter.inc('qrail_rate_limit_fallback_total', {}),
  });
  app.decorate('rateLimitSharing', () => store.state);
  meter.collect('qrail_rate_limit_shared', () => [[{}, store.state === 'shared' ? 1 : 0]]);
  return store;
}
