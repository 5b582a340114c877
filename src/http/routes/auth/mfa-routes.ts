import { Type } from 'typebox';
import type { SecondFactor } from '../../../auth/two-factor-service.js';
import type { App } from '../../app-types.js';
import { errors, okResponse } from '../../envelope-schemas.js';
import { Obj } from '../../schema-helpers.js';
import { personOf } from '../../plugins/auth.js';
import { SessionView, originOf, sessionAnswer } from './auth-routes.js';

const tags = ['auth'];
const Code = Type.String({ pattern: '^[0-9]{6}$', maxLength: 6, description: 'The 6-digit code of the authenticator app' });
const RecoveryCode = Type.String({ minLength: 16, maxLength: 40, pattern: '^[A-Za-z0-9 -]+$', description: 'One of the ten recovery codes (single use)' });
const Factor = Type.Union([Obj({ code: Code }), Obj({ recovery_code: RecoveryCode })]);

const factorOf = (b: { code: string } | { recovery_code: string }): SecondFactor => ('code' in b ? { code: b.code } : { recoveryCode: b.recovery_code });

/** Two-factor sign-in with TOTP (RFC 6238): enrol, confirm, disable, and the login's second step. */
export default async function mfaRoutes(app: App): Promise<void> {
  const twoFactor = app.services.twoFactor;
  const authLimit = { bucket: 'auth', perMinute: app.config.rateLimit.authPerMinute };

  app.post(
    '/v1/auth/mfa/totp',
    {
      onRequest: app.requireSession,
      schema: {
        tags,
        operationId: 'enrolTotp',
        summary: 'Start TOTP enrolment: a new secret and its otpauth:// URI (confirm with a first code)',
        response: { 200: okResponse(Obj({ secret: Type.String({ description: 'Base32 secret for manual entry' }), otpauth_uri: Type.String() }), 'The pending secret'), ...errors(409) },
      },
    },
    async (req) => {
      const r = await twoFactor.enrol(personOf(req.principal).userId);
      return { secret: r.secret, otpauth_uri: r.otpauthUri };
    },
  );

  app.post(
    '/v1/auth/mfa/totp/confirm',
    {
      onRequest: app.requireSession,
      config: { rateLimit: authLimit },
      schema: {
        tags,
        operationId: 'confirmTotp',
        summary: 'Turn two-factor sign-in on with a first code; returns ten recovery codes, shown once',
        body: Obj({ code: Code }),
        response: { 200: okResponse(Obj({ enabled: Type.Literal(true), recovery_codes: Type.Array(Type.String(), { minItems: 10, maxItems: 10 }) }), 'On, with the recovery codes'), ...errors(409) },
      },
    },
    async (req) => ({ enabled: true as const, recovery_codes: (await twoFactor.confirm(personOf(req.principal).userId, req.body.code)).recoveryCodes }),
  );

  app.post(
    '/v1/auth/mfa/totp/disable',
    {
      onRequest: app.requireSession,
      config: { rateLimit: authLimit },
      schema: {
        tags,
        operationId: 'disableTotp',
        summary: 'Turn two-factor sign-in off; needs a current code or a recovery code',
        body: Factor,
        response: { 200: okResponse(Obj({ enabled: Type.Literal(false) }), 'Off'), ...errors(409) },
      },
    },
    async (req) => {
      await twoFactor.disable(personOf(req.principal).userId, factorOf(req.body));
      return { enabled: false as const };
    },
  );

  app.post(
    '/v1/auth/login/mfa',
    {
      config: { rateLimit: authLimit },
      schema: {
        tags,
        operationId: 'completeMfaLogin',
        summary: 'Complete a login that answered mfa_required with a code or a recovery code',
        body: Type.Union([
          Obj({ challenge_id: Type.String({ format: 'uuid', maxLength: 36 }), code: Code }),
          Obj({ challenge_id: Type.String({ format: 'uuid', maxLength: 36 }), recovery_code: RecoveryCode }),
        ]),
        response: { 200: okResponse(SessionView, 'A new session: its token is shown once'), ...errors(401) },
      },
    },
    async (req) => {
      const b = req.body;
      const { token, session } = await twoFactor.complete(b.challenge_id.toLowerCase(), factorOf(b), originOf(req));
      return sessionAnswer(app, token, session);
    },
  );
}
