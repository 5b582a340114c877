import { defineCode } from '../errors/app-error.js';

/** Codes of async optimize (optimize jobs). Add each new code here and to docs/errors.md. */
export const OPTIMIZE_JOBS_ERRORS = {
  OPTIMIZE_JOB_NOT_FOUND: defineCode('OPTIMIZE_JOB_NOT_FOUND', 404, 'No optimize job with this id for this account (it does not exist or belongs to another account).'),
  OPTIMIZE_JOB_NOT_CANCELABLE: defineCode(
    'OPTIMIZE_JOB_NOT_CANCELABLE',
    409,
    'The optimize job already ended completed or failed; `details.status` says which. Canceling a canceled job answers it again (200).',
  ),
  OPTIMIZE_JOBS_TOO_MANY_OPEN: defineCode(
    'OPTIMIZE_JOBS_TOO_MANY_OPEN',
    429,
    'The account already has the most optimize jobs queued or running at once (`details.max_open`, 16): wait for one to end or cancel one, then submit again.',
  ),
} as const;

/** Codes an optimize job may fail with besides the optimizer's own (OPTIMIZATION_UNVERIFIED, …): stored in the job, never answered as an HTTP error. */
export const OPTIMIZE_JOB_FAILURE = {
  /** The workers running it kept stopping (crash, kill) more than the attempts limit. */
  WORKER_LOST: 'WORKER_LOST',
  /** An unexpected error of the computation (logged with the job id). */
  INTERNAL_ERROR: 'INTERNAL_ERROR',
} as const;
