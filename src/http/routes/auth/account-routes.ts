import { Type } from 'typebox';
import type { App } from '../../app-types.js';
import { errors, okResponse } from '../../envelope-schemas.js';
import { Obj } from '../../schema-helpers.js';
import { personOf } from '../../plugins/auth.js';
import { Password } from './auth-routes.js';
import { decodeCursor, encodeCursor } from '../../../kernel/list-cursor.js';

const tags = ['auth'];
const Token = (prefix: string) => Type.String({ pattern: `^${prefix}[A-Za-z0-9_-]{43}$`, maxLength: 47, description: 'The token of the emailed link' });

const SessionItem = Obj({
  session_id: Type.String({ format: 'uuid' }),
  created_at: Type.String({ format: 'date-time' }),
  last_used_at: Type.String({ format: 'date-time', description: 'Updated at most once a minute' }),
  expires_at: Type.String({ format: 'date-time' }),
  ip: Type.Union([Type.String(), Type.Null()], { description: 'Client address the session was started from' }),
  user_agent: Type.Union([Type.String(), Type.Null()]),
  current: Type.Boolean({ description: 'The session of this request' }),
});

/**
 * Email verification, password reset and change, and the caller's sessions (issue #26,
 * docs/accounts.md). Forgot and reset take no session; the rest act on the session's user.
 */
export default async function accountRoutes(app: App): Promise<void> {
  const accounts = app.services.accounts;
  const authLimit = { bucket: 'auth', perMinute: app.config.rateLimit.authPerMinute };

  app.post(
    '/v1/auth/email/verification',
    {
      onRequest: app.requireSession,
      config: { rateLimit: authLimit },
      schema: {
        tags,
        operationId: 'resendEmailVerification',
        summary: 'Mail a new email verification link (throttled: MAIL_THROTTLED)',
        response: { 200: okResponse(Obj({ email_verified: Type.Boolean(), sent: Type.Boolean({ description: 'false when the email is already verified' }) }), 'Whether a link was sent') },
      },
    },
    async (req) => {
      const r = await accounts.sendVerification(personOf(req.principal).userId, req.ip);
      return { email_verified: r.alreadyVerified, sent: !r.alreadyVerified };
    },
  );

  app.post(
    '/v1/auth/email/verify',
    {
      config: { rateLimit: authLimit },
      schema: {
        tags,
        operationId: 'verifyEmail',
        summary: 'Confirm the email with the token of the mailed link (single use)',
        body: Obj({ token: Token('qrv_') }),
        response: { 200: okResponse(Obj({ email_verified: Type.Literal(true), user_id: Type.String({ format: 'uuid' }) }), 'The email is confirmed') },
      },
    },
    async (req) => ({ email_verified: true as const, user_id: (await accounts.verifyEmail(req.body.token)).userId }),
  );

  app.post(
    '/v1/auth/password/forgot',
    {
      config: { rateLimit: authLimit },
      schema: {
        tags,
        operationId: 'forgotPassword',
        summary: 'Mail a password reset link if an account has this email; the answer is the same either way',
        body: Obj({ email: Type.String({ format: 'email', maxLength: 254 }) }),
        response: { 202: okResponse(Obj({ accepted: Type.Literal(true), message: Type.String() }), 'Always this answer, whether or not the email has an account') },
      },
    },
    async (req, reply) => {
      await accounts.forgotPassword(req.body.email, req.ip);
      reply.code(202);
      return { accepted: true as const, message: 'If an account has this email, a reset link is on its way.' };
    },
  );

  app.post(
    '/v1/auth/password/reset',
    {
      config: { rateLimit: authLimit },
      schema: {
        tags,
        operationId: 'resetPassword',
        summary: 'Set a new password with the token of the mailed link; every session ends and the machine credentials are revoked unless kept',
        body: Obj({
          token: Token('qrp_'),
          password: Password,
          keep_credentials: Type.Optional(
            Type.Boolean({
              default: false,
              description: 'Keep the account’s machine credentials (and their access tokens) working. By default a reset revokes them: it is how a taken-over account is recovered.',
            }),
          ),
        }),
        response: {
          200: okResponse(
            Obj({
              password_changed: Type.Literal(true),
              sessions_ended: Type.Literal(true),
              credentials_revoked: Type.Integer({ minimum: 0, description: 'Machine credentials revoked by this reset (0 when kept)' }),
            }),
            'The new password is set; log in with it',
          ),
        },
      },
    },
    async (req) => {
      const r = await accounts.resetPassword(req.body.token, req.body.password, req.body.keep_credentials === true);
      return { password_changed: true as const, sessions_ended: true as const, credentials_revoked: r.credentialsRevoked };
    },
  );

  app.post(
    '/v1/auth/password',
    {
      onRequest: app.requireSession,
      config: { rateLimit: authLimit },
      schema: {
        tags,
        operationId: 'changePassword',
        summary: 'Change the password with the current one; every other session ends',
        body: Obj({ current_password: Type.String({ minLength: 1, maxLength: 128 }), new_password: Password }),
        response: { 200: okResponse(Obj({ password_changed: Type.Literal(true) }), 'Changed; this session stays, the others ended'), ...errors(403) },
      },
    },
    async (req) => {
      const p = personOf(req.principal);
      await accounts.changePassword(p, req.body.current_password, req.body.new_password, req.ip);
      return { password_changed: true as const };
    },
  );

  app.get(
    '/v1/auth/sessions',
    {
      onRequest: app.requireSession,
      schema: {
        tags,
        operationId: 'listSessions',
        summary: 'The signed-in sessions of the caller: active ones, newest first, a page at a time',
        querystring: Obj({ limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 20 })), cursor: Type.Optional(Type.String({ maxLength: 200 })) }),
        response: {
          200: okResponse(Obj({ items: Type.Array(SessionItem), next_cursor: Type.Union([Type.String(), Type.Null()]), has_more: Type.Boolean() }), 'A page of active sessions'),
        },
      },
    },
    async (req) => {
      const p = personOf(req.principal);
      const limit = req.query.limit ?? 20;
      const rows = await accounts.listSessions(p.userId, { limit: limit + 1, before: decodeCursor(req.query.cursor) });
      const page = rows.slice(0, limit);
      const last = page[page.length - 1];
      const items = page.map((s) => ({
        session_id: s.id,
        created_at: s.createdAt.toISOString(),
        last_used_at: s.lastUsedAt.toISOString(),
        expires_at: s.expiresAt.toISOString(),
        ip: s.ip,
        user_agent: s.userAgent,
        current: s.id === p.sessionId,
      }));
      const more = rows.length > limit && last !== undefined;
      return { items, next_cursor: more ? encodeCursor({ createdAtMicros: last.createdAtMicros, id: last.id }) : null, has_more: more };
    },
  );

  app.delete(
    '/v1/auth/sessions/:session_id',
    {
      onRequest: app.requireSession,
      schema: {
        tags,
        operationId: 'revokeSession',
        summary: 'End one of the caller’s sessions',
        params: Obj({ session_id: Type.String({ format: 'uuid', maxLength: 36 }) }),
        response: { 200: okResponse(Obj({ revoked: Type.Literal(true), session_id: Type.String({ format: 'uuid' }) }), 'The session is ended'), ...errors(404) },
      },
    },
    async (req) => {
      const id = req.params.session_id.toLowerCase();
      await accounts.revokeSession(personOf(req.principal).userId, id);
      return { revoked: true as const, session_id: id };
    },
  );

  app.post(
    '/v1/auth/sessions/revoke-all',
    {
      onRequest: app.requireSession,
      schema: {
        tags,
        operationId: 'revokeAllSessions',
        summary: 'Sign out everywhere (this session too); machine credentials only with include_credentials',
        body: Obj({ include_credentials: Type.Optional(Type.Boolean({ default: false, description: 'Also revoke every machine credential of the account' })) }),
        response: { 200: okResponse(Obj({ sessions_revoked: Type.Integer({ minimum: 0 }), credentials_revoked: Type.Integer({ minimum: 0 }) }), 'What was ended') },
      },
    },
    async (req) => {
      const r = await accounts.revokeAll(personOf(req.principal), req.body.include_credentials === true);
      return { sessions_revoked: r.sessions, credentials_revoked: r.credentials };
    },
  );
}
