import type { FastifyRequest } from 'fastify';
import { fail } from '../../errors/app-error.js';
import { AUTH_ERRORS } from '../../auth/error-codes.js';
import type { App } from '../app-types.js';

/**
 * The verification gate of issue #26: after `requireSession`, refuses a money-moving or
 * credential-creating request of an account whose email is not confirmed (403
 * EMAIL_NOT_VERIFIED with how to get a new link). Off when REQUIRE_EMAIL_VERIFICATION is false.
 * Routes add it next to the session hook: `onRequest: [app.requireSession, verifiedEmail(app)]`.
 *
 * The gate is on the account, whoever acts for it: a person's session, a Jobs token exchanged
 * from that session (RFC 8693), a machine credential or its OAuth access token. Gating only
 * sessions let an exchanged token place the hold its session was refused (issue #34 item 2),
 * and a credential made before the gate was turned on would keep working around it.
 */
export function verifiedEmail(app: App): (req: FastifyRequest) => Promise<void> {
  return async (req) => {
    const accounts = app.services.accounts;
    const p = req.principal;
    if (!accounts.requireVerifiedEmail || p === undefined) return;
    if (await accounts.accountEmailVerified(p.accountId)) return;
    const who = p.kind === 'person' ? p.email : 'the account’s email';
    const how = p.kind === 'person' ? 'ask for a new one with POST /v1/auth/email/verification' : 'its owner asks for a new one with POST /v1/auth/email/verification (signed in)';
    throw fail(AUTH_ERRORS.EMAIL_NOT_VERIFIED, `Confirm ${who} first: open the link mailed at registration, or ${how}.`, {
      resend: 'POST /v1/auth/email/verification',
    });
  };
}
