/**
 * Bearer authentication of the Account Jobs interface (spec §5, RFC 6750, RFC 9068).
 * Accepts a machine credential (`qrj_…`) or a Jobs-audience JWT access token. Every 401
 * carries `WWW-Authenticate: Bearer realm="qrail-jobs"`, plus `error="invalid_token"` when a
 * token was sent but is malformed, unknown, expired, revoked or for another audience (a
 * platform session token `qrs_…` is one of those). A missing scope is a 403 with
 * `error="insufficient_scope"`; a `Qrail-Org` header naming an organization other than the
 * credential's is a 403 ORG_HEADER_MISMATCH, as on the platform routes.
 */
import type { FastifyRequest } from 'fastify';
import type { AgentIdentity, JobsScope } from '../../../auth/credentials.js';
import { SESSION_PREFIX } from '../../../auth/tokens.js';
import { fail } from '../../../errors/app-error.js';
import { HTTP_ERRORS } from '../../../errors/http-error-codes.js';
import type { App } from '../../app-types.js';
import { bearerToken, insufficientScope, refuseOtherOrg } from '../../plugins/auth.js';
import { checkMachineToken, isMachineToken } from '../../plugins/machine-token.js';

export const JOBS_REALM = 'qrail-jobs';

const agents = new WeakMap<FastifyRequest, AgentIdentity>();

export function agentOf(req: FastifyRequest): AgentIdentity {
  const a = agents.get(req);
  if (a === undefined) throw fail(HTTP_ERRORS.UNAUTHENTICATED, 'Authentication required.', { reason: 'missing' }, { 'www-authenticate': `Bearer realm="${JOBS_REALM}"` });
  return a;
}

// RFC 6750 §3: error_description is limited to printable ASCII without `"` and `\`.
const quote = (s: string) => s.replace(/…/g, '...').replace(/[^\x20-\x21\x23-\x5B\x5D-\x7E]/g, '');

function invalidToken(reason: string, description: string) {
  return fail(
    HTTP_ERRORS.UNAUTHENTICATED,
    description,
    { reason },
    {
      'www-authenticate': `Bearer realm="${JOBS_REALM}", error="invalid_token", error_description="${quote(description)}"`,
    },
  );
}

export async function authenticateAgent(app: App, req: FastifyRequest): Promise<AgentIdentity> {
  const b = bearerToken(req);
  if (!b.present) {
    throw fail(
      HTTP_ERRORS.UNAUTHENTICATED,
      'A Jobs access token or machine credential is required: Authorization: Bearer <token>.',
      { reason: 'missing' },
      {
        'www-authenticate': `Bearer realm="${JOBS_REALM}"`,
      },
    );
  }
  const token = b.token;
  if (token === undefined) throw invalidToken('malformed', 'The Authorization header must be "Bearer <token>".');
  if (token.startsWith(SESSION_PREFIX)) {
    throw invalidToken('wrong_audience', 'A platform session token is not valid for the Account Jobs interface; use a Jobs access token or machine credential.');
  }
  if (!isMachineToken(token)) throw invalidToken('malformed', 'The bearer token is neither a Jobs access token (JWT) nor a machine credential (qrj_...).');
  const c = await checkMachineToken(app, token);
  if (!c.ok) throw invalidToken(c.reason, c.description);
  refuseOtherOrg(req, c.agent.accountId);
  return c.agent;
}

/** onRequest hook: authenticate (401) and check the scope (403) before the body is even read. */
export function requireAgent(app: App, scope: JobsScope) {
  return async (req: FastifyRequest): Promise<void> => {
    const agent = await authenticateAgent(app, req);
    if (!agent.scopes.includes(scope)) throw insufficientScope(JOBS_REALM, [scope], agent.scopes);
    agents.set(req, agent);
  };
}
