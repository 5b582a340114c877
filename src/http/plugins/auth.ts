import type { FastifyRequest } from 'fastify';
import { fail } from '../../errors/app-error.js';
import { HTTP_ERRORS } from '../../errors/http-error-codes.js';
import type { App } from '../app-types.js';

export interface BearerToken {
  readonly present: boolean;
  /** The token text when the header is `Bearer <token>`; undefined when absent or another scheme. */
  readonly token: string | undefined;
}

export function bearerToken(req: FastifyRequest): BearerToken {
  const h = req.headers.authorization;
  if (h === undefined || h === '') return { present: false, token: undefined };
  const m = /^Bearer[ ]+(\S+)\s*$/i.exec(h);
  return { present: true, token: m?.[1] };
}

const REASONS: Record<string, string> = {
  missing: 'No bearer token was sent; log in at POST /v1/auth/login and send Authorization: Bearer <token>.',
  malformed: 'The bearer token is malformed.',
  unknown: 'The bearer token is not a valid session.',
  expired: 'The session has expired; log in again.',
  revoked: 'The session was revoked (logged out); log in again.',
};

export function registerAuth(app: App): void {
  app.decorateRequest('principal', undefined);

  const resolve = async (req: FastifyRequest, required: boolean) => {
    const b = bearerToken(req);
    if (!b.present && !required) return;
    const check = b.present && b.token === undefined ? { state: 'malformed' as const } : await app.services.sessions.check(b.token);
    if (check.state === 'valid' && check.session !== undefined) {
      const s = check.session;
      req.principal = { userId: s.userId, accountId: s.accountId, sessionId: s.id, email: s.email, userCreatedAt: s.userCreatedAt };
      return;
    }
    if (!required) return;
    throw fail(
      HTTP_ERRORS.UNAUTHENTICATED,
      REASONS[check.state] ?? 'Authentication required.',
      { reason: check.state },
      {
        'www-authenticate': check.state === 'missing' ? 'Bearer realm="qrail"' : 'Bearer realm="qrail", error="invalid_token"',
      },
    );
  };

  app.decorate('requireSession', async (req: FastifyRequest) => resolve(req, true));
  app.decorate('optionalSession', async (req: FastifyRequest) => resolve(req, false));
}
