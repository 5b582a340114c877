import { defineCode } from '../errors/app-error.js';

/** Error codes owned by the auth domain. Add each new code here and to docs/errors.md. */
export const AUTH_ERRORS = {
  EMAIL_TAKEN: defineCode('EMAIL_TAKEN', 409, 'An account with this email already exists.'),
  INVALID_CREDENTIALS: defineCode('INVALID_CREDENTIALS', 401, 'Email or password is wrong (the answer does not say which).'),
  // Shared by both interfaces (platform envelope, Jobs shape): one credential model, one refusal.
  INSUFFICIENT_SCOPE: defineCode(
    'INSUFFICIENT_SCOPE',
    403,
    'The machine credential or access token lacks the scope this operation needs; the message, `details.required_scopes` and `WWW-Authenticate: Bearer error="insufficient_scope", scope="…"` name it (any one of them suffices). A person’s session holds every scope.',
  ),
  SESSION_REQUIRED: defineCode(
    'SESSION_REQUIRED',
    403,
    'The operation is kept for a person’s session (managing credentials, the profile, spend-control changes, top-ups and payment methods, chat and speech): no scope lets a machine credential or its tokens do it. Sign in (POST /v1/auth/login).',
  ),
  LOGIN_THROTTLED: defineCode('LOGIN_THROTTLED', 429, 'Too many failed logins for this email or address; retry after `Retry-After` seconds.'),
} as const;
