import { defineCode } from '../errors/app-error.js';

/** Error codes owned by the jobs domain. Add each new code here and to docs/errors.md. */
export const JOBS_ERRORS = {
} as const;
