import type { FastifyRequest } from 'fastify';
import { fail } from '../../errors/app-error.js';
import { AUTH_ERRORS } from '../../auth/error-codes.js';
import type { App } from '../app-types.js';

/**
 * The verification gate of issue #26: after `requireSession`, refuses a money-moving or
 * credential-creating request of an account whose email is not confirmed (403
 * EMAIL_NOT_VERIFIED with how to get a new link). Off when REQUIRE_EMAIL_VERIFICATION is false.
 * Routes add it next to the session hook: `onRequest: [app.requireSession, verifiedEmail(app)]`.
 */
export function verifiedEmail(app: App): (req: FastifyRequest) => Promise<void> {
  return async (req) => {
    const accounts = app.services.accounts;
    const p = req.principal;
    // A machine credential exists only if its account was verified when it was created (creating one is gated too).
    if (!accounts.requireVerifiedEmail || p === undefined || p.kind !== 'person') return;
    if (await accounts.emailVerified(p.userId)) return;
    throw fail(AUTH_ERRORS.EMAIL_NOT_VERIFIED, `Confirm ${p.email} first: open the link mailed at registration, or ask for a new one with POST /v1/auth/email/verification.`, {
      resend: 'POST /v1/auth/email/verification',
    });
  };
}
