import { defineCode } from '../errors/app-error.js';

/** Codes of the compute pool and of the anonymous compute limits (src/http/anonymous-compute.ts). */
export const COMPUTE_ERRORS = {
  CONCURRENCY_LIMITED: defineCode(
    'CONCURRENCY_LIMITED',
    429,
    'Too many compute requests (optimize, coupling) in flight from this address at once; wait for one to finish and retry after `Retry-After` seconds. `details` has the limit. Account Jobs have no such limit.',
  ),
  COMPUTE_CANCELED: defineCode(
    'COMPUTE_CANCELED',
    503,
    'The compute task was stopped because its request went away (the client disconnected); only ever logged, since nobody is left to read it.',
  ),
} as const;
