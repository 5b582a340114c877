import { Type } from 'typebox';
import { Iso, Nullable, NullableIso, NullableUsd, Obj, SubmittedBy, Usd } from '../../schema-helpers.js';

/** Request and response schemas of the billing endpoints (src/billing/views.ts and the services build the answers). */

export const Money = Usd;
export const NullableMoney = NullableUsd;
/** A USD amount in a request: up to six decimals, never a float. */
export const UsdIn = Type.String({ pattern: '^(?:0|[1-9]\\d{0,8})(?:\\.\\d{1,6})?$', maxLength: 16, description: 'USD decimal string, e.g. "10.00"' });
export const NullableUsdIn = Type.Union([UsdIn, Type.Null()]);
/** A processor charge: whole cents. */
export const ChargeIn = Type.String({ pattern: '^(?:0|[1-9]\\d{0,8})(?:\\.\\d{1,2})?$', maxLength: 12, description: 'USD with at most two decimals; at least "0.50"' });
export const PaymentMethodId = Type.String({ maxLength: 203, pattern: '^pm_[A-Za-z0-9_]{1,200}$', description: 'A processor payment method id, e.g. pm_card_visa' });

const Str = Type.String();
const NullableStr = Nullable(Str);
const Int = Type.Integer({ minimum: 0 });
const Uuid = Type.String({ format: 'uuid' });
const Processor = Type.Union([Type.Literal('sandbox'), Type.Literal('stripe')]);

export const WalletView = Obj(
  { available: Money, held: Money, total: Money, currency: Type.Literal('USD'), as_of: Iso },
  { $id: 'Wallet', description: 'The prepaid balance: available + held = total' },
);
const Wallet = Type.Ref('Wallet');

export const ProfileView = Obj({
  account_id: Uuid,
  user_id: Uuid,
  email: Str,
  role: Type.Literal('owner'),
  currency: Type.Literal('USD'),
  processor: Processor,
  processor_customer_id: NullableStr,
  default_payment_method: NullableStr,
  auto_recharge_payment_method: NullableStr,
  created_at: Iso,
});

export const SpendControlsView = Obj(
  {
    daily_limit: NullableMoney,
    monthly_limit: NullableMoney,
    per_job_max: NullableMoney,
    hardware_allowed: Type.Boolean(),
    hold_expiry_seconds: Type.Integer(),
    auto_recharge: Obj({
      enabled: Type.Boolean(),
      threshold: NullableMoney,
      recharge_to: NullableMoney,
      monthly_cap: NullableMoney,
      payment_method: NullableStr,
      effective_payment_method: NullableStr,
      paused: Type.Boolean(),
      paused_at: NullableIso,
      consecutive_failures: Int,
    }),
    spent_today: Money,
    spent_this_month: Money,
    currency: Type.Literal('USD'),
  },
  { $id: 'SpendControls' },
);

export const SpendControlsPatch = Type.Object(
  {
    daily_limit: Type.Optional(NullableUsdIn),
    monthly_limit: Type.Optional(NullableUsdIn),
    per_job_max: Type.Optional(NullableUsdIn),
    hardware_allowed: Type.Optional(Type.Boolean()),
    hold_expiry_seconds: Type.Optional(Type.Integer({ minimum: 60, maximum: 7 * 86_400 })),
    auto_recharge: Type.Optional(
      Type.Object(
        {
          enabled: Type.Optional(Type.Boolean()),
          threshold: Type.Optional(NullableUsdIn),
          recharge_to: Type.Optional(NullableUsdIn),
          monthly_cap: Type.Optional(NullableUsdIn),
          payment_method: Type.Optional(Type.Union([PaymentMethodId, Type.Null()])),
        },
        { additionalProperties: false },
      ),
    ),
  },
  { additionalProperties: false, minProperties: 1 },
);

const RecoveryState = Type.Union(['not_configured', 'disabled', 'healthy', 'failing', 'paused'].map((s) => Type.Literal(s)));

export const SummaryView = Obj({
  wallet: Wallet,
  spend: Obj({ today: Money, this_month: Money }),
  limits: Obj({ daily_limit: NullableMoney, monthly_limit: NullableMoney, per_job_max: NullableMoney, hardware_allowed: Type.Boolean() }),
  open_holds: Obj({ count: Int, amount: Money }),
  auto_recharge: Obj({ enabled: Type.Boolean(), state: RecoveryState }),
  processor: Processor,
});

export const AttemptView = Obj(
  {
    attempt_id: Str,
    trigger: Type.Union([Type.Literal('threshold'), Type.Literal('test')]),
    status: Type.Union(['pending', 'succeeded', 'failed', 'skipped'].map((s) => Type.Literal(s))),
    amount: Money,
    available_before: Money,
    payment_intent_id: NullableStr,
    failure_code: NullableStr,
    failure_message: NullableStr,
    created_at: Iso,
    completed_at: NullableIso,
  },
  { $id: 'AutoRechargeAttempt' },
);

export const RecoveryView = Obj({
  state: RecoveryState,
  summary: Str,
  enabled: Type.Boolean(),
  paused: Type.Boolean(),
  paused_at: NullableIso,
  pause_reason: NullableStr,
  consecutive_failures: Int,
  failures_before_pause: Int,
  payment_method: NullableStr,
  last_attempt: Nullable(Type.Ref('AutoRechargeAttempt')),
  actions: Type.Array(Obj({ action: Str, how: Str })),
});

const HoldKind = Type.Union([Type.Literal('job'), Type.Literal('hardware')]);
const HoldStatus = Type.Union(['pending', 'captured', 'released', 'expired'].map((s) => Type.Literal(s)));

export const HoldListView = Obj({
  hold_id: Str,
  job_id: NullableStr,
  kind: HoldKind,
  description: Str,
  product: NullableStr,
  provider: NullableStr,
  status: HoldStatus,
  amount_held: Money,
  amount_captured: Money,
  amount_released: Money,
  amount_refunded: Money,
  expires_at: Iso,
  created_at: Iso,
  resolved_at: NullableIso,
});

export const LEDGER_KINDS = ['grant', 'topup', 'hold', 'capture', 'release', 'expire', 'refund', 'adjustment'] as const;

export const LedgerEntryView = Obj(
  {
    transfer_id: Uuid,
    kind: Type.Union(LEDGER_KINDS.map((k) => Type.Literal(k))),
    description: Str,
    hold_id: Nullable(Uuid),
    amount: Money,
    available_change: Type.String({ pattern: '^-?(?:0|[1-9]\\d*)\\.\\d{6}$', description: 'Signed change of the available balance (USD, six decimals)' }),
    held_change: Type.String({ pattern: '^-?(?:0|[1-9]\\d*)\\.\\d{6}$', description: 'Signed change of the held balance (USD, six decimals)' }),
    submitted_by: SubmittedBy,
    created_at: Iso,
  },
  { description: 'One ledger transfer of the account and what it did to its two balances' },
);

const SpendGroup = (key: 'product' | 'provider') => Obj({ [key]: Str, spend: Money, jobs: Int });

export const DashboardView = Obj({
  currency: Type.Literal('USD'),
  range: Obj({ from: Type.String({ format: 'date' }), to: Type.String({ format: 'date' }), days: Type.Integer({ minimum: 1 }) }),
  totals: Obj({ spend: Money, jobs: Int }),
  wallet: Wallet,
  spend_per_day: Type.Array(Obj({ date: Type.String({ format: 'date' }), spend: Money, jobs: Int })),
  spend_by_product: Type.Array(SpendGroup('product')),
  spend_by_provider: Type.Array(SpendGroup('provider')),
  largest_jobs: Type.Array(Obj({ hold_id: Str, job_id: NullableStr, kind: HoldKind, description: Str, product: NullableStr, provider: NullableStr, spend: Money, created_at: Iso })),
  balance_history: Type.Array(Obj({ date: Type.String({ format: 'date' }), available: Money, held: Money, total: Money })),
});

export const QuoteView = Obj({
  quote_id: Uuid,
  provider: Str,
  device: Str,
  shots: Type.Integer({ minimum: 1 }),
  tasks: Type.Integer({ minimum: 1 }),
  price_per_task: Money,
  price_per_shot: Money,
  total: Money,
  currency: Type.Literal('USD'),
  valid_until: Iso,
  created_at: Iso,
  device_status: Type.Optional(
    Type.Union(
      ['online', 'offline', 'maintenance'].map((st) => Type.Literal(st)),
      { description: 'A quote is only a price: the device may be down, and the quote says so' },
    ),
  ),
  device_available: Type.Optional(Type.Boolean()),
  device_reasons: Type.Optional(Type.Array(Type.Ref('ExecutionReason'))),
});

const heldJobProperties = {
  job_id: Uuid,
  submitted_by: SubmittedBy,
  status: Type.Union(['held', 'continued', 'released', 'expired'].map((s) => Type.Literal(s))),
  hold_id: Str,
  quote_id: Str,
  provider: Str,
  device: Str,
  shots: Type.Integer({ minimum: 1 }),
  tasks: Type.Integer({ minimum: 1 }),
  amount: Money,
  currency: Type.Literal('USD'),
  expires_at: Iso,
  created_at: Iso,
  continue_url: Str,
  release_url: Str,
  wallet: Wallet,
};

export const HeldJobView = Obj(heldJobProperties, { description: 'The held job: funds reserved for a hardware run' });
export const ReleasedJobView = Obj({ ...heldJobProperties, released: Money, already_released: Type.Boolean() }, { description: 'The held job after its release' });

export const CustomerView = Obj({ customer_id: Str, created: Type.Boolean(), processor: Processor });
export const SetupIntentView = Obj({ setup_intent_id: Str, client_secret: NullableStr, status: Str, payment_method: NullableStr, customer_id: Str, processor: Processor });
export const PaymentIntentView = Obj({
  payment_intent_id: Str,
  client_secret: NullableStr,
  status: Str,
  amount: Money,
  currency: Type.Literal('USD'),
  credited: Type.Boolean(),
  failure_code: NullableStr,
  failure_message: NullableStr,
  wallet: Wallet,
});
export const CheckoutView = Obj({
  session_id: Str,
  url: NullableStr,
  status: Str,
  payment_status: Str,
  amount: Money,
  currency: Type.Literal('USD'),
  expires_at: NullableIso,
  processor: Processor,
});
export const PortalView = Obj({ portal_session_id: Str, url: Str, processor: Processor });
export const ReconcileView = Obj({ session_id: Str, status: Str, payment_status: Str, amount: Money, credited: Type.Boolean(), already_credited: Type.Boolean(), wallet: Wallet });
export const WebhookView = Obj({ received: Type.Literal(true), event_id: Str, type: Str, duplicate: Type.Boolean(), outcome: Str });

export const CreditGrantView = Obj({
  email: Str,
  account_id: Uuid,
  amount: Money,
  credited: Type.Boolean(),
  transfer_id: NullableStr,
  wallet: Obj({ available: Money, held: Money, total: Money, currency: Type.Literal('USD') }),
});
export const LedgerCheckView = Obj({ ok: Type.Boolean(), problems: Type.Array(Str), checked: Obj({ transfers: Int, holds: Int, wallets: Int }) });

/** A processor event as the webhook reads it (the body is verified against Stripe-Signature first). */
export const ProcessorEventSchema = Type.Object(
  {
    id: Type.String({ maxLength: 255 }),
    type: Type.String({ maxLength: 255 }),
    created: Type.Optional(Type.Integer()),
    data: Type.Object({ object: Type.Object({}, { maxProperties: 256, description: 'The object the event is about (payment intent, checkout session, customer, …)' }) }, { maxProperties: 8 }),
  },
  { maxProperties: 64, description: 'A processor (Stripe-compatible) event; members other than these are ignored' },
);

export const BILLING_COMPONENTS = [WalletView, SpendControlsView, AttemptView];
