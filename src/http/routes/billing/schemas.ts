import { Type, type TProperties } from 'typebox';

/** Response objects keep unknown members (serialised as given) so that additions never get dropped. */
export const obj = <P extends TProperties>(p: P, description?: string) =>
  Type.Object(p, { additionalProperties: true, ...(description === undefined ? {} : { description }) });

export const Money = Type.String({ pattern: '^-?(?:0|[1-9]\\d*)\\.\\d{6}$', description: 'USD with exactly six decimals, e.g. "0.120000"' });
export const NullableMoney = Type.Union([Money, Type.Null()]);
/** A USD amount in a request: up to six decimals, never a float. */
export const UsdIn = Type.String({ pattern: '^(?:0|[1-9]\\d{0,8})(?:\\.\\d{1,6})?$', maxLength: 16, description: 'USD decimal string, e.g. "10.00"' });
export const NullableUsdIn = Type.Union([UsdIn, Type.Null()]);
/** A processor charge: whole cents. */
export const ChargeIn = Type.String({ pattern: '^(?:0|[1-9]\\d{0,8})(?:\\.\\d{1,2})?$', maxLength: 12, description: 'USD with at most two decimals; at least "0.50"' });
export const PaymentMethodId = Type.String({ maxLength: 203, pattern: '^pm_[A-Za-z0-9_]{1,200}$', description: 'A processor payment method id, e.g. pm_card_visa' });
export const Iso = Type.String({ format: 'date-time' });
export const NullableIso = Type.Union([Iso, Type.Null()]);

export const WalletView = obj({ available: Money, held: Money, total: Money, currency: Type.Literal('USD'), as_of: Iso }, 'Wallet: available + held = total');

export const SpendControlsView = obj({
  daily_limit: NullableMoney,
  monthly_limit: NullableMoney,
  per_job_max: NullableMoney,
  hardware_allowed: Type.Boolean(),
  hold_expiry_seconds: Type.Integer(),
  auto_recharge: obj({
    enabled: Type.Boolean(),
    threshold: NullableMoney,
    recharge_to: NullableMoney,
    monthly_cap: NullableMoney,
    payment_method: Type.Union([Type.String(), Type.Null()]),
    effective_payment_method: Type.Union([Type.String(), Type.Null()]),
    paused: Type.Boolean(),
    paused_at: NullableIso,
    consecutive_failures: Type.Integer(),
  }),
  spent_today: Money,
  spent_this_month: Money,
  currency: Type.Literal('USD'),
});

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

export const AttemptView = obj({
  attempt_id: Type.String(),
  trigger: Type.String(),
  status: Type.String({ description: 'pending, succeeded, failed or skipped' }),
  amount: Money,
  available_before: Money,
  payment_intent_id: Type.Union([Type.String(), Type.Null()]),
  failure_code: Type.Union([Type.String(), Type.Null()]),
  failure_message: Type.Union([Type.String(), Type.Null()]),
  created_at: Iso,
  completed_at: NullableIso,
});

export const QuoteView = obj({
  quote_id: Type.String({ format: 'uuid' }),
  provider: Type.String(),
  device: Type.String(),
  shots: Type.Integer(),
  tasks: Type.Integer(),
  price_per_task: Money,
  price_per_shot: Money,
  total: Money,
  currency: Type.Literal('USD'),
  valid_until: Iso,
  created_at: Iso,
});

export const HeldJobView = obj({
  job_id: Type.String({ format: 'uuid' }),
  status: Type.String({ description: 'held, continued, released or expired' }),
  hold_id: Type.String(),
  quote_id: Type.String(),
  provider: Type.String(),
  device: Type.String(),
  shots: Type.Integer(),
  tasks: Type.Integer(),
  amount: Money,
  currency: Type.Literal('USD'),
  expires_at: Iso,
  created_at: Iso,
  continue_url: Type.String(),
  release_url: Type.String(),
  wallet: Type.Optional(WalletView),
  released: Type.Optional(Money),
  already_released: Type.Optional(Type.Boolean()),
});

export const Any = obj({});
