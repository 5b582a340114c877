import { Type } from 'typebox';
import type { App } from '../../app-types.js';
import { errors, okResponse } from '../../envelope-schemas.js';
import { operatorGuard, operatorRateLimit } from '../../plugins/operator-guard.js';
import { CreditGrantView, LedgerCheckView, UsdIn } from './schemas.js';

/**
 * Operator endpoints for `qrail credit grant` and `qrail ledger check` against a running
 * service on embedded PGlite (one process owns the data). Guarded by QRAIL_OPERATOR_TOKEN;
 * without a configured token they always answer 403.
 */
export default async function operatorRoutes(app: App): Promise<void> {
  const guard = operatorGuard(app);
  const tags = ['operator'];
  const security = [{ operatorToken: [] }];

  app.post(
    '/v1/billing/operator/credit-grant',
    {
      onRequest: guard,
      config: { rateLimit: operatorRateLimit(app), idempotent: 'operator' },
      schema: {
        tags,
        operationId: 'grantCredit',
        summary: 'Promotional credit through the ledger (operator token)',
        security,
        body: Type.Object(
          {
            email: Type.String({ format: 'email', maxLength: 254 }),
            amount: UsdIn,
            reason: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
            idempotency_key: Type.Optional(Type.String({ maxLength: 128, pattern: '^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$' })),
          },
          { additionalProperties: false },
        ),
        // 403 without the operator token; 404 no user with that email.
        response: { 200: okResponse(CreditGrantView, 'The grant (credited false when its idempotency key was already granted)'), ...errors(403, 404) },
      },
    },
    async (req) => {
      const b = req.body;
      return app.services.billing.grantCreditByEmail({
        email: b.email,
        amount: b.amount,
        ...(b.reason ? { reason: b.reason } : {}),
        ...(b.idempotency_key ? { idempotencyKey: b.idempotency_key } : {}),
      });
    },
  );

  app.get(
    '/v1/billing/operator/ledger-check',
    {
      onRequest: guard,
      config: { rateLimit: operatorRateLimit(app) },
      schema: {
        tags,
        operationId: 'checkLedger',
        summary: 'Reconciliation: recompute balances and check every ledger invariant (operator token)',
        security,
        response: { 200: okResponse(LedgerCheckView, 'The invariants checked and every problem found'), ...errors(403) },
      },
    },
    async () => app.services.billing.ledgerCheck(),
  );
}
