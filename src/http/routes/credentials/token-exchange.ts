/**
 * OAuth 2.0 Token Exchange (RFC 8693) at the token endpoint: a person's platform session traded
 * for a short Jobs access token on the same account, so a signed-in person (the web console)
 * reads and submits Account Jobs with a credential the Jobs interface accepts (spec §5) and
 * no machine secret in the browser. The token ends with the session (sign-out, expiry).
 */
import { Type } from 'typebox';
import { CREDENTIAL_SCOPES, isCredentialScope, type CredentialScope } from '../../../auth/credentials.js';
import type { App } from '../../app-types.js';

export const TOKEN_EXCHANGE_GRANT = 'urn:ietf:params:oauth:grant-type:token-exchange';
/** Our token type URI for a platform session token (qrs_…); RFC 8693 §3 allows deployment-defined URIs. */
export const SESSION_TOKEN_TYPE = 'urn:qrail:params:oauth:token-type:session';
const ACCESS_TOKEN_TYPE = 'urn:ietf:params:oauth:token-type:access_token';

export const TokenExchangeRequest = Type.Object(
  {
    grant_type: Type.Literal(TOKEN_EXCHANGE_GRANT),
    subject_token: Type.String({ maxLength: 256, description: 'A platform session token (qrs_…) from POST /v1/auth/login' }),
    subject_token_type: Type.Literal(SESSION_TOKEN_TYPE),
    requested_token_type: Type.Optional(Type.Literal(ACCESS_TOKEN_TYPE)),
    scope: Type.Optional(Type.String({ maxLength: 256, description: 'Space-separated scopes (default: all of them; a session holds every scope)' })),
  },
  { additionalProperties: false, description: 'RFC 8693 token exchange: a session for a Jobs access token' },
);

export type ExchangeOutcome =
  | { readonly ok: true; readonly body: { access_token: string; issued_token_type: string; token_type: 'Bearer'; expires_in: number; scope: string } }
  | { readonly ok: false; readonly status: number; readonly error: string; readonly description: string };

export async function exchangeSession(app: App, body: Record<string, unknown>): Promise<ExchangeOutcome> {
  const refuse = (error: string, description: string): ExchangeOutcome => ({ ok: false, status: 400, error, description });
  if (body['subject_token_type'] !== SESSION_TOKEN_TYPE) return refuse('invalid_request', `subject_token_type must be ${SESSION_TOKEN_TYPE}.`);
  if (body['requested_token_type'] !== undefined && body['requested_token_type'] !== ACCESS_TOKEN_TYPE) {
    return refuse('invalid_request', `requested_token_type must be ${ACCESS_TOKEN_TYPE}.`);
  }
  const token = body['subject_token'];
  if (typeof token !== 'string' || token.length > 256) return refuse('invalid_request', 'subject_token is required: a session token from POST /v1/auth/login.');
  let scopes: CredentialScope[] = [...CREDENTIAL_SCOPES];
  if (typeof body['scope'] === 'string' && body['scope'].trim() !== '') {
    const asked = body['scope'].trim().split(/\s+/);
    if (!asked.every(isCredentialScope)) return refuse('invalid_scope', `Scopes are a subset of: ${CREDENTIAL_SCOPES.join(' ')}.`);
    scopes = [...new Set(asked)];
  }
  const check = await app.services.sessions.check(token);
  if (check.state !== 'valid' || check.session === undefined) {
    // RFC 8693 §2.2.2: an unusable subject token is invalid_request.
    return refuse('invalid_request', `The session is ${check.state === 'malformed' || check.state === 'missing' ? 'not a session token' : check.state}; sign in again.`);
  }
  const s = check.session;
  const expiresAt = new Date(Math.min(s.idleExpiresAt.getTime(), s.absoluteExpiresAt.getTime()));
  const t = await app.services.jobsTokens.issueForSession({ sessionId: s.id, userId: s.userId, accountId: s.accountId, expiresAt }, scopes);
  return { ok: true, body: { access_token: t.accessToken, issued_token_type: ACCESS_TOKEN_TYPE, token_type: 'Bearer', expires_in: t.expiresIn, scope: t.scope } };
}
