import { defineCode } from '../errors/app-error.js';

/** Error codes owned by the auth domain. Add each new code here and to docs/errors.md. */
export const AUTH_ERRORS = {
} as const;
