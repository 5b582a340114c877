/**
 * The payment-processor port. Two adapters: the embedded `sandbox` (default) and `stripe`.
 * Amounts at this boundary are integer cents (the processors' unit); the ledger converts.
 */
export type ProcessorName = 'sandbox' | 'stripe';

export type Metadata = Readonly<Record<string, string>>;

export interface SetupIntentView {
  readonly id: string;
  readonly clientSecret: string | null;
  readonly status: string;
  readonly paymentMethod: string | null;
  readonly customerId: string;
}

export interface PaymentIntentView {
  readonly id: string;
  /** `succeeded`, `processing`, `requires_payment_method` (declined), `requires_action`, `requires_confirmation`, `canceled`. */
  readonly status: string;
  readonly amountCents: bigint;
  readonly customerId: string | null;
  readonly clientSecret: string | null;
  readonly failureCode: string | null;
  readonly failureMessage: string | null;
  readonly metadata: Metadata;
}

export interface CheckoutSessionView {
  readonly id: string;
  readonly url: string | null;
  /** `open`, `complete`, `expired`. */
  readonly status: string;
  /** `paid`, `unpaid`, `no_payment_required`. */
  readonly paymentStatus: string;
  readonly amountTotalCents: bigint;
  readonly customerId: string | null;
  readonly paymentIntentId: string | null;
  readonly metadata: Metadata;
  readonly expiresAt: Date | null;
}

export interface PaymentProcessor {
  readonly name: ProcessorName;
  /** Secret the webhook endpoint verifies `Stripe-Signature` with; undefined = webhooks not configured. */
  readonly webhookSecret: string | undefined;
  createCustomer(i: { accountId: string; email: string; idempotencyKey: string }): Promise<{ id: string }>;
  /** Every create takes the processor's idempotency key (Stripe honours one on every POST); optional where a repeat is harmless. */
  createSetupIntent(i: { customerId: string; paymentMethod?: string; metadata: Metadata; idempotencyKey?: string }): Promise<SetupIntentView>;
  /** Declines come back as a view with `failureCode`, not as a throw; transport problems throw. */
  createPaymentIntent(i: {
    customerId: string;
    amountCents: bigint;
    paymentMethod?: string;
    offSession: boolean;
    confirm: boolean;
    metadata: Metadata;
    idempotencyKey: string;
  }): Promise<PaymentIntentView>;
  createCheckoutSession(i: { customerId: string; amountCents: bigint; successUrl: string; cancelUrl: string; metadata: Metadata; idempotencyKey: string }): Promise<CheckoutSessionView>;
  retrieveCheckoutSession(id: string): Promise<CheckoutSessionView | null>;
  createPortalSession(i: { customerId: string; returnUrl: string; idempotencyKey?: string }): Promise<{ id: string; url: string }>;
}

/** Processor charges must be at least $0.50 (Stripe's minimum for USD). */
export const PROCESSOR_MINIMUM_CENTS = 50n;
/** Largest single top-up accepted. */
export const PROCESSOR_MAXIMUM_CENTS = 1_000_000n;
