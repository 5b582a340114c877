import { bool, int, type Env } from '../config/env-parser.js';

/** Outbound webhook settings (docs/configuration.md#webhooks), parsed from the environment record. */
export interface WebhookSettings {
  /** Let endpoints resolve to private, loopback or link-local addresses (tests, closed networks). */
  readonly allowPrivateTargets: boolean;
  /** Delay before the first retry; each later one doubles, up to `maxDelayMs`. */
  readonly retryBaseMs: number;
  readonly maxDelayMs: number;
  /** A delivery still failing this long after its first attempt is given up. */
  readonly retryWindowMs: number;
  /** An endpoint failing without a success for this long is disabled. */
  readonly disableAfterMs: number;
  readonly timeoutMs: number;
  readonly pollMs: number;
  readonly leaseMs: number;
  readonly concurrency: number;
}

const DAY_S = 86_400;

export function webhookSettings(env: Env): WebhookSettings {
  const timeoutMs = int(env, 'WEBHOOK_TIMEOUT_MS', 10_000, 100, 60_000);
  return {
    allowPrivateTargets: bool(env, 'WEBHOOK_ALLOW_PRIVATE_TARGETS', false),
    retryBaseMs: int(env, 'WEBHOOK_RETRY_BASE_MS', 60_000, 10, 3_600_000),
    maxDelayMs: int(env, 'WEBHOOK_RETRY_MAX_DELAY_MS', 6 * 3_600_000, 10, DAY_S * 1000),
    retryWindowMs: int(env, 'WEBHOOK_RETRY_WINDOW_SECONDS', 3 * DAY_S, 1, 30 * DAY_S) * 1000,
    disableAfterMs: int(env, 'WEBHOOK_DISABLE_AFTER_SECONDS', 3 * DAY_S, 1, 30 * DAY_S) * 1000,
    timeoutMs,
    pollMs: int(env, 'WEBHOOK_POLL_MS', 1_000, 10, 60_000),
    // A lease outlives the request's timeout, so a slow receiver is never sent the same attempt twice at once.
    leaseMs: timeoutMs + 30_000,
    concurrency: int(env, 'WEBHOOK_CONCURRENCY', 8, 1, 64),
  };
}

/** The retry schedule: base × 2^(attempt−1), capped (60 s, 2 min, 4 min … 6 h: about 20 attempts in 3 days). */
export function retryDelayMs(s: Pick<WebhookSettings, 'retryBaseMs' | 'maxDelayMs'>, attempt: number): number {
  return Math.min(s.maxDelayMs, s.retryBaseMs * 2 ** Math.min(Math.max(attempt - 1, 0), 30));
}
