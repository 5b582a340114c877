import { randomUUID } from 'node:crypto';
import { fail, isAppError } from '../errors/app-error.js';
import type { BackgroundWorker } from '../worker.js';
import type { BillingConfig } from './billing-config.js';
import { BILLING_ERRORS } from './error-codes.js';
import { MICROS_PER_CENT, centsToMicros, formatMicros, microsToCentsCeil } from './money.js';
import type { Payments } from './payments.js';
import type { BillingPorts, BillingTx } from './ports.js';
import { PROCESSOR_MINIMUM_CENTS } from './processor/processor.js';
import type { AttemptOutcome, AttemptRow } from './records.js';
import { startOfUtcMonth } from './spend-controls.js';
import { attemptView } from './views.js';

/** Consecutive failed attempts after which auto-recharge pauses until the owner acts. */
export const FAILURES_BEFORE_PAUSE = 3;

/**
 * The amount to charge: up to the recharge-to level (at least the processor minimum),
 * in whole cents, never above what the monthly cap still allows. Null when the cap leaves
 * less than the minimum.
 */
export function rechargeAmountCents(i: { availableMicros: bigint; rechargeToMicros: bigint | null; capMicros: bigint | null; usedThisMonthMicros: bigint }): bigint | null {
  const want = i.rechargeToMicros === null ? 0n : i.rechargeToMicros - i.availableMicros;
  let cents = want > 0n ? microsToCentsCeil(want) : 0n;
  if (cents < PROCESSOR_MINIMUM_CENTS) cents = PROCESSOR_MINIMUM_CENTS;
  if (i.capMicros !== null) {
    const left = i.capMicros - i.usedThisMonthMicros;
    const leftCents = left > 0n ? left / MICROS_PER_CENT : 0n;
    if (leftCents < cents) cents = leftCents;
  }
  return cents < PROCESSOR_MINIMUM_CENTS ? null : cents;
}

/**
 * Auto-recharge (DESIGN §9): a debit that leaves available below the threshold marks the
 * wallet (`ar_requested_at`, in the debit's own transaction); this engine then charges the
 * saved payment method off-session, records every attempt, and pauses after
 * FAILURES_BEFORE_PAUSE failures in a row.
 */
export class AutoRecharge {
  constructor(
    private readonly ports: BillingPorts,
    private readonly payments: Payments,
    private readonly settings: BillingConfig,
  ) {}

  private get auto(): BillingTx {
    return this.ports.uow.autocommit;
  }

  async runIfRequested(accountId: string): Promise<void> {
    const w = await this.ports.ledger.readWallet(this.auto, accountId);
    if (w?.ar_requested_at != null) await this.run(accountId, 'threshold');
  }

  /** Runs every requested recharge (the worker's loop body); returns how many attempts ran. */
  async runRequested(limit = 50): Promise<number> {
    let n = 0;
    for (const accountId of await this.ports.wallets.requestedRecharges(this.auto, limit)) {
      if ((await this.run(accountId, 'threshold').catch(() => null)) !== null) n += 1;
    }
    return n;
  }

  /**
   * One attempt. `threshold`: only when enabled, not paused and below the threshold
   * (returns null otherwise). `test`: always one real attempt against the processor.
   */
  async run(accountId: string, trigger: 'threshold' | 'test', now = new Date()) {
    const { ledger, wallets, payments } = this.ports;
    const prepared = await this.ports.uow.run(async (tx) => {
      const w = await ledger.lockWallet(tx, accountId);
      const available = BigInt(w.available_micros);
      const clear = () => wallets.clearRechargeRequest(tx, accountId);
      if (trigger === 'threshold') {
        // The ledger's own trigger, evaluated on the locked row.
        if (!w.recharge_due) {
          await clear();
          return null;
        }
      }
      const pm = w.ar_payment_method ?? w.default_payment_method;
      if (pm === null) {
        if (trigger === 'test') throw fail(BILLING_ERRORS.NO_PAYMENT_METHOD, 'No saved payment method to charge.');
        await clear();
        return {
          skipped: await payments.recordSkippedAttempt(tx, {
            id: randomUUID(),
            accountId,
            trigger,
            amountMicros: 0n,
            availableBeforeMicros: available,
            code: 'no_payment_method',
            message: 'No saved payment method.',
          }),
        };
      }
      const cap = w.ar_monthly_cap_micros === null ? null : BigInt(w.ar_monthly_cap_micros);
      const cents = rechargeAmountCents({
        availableMicros: available,
        rechargeToMicros: w.ar_recharge_to_micros === null ? null : BigInt(w.ar_recharge_to_micros),
        capMicros: cap,
        usedThisMonthMicros: cap === null ? 0n : await payments.rechargedSince(tx, accountId, startOfUtcMonth(now)),
      });
      await clear();
      if (cents === null) {
        return {
          skipped: await payments.recordSkippedAttempt(tx, {
            id: randomUUID(),
            accountId,
            trigger,
            amountMicros: 0n,
            availableBeforeMicros: available,
            code: 'monthly_cap_reached',
            message: `The monthly cap ${formatMicros(cap ?? 0n)} is reached.`,
          }),
        };
      }
      const attempt = await payments.startAttempt(tx, { id: randomUUID(), accountId, trigger, amountMicros: centsToMicros(cents), availableBeforeMicros: available });
      if (attempt === null) return null; // another attempt is in flight
      return { attempt, pm, cents, customerId: w.processor_customer_id };
    });
    if (prepared === null) return null;
    if ('skipped' in prepared) return attemptView(prepared.skipped);

    await this.charge(accountId, prepared.attempt.id, prepared.cents, prepared.pm, prepared.customerId);
    const final = await payments.getAttempt(this.auto, prepared.attempt.id);
    return attemptView(final as AttemptRow);
  }

  /**
   * Charges one pending attempt off-session and settles it. Safe to repeat: the processor
   * call carries the attempt's idempotency key and the credit is keyed by the payment intent.
   */
  private async charge(accountId: string, attemptId: string, cents: bigint, pm: string, knownCustomerId: string | null): Promise<void> {
    let outcome: AttemptOutcome | null;
    let piId: string | null = null;
    try {
      const customerId = knownCustomerId ?? (await this.payments.ensureCustomer(accountId)).customerId;
      const pi = await this.payments.processor.createPaymentIntent({
        customerId,
        amountCents: cents,
        paymentMethod: pm,
        offSession: true,
        confirm: true,
        metadata: { qrail_account_id: accountId, qrail_purpose: 'auto_recharge', qrail_attempt_id: attemptId },
        idempotencyKey: `auto-recharge:${attemptId}`,
      });
      piId = pi.id === '' ? null : pi.id;
      outcome =
        pi.status === 'succeeded'
          ? { status: 'succeeded', paymentIntentId: piId }
          : { status: 'failed', paymentIntentId: piId, code: pi.failureCode ?? pi.status, message: pi.failureMessage ?? `payment ${pi.status}` };
      // Still processing: the attempt stays pending and the webhook settles it.
      if (pi.status === 'processing') outcome = null;
    } catch (e) {
      outcome = { status: 'failed', paymentIntentId: null, code: 'processor_error', message: isAppError(e) ? e.message : 'processor unreachable' };
    }
    await this.ports.uow.run(async (tx) => {
      await this.ports.ledger.lockWallet(tx, accountId);
      if (piId !== null) {
        await this.ports.payments.recordPayment(tx, {
          id: piId,
          accountId,
          kind: 'payment_intent',
          purpose: 'auto_recharge',
          amountMicros: centsToMicros(cents),
          status: outcome?.status ?? 'processing',
        });
        await this.ports.payments.setAttemptPaymentIntent(tx, attemptId, piId);
      }
      if (outcome === null) return;
      if (outcome.status === 'succeeded' && piId !== null) {
        await this.ports.ledger.creditPayment(tx, { accountId, amountMicros: centsToMicros(cents), externalRef: `payment_intent:${piId}`, description: `auto-recharge ${piId}` });
      }
      await this.applyOutcome(tx, accountId, attemptId, outcome);
    });
    await this.payments.flushSandboxEvents();
  }

  /**
   * Attempts left `pending` longer than `olderThanMs` (a crash between the processor call
   * and its outcome, or a lost webhook) are charged again with the same idempotency key —
   * the processor returns the original payment — and settled. Returns how many it settled.
   */
  async recoverStale(now = new Date(), olderThanMs = 10 * 60_000): Promise<number> {
    const stale = await this.ports.payments.staleAttempts(this.auto, new Date(now.getTime() - olderThanMs), 50);
    let n = 0;
    for (const a of stale) {
      const w = await this.ports.ledger.readWallet(this.auto, a.account_id);
      const pm = w?.ar_payment_method ?? w?.default_payment_method ?? null;
      if (pm === null) {
        await this.ports.uow.run((tx) =>
          this.applyOutcome(tx, a.account_id, a.id, { status: 'failed', paymentIntentId: a.payment_intent_id, code: 'no_payment_method', message: 'No saved payment method.' }),
        );
      } else {
        await this.charge(a.account_id, a.id, BigInt(a.amount_micros) / MICROS_PER_CENT, pm, w?.processor_customer_id ?? null);
      }
      const after = await this.ports.payments.getAttempt(this.auto, a.id);
      if (after?.status !== 'pending') n += 1;
    }
    return n;
  }

  /** Records an attempt's outcome once and keeps the failure streak / pause in step. */
  async applyOutcome(tx: BillingTx, accountId: string, attemptId: string, o: AttemptOutcome): Promise<void> {
    // Wallet first, then the attempt: the same lock order as every other money movement.
    const w = await this.ports.ledger.lockWallet(tx, accountId);
    const row = await this.ports.payments.finishAttempt(tx, attemptId, o);
    if (row === null) return; // already final (a webhook or the synchronous answer got there first)
    if (o.status === 'succeeded') {
      // A successful test charge is how an owner proves a new card: it resumes a paused auto-recharge.
      await this.ports.wallets.setRechargeHealth(tx, accountId, { consecutiveFailures: 0, pause: row.trigger === 'test' ? 'resume' : 'keep' });
    } else {
      const failures = Number(w.ar_consecutive_failures) + 1;
      const pause = failures >= FAILURES_BEFORE_PAUSE && w.ar_paused_at === null ? { reason: `${FAILURES_BEFORE_PAUSE} failed attempts in a row (last: ${o.code ?? 'failed'})` } : ('keep' as const);
      await this.ports.wallets.setRechargeHealth(tx, accountId, { consecutiveFailures: failures, pause });
    }
  }

  async attempts(accountId: string, limit: number) {
    return { attempts: (await this.ports.payments.listAttempts(this.auto, accountId, limit)).map(attemptView) };
  }

  /** What happened to auto-recharge and what the owner must do about it. */
  async recoveryStatus(accountId: string) {
    const w = await this.ports.ledger.readWallet(this.auto, accountId);
    const last = (await this.ports.payments.listAttempts(this.auto, accountId, 1))[0];
    const failures = Number(w?.ar_consecutive_failures ?? 0);
    const pm = w?.ar_payment_method ?? w?.default_payment_method ?? null;
    const actions: Array<{ action: string; how: string }> = [];
    let state: 'not_configured' | 'disabled' | 'healthy' | 'failing' | 'paused';
    let summary: string;
    if (w === null || (w.ar_threshold_micros === null && !w.ar_enabled)) {
      state = 'not_configured';
      summary = 'Auto-recharge is not set up.';
      actions.push({ action: 'configure', how: 'PATCH /v1/billing/spend-controls {"auto_recharge":{"enabled":true,"threshold":"5.00","recharge_to":"20.00","payment_method":"pm_…"}}' });
    } else if (w.ar_paused_at !== null) {
      state = 'paused';
      summary = `Auto-recharge paused at ${new Date(w.ar_paused_at).toISOString()}: ${w.ar_pause_reason ?? 'repeated failures'}. No further charges are attempted.`;
      actions.push({
        action: 'update_payment_method',
        how: 'POST /v1/billing/processor/portal-session (or a setup intent), or PATCH /v1/billing/spend-controls {"auto_recharge":{"payment_method":"pm_…"}}',
      });
      actions.push({ action: 'verify', how: 'POST /v1/billing/auto-recharge/test runs one real charge; success resumes auto-recharge' });
      actions.push({ action: 'resume', how: 'PATCH /v1/billing/spend-controls {"auto_recharge":{"enabled":true}}' });
      actions.push({ action: 'top_up', how: 'POST /v1/billing/processor/checkout-session {"amount":"20.00"}' });
    } else if (!w.ar_enabled) {
      state = 'disabled';
      summary = 'Auto-recharge is configured but turned off.';
      actions.push({ action: 'enable', how: 'PATCH /v1/billing/spend-controls {"auto_recharge":{"enabled":true}}' });
    } else if (failures > 0) {
      state = 'failing';
      summary = `The last ${failures} attempt(s) failed; auto-recharge pauses after ${FAILURES_BEFORE_PAUSE} in a row.`;
      actions.push({ action: 'update_payment_method', how: 'POST /v1/billing/processor/portal-session, or PATCH /v1/billing/spend-controls {"auto_recharge":{"payment_method":"pm_…"}}' });
    } else {
      state = 'healthy';
      summary = pm === null ? 'Auto-recharge is on but has no payment method.' : 'Auto-recharge is on and working.';
    }
    return {
      state,
      summary,
      enabled: w?.ar_enabled ?? false,
      paused: (w?.ar_paused_at ?? null) !== null,
      paused_at: w?.ar_paused_at ? new Date(w.ar_paused_at).toISOString() : null,
      pause_reason: w?.ar_pause_reason ?? null,
      consecutive_failures: failures,
      failures_before_pause: FAILURES_BEFORE_PAUSE,
      payment_method: pm,
      last_attempt: last === undefined ? null : attemptView(last),
      actions,
    };
  }

  worker(): BackgroundWorker {
    let timer: NodeJS.Timeout | undefined;
    let running: Promise<unknown> = Promise.resolve();
    return {
      name: 'billing-auto-recharge',
      start: () => {
        if (timer !== undefined) return;
        timer = setInterval(() => {
          running = running
            .then(async () => {
              await this.runRequested();
              await this.recoverStale();
            })
            .catch(() => undefined);
        }, this.settings.autoRechargeIntervalMs);
        timer.unref();
      },
      stop: async () => {
        if (timer !== undefined) clearInterval(timer);
        timer = undefined;
        await running;
      },
    };
  }
}
