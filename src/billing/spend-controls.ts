/**
 * Spend controls (DESIGN §9): the owner's PATCH and the spend windows. The controls themselves
 * — hardware allowed, per-job, daily and monthly limits, then the balance, in that order — are
 * checked where holds are placed: the ledger's `ledger_place_hold` (migration 0400), which also
 * words the refusal.
 */
import { fail } from '../errors/app-error.js';
import { HTTP_ERRORS } from '../errors/http-error-codes.js';
import { parseUsd } from './money.js';
import type { SpendControlsSettings } from './ports.js';
import type { WalletState } from './records.js';

export interface SpendControlsPatch {
  daily_limit?: string | null;
  monthly_limit?: string | null;
  per_job_max?: string | null;
  hardware_allowed?: boolean;
  hold_expiry_seconds?: number;
  auto_recharge?: {
    enabled?: boolean;
    threshold?: string | null;
    recharge_to?: string | null;
    monthly_cap?: string | null;
    payment_method?: string | null;
  };
}

/** The patch's amounts in micro-USD (undefined: not in the patch; null: clear). */
export interface ParsedAmounts {
  readonly daily: bigint | null | undefined;
  readonly monthly: bigint | null | undefined;
  readonly perJob: bigint | null | undefined;
  readonly threshold: bigint | null | undefined;
  readonly rechargeTo: bigint | null | undefined;
  readonly cap: bigint | null | undefined;
}

const invalid = (path: string, message: string) => fail(HTTP_ERRORS.VALIDATION_FAILED, 'Request body failed validation.', [{ in: 'body', path, code: 'INVALID', message }]);

/** Parses the amounts of a PATCH (before any lock is taken); 400 naming the first bad one. */
export function parseSpendControlsPatch(patch: SpendControlsPatch): ParsedAmounts {
  const money = (path: string, v: string | null | undefined): bigint | null | undefined => {
    if (v === undefined || v === null) return v;
    try {
      return parseUsd(v);
    } catch {
      throw invalid(path, 'must be a USD amount with at most six decimals');
    }
  };
  const ar = patch.auto_recharge ?? {};
  return {
    daily: money('/daily_limit', patch.daily_limit),
    monthly: money('/monthly_limit', patch.monthly_limit),
    perJob: money('/per_job_max', patch.per_job_max),
    threshold: money('/auto_recharge/threshold', ar.threshold),
    rechargeTo: money('/auto_recharge/recharge_to', ar.recharge_to),
    cap: money('/auto_recharge/monthly_cap', ar.monthly_cap),
  };
}

/**
 * The settings a PATCH leaves on the (locked) wallet, checked as a whole: daily ≤ monthly, and
 * an enabled auto-recharge has a threshold, a recharge-to above it, a cap of at least the
 * processor minimum and a payment method. `resume`: the PATCH lifts a pause.
 */
export function nextSpendControls(w: WalletState, patch: SpendControlsPatch, p: ParsedAmounts): { settings: SpendControlsSettings; resume: boolean } {
  const ar = patch.auto_recharge ?? {};
  const big = (v: bigint | string | null) => (v === null ? null : BigInt(v));
  const keep = <T>(v: T | undefined, current: T): T => (v === undefined ? current : v);
  const daily = big(keep(p.daily, w.daily_limit_micros));
  const monthly = big(keep(p.monthly, w.monthly_limit_micros));
  const enabled = ar.enabled ?? w.ar_enabled;
  const threshold = big(keep(p.threshold, w.ar_threshold_micros));
  const rechargeTo = big(keep(p.rechargeTo, w.ar_recharge_to_micros));
  const cap = big(keep(p.cap, w.ar_monthly_cap_micros));
  const pm = ar.payment_method === undefined ? w.ar_payment_method : ar.payment_method;
  if (daily !== null && monthly !== null && daily > monthly) {
    throw invalid(patch.daily_limit !== undefined ? '/daily_limit' : '/monthly_limit', 'the daily limit cannot be above the monthly limit');
  }
  if (enabled) {
    if (threshold === null) throw invalid('/auto_recharge/threshold', 'is required when auto-recharge is enabled');
    if (rechargeTo === null) throw invalid('/auto_recharge/recharge_to', 'is required when auto-recharge is enabled');
    if (rechargeTo <= threshold) throw invalid('/auto_recharge/recharge_to', 'must be above the threshold');
    if (cap !== null && cap < 500_000n) throw invalid('/auto_recharge/monthly_cap', 'must be at least 0.50 (the processor minimum)');
    if (pm === null && w.default_payment_method === null) {
      throw invalid('/auto_recharge/payment_method', 'no saved payment method: set one here, or save a card through a setup intent or the portal first');
    }
  }
  // Re-enabling or changing the payment method is how an owner resumes a paused auto-recharge.
  const resume = ar.enabled === true || (ar.payment_method !== undefined && ar.payment_method !== w.ar_payment_method);
  return {
    settings: {
      dailyLimitMicros: daily,
      monthlyLimitMicros: monthly,
      perJobMaxMicros: big(keep(p.perJob, w.per_job_max_micros)),
      hardwareAllowed: patch.hardware_allowed ?? w.hardware_allowed,
      holdExpirySeconds: patch.hold_expiry_seconds ?? Number(w.hold_expiry_seconds),
      autoRecharge: { enabled, thresholdMicros: threshold, rechargeToMicros: rechargeTo, monthlyCapMicros: cap, paymentMethod: pm },
    },
    resume,
  };
}

export function startOfUtcDay(now: Date): Date {
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()));
}

export function startOfUtcMonth(now: Date): Date {
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1));
}
