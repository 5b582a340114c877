/**
 * Spend windows (DESIGN §9). The spend controls themselves — hardware allowed, per-job, daily
 * and monthly limits, then the balance, in that order — are checked where holds are placed:
 * the ledger's `ledger_place_hold` (migration 0400), which also words the refusal.
 */
export function startOfUtcDay(now: Date): Date {
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()));
}

export function startOfUtcMonth(now: Date): Date {
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1));
}
