import type { FastifyRequest } from 'fastify';
import type { CredentialScope } from '../../auth/credentials.js';
import { AUTH_ERRORS } from '../../auth/error-codes.js';
import { SESSION_PREFIX } from '../../auth/tokens.js';
import { fail, type AppError } from '../../errors/app-error.js';
import { HTTP_ERRORS } from '../../errors/http-error-codes.js';
import type { App, PersonPrincipal, Principal } from '../app-types.js';
import { defaultAccess, routeAccess, type RouteAccess } from '../route-access.js';
import { checkMachineToken, isMachineToken } from './machine-token.js';
import { ORG_ERRORS } from '../../orgs/error-codes.js';
import { roleAllows, routePermission, type OrgPermission, type OrgRole } from '../../orgs/roles.js';

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

export const PLATFORM_REALM = 'qrail';

const REASONS: Record<string, string> = {
  missing: 'No bearer token was sent; log in at POST /v1/auth/login (or use a machine credential) and send Authorization: Bearer <token>.',
  malformed: 'The bearer token is malformed.',
  unknown: 'The bearer token is not a valid session.',
  expired: 'The session has expired; log in again.',
  revoked: 'The session was revoked (logged out); log in again.',
};

// RFC 6750 §3: quoted values are printable ASCII without `"` and `\`.
const quote = (s: string) => s.replace(/…/g, '...').replace(/[^\x20-\x21\x23-\x5B\x5D-\x7E]/g, '');

function unauthenticated(reason: string, description: string): AppError {
  return fail(
    HTTP_ERRORS.UNAUTHENTICATED,
    description,
    { reason },
    { 'www-authenticate': reason === 'missing' ? `Bearer realm="${PLATFORM_REALM}"` : `Bearer realm="${PLATFORM_REALM}", error="invalid_token"` },
  );
}

/** 403 for a machine caller without any of the scopes an operation accepts (both interfaces). */
export function insufficientScope(realm: string, required: readonly CredentialScope[], granted: readonly CredentialScope[]): AppError {
  const names = required.join(' or ');
  return fail(
    AUTH_ERRORS.INSUFFICIENT_SCOPE,
    `This operation needs the scope ${names}; the credential has ${granted.length === 0 ? 'no scope' : granted.join(', ')}.`,
    { required_scope: required[0] ?? '', required_scopes: [...required], granted_scopes: [...granted] },
    { 'www-authenticate': `Bearer realm="${realm}", error="insufficient_scope", scope="${required.join(' ')}"` },
  );
}

function sessionRequired(): AppError {
  const text = 'This operation is kept for a person: sign in (POST /v1/auth/login) and use the session; no scope lets a machine credential or its access tokens do it.';
  return fail(AUTH_ERRORS.SESSION_REQUIRED, text, undefined, {
    'www-authenticate': `Bearer realm="${PLATFORM_REALM}", error="insufficient_scope", error_description="${quote(text)}"`,
  });
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * The organization a request names: the path's `org_id` on /v1/orgs/{org_id}/… (except where the
 * caller acts as themself: accepting an invitation to an organization they are not in yet), else
 * the `Qrail-Org` header.
 */
function orgHeader(req: FastifyRequest, permission?: OrgPermission): string | undefined {
  const fromPath = (req.params as Record<string, unknown> | undefined)?.['org_id'];
  if (typeof fromPath === 'string' && permission !== 'self') return fromPath.toLowerCase();
  const h = req.headers['qrail-org'];
  const v = Array.isArray(h) ? h[0] : h;
  return v === undefined || v.trim() === '' ? undefined : v.trim().toLowerCase();
}

/**
 * A machine credential acts in the one organization it belongs to: a request naming another
 * (path or `Qrail-Org`) is refused rather than quietly served in the credential's own, so a
 * caller that meant another wallet learns it. Used by the platform routes and the Account Jobs
 * interface alike (each answers in its own error shape).
 */
export function refuseOtherOrg(req: FastifyRequest, credentialOrg: string): void {
  const named = orgHeader(req);
  if (named !== undefined && named !== credentialOrg)
    throw fail(ORG_ERRORS.ORG_HEADER_MISMATCH, 'This credential acts in its own organization only; drop the Qrail-Org header or name that organization.', { org_id: named.slice(0, 64) });
}

/** The organization a person acts in, with their role: their personal one unless the request names another they belong to. */
async function actingOrg(app: App, req: FastifyRequest, userId: string, personalId: string, permission: OrgPermission): Promise<{ id: string; role: OrgRole; personal: boolean }> {
  const named = orgHeader(req, permission);
  if (named === undefined || named === personalId) return { id: personalId, role: 'owner', personal: true };
  const m = UUID.test(named) ? await app.services.orgs.membership(userId, named) : null;
  if (m === null) throw fail(ORG_ERRORS.ORG_NOT_FOUND, `No organization ${named.slice(0, 64)} has you as a member.`, { org_id: named.slice(0, 64) });
  return { id: m.id, role: m.role, personal: m.personal };
}

function roleForbidden(role: OrgRole, permission: OrgPermission): AppError {
  const text =
    permission === 'personal'
      ? 'Your own account is closed or exported from your personal organization: drop the Qrail-Org header.'
      : `Your role in this organization (${role}) does not allow this (${permission}); an owner or admin can change roles.`;
  return fail(permission === 'personal' ? ORG_ERRORS.ORG_PERSONAL : ORG_ERRORS.ORG_ROLE_FORBIDDEN, text, { role, permission });
}

/** The route's declared access; a route not in the table is person-only. */
function accessOf(req: FastifyRequest, anonymous: boolean): RouteAccess {
  const declared = routeAccess(req.method, req.routeOptions.url ?? '');
  return declared ?? defaultAccess(anonymous);
}

/**
 * Platform authentication (onRequest, before the body is read): a person's session (every
 * scope), or a machine credential / access token of the same account, checked against the
 * route's declared access (src/http/route-access.ts). Where anonymous callers are served, a
 * token that is not valid is ignored, as it always was; a valid machine token must still
 * carry the scope.
 */
export function registerAuth(app: App): void {
  app.decorateRequest('principal', undefined);

  const resolve = async (req: FastifyRequest, hookAnonymous: boolean) => {
    const access = accessOf(req, hookAnonymous);
    const required = access.anonymous !== true;
    const b = bearerToken(req);
    if (!b.present && !required) return;
    const token = b.token;
    if (token !== undefined && !token.startsWith(SESSION_PREFIX) && isMachineToken(token)) {
      const c = await checkMachineToken(app, token);
      if (!c.ok) {
        if (!required) return;
        throw unauthenticated(c.reason, c.description);
      }
      if ('person' in access) throw sessionRequired();
      const a = c.agent;
      refuseOtherOrg(req, a.accountId);
      if (!access.scopes.some((s) => a.scopes.includes(s))) throw insufficientScope(PLATFORM_REALM, access.scopes, a.scopes);
      req.principal = { kind: 'agent', accountId: a.accountId, scopes: a.scopes, credentialId: a.credentialId, subject: a.subject };
      return;
    }
    const check = b.present && token === undefined ? { state: 'malformed' as const } : await app.services.sessions.check(token);
    if (check.state === 'valid' && check.session !== undefined) {
      const s = check.session;
      const permission = routePermission(req.method, req.routeOptions.url ?? '');
      const org = await actingOrg(app, req, s.userId, s.accountId, permission);
      if (permission === 'personal' ? !org.personal : !roleAllows(org.role, permission)) throw roleForbidden(org.role, permission);
      req.principal = { kind: 'person', userId: s.userId, accountId: org.id, sessionId: s.id, email: s.email, userCreatedAt: s.userCreatedAt, role: org.role, personal: org.personal };
      return;
    }
    if (!required) return;
    throw unauthenticated(check.state, REASONS[check.state] ?? 'Authentication required.');
  };

  app.decorate('requireSession', async (req: FastifyRequest) => resolve(req, false));
  app.decorate('optionalSession', async (req: FastifyRequest) => resolve(req, true));

  // The OpenAPI security of a bearer route comes from its access; for a route not in the table
  // that is the default, so the route's config records which of the two hooks it uses.
  const requireHook = app.requireSession;
  const optionalHook = app.optionalSession;
  app.addHook('onRoute', (route) => {
    const hooks: unknown[] = [route.onRequest ?? []].flat();
    const bearer = hooks.includes(requireHook) ? 'required' : hooks.includes(optionalHook) ? 'optional' : undefined;
    if (bearer !== undefined) route.config = { ...(route.config as object | undefined), bearer } as NonNullable<typeof route.config>;
  });
}

/** The caller of a route that requires one (the hook has run). */
export function principalOf(p: Principal | undefined): Principal {
  if (p === undefined) throw fail(HTTP_ERRORS.UNAUTHENTICATED, 'Authentication required.');
  return p;
}

/** The person calling a person-only route (the hook refused machine callers already). */
export function personOf(p: Principal | undefined): PersonPrincipal {
  if (p === undefined || p.kind !== 'person') throw fail(HTTP_ERRORS.UNAUTHENTICATED, 'Authentication required.');
  return p;
}
