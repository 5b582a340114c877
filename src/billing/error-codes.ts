import { defineCode } from '../errors/app-error.js';

/** Error codes owned by the billing domain. Add each new code here and to docs/errors.md. */
export const BILLING_ERRORS = {
} as const;
