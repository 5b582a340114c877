import type { FastifyReply, FastifyRequest } from 'fastify';
import { fail } from '../../errors/app-error.js';
import { HTTP_ERRORS } from '../../errors/http-error-codes.js';
import type { App, FailedAuthLimit } from '../app-types.js';
import type { RateLimitHit, RateLimitStore } from './rate-limit-store.js';
import type { Meter } from '../../telemetry/meter.js';

const WINDOW_MS = 60_000;

type Done = (err?: Error) => void;

function applyHit(reply: FastifyReply, r: RateLimitHit, limit: number, bucket: string, meter: Meter, done: Done): void {
  const resetS = Math.max(1, Math.ceil(r.resetMs / 1000));
  reply.header('ratelimit-limit', String(limit));
  reply.header('ratelimit-remaining', String(Math.max(0, limit - r.count)));
  reply.header('ratelimit-reset', String(resetS));
  if (r.count > limit) {
    meter.inc('qrail_rate_limit_refusals_total', { bucket });
    return done(
      fail(
        HTTP_ERRORS.RATE_LIMITED,
        `Rate limit of ${limit} requests per minute exceeded; retry in ${resetS} s.`,
        { limit, window_seconds: 60, retry_after_seconds: resetS },
        { 'retry-after': String(resetS) },
      ),
    );
  }
  done();
}

function allowUnchecked(req: FastifyRequest, err: unknown, done: Done): void {
  req.log.warn({ err }, 'rate limit store unavailable; request allowed');
  done();
}

function failedAuthLimit(store: RateLimitStore, perMinute: number, meter: Meter): FailedAuthLimit {
  const key = (req: FastifyRequest, bucket: string) => `${bucket}:${req.ip}`;
  return {
    async check(req, bucket) {
      let r: RateLimitHit;
      try {
        r = await store.peek(key(req, bucket));
      } catch (err) {
        req.log.warn({ err }, 'rate limit store unavailable; request allowed');
        return;
      }
      if (r.count < perMinute) return;
      const resetS = Math.max(1, Math.ceil(r.resetMs / 1000));
      meter.inc('qrail_rate_limit_refusals_total', { bucket });
      throw fail(
        HTTP_ERRORS.RATE_LIMITED,
        `Too many failed attempts from this address (${perMinute} per minute); retry in ${resetS} s.`,
        { limit: perMinute, window_seconds: 60, retry_after_seconds: resetS },
        { 'retry-after': String(resetS) },
      );
    },
    async record(req, bucket) {
      try {
        await store.hit(key(req, bucket), WINDOW_MS);
      } catch (err) {
        req.log.warn({ err }, 'rate limit store unavailable; failure not counted');
      }
    },
  };
}

/**
 * Per-client fixed windows of one minute, per bucket. Headers follow the IETF
 * RateLimit draft (RateLimit-Limit / -Remaining / -Reset) plus Retry-After on 429.
 * Redis sits behind a breaker (fallback-rate-limit-store.ts) that counts locally while it fails; a
 * store that still throws lets the request through (logged): availability first.
 */
export function registerRateLimit(app: App, store: RateLimitStore, limits: { perMinute: number; authPerMinute: number }, meter: Meter): void {
  const defaultPerMinute = limits.perMinute;
  app.decorate('failedAuth', failedAuthLimit(store, limits.authPerMinute, meter));
  // Callback-style hook with no closure per request: with the in-process store the whole check
  // is synchronous.
  app.addHook('onRequest', (req, reply, done) => {
    const rl = req.routeOptions.config?.rateLimit;
    if (rl === false) return done();
    const limit = rl?.perMinute ?? defaultPerMinute;
    const bucket = rl?.bucket ?? 'default';
    let r: RateLimitHit | Promise<RateLimitHit>;
    try {
      r = store.hit(`${bucket}:${req.ip}`, WINDOW_MS);
    } catch (err) {
      return allowUnchecked(req, err, done);
    }
    if (r instanceof Promise)
      r.then(
        (v) => applyHit(reply, v, limit, bucket, meter, done),
        (err: unknown) => allowUnchecked(req, err, done),
      );
    else applyHit(reply, r, limit, bucket, meter, done);
  });
}
