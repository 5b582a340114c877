/**
 * Organizations (issue #39, docs/organizations.md): create and list them, members, invitations
 * and the audit log. Platform envelope; a person's session. The role checks are the auth hook's
 * (src/orgs/roles.ts): on /v1/orgs/{org_id}/… the path names the organization acted in.
 */
import { Type } from 'typebox';
import type { FastifyRequest } from 'fastify';
import type { OrgCaller } from '../../../orgs/org-service.js';
import type { App } from '../../app-types.js';
import { errors, okResponse } from '../../envelope-schemas.js';
import { Obj } from '../../schema-helpers.js';
import { personOf } from '../../plugins/auth.js';
import { actorOf } from './actor.js';
import { formatMicros, parseUsd } from '../../../billing/money.js';
import {
  AuditQuery,
  CloseOrgBody,
  AuditView,
  CreateOrgBody,
  InvitationParams,
  InvitationView,
  InviteBody,
  MemberParams,
  MemberView,
  OrgParams,
  OrgView,
  PatchMemberBody,
  PatchOrgBody,
  auditView,
  invitationView,
  memberView,
  orgView,
} from './schemas.js';

const tags = ['orgs'];

function callerOf(req: FastifyRequest): OrgCaller {
  const p = personOf(req.principal);
  return { userId: p.userId, email: p.email, role: p.role, actor: actorOf(req) };
}

const csvCell = (v: unknown): string => {
  const s = v === null || v === undefined ? '' : typeof v === 'string' ? v : JSON.stringify(v);
  // Cells a spreadsheet would run as a formula are quoted with a leading apostrophe (OWASP CSV injection).
  const safe = /^[=+\-@\t\r]/.test(s) ? `'${s}` : s;
  return /[",\n\r]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
};

export default async function orgRoutes(app: App): Promise<void> {
  const svc = () => app.services.orgs;
  const auth = { onRequest: app.requireSession };

  app.post(
    '/v1/orgs',
    {
      ...auth,
      config: { idempotent: 'account' },
      schema: {
        tags,
        operationId: 'createOrg',
        summary: 'Create an organization; the caller is its owner',
        body: CreateOrgBody,
        response: { 201: okResponse(OrgView, 'The new organization, with the caller’s role (owner)') },
      },
    },
    async (req, reply) => {
      const p = personOf(req.principal);
      reply.code(201);
      return orgView(await svc().create(p.userId, req.body.name.trim(), actorOf(req)));
    },
  );

  app.get(
    '/v1/orgs',
    {
      ...auth,
      schema: {
        tags,
        operationId: 'listOrgs',
        summary: 'The caller’s organizations with their role, the personal one first',
        response: { 200: okResponse(Obj({ orgs: Type.Array(OrgView) }), 'Every open organization the caller belongs to') },
      },
    },
    async (req) => ({ orgs: (await svc().list(personOf(req.principal).userId)).map(orgView) }),
  );

  app.get(
    '/v1/orgs/:org_id',
    {
      ...auth,
      schema: { tags, operationId: 'getOrg', summary: 'One organization and the caller’s role in it', params: OrgParams, response: { 200: okResponse(OrgView, 'The organization'), ...errors(404) } },
    },
    async (req) => orgView(await svc().get(personOf(req.principal).userId, req.params.org_id.toLowerCase())),
  );

  app.patch(
    '/v1/orgs/:org_id',
    {
      ...auth,
      schema: {
        tags,
        operationId: 'updateOrg',
        summary: 'Rename the organization (owner, admin)',
        params: OrgParams,
        body: PatchOrgBody,
        response: { 200: okResponse(OrgView, 'The organization, renamed'), ...errors(404) },
      },
    },
    async (req) => orgView(await svc().rename(callerOf(req), personOf(req.principal).accountId, req.body.name.trim())),
  );

  app.get(
    '/v1/orgs/:org_id/members',
    {
      ...auth,
      schema: {
        tags,
        operationId: 'listOrgMembers',
        summary: 'Members with their role',
        params: OrgParams,
        response: { 200: okResponse(Obj({ members: Type.Array(MemberView) }), 'Every member') },
      },
    },
    async (req) => ({ members: (await svc().members(personOf(req.principal).accountId)).map(memberView) }),
  );

  app.patch(
    '/v1/orgs/:org_id/members/:user_id',
    {
      ...auth,
      schema: {
        tags,
        operationId: 'updateOrgMember',
        summary:
          'Change a member’s role or spend limits (owner, admin; only an owner makes or changes an owner); a lower role cuts the member’s credentials’ scopes; limits are checked with every hold and job reservation',
        params: MemberParams,
        body: PatchMemberBody,
        response: { 200: okResponse(Obj({ member: MemberView, credentials_cut: Type.Integer({ minimum: 0 }) }), 'The member, changed'), ...errors(403, 404, 409) },
      },
    },
    async (req) => {
      const limits = req.body.spend_limits;
      const micros = (v: string | null | undefined) => (v === undefined || v === null ? v : parseUsd(v));
      const r = await svc().changeMember(callerOf(req), personOf(req.principal).accountId, req.params.user_id.toLowerCase(), {
        role: req.body.role,
        dailyLimitMicros: micros(limits?.daily_usd),
        monthlyLimitMicros: micros(limits?.monthly_usd),
      });
      return { member: memberView(r.member), credentials_cut: r.credentialsCut };
    },
  );

  app.delete(
    '/v1/orgs/:org_id/members/:user_id',
    {
      ...auth,
      schema: {
        tags,
        operationId: 'removeOrgMember',
        summary: 'Remove a member: their access ends at once and the credentials they created in the organization are revoked',
        params: MemberParams,
        response: { 200: okResponse(Obj({ removed: Type.Literal(true), credentials_revoked: Type.Integer({ minimum: 0 }) }), 'The member is gone'), ...errors(403, 404, 409) },
      },
    },
    async (req) => {
      const r = await svc().removeMember(callerOf(req), personOf(req.principal).accountId, req.params.user_id.toLowerCase());
      return { removed: true as const, credentials_revoked: r.credentialsRevoked };
    },
  );

  app.post(
    '/v1/orgs/:org_id/invitations',
    {
      ...auth,
      config: { idempotent: 'account' },
      schema: {
        tags,
        operationId: 'createOrgInvitation',
        summary: 'Invite a person by email (mailed; single use; 7 days)',
        params: OrgParams,
        body: InviteBody,
        response: { 201: okResponse(InvitationView, 'The invitation, mailed'), ...errors(403, 409) },
      },
    },
    async (req, reply) => {
      const p = personOf(req.principal);
      const org = await svc().get(p.userId, p.accountId);
      reply.code(201);
      return invitationView(await svc().invite(callerOf(req), org, req.body.email, req.body.role));
    },
  );

  app.get(
    '/v1/orgs/:org_id/invitations',
    {
      ...auth,
      schema: {
        tags,
        operationId: 'listOrgInvitations',
        summary: 'Invitations, newest first',
        params: OrgParams,
        response: { 200: okResponse(Obj({ invitations: Type.Array(InvitationView) }), 'The invitations') },
      },
    },
    async (req) => ({ invitations: (await svc().invitations(personOf(req.principal).accountId)).map((i) => invitationView(i)) }),
  );

  app.post(
    '/v1/orgs/:org_id/invitations/:invitation_id/accept',
    {
      ...auth,
      schema: {
        tags,
        operationId: 'acceptOrgInvitation',
        summary: 'Accept an invitation with the invited person’s session (the email must match and be verified)',
        params: InvitationParams,
        response: { 200: okResponse(OrgView, 'The organization joined, with the role given'), ...errors(403, 404, 409) },
      },
    },
    async (req) => {
      const p = personOf(req.principal);
      return orgView(await svc().accept(p.userId, req.params.org_id.toLowerCase(), req.params.invitation_id.toLowerCase(), actorOf(req)));
    },
  );

  app.post(
    '/v1/orgs/:org_id/close',
    {
      ...auth,
      schema: {
        tags,
        operationId: 'closeOrg',
        summary:
          'Close the organization (owner): refused while holds are open or jobs run; forfeits the available balance through the ledger (accept_forfeiture); revokes its credentials and pending invitations',
        params: OrgParams,
        body: CloseOrgBody,
        response: {
          200: okResponse(
            Obj({
              closed: Type.Literal(true),
              closed_at: Type.String({ format: 'date-time' }),
              forfeited: Type.String({ pattern: '^\\d+\\.\\d{6}$', description: 'USD forfeited (the available balance)' }),
              credentials_revoked: Type.Integer({ minimum: 0 }),
            }),
            'Closed',
          ),
          ...errors(404, 409),
        },
      },
    },
    async (req) => {
      const p = personOf(req.principal);
      const org = await svc().get(p.userId, p.accountId);
      const r = await svc().close(callerOf(req), org, req.body.name, req.body.accept_forfeiture === true);
      return { closed: true as const, closed_at: r.closedAt.toISOString(), forfeited: formatMicros(r.forfeitedMicros), credentials_revoked: r.credentialsRevoked };
    },
  );

  app.get(
    '/v1/orgs/:org_id/audit',
    {
      ...auth,
      schema: {
        tags,
        operationId: 'listOrgAudit',
        summary: 'The audit log, newest first: membership, role, credential and settings changes with their actor and request id (owner, admin, billing); `format=csv` for a CSV page',
        querystring: AuditQuery,
        params: OrgParams,
        response: { 200: okResponse(Obj({ events: Type.Array(AuditView), next_cursor: Type.Union([Type.String(), Type.Null()]) }), 'A page of events') },
      },
    },
    async (req, reply) => {
      const q = req.query;
      const limit = q.limit ?? 50;
      const events = await svc().audit(personOf(req.principal).accountId, {
        action: q.action,
        actorId: q.actor_id,
        since: q.since === undefined ? undefined : new Date(q.since),
        until: q.until === undefined ? undefined : new Date(q.until),
        before: q.cursor === undefined ? undefined : BigInt(q.cursor),
        limit,
      });
      const last = events.at(-1);
      const next = events.length === limit && last !== undefined ? last.id.toString() : null;
      if (q.format === 'csv') {
        const head = 'event_id,at,actor_kind,actor_id,action,target,request_id,details';
        const rows = events.map((e) => [e.id.toString(), e.at.toISOString(), e.actor.kind, e.actor.id, e.action, e.target, e.requestId, e.details].map(csvCell).join(','));
        if (next !== null) reply.header('link', `<?cursor=${next}&format=csv>; rel="next"`);
        return reply
          .type('text/csv; charset=utf-8')
          .header('cache-control', 'no-store')
          .send(`${[head, ...rows].join('\n')}\n`);
      }
      return { events: events.map(auditView), next_cursor: next };
    },
  );
}
