import { defineCode } from '../errors/app-error.js';

/** Error codes owned by the billing domain. Add each new code here and to docs/errors.md. */
export const BILLING_ERRORS = {
  INSUFFICIENT_BALANCE: defineCode('INSUFFICIENT_BALANCE', 409, 'The available balance does not cover the amount; `details` gives available and required amounts.'),
  SPEND_LIMIT_PER_JOB: defineCode('SPEND_LIMIT_PER_JOB', 409, 'The amount is above the per-job maximum of the spend controls.'),
  SPEND_LIMIT_DAILY: defineCode('SPEND_LIMIT_DAILY', 409, "The amount would take today's spend (UTC) above the daily limit of the spend controls."),
  SPEND_LIMIT_MONTHLY: defineCode('SPEND_LIMIT_MONTHLY', 409, "The amount would take this month's spend (UTC) above the monthly limit of the spend controls."),
  HARDWARE_DISABLED: defineCode('HARDWARE_DISABLED', 409, 'Hardware spending is turned off in the spend controls (`hardware_allowed: false`).'),
  HOLD_NOT_FOUND: defineCode('HOLD_NOT_FOUND', 404, 'No such hold (or held job) for this account.'),
  HOLD_NOT_PENDING: defineCode(
    'HOLD_NOT_PENDING',
    409,
    'The hold was already resolved in another way (captured, released or expired), or its held job was already continued; `details.status` says how.',
  ),
  HOLD_EXISTS: defineCode('HOLD_EXISTS', 409, 'A hold for this reference already exists with a different account or amount.'),
  CAPTURE_EXCEEDS_HOLD: defineCode('CAPTURE_EXCEEDS_HOLD', 409, 'The capture amount is larger than the held amount.'),
  REFUND_EXCEEDS_CAPTURE: defineCode('REFUND_EXCEEDS_CAPTURE', 409, 'The refund is larger than what was captured and not yet refunded.'),
  INVALID_AMOUNT: defineCode('INVALID_AMOUNT', 400, 'The amount is not a valid non-negative USD decimal string with at most six decimals, or is out of range.'),
  BELOW_PROCESSOR_MINIMUM: defineCode('BELOW_PROCESSOR_MINIMUM', 400, 'Processor charges must be at least $0.50.'),
  QUOTE_NOT_FOUND: defineCode('QUOTE_NOT_FOUND', 404, 'No such hardware quote for this account.'),
  QUOTE_EXPIRED: defineCode('QUOTE_EXPIRED', 409, 'The hardware quote is past its `valid_until`; ask for a new quote.'),
  QUOTE_ALREADY_USED: defineCode('QUOTE_ALREADY_USED', 409, 'A hold was already placed for this quote; `details.job_id` names the held job.'),
  UNKNOWN_DEVICE: defineCode('UNKNOWN_DEVICE', 400, 'The device is not in the hardware price list; see GET /v1/execute/provider-two/devices.'),
  WEBHOOK_SIGNATURE_INVALID: defineCode('WEBHOOK_SIGNATURE_INVALID', 400, 'The webhook `Stripe-Signature` header is missing, malformed or does not match the body.'),
  WEBHOOK_TIMESTAMP_OUT_OF_TOLERANCE: defineCode('WEBHOOK_TIMESTAMP_OUT_OF_TOLERANCE', 400, 'The webhook signature timestamp is more than 300 s in the past or in the future.'),
  WEBHOOK_PAYLOAD_INVALID: defineCode('WEBHOOK_PAYLOAD_INVALID', 400, 'The webhook body is not a processor event (JSON with id, type and data.object).'),
  CHECKOUT_NOT_FOUND: defineCode('CHECKOUT_NOT_FOUND', 404, 'No such checkout session for this account.'),
  NO_PAYMENT_METHOD: defineCode('NO_PAYMENT_METHOD', 409, 'No saved payment method; add one through a setup intent or the portal, or set `auto_recharge.payment_method`.'),
  AUTO_RECHARGE_NOT_CONFIGURED: defineCode('AUTO_RECHARGE_NOT_CONFIGURED', 409, 'Auto-recharge needs a recharge-to amount and a payment method; set them with PATCH /v1/billing/spend-controls.'),
  PROCESSOR_ERROR: defineCode('PROCESSOR_ERROR', 502, 'The payment processor refused or failed the request; `details` carries its code.'),
  OPERATOR_FORBIDDEN: defineCode('OPERATOR_FORBIDDEN', 403, 'Operator endpoints need `Authorization: Bearer <QRAIL_OPERATOR_TOKEN>` and a configured token.'),
  USER_NOT_FOUND: defineCode('USER_NOT_FOUND', 404, 'No user with this email (operator commands).'),
} as const;
