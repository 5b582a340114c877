/**
 * The one permission table of organizations (issue #39 item 3; docs/organizations.md): what each
 * role may do, which permission each platform route needs, and which machine scopes a role may
 * hand to a credential. The auth hook enforces it for people; credentials carry scopes cut to
 * their creator's role when they are made and whenever that role changes.
 */
import { CREDENTIAL_SCOPES, type CredentialScope } from '../auth/credentials.js';

export const ORG_ROLES = ['owner', 'admin', 'developer', 'billing', 'viewer'] as const;
export type OrgRole = (typeof ORG_ROLES)[number];

export function isOrgRole(s: string): s is OrgRole {
  return (ORG_ROLES as readonly string[]).includes(s);
}

/**
 * - `read`: every read of the organization's runs, jobs, wallet and settings.
 * - `run`: analyze, optimize, simulate, quote, hold and run hardware, submit jobs, chat and speech.
 * - `billing`: top-ups, payment methods, spend controls, auto-recharge.
 * - `credentials`: see and revoke every member's machine credentials (each member manages their own).
 * - `members`: invitations, roles, removal.
 * - `settings`: the organization's name, webhooks.
 * - `audit`: the audit log.
 * - `close`: closing the organization.
 * - `self`: the caller's own person (profile, password, sessions, two-factor, own credentials): every role.
 * - `personal`: only in the caller's personal organization (closing or exporting the person's account).
 */
export type OrgPermission = 'read' | 'run' | 'billing' | 'credentials' | 'members' | 'settings' | 'audit' | 'close' | 'self' | 'personal';

export const ROLE_PERMISSIONS: Readonly<Record<OrgRole, readonly OrgPermission[]>> = {
  owner: ['read', 'run', 'billing', 'credentials', 'members', 'settings', 'audit', 'close'],
  admin: ['read', 'run', 'credentials', 'members', 'settings', 'audit'],
  developer: ['read', 'run'],
  billing: ['read', 'billing', 'audit'],
  viewer: ['read'],
};

/** The machine scopes a role may give a credential (and that its credentials keep). */
export const ROLE_SCOPES: Readonly<Record<OrgRole, readonly CredentialScope[]>> = {
  owner: CREDENTIAL_SCOPES,
  admin: CREDENTIAL_SCOPES,
  developer: CREDENTIAL_SCOPES,
  billing: ['jobs:read', 'billing:read'],
  viewer: ['jobs:read', 'billing:read'],
};

export function roleAllows(role: OrgRole, permission: OrgPermission): boolean {
  if (permission === 'self') return true;
  if (permission === 'personal') return false;
  return ROLE_PERMISSIONS[role].includes(permission);
}

type Rule = { readonly methods: readonly string[] | '*'; readonly prefix: string; readonly permission: OrgPermission; readonly exact?: true };

const WRITE = ['POST', 'PUT', 'PATCH', 'DELETE'];

/** First match wins; `prefix` matches the registered url (Fastify `:param` syntax) or, unless `exact`, a path below it. */
export const ROUTE_PERMISSION_RULES: readonly Rule[] = [
  { methods: '*', prefix: '/v1/auth/account/', permission: 'personal' },
  { methods: '*', prefix: '/v1/auth/', permission: 'self' },
  { methods: ['POST', 'GET'], prefix: '/v1/orgs', permission: 'self', exact: true },
  { methods: ['GET'], prefix: '/v1/orgs/:org_id/audit', permission: 'audit' },
  { methods: WRITE, prefix: '/v1/orgs/:org_id/invitations/:invitation_id/accept', permission: 'self' },
  { methods: WRITE, prefix: '/v1/orgs/:org_id/invitations', permission: 'members' },
  { methods: WRITE, prefix: '/v1/orgs/:org_id/members', permission: 'members' },
  { methods: ['POST'], prefix: '/v1/orgs/:org_id/close', permission: 'close' },
  { methods: WRITE, prefix: '/v1/orgs/:org_id', permission: 'settings' },
  { methods: WRITE, prefix: '/v1/webhooks', permission: 'settings' },
  { methods: WRITE, prefix: '/v1/billing/hardware', permission: 'run' },
  { methods: WRITE, prefix: '/v1/billing', permission: 'billing' },
  { methods: ['GET'], prefix: '/v1/', permission: 'read' },
  { methods: WRITE, prefix: '/v1/', permission: 'run' },
];

/** The permission a route needs of a person acting in an organization. */
export function routePermission(method: string, url: string): OrgPermission {
  const m = method.toUpperCase() === 'HEAD' ? 'GET' : method.toUpperCase();
  for (const r of ROUTE_PERMISSION_RULES) {
    if (r.methods !== '*' && !r.methods.includes(m)) continue;
    if (url === r.prefix || (r.exact !== true && url.startsWith(r.prefix.endsWith('/') ? r.prefix : `${r.prefix}/`))) return r.permission;
  }
  return 'run';
}
