import { defineCode } from '../errors/app-error.js';

/** Error codes owned by the execution domain. Add each new code here and to docs/errors.md. */
export const EXECUTION_ERRORS = {
} as const;
