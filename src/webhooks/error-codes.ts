import { defineCode } from '../errors/app-error.js';

/** Error codes owned by outbound webhooks (docs/webhooks.md). Add each new code here and to docs/errors.md. */
export const WEBHOOKS_ERRORS = {
  WEBHOOK_ENDPOINT_NOT_FOUND: defineCode('WEBHOOK_ENDPOINT_NOT_FOUND', 404, 'No such webhook endpoint for this account (or it was deleted).'),
  WEBHOOK_DELIVERY_NOT_FOUND: defineCode('WEBHOOK_DELIVERY_NOT_FOUND', 404, 'No such webhook delivery for this account.'),
  WEBHOOK_URL_NOT_ALLOWED: defineCode(
    'WEBHOOK_URL_NOT_ALLOWED',
    400,
    'The endpoint URL is not an http(s) URL without credentials, or its host resolves to an address that is not globally reachable (an IANA special-purpose block: private, loopback, documentation, …); `details.reason` says which.',
  ),
  WEBHOOK_URL_UNRESOLVABLE: defineCode('WEBHOOK_URL_UNRESOLVABLE', 400, 'The endpoint URL’s host name does not resolve to any address.'),
  WEBHOOK_ENDPOINT_LIMIT: defineCode('WEBHOOK_ENDPOINT_LIMIT', 409, 'The account already has the maximum number of webhook endpoints (16); delete one first.'),
  WEBHOOK_ENDPOINT_DISABLED: defineCode('WEBHOOK_ENDPOINT_DISABLED', 409, 'The endpoint is disabled; enable it (POST /v1/webhooks/endpoints/{id}/enable) before asking for a redelivery.'),
} as const;
