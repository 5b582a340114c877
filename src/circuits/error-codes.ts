import { defineCode } from '../errors/app-error.js';

/** Error codes owned by the circuits domain. Add each new code here and to docs/errors.md. */
export const CIRCUITS_ERRORS = {
} as const;
