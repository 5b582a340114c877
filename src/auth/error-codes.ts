import { defineCode } from '../errors/app-error.js';

/** Error codes owned by the auth domain. Add each new code here and to docs/errors.md. */
export const AUTH_ERRORS = {
  EMAIL_TAKEN: defineCode('EMAIL_TAKEN', 409, 'An account with this email already exists.'),
  INVALID_CREDENTIALS: defineCode('INVALID_CREDENTIALS', 401, 'Email or password is wrong (the answer does not say which).'),
  LOGIN_THROTTLED: defineCode('LOGIN_THROTTLED', 429, 'Too many failed logins for this email or address; retry after `Retry-After` seconds.'),
} as const;
