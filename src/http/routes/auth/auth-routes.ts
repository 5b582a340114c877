import { Type } from 'typebox';
import { fail } from '../../../errors/app-error.js';
import { HTTP_ERRORS } from '../../../errors/http-error-codes.js';
import { AUTH_ERRORS } from '../../../auth/error-codes.js';
import type { App } from '../../app-types.js';
import { errors, okResponse } from '../../envelope-schemas.js';
import { Obj } from '../../schema-helpers.js';
import { bearerToken, personOf } from '../../plugins/auth.js';
import type { FastifyRequest } from 'fastify';
import type { SessionOrigin, SessionRecord } from '../../../auth/session-service.js';

export const PASSWORD_MIN = 8;
export const PASSWORD_MAX = 128;
/** The length rules of every password a person sets (registration, reset, change). */
export const Password = Type.String({ minLength: PASSWORD_MIN, maxLength: PASSWORD_MAX });

const Credentials = Type.Object(
  {
    email: Type.String({ format: 'email', maxLength: 254, description: 'Login email (case-insensitive)' }),
    password: Password,
  },
  { additionalProperties: false },
);

const UserView = Obj({
  user_id: Type.String({ format: 'uuid' }),
  account_id: Type.String({ format: 'uuid' }),
  email: Type.String(),
  created_at: Type.String({ format: 'date-time' }),
});

export const SessionView = Obj({
  token: Type.String({ pattern: '^qrs_[A-Za-z0-9_-]{43}$', description: 'Opaque bearer token (qrs_ + 256 random bits). Shown once.' }),
  token_type: Type.Literal('Bearer'),
  session_id: Type.String({ format: 'uuid' }),
  expires_at: Type.String({ format: 'date-time', description: 'When it expires if idle (sliding)' }),
  absolute_expires_at: Type.String({ format: 'date-time' }),
  user: UserView,
});

/** The login answer of a new session (login, the two-factor step). */
export async function sessionAnswer(app: App, token: string, session: SessionRecord) {
  const user = await app.services.sessions.user(session.userId);
  if (user === null) throw fail(HTTP_ERRORS.INTERNAL_ERROR, 'user vanished during login');
  return {
    token,
    token_type: 'Bearer' as const,
    session_id: session.id,
    expires_at: session.idleExpiresAt.toISOString(),
    absolute_expires_at: session.absoluteExpiresAt.toISOString(),
    user: { user_id: user.id, account_id: user.accountId, email: user.email, created_at: user.createdAt.toISOString() },
  };
}

/** Where a session starts from: the client address and its User-Agent (bounded), for the session list. */
export function originOf(req: FastifyRequest): SessionOrigin {
  const ua = req.headers['user-agent'];
  return { ip: req.ip, userAgent: typeof ua === 'string' && ua !== '' ? ua.slice(0, 256) : null };
}

const Diagnostics = Obj({
  token_present: Type.Boolean(),
  token_state: Type.Union(['missing', 'malformed', 'unknown', 'valid', 'expired', 'revoked'].map((s) => Type.Literal(s))),
  valid: Type.Boolean(),
  session_id: Type.Optional(Type.String({ format: 'uuid' })),
  expired_by: Type.Optional(Type.Union([Type.Literal('idle'), Type.Literal('absolute')])),
  expires_at: Type.Optional(Type.String({ format: 'date-time' })),
  absolute_expires_at: Type.Optional(Type.String({ format: 'date-time' })),
  revoked_at: Type.Optional(Type.String({ format: 'date-time' })),
  hint: Type.String(),
});

const HINTS: Record<string, string> = {
  missing: 'Send Authorization: Bearer <token> from POST /v1/auth/login.',
  malformed: 'The Authorization header must be "Bearer qrs_…" with the token exactly as login returned it.',
  unknown: 'This token is not a session of this service; log in again.',
  valid: 'The session is valid.',
  expired: 'The session expired; log in again.',
  revoked: 'The session was revoked by logout; log in again.',
};

export default async function authRoutes(app: App): Promise<void> {
  const authLimit = { bucket: 'auth', perMinute: app.config.rateLimit.authPerMinute };

  app.post(
    '/v1/auth/register',
    {
      config: { rateLimit: authLimit },
      schema: {
        tags: ['auth'],
        operationId: 'registerUser',
        summary: 'Create a user and its account',
        body: Credentials,
        response: { 201: okResponse(UserView, 'The user and its new account'), ...errors(409) },
      },
    },
    async (req, reply) => {
      const u = await app.services.sessions.register(req.body.email, req.body.password);
      // The first verification link; a new one is asked for at POST /v1/auth/email/verification.
      await app.services.accounts.sendVerification(u.id, null);
      reply.code(201);
      return { user_id: u.id, account_id: u.accountId, email: u.email, created_at: u.createdAt.toISOString() };
    },
  );

  app.post(
    '/v1/auth/login',
    {
      config: { rateLimit: authLimit },
      schema: {
        tags: ['auth'],
        operationId: 'login',
        summary: 'Log in; returns a bearer session token at data.token (two-factor sign-in on: 401 MFA_REQUIRED with a challenge to complete at POST /v1/auth/login/mfa)',
        body: Credentials,
        // 401 INVALID_CREDENTIALS (not a token problem, so declared here); 429 also LOGIN_THROTTLED.
        // 401 also MFA_REQUIRED: the password was right, a second factor completes the sign-in.
        response: { 200: okResponse(SessionView, 'A new session: its token is shown once'), ...errors(401) },
      },
    },
    async (req) => {
      const r = await app.services.sessions.login(req.body.email, req.body.password, originOf(req));
      if (r.kind === 'session') return sessionAnswer(app, r.token, r.session);
      const c = await app.services.twoFactor.challenge(r.user.id);
      throw fail(AUTH_ERRORS.MFA_REQUIRED, 'Two-factor sign-in is on: complete it at POST /v1/auth/login/mfa with details.challenge_id and a code.', {
        mfa_required: true,
        challenge_id: c.challengeId,
        expires_at: c.expiresAt.toISOString(),
        methods: ['totp', 'recovery_code'],
      });
    },
  );

  app.get(
    '/v1/auth/me',
    {
      onRequest: app.requireSession,
      schema: {
        tags: ['auth'],
        operationId: 'getCurrentUser',
        summary: 'The session’s user',
        response: { 200: okResponse(Obj({ user: UserView, session_id: Type.String({ format: 'uuid' }) }), 'The user of the session') },
      },
    },
    async (req, reply) => {
      const p = personOf(req.principal);
      // Personal data and the session id: no cache (browser or shared) may keep it (issue #34).
      reply.header('cache-control', 'no-store');
      return {
        session_id: p.sessionId,
        user: { user_id: p.userId, account_id: p.accountId, email: p.email, created_at: p.userCreatedAt.toISOString() },
      };
    },
  );

  app.post(
    '/v1/auth/logout',
    {
      onRequest: app.requireSession,
      schema: {
        tags: ['auth'],
        operationId: 'logout',
        summary: 'Revoke the current session at once',
        response: { 200: okResponse(Obj({ revoked: Type.Literal(true), session_id: Type.String({ format: 'uuid' }) }), 'The session is revoked') },
      },
    },
    async (req) => {
      const token = bearerToken(req).token;
      if (token !== undefined) await app.services.sessions.logout(token);
      return { revoked: true, session_id: personOf(req.principal).sessionId };
    },
  );

  app.get(
    '/v1/auth/diagnostics',
    {
      schema: {
        tags: ['auth'],
        operationId: 'getTokenDiagnostics',
        summary: 'Whether a token was sent and its state; never returns a secret',
        response: { 200: okResponse(Diagnostics, 'The state of the bearer token sent (if any)') },
      },
    },
    async (req) => {
      const b = bearerToken(req);
      const check = b.present && b.token === undefined ? { state: 'malformed' as const } : await app.services.sessions.check(b.token);
      const out: Record<string, unknown> = { token_present: b.present, token_state: check.state, valid: check.state === 'valid', hint: HINTS[check.state] ?? '' };
      if ('session' in check && check.session !== undefined) {
        const s = check.session;
        out['session_id'] = s.id;
        out['expires_at'] = new Date(Math.min(s.idleExpiresAt.getTime(), s.absoluteExpiresAt.getTime())).toISOString();
        out['absolute_expires_at'] = s.absoluteExpiresAt.toISOString();
        if (s.revokedAt !== null) out['revoked_at'] = s.revokedAt.toISOString();
      }
      if ('expiredBy' in check && check.expiredBy !== undefined) out['expired_by'] = check.expiredBy;
      return out;
    },
  );
}
