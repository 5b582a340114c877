import { timingSafeEqual } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import { fail } from '../../errors/app-error.js';
import { BILLING_ERRORS } from '../../billing/error-codes.js';
import type { App } from '../app-types.js';
import { bearerToken } from './auth.js';

/**
 * The guard of operator endpoints: `Authorization: Bearer <QRAIL_OPERATOR_TOKEN>` compared in
 * constant time; without a configured token every call is 403 OPERATOR_FORBIDDEN
 * (docs/decisions/billing-operator-access.md).
 */
export function operatorGuard(app: App): (req: FastifyRequest) => Promise<void> {
  const expected = app.config.operatorToken;
  return async (req) => {
    const got = bearerToken(req).token;
    const ok = expected !== undefined && got !== undefined && got.length === expected.length && timingSafeEqual(Buffer.from(got), Buffer.from(expected));
    if (!ok) throw fail(BILLING_ERRORS.OPERATOR_FORBIDDEN, 'Operator token required (Authorization: Bearer <QRAIL_OPERATOR_TOKEN>).');
  };
}
