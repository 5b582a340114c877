import { pass, type CallOptions, type RequestFn } from '../call.js';
import type { JsonBody, Operation, PathsWith, Query } from '../types.js';

type Body<P extends PathsWith<'post'>> = JsonBody<Operation<P, 'post'>>;
type Q<P extends PathsWith<'get'>> = Query<Operation<P, 'get'>>;

/**
 * Wallet, spend controls, hardware quotes and holds, and top-ups through the payment processor
 * (session). Every POST here moves money or creates something: each call gets its own
 * Idempotency-Key (or the one given in `options`), repeated on its retries.
 */
export function billingArea(request: RequestFn) {
  return {
    async wallet(options?: CallOptions) {
      return (await request('get', '/v1/billing/wallet', pass(options))).data;
    },
    async profile(options?: CallOptions) {
      return (await request('get', '/v1/billing/profile', pass(options))).data;
    },
    async summary(options?: CallOptions) {
      return (await request('get', '/v1/billing/summary', pass(options))).data;
    },
    async jobs(query?: Q<'/v1/billing/jobs'>, options?: CallOptions) {
      return (await request('get', '/v1/billing/jobs', { query, ...pass(options) })).data;
    },
    /** The account's ledger transfers, newest first, with their effect on available and held (`next_cursor` pages). */
    async ledger(query?: Q<'/v1/billing/ledger'>, options?: CallOptions) {
      return (await request('get', '/v1/billing/ledger', { query, ...pass(options) })).data;
    },
    async dashboard(query?: Q<'/v1/billing/dashboard'>, options?: CallOptions) {
      return (await request('get', '/v1/billing/dashboard', { query, ...pass(options) })).data;
    },
    async spendControls(options?: CallOptions) {
      return (await request('get', '/v1/billing/spend-controls', pass(options))).data;
    },
    async updateSpendControls(body: JsonBody<Operation<'/v1/billing/spend-controls', 'patch'>>, options?: CallOptions) {
      return (await request('patch', '/v1/billing/spend-controls', { body, ...pass(options) })).data;
    },
    async autoRechargeAttempts(query?: Q<'/v1/billing/auto-recharge/attempts'>, options?: CallOptions) {
      return (await request('get', '/v1/billing/auto-recharge/attempts', { query, ...pass(options) })).data;
    },
    async testAutoRecharge(options?: CallOptions) {
      return (await request('post', '/v1/billing/auto-recharge/test', pass(options))).data;
    },
    async recoveryStatus(options?: CallOptions) {
      return (await request('get', '/v1/billing/recovery-status', pass(options))).data;
    },
    /** A hardware price, valid 10 minutes. */
    async quote(body: Body<'/v1/billing/hardware/quote'>, options?: CallOptions) {
      return (await request('post', '/v1/billing/hardware/quote', { body, ...pass(options) })).data;
    },
    /** Reserves a quote's total; the answer is the held job to continue (`execution.continueHeldJob`). */
    async hold(body: Body<'/v1/billing/hardware/hold'>, options?: CallOptions) {
      return (await request('post', '/v1/billing/hardware/hold', { body, ...pass(options) })).data;
    },
    async releaseHold(jobId: string, options?: CallOptions) {
      return (await request('post', '/v1/billing/hardware/hold/{job_id}/release', { params: { job_id: jobId }, ...pass(options) })).data;
    },
    async createCustomer(options?: CallOptions) {
      return (await request('post', '/v1/billing/processor/customer', pass(options))).data;
    },
    async setupIntent(body: Body<'/v1/billing/processor/setup-intent'>, options?: CallOptions) {
      return (await request('post', '/v1/billing/processor/setup-intent', { body, ...pass(options) })).data;
    },
    /** A top-up charged to a payment method (the sandbox credits a test card at once). */
    async paymentIntent(body: Body<'/v1/billing/processor/payment-intent'>, options?: CallOptions) {
      return (await request('post', '/v1/billing/processor/payment-intent', { body, ...pass(options) })).data;
    },
    /** A hosted checkout page to send the customer to (`url`). */
    async checkoutSession(body: Body<'/v1/billing/processor/checkout-session'>, options?: CallOptions) {
      return (await request('post', '/v1/billing/processor/checkout-session', { body, ...pass(options) })).data;
    },
    async portalSession(body: Body<'/v1/billing/processor/portal-session'>, options?: CallOptions) {
      return (await request('post', '/v1/billing/processor/portal-session', { body, ...pass(options) })).data;
    },
    /** Credits a paid checkout if no webhook has yet (never twice). */
    async reconcileCheckout(body: Body<'/v1/billing/processor/reconcile-checkout'>, options?: CallOptions) {
      return (await request('post', '/v1/billing/processor/reconcile-checkout', { body, ...pass(options) })).data;
    },
    /**
     * The sandbox processor's Pay button (what a person does on the hosted page): pays the
     * checkout with a test card; the answer is the redirect to `success_url`.
     */
    async paySandboxCheckout(checkoutId: string, card = 'pm_card_visa', options?: CallOptions): Promise<{ status: number; location: string | null }> {
      const res = await request('post', '/v1/billing/processor/sandbox/checkout/{id}/pay', { params: { id: checkoutId }, form: { card }, redirect: 'manual', auth: 'none', ...pass(options) });
      return { status: res.status, location: res.headers.get('location') };
    },
  };
}
