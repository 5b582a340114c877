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
  EMAIL_NOT_VERIFIED: defineCode(
    'EMAIL_NOT_VERIFIED',
    403,
    'The account’s email is not confirmed yet: it cannot top up, hold funds or create machine credentials. Open the emailed link, or ask for a new one at `POST /v1/auth/email/verification`.',
  ),
  ACCOUNT_TOKEN_INVALID: defineCode('ACCOUNT_TOKEN_INVALID', 400, 'The emailed link is unknown, already used or expired; ask for a new one.'),
  MAIL_THROTTLED: defineCode('MAIL_THROTTLED', 429, 'Too many mails asked for this email or address; retry after `Retry-After` seconds.'),
  CURRENT_PASSWORD_WRONG: defineCode('CURRENT_PASSWORD_WRONG', 403, 'The current password given to change it is wrong.'),
  SESSION_NOT_FOUND: defineCode('SESSION_NOT_FOUND', 404, 'No active session with this id belongs to the caller.'),
  MFA_REQUIRED: defineCode('MFA_REQUIRED', 401, 'The password was right and two-factor sign-in is on: `details.challenge_id` completes the sign-in at `POST /v1/auth/login/mfa` with a code.'),
  MFA_CHALLENGE_INVALID: defineCode('MFA_CHALLENGE_INVALID', 401, 'The two-factor challenge is unknown, used or expired; log in again.'),
  MFA_CODE_INVALID: defineCode('MFA_CODE_INVALID', 401, 'The authenticator or recovery code is wrong (or was already used).'),
  MFA_THROTTLED: defineCode('MFA_THROTTLED', 429, 'Too many wrong two-factor codes for this account; retry after `Retry-After` seconds.'),
  MFA_ALREADY_ENABLED: defineCode('MFA_ALREADY_ENABLED', 409, 'Two-factor sign-in is already on; disable it first to enrol a new authenticator.'),
  MFA_NOT_ENABLED: defineCode('MFA_NOT_ENABLED', 409, 'Two-factor sign-in is not on (or no enrolment is pending) for this account.'),
  ACCOUNT_BUSY: defineCode('ACCOUNT_BUSY', 409, 'The account cannot close while holds are open or jobs are queued or running; `details` counts them.'),
  BALANCE_NOT_SETTLED: defineCode('BALANCE_NOT_SETTLED', 409, 'The account has an available balance, which closing forfeits: repeat with `accept_forfeiture: true` (or spend it first).'),
} as const;
