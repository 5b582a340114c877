import type { ErrorCodeSpec } from './app-error.js';
import { HTTP_ERRORS } from './http-error-codes.js';
import { AUTH_ERRORS } from '../auth/error-codes.js';
import { CIRCUITS_ERRORS } from '../circuits/error-codes.js';
import { SIMULATION_ERRORS } from '../simulation/error-codes.js';
import { OPTIMIZATION_ERRORS } from '../optimization/error-codes.js';
import { COUPLING_ERRORS } from '../coupling/error-codes.js';
import { EXECUTION_ERRORS } from '../execution/error-codes.js';
import { BILLING_ERRORS } from '../billing/error-codes.js';
import { JOBS_ERRORS } from '../jobs/error-codes.js';
import { MEDIA_ERRORS } from '../media/error-codes.js';
import { COMPUTE_ERRORS } from '../compute/error-codes.js';
import { WEBHOOKS_ERRORS } from '../webhooks/error-codes.js';
import { OPTIMIZE_JOBS_ERRORS } from '../optimize-jobs/error-codes.js';
import { ORG_ERRORS } from '../orgs/error-codes.js';

/** Every error code qrail can answer with. docs/errors.md must list each one (tested). */
export const ERROR_CATALOGUE: readonly ErrorCodeSpec[] = [
  HTTP_ERRORS,
  AUTH_ERRORS,
  CIRCUITS_ERRORS,
  SIMULATION_ERRORS,
  OPTIMIZATION_ERRORS,
  COUPLING_ERRORS,
  EXECUTION_ERRORS,
  BILLING_ERRORS,
  JOBS_ERRORS,
  MEDIA_ERRORS,
  COMPUTE_ERRORS,
  WEBHOOKS_ERRORS,
  OPTIMIZE_JOBS_ERRORS,
  ORG_ERRORS,
].flatMap((group) => Object.values(group as Record<string, ErrorCodeSpec>));
