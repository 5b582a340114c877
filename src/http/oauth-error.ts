/**
 * RFC 6749 §5.2 for the token endpoint's refusals that do not come from the grant itself: what
 * the edge refuses before the handler runs (broken or empty JSON, another media type, a body too
 * large or too deep, forbidden characters), the rate limit and the store. OAuth clients parse only
 * `{"error", "error_description"}` (issue #34 item 7; docs/decisions/auth-oauth-token-errors.md).
 */
import type { AppError } from '../errors/app-error.js';

export interface OAuthRefusal {
  readonly status: number;
  readonly body: { readonly error: string; readonly error_description: string };
}

// RFC 6749 §5.2: error_description is %x20-21 / %x23-5B / %x5D-7E.
const ascii = (s: string) =>
  s
    .replace(/…/g, '...')
    .replace(/[‘’]/g, "'")
    .replace(/[“”"]/g, "'")
    .replace(/\\/g, '/')
    .replace(/[^\x20-\x21\x23-\x5B\x5D-\x7E]/g, '');

/**
 * A client's mistake is 400 `invalid_request` whatever status the edge would give it (413, 415
 * included: §5.2 has no other); 401 stays `invalid_client`; the rate limit (429) and the service's
 * own trouble (5xx) keep their status and Retry-After, as `temporarily_unavailable` / `server_error`.
 */
export function oauthRefusal(e: AppError): OAuthRefusal {
  const description = ascii(`${e.message} (${e.code})`);
  if (e.statusCode === 401) return { status: 401, body: { error: 'invalid_client', error_description: description } };
  if (e.statusCode === 429 || e.statusCode === 503) return { status: e.statusCode, body: { error: 'temporarily_unavailable', error_description: description } };
  if (e.statusCode >= 500) return { status: e.statusCode, body: { error: 'server_error', error_description: description } };
  return { status: 400, body: { error: 'invalid_request', error_description: description } };
}
