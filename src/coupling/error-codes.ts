import { defineCode } from '../errors/app-error.js';

/** Error codes owned by the coupling domain. Add each new code here and to docs/errors.md. */
export const COUPLING_ERRORS = {
} as const;
