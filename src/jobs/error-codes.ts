import { defineCode } from '../errors/app-error.js';
import { codeNames } from '../errors/code-names.js';

/** Error codes owned by the jobs domain. Add each new code here and to docs/errors.md. */
export const JOBS_ERRORS = {
  UNKNOWN_CAPABILITY: defineCode('UNKNOWN_CAPABILITY', 400, 'The `capability_id` is not in the live catalog (GET /v1/catalog).'),
  PRICE_ABOVE_MAXIMUM: defineCode('PRICE_ABOVE_MAXIMUM', 409, 'The quoted price of the job is above the `max_total_price` of the request; `details` gives both. Nothing was reserved.'),
  JOB_NOT_FOUND: defineCode('JOB_NOT_FOUND', 404, 'No job with this id is available to this agent (it does not exist or belongs to another account).'),
  CREDENTIAL_NOT_FOUND: defineCode('CREDENTIAL_NOT_FOUND', 404, 'No agent credential with this id in the caller’s account.'),
  JOB_NOT_CANCELABLE: defineCode(
    'JOB_NOT_CANCELABLE',
    409,
    'The job (Account Job or execution job) already ended another way (completed, or failed with another code), or its result is already saved and it is being charged; `details.status` gives its state. A job it canceled answers 200 again instead.',
  ),
  CAPABILITY_UNAVAILABLE: defineCode(
    'CAPABILITY_UNAVAILABLE',
    503,
    'The capability is in the catalog but cannot run on this deployment now (`available: false` in GET /v1/catalog, e.g. no speech engine); `details.reason` says why. Nothing was reserved; retry once it is available.',
  ),
} as const;

/**
 * Values of a failed job's `error_code` that the jobs machinery itself sets (capabilities
 * add their domain's codes, e.g. CIRCUIT_INVALID). Not HTTP answers, so not in the
 * error catalogue; docs/jobs.md lists them.
 */
export const JOB_FAILURE_CODES = {
  WORKER_LOST: 'The worker running the job stopped (crash, kill) and the capability is not safe to run again, or it ran out of attempts.',
  HOLD_EXPIRED: 'The reservation expired before the job could be charged; nothing was charged.',
  CAPABILITY_UNAVAILABLE: 'The capability was withdrawn from the catalog after the job was queued; nothing was charged.',
  CANCELED: 'Canceled by POST /v1/jobs/{job_id}/cancel: before it ran, or stopped while it ran; nothing was captured and the reservation was released (the receipt says so).',
  CAPABILITY_FAILED: 'The capability failed with an unexpected error; nothing was charged.',
  BATCH_ALL_FAILED: 'Every item of a batch job (circuit.simulate.batch) failed; nothing was charged and the whole reservation was released.',
} as const;

/** The failure codes as constants (`JOB_FAILURE.WORKER_LOST`). */
export const JOB_FAILURE = codeNames(JOB_FAILURE_CODES);
