import { formatMicros } from './money.js';
import { submittedByView } from '../orgs/submitter.js';
import type { AttemptRow, HeldJobRecord, HoldListRow, LedgerTransferRow, QuoteRecord, Wallet, WalletState } from './records.js';

/** Wire shapes: money as six-decimal strings, times as ISO 8601, snake_case. */
const m = (v: bigint | string | number | null | undefined): string | null => (v === null || v === undefined ? null : formatMicros(BigInt(v)));
const iso = (v: Date | string | null | undefined): string | null => (v === null || v === undefined ? null : new Date(v).toISOString());

export function walletView(w: Wallet, asOf: Date = new Date()) {
  return {
    available: formatMicros(w.availableMicros),
    held: formatMicros(w.heldMicros),
    total: formatMicros(w.totalMicros),
    currency: w.currency,
    as_of: asOf.toISOString(),
  };
}

export function spendControlsView(w: WalletState | null, spentToday: bigint, spentMonth: bigint) {
  return {
    daily_limit: m(w?.daily_limit_micros),
    monthly_limit: m(w?.monthly_limit_micros),
    per_job_max: m(w?.per_job_max_micros),
    hardware_allowed: w?.hardware_allowed ?? true,
    hold_expiry_seconds: Number(w?.hold_expiry_seconds ?? 3600),
    auto_recharge: {
      enabled: w?.ar_enabled ?? false,
      threshold: m(w?.ar_threshold_micros),
      recharge_to: m(w?.ar_recharge_to_micros),
      monthly_cap: m(w?.ar_monthly_cap_micros),
      payment_method: w?.ar_payment_method ?? null,
      effective_payment_method: w?.ar_payment_method ?? w?.default_payment_method ?? null,
      paused: (w?.ar_paused_at ?? null) !== null,
      paused_at: iso(w?.ar_paused_at),
      consecutive_failures: Number(w?.ar_consecutive_failures ?? 0),
    },
    spent_today: formatMicros(spentToday),
    spent_this_month: formatMicros(spentMonth),
    currency: 'USD' as const,
  };
}

export function attemptView(a: AttemptRow) {
  return {
    attempt_id: a.id,
    trigger: a.trigger,
    status: a.status,
    amount: formatMicros(BigInt(a.amount_micros)),
    available_before: formatMicros(BigInt(a.available_before_micros)),
    payment_intent_id: a.payment_intent_id,
    failure_code: a.failure_code,
    failure_message: a.failure_message,
    created_at: iso(a.created_at) as string,
    completed_at: iso(a.completed_at),
  };
}

export function quoteView(q: QuoteRecord) {
  return {
    quote_id: q.id,
    provider: q.provider,
    device: q.device,
    shots: q.shots,
    tasks: q.tasks,
    price_per_task: formatMicros(q.perTaskMicros),
    price_per_shot: formatMicros(q.perShotMicros),
    total: formatMicros(q.totalMicros),
    currency: 'USD' as const,
    valid_until: q.validUntil.toISOString(),
    created_at: q.createdAt.toISOString(),
  };
}

export function heldJobView(j: HeldJobRecord) {
  return {
    job_id: j.jobId,
    submitted_by: submittedByView(j.submittedBy),
    status: j.status,
    hold_id: j.holdId,
    quote_id: j.quoteId,
    provider: j.provider,
    device: j.device,
    shots: j.shots,
    tasks: j.tasks,
    amount: formatMicros(j.amountMicros),
    currency: 'USD' as const,
    expires_at: j.expiresAt.toISOString(),
    created_at: j.createdAt.toISOString(),
    continue_url: `/v1/execute/${j.provider === 'provider-one' ? 'provider-one' : 'provider-two'}/held/${j.jobId}`,
    release_url: `/v1/billing/hardware/hold/${j.jobId}/release`,
  };
}

export function holdListView(h: HoldListRow) {
  return {
    hold_id: h.id,
    job_id: h.ref_id,
    kind: h.kind,
    description: h.description,
    product: h.product,
    provider: h.provider,
    status: h.status,
    amount_held: formatMicros(BigInt(h.amount_micros)),
    amount_captured: formatMicros(BigInt(h.captured_micros)),
    amount_released: formatMicros(BigInt(h.released_micros)),
    amount_refunded: formatMicros(BigInt(h.refunded_micros)),
    expires_at: iso(h.expires_at) as string,
    created_at: iso(h.created_at) as string,
    resolved_at: iso(h.resolved_at),
  };
}

export function ledgerTransferView(t: LedgerTransferRow) {
  return {
    transfer_id: t.id,
    kind: t.kind,
    description: t.description,
    hold_id: t.hold_id,
    amount: formatMicros(BigInt(t.amount_micros)),
    available_change: formatMicros(BigInt(t.available_delta)),
    held_change: formatMicros(BigInt(t.held_delta)),
    submitted_by: submittedByView(t.submitted_by),
    created_at: iso(t.created_at) as string,
  };
}
