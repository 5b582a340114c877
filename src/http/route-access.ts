/**
 * Who may call each authenticated platform route: the one declaration the auth hook enforces
 * and the OpenAPI document's security requirements are derived from (issue #21 item 4).
 *
 * - `scopes`: a person's session, or a machine credential / access token holding any one of
 *   these scopes (403 INSUFFICIENT_SCOPE naming them otherwise). `anonymous`: no token at all
 *   is also served (the public, limited view).
 * - `person`: a person's session only (403 SESSION_REQUIRED for a machine token, whatever its
 *   scopes): managing credentials, the person's profile, changing spend controls, money taken
 *   from the owner's card, chat and speech (docs/decisions/auth-credential-scopes.md).
 *
 * A platform route that takes a bearer token and is not listed here is person-only. The
 * Account Jobs routes declare their scope where they are registered (jobs-routes.ts).
 */
import type { CredentialScope } from '../auth/credentials.js';

export type RouteAccess = { readonly scopes: readonly CredentialScope[]; readonly anonymous?: true } | { readonly person: true; readonly anonymous?: true };

const PERSON: RouteAccess = { person: true };
const CIRCUITS: RouteAccess = { scopes: ['circuits:run'], anonymous: true };
const SIMULATOR: RouteAccess = { scopes: ['execute:simulator'] };
const HARDWARE: RouteAccess = { scopes: ['execute:hardware'] };
// Reading or canceling runs of a provider that has both kinds of device.
const ANY_EXECUTE: RouteAccess = { scopes: ['execute:simulator', 'execute:hardware'] };
const BILLING_READ: RouteAccess = { scopes: ['billing:read'] };

/** Keyed by `METHOD url` as registered (Fastify's `:param` syntax). */
export const PLATFORM_ROUTE_ACCESS: Readonly<Record<string, RouteAccess>> = {
  'GET /v1/auth/me': PERSON,
  'POST /v1/auth/logout': PERSON,
  'POST /v1/auth/credentials': PERSON,
  'GET /v1/auth/credentials': PERSON,
  'DELETE /v1/auth/credentials/:credential_id': PERSON,

  'POST /v1/circuits/analyze': CIRCUITS,
  'POST /v1/circuits/optimize': CIRCUITS,
  // An async optimize's job belongs to an account: no anonymous reads.
  'GET /v1/circuits/optimize/jobs': { scopes: ['circuits:run'] },
  'GET /v1/circuits/optimize/jobs/:job_id': { scopes: ['circuits:run'] },
  'POST /v1/circuits/optimize/jobs/:job_id/cancel': { scopes: ['circuits:run'] },
  'POST /v1/analysis/coupling': CIRCUITS,
  'POST /v1/analysis/coupling/compare': CIRCUITS,

  'GET /v1/execute/capabilities': { ...ANY_EXECUTE, anonymous: true },
  'GET /v1/execute/provider-one/devices': { ...ANY_EXECUTE, anonymous: true },
  'GET /v1/execute/provider-two/devices': { ...ANY_EXECUTE, anonymous: true },
  'GET /v1/execute/jobs': ANY_EXECUTE,
  'POST /v1/execute/provider-one': SIMULATOR,
  'POST /v1/execute/provider-one/batch': SIMULATOR,
  // Provider One's hardware jobs (IBM Quantum) are read and canceled here too.
  'GET /v1/execute/provider-one/:job_id': ANY_EXECUTE,
  'POST /v1/execute/provider-one/:job_id/cancel': ANY_EXECUTE,
  'POST /v1/execute/provider-one/held/:job_id': HARDWARE,
  // Hardware devices answer 409 EXECUTION_HOLD_REQUIRED here: only simulator runs start at this route.
  'POST /v1/execute/provider-two': SIMULATOR,
  'POST /v1/execute/provider-two/batch': SIMULATOR,
  'GET /v1/execute/provider-two/:job_id': ANY_EXECUTE,
  'POST /v1/execute/provider-two/:job_id/cancel': ANY_EXECUTE,
  'POST /v1/execute/provider-two/held/:job_id': HARDWARE,
  'POST /v1/execute/provider-two/held/:job_id/batch': HARDWARE,

  'POST /v1/billing/hardware/quote': HARDWARE,
  'POST /v1/billing/hardware/hold': HARDWARE,
  'POST /v1/billing/hardware/hold/:job_id/release': HARDWARE,

  'GET /v1/billing/summary': BILLING_READ,
  'GET /v1/billing/wallet': BILLING_READ,
  'GET /v1/billing/jobs': BILLING_READ,
  'GET /v1/billing/ledger': BILLING_READ,
  'GET /v1/billing/dashboard': BILLING_READ,
  'GET /v1/billing/spend-controls': BILLING_READ,
  'GET /v1/billing/auto-recharge/attempts': BILLING_READ,
  'GET /v1/billing/recovery-status': BILLING_READ,
  'GET /v1/billing/profile': PERSON,
  'PATCH /v1/billing/spend-controls': PERSON,
  'POST /v1/billing/auto-recharge/test': PERSON,
  'POST /v1/billing/processor/customer': PERSON,
  'POST /v1/billing/processor/setup-intent': PERSON,
  'POST /v1/billing/processor/payment-intent': PERSON,
  'POST /v1/billing/processor/checkout-session': PERSON,
  'POST /v1/billing/processor/portal-session': PERSON,
  'POST /v1/billing/processor/reconcile-checkout': PERSON,

  'GET /v1/media/capabilities': PERSON,
  'POST /v1/chat': PERSON,
  'POST /v1/tts': PERSON,
  'GET /v1/tts/voices': PERSON,
};

/** The declared access of a route (undefined: not listed). */
export function routeAccess(method: string, url: string): RouteAccess | undefined {
  return PLATFORM_ROUTE_ACCESS[`${method.toUpperCase()} ${url}`];
}

/** The access of a bearer route not in the table: a person's session (or nobody, where anonymous callers are served). */
export function defaultAccess(anonymous: boolean): RouteAccess {
  return anonymous ? { person: true, anonymous: true } : PERSON;
}

/** The OpenAPI security requirements of a declared route: a session, or a machine token with one of the scopes. */
export function securityOf(access: RouteAccess): Array<Record<string, string[]>> {
  const alternatives: Array<Record<string, string[]>> = [{ session: [] }];
  if ('scopes' in access) for (const s of access.scopes) alternatives.push({ jobsToken: [s] }, { jobsOAuth: [s] });
  if (access.anonymous === true) alternatives.push({});
  return alternatives;
}
