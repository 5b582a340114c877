import { int, type Env } from './env-parser.js';

/** Limits on compute run for callers without a session (docs/decisions/compute-anonymous-limits.md). */
export interface AnonymousComputeLimits {
  /** Compute requests one client address may have in flight at once (ANON_COMPUTE_CONCURRENCY). */
  readonly concurrency: number;
  /** Most time one anonymous compute request may use (ANON_COMPUTE_BUDGET_MS); signed-in callers keep the full budgets. */
  readonly budgetMs: number;
}

export function anonymousComputeLimits(env: Env): AnonymousComputeLimits {
  return Object.freeze({
    concurrency: int(env, 'ANON_COMPUTE_CONCURRENCY', 2, 1, 1_000),
    budgetMs: int(env, 'ANON_COMPUTE_BUDGET_MS', 10_000, 100, 600_000),
  });
}
