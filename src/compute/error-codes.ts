import { defineCode } from '../errors/app-error.js';

/** Codes of the compute pool and of the anonymous compute limits (src/http/anonymous-compute.ts). */
export const COMPUTE_ERRORS = {
  CONCURRENCY_LIMITED: defineCode(
    'CONCURRENCY_LIMITED',
    429,
    'Too many compute requests (optimize, coupling, analyze) without a session in flight from this address at once; wait for one to finish and retry after `Retry-After` seconds. `details` has the limit. Account Jobs have no such limit.',
  ),
  // 499 (nginx's "client closed request"): the client's own doing, so not a 5xx in logs and metrics.
  COMPUTE_CANCELED: defineCode('COMPUTE_CANCELED', 499, 'The compute task was stopped because its client disconnected; recorded in the access log only, since nobody is left to read the answer.'),
} as const;
