import { defineCode } from '../errors/app-error.js';

/** Error codes owned by the media domain. Add each new code here and to docs/errors.md. */
export const MEDIA_ERRORS = {
} as const;
