import { Type } from 'typebox';
import { NullableUsd, Obj } from '../../schema-helpers.js';
import { NullableUsdIn, SpendControlsPatch } from '../billing/schemas.js';
import { formatMicros } from '../../../billing/money.js';
import { ORG_ROLES } from '../../../orgs/roles.js';
import type { AuditEvent, OrgInvitation, OrgMember, OrgMembership } from '../../../orgs/org-ports.js';

export const Role = Type.Union(
  ORG_ROLES.map((r) => Type.Literal(r)),
  {
    description: 'owner: everything, closing included; admin: members, credentials, settings and running; developer: run, submit and hold; billing: top-ups, spend controls, ledger; viewer: read only',
  },
);

export const OrgParams = Type.Object({ org_id: Type.String({ format: 'uuid' }) }, { additionalProperties: false });
export const MemberParams = Type.Object({ org_id: Type.String({ format: 'uuid' }), user_id: Type.String({ format: 'uuid' }) }, { additionalProperties: false });
export const InvitationParams = Type.Object({ org_id: Type.String({ format: 'uuid' }), invitation_id: Type.String({ format: 'uuid' }) }, { additionalProperties: false });

const Name = Type.String({ minLength: 1, maxLength: 100, pattern: '\\S' });
export const CreateOrgBody = Type.Object({ name: Name }, { additionalProperties: false });
export const PatchOrgBody = Type.Object({ name: Name }, { additionalProperties: false });
export const InviteBody = Type.Object({ email: Type.String({ format: 'email', maxLength: 254 }), role: Role }, { additionalProperties: false });
export const SpendLimitsIn = Type.Object(
  {
    daily_usd: Type.Optional(NullableUsdIn),
    monthly_usd: Type.Optional(NullableUsdIn),
  },
  { additionalProperties: false, description: 'The member’s own limits in the organization (UTC day and month); null clears one; left out keeps it' },
);
export const PatchMemberBody = Type.Object({ role: Type.Optional(Role), spend_limits: Type.Optional(SpendLimitsIn) }, { additionalProperties: false, minProperties: 1 });
export const CloseOrgBody = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 100, description: 'The organization’s name, typed again: closing cannot be undone' }),
    accept_forfeiture: Type.Optional(Type.Boolean({ default: false, description: 'Closing forfeits the available balance; required when it is above zero' })),
  },
  { additionalProperties: false },
);
export const AuditQuery = Type.Object(
  {
    action: Type.Optional(Type.String({ maxLength: 64, pattern: '^[a-z_.]+$' })),
    actor_id: Type.Optional(Type.String({ maxLength: 100 })),
    since: Type.Optional(Type.String({ format: 'date-time' })),
    until: Type.Optional(Type.String({ format: 'date-time' })),
    cursor: Type.Optional(Type.String({ maxLength: 40, pattern: '^[0-9]+$', description: 'next_cursor of the previous page' })),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 200 })),
    format: Type.Optional(Type.Union([Type.Literal('json'), Type.Literal('csv')], { description: 'csv: the page as text/csv' })),
  },
  { additionalProperties: false },
);

export const OrgView = Obj({
  org_id: Type.String({ format: 'uuid' }),
  name: Type.String(),
  personal: Type.Boolean({ description: 'The organization every person has for themself; it has no other members' }),
  role: Role,
  created_at: Type.String({ format: 'date-time' }),
});
export const MemberView = Obj({
  user_id: Type.String({ format: 'uuid' }),
  email: Type.String(),
  role: Role,
  spend_limits: Obj({ daily_usd: NullableUsd, monthly_usd: NullableUsd }, { description: 'The member’s own daily and monthly limits (null: none); the organization’s spend controls apply as well' }),
  joined_at: Type.String({ format: 'date-time' }),
});
export const InvitationView = Obj({
  invitation_id: Type.String({ format: 'uuid' }),
  email: Type.String(),
  role: Role,
  invited_by: Type.String({ format: 'uuid' }),
  created_at: Type.String({ format: 'date-time' }),
  expires_at: Type.String({ format: 'date-time' }),
  accepted_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  status: Type.Union([Type.Literal('pending'), Type.Literal('accepted'), Type.Literal('expired')]),
});
export const AuditView = Obj({
  event_id: Type.String({ pattern: '^[0-9]+$' }),
  at: Type.String({ format: 'date-time' }),
  actor: Obj({ kind: Type.String(), id: Type.Union([Type.String(), Type.Null()]) }),
  action: Type.String(),
  target: Type.Union([Type.String(), Type.Null()]),
  request_id: Type.Union([Type.String(), Type.Null()]),
  details: Obj(
    {
      name: Type.Optional(Type.String()),
      role: Type.Optional(Type.Union([Role, Obj({ from: Role, to: Role })])),
      invitation_id: Type.Optional(Type.String({ format: 'uuid' })),
      daily_limit_micros: Type.Optional(Type.Union([Type.String(), Type.Null()])),
      monthly_limit_micros: Type.Optional(Type.Union([Type.String(), Type.Null()])),
      credentials_cut: Type.Optional(Type.Integer({ minimum: 0 })),
      credentials_revoked: Type.Optional(Type.Integer({ minimum: 0 })),
      scopes: Type.Optional(Type.Array(Type.String())),
      transfer_id: Type.Optional(Type.String({ format: 'uuid' })),
      hold_id: Type.Optional(Type.String({ format: 'uuid' })),
      amount: Type.Optional(Type.String({ pattern: '^\\d+\\.\\d{6}$', description: 'A money movement’s amount (USD)' })),
      description: Type.Optional(Type.String()),
      // A settings change: the fields the request set, as it sent them.
      changes: Type.Optional(SpendControlsPatch),
      forfeited_micros: Type.Optional(Type.String({ pattern: '^[0-9]+$' })),
    },
    {
      description:
        'What changed, by action: a role change `{from, to}`, the credentials a removal revoked, a money movement’s transfer, hold and amount (`money.hold`, `money.capture`, …), a settings change’s fields…',
    },
  ),
});

export const orgView = (m: OrgMembership) => ({ org_id: m.id, name: m.name, personal: m.personal, role: m.role, created_at: m.createdAt.toISOString() });
export const memberView = (m: OrgMember) => ({
  user_id: m.userId,
  email: m.email,
  role: m.role,
  spend_limits: {
    daily_usd: m.dailyLimitMicros === null ? null : formatMicros(m.dailyLimitMicros),
    monthly_usd: m.monthlyLimitMicros === null ? null : formatMicros(m.monthlyLimitMicros),
  },
  joined_at: m.joinedAt.toISOString(),
});
export const invitationView = (i: OrgInvitation, now = Date.now()) => ({
  invitation_id: i.id,
  email: i.email,
  role: i.role,
  invited_by: i.invitedBy,
  created_at: i.createdAt.toISOString(),
  expires_at: i.expiresAt.toISOString(),
  accepted_at: i.acceptedAt?.toISOString() ?? null,
  status: i.acceptedAt !== null ? ('accepted' as const) : i.expiresAt.getTime() <= now ? ('expired' as const) : ('pending' as const),
});
export const auditView = (e: AuditEvent) => ({
  event_id: e.id.toString(),
  at: e.at.toISOString(),
  actor: e.actor,
  action: e.action,
  target: e.target,
  request_id: e.requestId,
  details: e.details,
});
