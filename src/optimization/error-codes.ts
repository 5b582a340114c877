import { defineCode } from '../errors/app-error.js';

/** Error codes owned by the optimization domain. Add each new code here and to docs/errors.md. */
export const OPTIMIZATION_ERRORS = {
} as const;
