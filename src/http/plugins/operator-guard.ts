import { timingSafeEqual } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import { fail } from '../../errors/app-error.js';
import { BILLING_ERRORS } from '../../billing/error-codes.js';
import type { App } from '../app-types.js';
import { bearerToken } from './auth.js';

/**
 * The guard of operator endpoints: `Authorization: Bearer <QRAIL_OPERATOR_TOKEN>` compared in
 * constant time; without a configured token every call is 403 OPERATOR_FORBIDDEN
 * (docs/decisions/billing-operator-access.md). A wrong token counts against the caller's address:
 * past RATE_LIMIT_AUTH_PER_MINUTE failures in a minute every operator call from it is 429, checked
 * before the token is compared (issue #34 item 5). Operator routes also take the general
 * per-address limit (RATE_LIMIT_PER_MINUTE) in their own bucket.
 */
export function operatorGuard(app: App): (req: FastifyRequest) => Promise<void> {
  const expected = app.config.operatorToken;
  return async (req) => {
    await app.failedAuth.check(req, OPERATOR_FAILURES);
    const got = bearerToken(req).token;
    const ok = expected !== undefined && got !== undefined && got.length === expected.length && timingSafeEqual(Buffer.from(got), Buffer.from(expected));
    if (ok) return;
    await app.failedAuth.record(req, OPERATOR_FAILURES);
    throw fail(BILLING_ERRORS.OPERATOR_FORBIDDEN, 'Operator token required (Authorization: Bearer <QRAIL_OPERATOR_TOKEN>).');
  };
}

const OPERATOR_FAILURES = 'operator-auth-failed';

/** The rate-limit config of an operator route: the general per-address limit, in its own bucket. */
export function operatorRateLimit(app: App): { bucket: string; perMinute: number } {
  return { bucket: 'operator', perMinute: app.config.rateLimit.perMinute };
}
