import { Type } from 'typebox';
import type { App } from '../../app-types.js';
import { errors, okResponse } from '../../envelope-schemas.js';
import { Nullable, Obj, Usd } from '../../schema-helpers.js';
import { JobTagsSchema } from '../jobs/schemas.js';
import { personOf } from '../../plugins/auth.js';
import { formatMicros } from '../../../billing/money.js';

const tags = ['auth'];
const Iso = Type.String({ format: 'date-time' });
const NIso = Nullable(Iso);
const NStr = Nullable(Type.String());
const Id = Type.String({ format: 'uuid' });

const ExportView = Obj(
  {
    profile: Obj({ user_id: Id, account_id: Id, email: Type.String(), created_at: Iso, email_verified_at: NIso, two_factor_enabled: Type.Boolean(), password_changed_at: NIso }),
    wallet: Nullable(Obj({ available: Usd, held: Usd })),
    sessions: Type.Array(Obj({ session_id: Id, created_at: Iso, last_used_at: Iso, revoked_at: NIso, ip: NStr, user_agent: NStr })),
    credentials: Type.Array(
      Obj({
        credential_id: Id,
        name: Type.String(),
        scopes: Type.Array(Type.String()),
        secret_hint: Type.String({ description: 'Last 4 characters only' }),
        created_at: Iso,
        expires_at: NIso,
        revoked_at: NIso,
        last_used_at: NIso,
      }),
    ),
    jobs: Type.Array(
      Obj({
        job_id: Id,
        capability_id: Type.String(),
        status: Type.String(),
        created_at: Iso,
        updated_at: Iso,
        max_total_price: Usd,
        quoted_price: Usd,
        reserved_price: Usd,
        error_code: NStr,
        tags: JobTagsSchema,
        receipt_reference: NStr,
        receipt: Nullable(Type.Ref('JobReceipt')),
      }),
    ),
    execution_jobs: Type.Array(
      Obj({
        job_id: Id,
        provider: Type.String(),
        device: Type.String(),
        kind: Type.String(),
        status: Type.String(),
        shots: Type.Integer(),
        estimated_cost: Usd,
        actual_cost: Nullable(Usd),
        error_code: NStr,
        created_at: Iso,
      }),
    ),
    holds: Type.Array(
      Obj({
        hold_id: Id,
        kind: Type.String(),
        ref_id: Type.String(),
        description: Type.String(),
        status: Type.String(),
        amount: Usd,
        captured: Usd,
        released: Usd,
        refunded: Usd,
        created_at: Iso,
        resolved_at: NIso,
      }),
    ),
    ledger: Obj({
      transfers: Type.Array(
        Obj({ transfer_id: Id, kind: Type.String(), from_account: Type.String(), to_account: Type.String(), amount: Usd, description: Type.String(), hold_id: Nullable(Id), created_at: Iso }),
      ),
      entries: Type.Array(Obj({ transfer_id: Id, ledger_account: Type.String(), amount: Usd, created_at: Iso }), { description: 'Signed: negative leaves the ledger account' }),
    }),
  },
  { description: 'Everything the account holds; money history stays after closing, personal data does not' },
);

/** A person's own account: export everything it holds, and close it (issue #26, docs/accounts.md). */
export default async function accountDataRoutes(app: App): Promise<void> {
  const closure = app.services.closure;

  app.get(
    '/v1/auth/account/export',
    {
      onRequest: app.requireSession,
      schema: {
        tags,
        operationId: 'exportAccount',
        summary: 'Everything the account holds as JSON: profile, sessions, credentials metadata, jobs, receipts, holds and ledger (never a secret or a hash)',
        response: {
          200: okResponse(ExportView, 'The account’s data'),
        },
      },
    },
    async (req, reply) => {
      // Everything the account holds: no cache (browser or shared) may keep a copy (issue #34).
      reply.header('cache-control', 'no-store');
      return closure.exportData(personOf(req.principal));
    },
  );

  app.post(
    '/v1/auth/account/close',
    {
      onRequest: app.requireSession,
      config: { rateLimit: { bucket: 'auth', perMinute: app.config.rateLimit.authPerMinute } },
      schema: {
        tags,
        operationId: 'closeAccount',
        summary: 'Close the account: refuses while holds are open or jobs run; forfeits the available balance (accept_forfeiture); revokes everything; erases personal data, keeps the ledger',
        body: Obj({
          password: Type.String({ minLength: 1, maxLength: 128 }),
          code: Type.Optional(Type.String({ pattern: '^[0-9]{6}$', maxLength: 6, description: 'A TOTP code, when two-factor sign-in is on' })),
          recovery_code: Type.Optional(Type.String({ minLength: 16, maxLength: 40, pattern: '^[A-Za-z0-9 -]+$' })),
          accept_forfeiture: Type.Optional(Type.Boolean({ default: false, description: 'Closing forfeits the available balance; required when it is above zero' })),
        }),
        response: {
          200: okResponse(
            Obj({
              closed: Type.Literal(true),
              closed_at: Type.String({ format: 'date-time' }),
              forfeited: Type.String({ pattern: '^\\d+\\.\\d{6}$', description: 'USD forfeited (the available balance)' }),
              credentials_revoked: Type.Integer({ minimum: 0 }),
              sessions_revoked: Type.Integer({ minimum: 0 }),
            }),
            'Closed',
          ),
          ...errors(403, 409),
        },
      },
    },
    async (req) => {
      const p = personOf(req.principal);
      const b = req.body;
      const factor = b.code !== undefined ? { code: b.code } : b.recovery_code !== undefined ? { recoveryCode: b.recovery_code } : undefined;
      const r = await closure.close(p, { password: b.password, factor, acceptForfeiture: b.accept_forfeiture === true, ip: req.ip });
      return {
        closed: true as const,
        closed_at: r.closedAt.toISOString(),
        forfeited: formatMicros(r.forfeitedMicros),
        credentials_revoked: r.credentialsRevoked,
        sessions_revoked: r.sessionsRevoked,
      };
    },
  );
}
