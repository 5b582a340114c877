/**
 * Which requests the client may send twice. The server keeps each POST that moves money or
 * creates something idempotent in one of two ways (docs/decisions/foundation-idempotency-one-mechanism.md):
 * an `Idempotency-Key` header, or a required body key of its own (`client_token` on execution,
 * `idempotency_key` on the Account Jobs interface). The client supplies the key when the caller
 * does not, once per call, so that its retries carry the same key and act once.
 * tests/client/idempotency-table.test.ts checks this table against the app's routes.
 */

export type KeyedBy = 'header' | 'client_token' | 'idempotency_key';

/** POST path (OpenAPI template) → how its retries are recognised by the server. */
export const KEYED_POSTS: Readonly<Record<string, KeyedBy>> = {
  '/v1/jobs': 'idempotency_key',
  '/v1/execute/provider-one': 'client_token',
  '/v1/execute/provider-two': 'client_token',
  '/v1/execute/provider-one/held/{job_id}': 'client_token',
  '/v1/execute/provider-two/held/{job_id}': 'client_token',
  '/v1/execute/provider-one/batch': 'client_token',
  '/v1/execute/provider-two/batch': 'client_token',
  '/v1/execute/provider-two/held/{job_id}/batch': 'client_token',
  '/v1/auth/credentials': 'header',
  // Keyed for its async form (an optimize job); a synchronous answer is replayed the same way.
  '/v1/circuits/optimize': 'header',
  '/v1/billing/auto-recharge/test': 'header',
  '/v1/billing/hardware/quote': 'header',
  '/v1/billing/hardware/hold': 'header',
  '/v1/billing/hardware/hold/{job_id}/release': 'header',
  '/v1/billing/processor/customer': 'header',
  '/v1/billing/processor/setup-intent': 'header',
  '/v1/billing/processor/payment-intent': 'header',
  '/v1/billing/processor/checkout-session': 'header',
  '/v1/billing/processor/portal-session': 'header',
  '/v1/billing/processor/reconcile-checkout': 'header',
  '/v1/billing/operator/credit-grant': 'header',
  '/v1/webhooks/endpoints': 'header',
  '/v1/webhooks/deliveries/{delivery_id}/redeliver': 'header',
  '/v1/orgs': 'header',
  '/v1/orgs/{org_id}/invitations': 'header',
};

/**
 * POSTs without a key that change nothing (pure computation, a signed token), or whose repeat
 * finds the state the first made and answers the same (a cancel): safe to repeat.
 */
export const SAFE_POSTS: ReadonlySet<string> = new Set([
  '/v1/jobs/{job_id}/cancel',
  '/v1/execute/provider-one/{job_id}/cancel',
  '/v1/execute/provider-two/{job_id}/cancel',
  '/v1/circuits/validate',
  '/v1/circuits/analyze',
  '/v1/circuits/optimize/jobs/{job_id}/cancel',
  '/v1/analysis/coupling',
  '/v1/analysis/coupling/compare',
  '/v1/oauth/token',
  '/v1/webhooks/endpoints/{endpoint_id}/enable',
]);

/** Other methods that set a state rather than add to one. */
const IDEMPOTENT_METHODS = new Set(['GET', 'HEAD', 'PUT', 'DELETE', 'OPTIONS']);
const IDEMPOTENT_PATCHES = new Set(['/v1/billing/spend-controls']);

/** May a failed attempt (429, 503, a network error) of this request be sent again? */
export function mayRetry(method: string, pathTemplate: string, keyed: boolean): boolean {
  const m = method.toUpperCase();
  if (IDEMPOTENT_METHODS.has(m)) return true;
  if (m === 'PATCH') return IDEMPOTENT_PATCHES.has(pathTemplate);
  return m === 'POST' && (keyed || SAFE_POSTS.has(pathTemplate));
}

/** A fresh key: a UUID, unique per logical call. */
export function newIdempotencyKey(): string {
  return globalThis.crypto.randomUUID();
}
