/**
 * What billing's ports hand back (src/billing/ports.ts): the stored state of wallets, holds,
 * quotes, held jobs, processor payments and auto-recharge attempts, and the results of money
 * movements. Amounts are micro-USD bigints. The `…Row` shapes keep the columns' snake_case
 * names: views.ts turns them into the wire format.
 */
export type HoldKind = 'job' | 'hardware';
export type HoldStatus = 'pending' | 'captured' | 'released' | 'expired';

/** A wallet as stored: cached balances, spend controls, auto-recharge settings and state, processor profile. */
export interface WalletState {
  account_id: string;
  currency: string;
  available_micros: bigint;
  held_micros: bigint;
  daily_limit_micros: bigint | null;
  monthly_limit_micros: bigint | null;
  per_job_max_micros: bigint | null;
  hardware_allowed: boolean;
  hold_expiry_seconds: number;
  ar_enabled: boolean;
  ar_threshold_micros: bigint | null;
  ar_recharge_to_micros: bigint | null;
  ar_monthly_cap_micros: bigint | null;
  ar_payment_method: string | null;
  ar_consecutive_failures: number;
  ar_paused_at: Date | null;
  ar_pause_reason: string | null;
  ar_requested_at: Date | null;
  /** The ledger's auto-recharge trigger holds now: enabled, not paused, configured, available below the threshold. */
  recharge_due: boolean;
  processor_customer_id: string | null;
  default_payment_method: string | null;
  default_payment_method_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

export interface Wallet {
  readonly accountId: string;
  readonly availableMicros: bigint;
  readonly heldMicros: bigint;
  readonly totalMicros: bigint;
  readonly currency: 'USD';
}

export interface HoldRecord {
  readonly id: string;
  readonly accountId: string;
  readonly kind: HoldKind;
  readonly refId: string;
  readonly description: string;
  readonly product: string | null;
  readonly provider: string | null;
  readonly amountMicros: bigint;
  readonly status: HoldStatus;
  readonly capturedMicros: bigint;
  readonly releasedMicros: bigint;
  readonly refundedMicros: bigint;
  readonly expiresAt: Date;
  readonly createdAt: Date;
  readonly resolvedAt: Date | null;
  readonly resolutionReason: string | null;
}

export interface PlaceHoldInput {
  readonly accountId: string;
  readonly amountMicros: bigint;
  readonly kind: HoldKind;
  /** The job id (or held-job id) this hold pays for; unique per kind. */
  readonly refId: string;
  readonly description: string;
  readonly expiresAt: Date;
  readonly product?: string;
  readonly provider?: string;
  /** Clock for spend windows (tests); defaults to the database's transaction time. */
  readonly now?: Date;
  /** Who submitted (`user:<id>`, `credential:<id>`, …): recorded on the hold, and whose member budget it counts against. */
  readonly submittedBy?: string | null | undefined;
  /** The request placing it, for the organization's audit log (migration 1811). */
  readonly requestId?: string | null | undefined;
}

export interface PlaceHoldResult {
  readonly holdId: string;
  /** True when a hold for this (kind, refId), account and amount existed: nothing moved. */
  readonly existing: boolean;
  readonly availableAfterMicros: bigint;
}

export interface CaptureResult {
  readonly transferIds: string[];
  readonly capturedMicros: bigint;
  readonly releasedMicros: bigint;
  readonly balanceAfterMicros: bigint;
  /** True when the hold had already been captured: nothing moved, the first outcome is returned. */
  readonly alreadyCaptured: boolean;
}

export interface ReleaseResult {
  readonly releasedMicros: bigint;
  readonly transferId: string | null;
  /** True when the hold was already released or expired: nothing moved. */
  readonly alreadyReleased: boolean;
  readonly status: 'released' | 'expired';
}

export interface RefundResult {
  readonly transferId: string;
  readonly refundedMicros: bigint;
  readonly balanceAfterMicros: bigint;
}

export interface CreditResult {
  /** False when the idempotency key was already used: nothing moved. */
  readonly credited: boolean;
  readonly transferId: string;
  readonly balanceAfterMicros: bigint;
}

export interface QuoteRecord {
  readonly id: string;
  readonly accountId: string;
  readonly provider: string;
  readonly device: string;
  readonly shots: number;
  readonly tasks: number;
  readonly perTaskMicros: bigint;
  readonly perShotMicros: bigint;
  readonly totalMicros: bigint;
  readonly validUntil: Date;
  readonly createdAt: Date;
}

export type HeldJobStatus = 'held' | 'continued' | 'released' | 'expired';

export interface HeldJobRecord {
  readonly jobId: string;
  readonly accountId: string;
  readonly quoteId: string;
  readonly holdId: string;
  readonly provider: string;
  readonly device: string;
  readonly shots: number;
  readonly tasks: number;
  /** Tasks taken by continuations so far (≤ tasks); the held job is `continued` once they are all taken. */
  readonly tasksUsed: number;
  readonly amountMicros: bigint;
  readonly status: HeldJobStatus;
  readonly expiresAt: Date;
  readonly createdAt: Date;
  readonly updatedAt: Date;
  /** Who placed it (`user:<id>`, `credential:<id>`, …); null before migration 1810. */
  readonly submittedBy: string | null;
}

export type PaymentPurpose = 'checkout' | 'topup' | 'auto_recharge';

export interface PaymentRow {
  id: string;
  account_id: string;
  kind: 'checkout_session' | 'payment_intent';
  purpose: PaymentPurpose;
  amount_micros: bigint;
  status: string;
  created_at: Date;
  updated_at: Date;
}

export interface AttemptRow {
  id: string;
  account_id: string;
  trigger: 'threshold' | 'test';
  amount_micros: bigint;
  status: 'pending' | 'succeeded' | 'failed' | 'skipped';
  payment_intent_id: string | null;
  failure_code: string | null;
  failure_message: string | null;
  available_before_micros: bigint;
  created_at: Date;
  completed_at: Date | null;
}

export type AttemptOutcome = { status: 'succeeded' | 'failed'; paymentIntentId: string | null; code?: string | null; message?: string | null };

export interface DayAmount {
  day: string;
  amount: bigint;
  count: number;
}
export interface GroupAmount {
  key: string | null;
  amount: bigint;
  count: number;
}

export interface LargestJob {
  hold_id: string;
  kind: HoldKind;
  ref_id: string;
  description: string;
  product: string | null;
  provider: string | null;
  captured_micros: bigint;
  refunded_micros: bigint;
  created_at: Date;
  resolved_at: Date | null;
}

export interface HoldListRow {
  seq: bigint;
  id: string;
  kind: HoldKind;
  ref_id: string;
  description: string;
  product: string | null;
  provider: string | null;
  amount_micros: bigint;
  status: HoldStatus;
  captured_micros: bigint;
  released_micros: bigint;
  refunded_micros: bigint;
  expires_at: Date;
  created_at: Date;
  resolved_at: Date | null;
}

/** One transfer of the account's ledger with what it did to the account's two balances. */
export interface LedgerTransferRow {
  id: string;
  kind: LedgerTransferKind;
  description: string;
  hold_id: string | null;
  amount_micros: bigint;
  available_delta: bigint;
  held_delta: bigint;
  /** The submitter of the transfer's hold (migration 1810), when it has one. */
  submitted_by: string | null;
  created_at: Date;
  /** created_at to the microsecond (UTC ISO text): the keyset position, which a Date would round. */
  position: string;
}

export const LEDGER_TRANSFER_KINDS = ['grant', 'topup', 'hold', 'capture', 'release', 'expire', 'refund', 'adjustment'] as const;
export type LedgerTransferKind = (typeof LEDGER_TRANSFER_KINDS)[number];

export interface BalanceMoves {
  readonly openAvailable: bigint;
  readonly openHeld: bigint;
  readonly days: ReadonlyArray<{ day: string; available: bigint; held: bigint }>;
}
