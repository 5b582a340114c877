import { fail, type AppError } from '../errors/app-error.js';
import { BILLING_ERRORS } from './error-codes.js';
import { formatMicros } from './money.js';

/** Owner-set limits enforced at every hold (DESIGN §9). `null` = no limit. */
export interface SpendControls {
  readonly dailyLimitMicros: bigint | null;
  readonly monthlyLimitMicros: bigint | null;
  readonly perJobMaxMicros: bigint | null;
  readonly hardwareAllowed: boolean;
  /** Default lifetime of a hardware hold (and a suggestion for job holds). */
  readonly holdExpirySeconds: number;
}

export interface SpendCheckInput {
  readonly amountMicros: bigint;
  readonly kind: 'job' | 'hardware';
  /** What holds placed today (UTC) already committed: pending amounts + captured − refunded. */
  readonly spentTodayMicros: bigint;
  readonly spentMonthMicros: bigint;
  readonly availableMicros: bigint;
}

/**
 * The first limit the amount breaks, or null. Order: policy (hardware), per-job, daily,
 * monthly, then balance — so the owner learns about the limit they set before "top up".
 */
export function checkSpend(c: SpendControls, i: SpendCheckInput): AppError | null {
  const amount = formatMicros(i.amountMicros);
  if (i.kind === 'hardware' && !c.hardwareAllowed) {
    return fail(BILLING_ERRORS.HARDWARE_DISABLED, 'Hardware spending is turned off in the spend controls.', { limit: 'hardware_allowed' });
  }
  if (c.perJobMaxMicros !== null && i.amountMicros > c.perJobMaxMicros) {
    return fail(BILLING_ERRORS.SPEND_LIMIT_PER_JOB, `The amount ${amount} is above the per-job maximum ${formatMicros(c.perJobMaxMicros)}.`, {
      limit: 'per_job_max', limit_value: formatMicros(c.perJobMaxMicros), amount,
    });
  }
  if (c.dailyLimitMicros !== null && i.spentTodayMicros + i.amountMicros > c.dailyLimitMicros) {
    return fail(BILLING_ERRORS.SPEND_LIMIT_DAILY, `The amount ${amount} would take today's spend above the daily limit ${formatMicros(c.dailyLimitMicros)}.`, {
      limit: 'daily_limit', limit_value: formatMicros(c.dailyLimitMicros), spent: formatMicros(i.spentTodayMicros), amount,
    });
  }
  if (c.monthlyLimitMicros !== null && i.spentMonthMicros + i.amountMicros > c.monthlyLimitMicros) {
    return fail(BILLING_ERRORS.SPEND_LIMIT_MONTHLY, `The amount ${amount} would take this month's spend above the monthly limit ${formatMicros(c.monthlyLimitMicros)}.`, {
      limit: 'monthly_limit', limit_value: formatMicros(c.monthlyLimitMicros), spent: formatMicros(i.spentMonthMicros), amount,
    });
  }
  if (i.amountMicros > i.availableMicros) {
    return fail(BILLING_ERRORS.INSUFFICIENT_BALANCE, `The available balance ${formatMicros(i.availableMicros)} does not cover ${amount}.`, {
      available: formatMicros(i.availableMicros), required: amount,
    });
  }
  return null;
}

export function startOfUtcDay(now: Date): Date {
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()));
}

export function startOfUtcMonth(now: Date): Date {
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1));
}
