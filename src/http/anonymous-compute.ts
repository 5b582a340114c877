/**
 * How an HTTP request runs work on the compute pool:
 * - its AbortSignal follows the client: when the connection closes before the answer is sent,
 *   the task is dropped or stopped (src/compute/compute-pool.ts), so abandoned work does not hold
 *   a thread;
 * - a caller without a session is limited to `ANON_COMPUTE_CONCURRENCY` such requests in flight
 *   per client address (429 CONCURRENCY_LIMITED) and to `ANON_COMPUTE_BUDGET_MS` of compute
 *   (docs/decisions/compute-anonymous-limits.md). Signed-in callers keep the full budgets.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { COMPUTE_ERRORS } from '../compute/error-codes.js';
import { anonymousComputeLimits, type AnonymousComputeLimits } from '../config/compute-limits.js';
import { fail } from '../errors/app-error.js';
import type { App } from './app-types.js';

interface Limiter {
  readonly limits: AnonymousComputeLimits;
  readonly inFlight: Map<string, number>;
}

const limiters = new WeakMap<object, Limiter>();

function limiterOf(app: App): Limiter {
  let l = limiters.get(app.compute);
  if (l === undefined) {
    l = { limits: anonymousComputeLimits(app.config.env), inFlight: new Map() };
    limiters.set(app.compute, l);
  }
  return l;
}

/** The anonymous limits of this app (parsed once; route plugins call it at registration so a bad value stops the start). */
export function anonymousLimits(app: App): AnonymousComputeLimits {
  return limiterOf(app).limits;
}

/** Anonymous compute requests in flight from `address` (tests and diagnostics). */
export function anonymousInFlight(app: App, address: string): number {
  return limiterOf(app).inFlight.get(address) ?? 0;
}

/** Aborts when the client goes away before its answer is sent. */
export function clientGone(req: FastifyRequest, reply: FastifyReply): AbortSignal {
  const ac = new AbortController();
  const res = reply.raw;
  // `close` on the response also comes after a normal finish; only an early one means the client left.
  res.once('close', () => {
    if (!res.writableFinished) ac.abort();
  });
  if (req.raw.socket?.destroyed === true) ac.abort();
  return ac.signal;
}

export interface ComputeCaller {
  readonly signal: AbortSignal;
  /** Budget ceiling for this caller (ms): undefined for a signed-in caller. */
  readonly budgetCapMs: number | undefined;
}

/**
 * Runs `work` for this request: a signed-in caller directly, an anonymous one inside its address's
 * concurrency slot (429 CONCURRENCY_LIMITED when none is free) with the anonymous budget cap.
 */
export async function runForRequest<T>(app: App, req: FastifyRequest, reply: FastifyReply, work: (caller: ComputeCaller) => Promise<T>): Promise<T> {
  const signal = clientGone(req, reply);
  if (req.principal !== undefined) return work({ signal, budgetCapMs: undefined });
  const l = limiterOf(app);
  const address = req.ip;
  const n = l.inFlight.get(address) ?? 0;
  if (n >= l.limits.concurrency) {
    throw fail(
      COMPUTE_ERRORS.CONCURRENCY_LIMITED,
      `At most ${l.limits.concurrency} compute requests may run at once per address without a session; this address has ${n} in flight. Retry when one finishes, send a bearer session (no per-address limit), or submit an Account Job (POST /v1/jobs).`,
      { limit: l.limits.concurrency, in_flight: n },
      { 'retry-after': '1' },
    );
  }
  l.inFlight.set(address, n + 1);
  try {
    return await work({ signal, budgetCapMs: l.limits.budgetMs });
  } finally {
    const left = (l.inFlight.get(address) ?? 1) - 1;
    if (left <= 0) l.inFlight.delete(address);
    else l.inFlight.set(address, left);
  }
}
