/**
 * Organizations (issue #39): create, list and rename them, invite and manage members under the
 * role table (roles.ts), and read the audit log. An organization is an account, so wallets,
 * ledgers, jobs and credentials need no change to belong to one.
 */
import { randomUUID } from 'node:crypto';
import { fail } from '../errors/app-error.js';
import { AUTH_ERRORS } from '../auth/error-codes.js';
import { formatMicros } from '../billing/money.js';
import { HTTP_ERRORS } from '../errors/http-error-codes.js';
import { orgInvitationMail } from '../mail/templates.js';
import { ORG_ERRORS } from './error-codes.js';
import type { Actor, AuditEvent, AuditFilter, MemberChange, OrgInvitation, OrgMember, OrgMembership, OrgRepository } from './org-ports.js';
import { ROLE_SCOPES, type OrgRole } from './roles.js';

export const INVITATION_TTL_DAYS = 7;

/** The caller acting in an organization, as the auth hook resolved them. */
export interface OrgCaller {
  readonly userId: string;
  readonly email: string;
  readonly role: OrgRole;
  readonly actor: Actor;
}

export class OrgService {
  constructor(
    private readonly repo: OrgRepository,
    private readonly opts: { publicBaseUrl: string; nudgeMail: () => void; forgetCredentials: () => void },
    private readonly now: () => Date = () => new Date(),
  ) {}

  membership(userId: string, orgId: string): Promise<OrgMembership | null> {
    return this.repo.membership(userId, orgId);
  }

  create(userId: string, name: string, actor: Actor): Promise<OrgMembership> {
    return this.repo.create({ id: randomUUID(), name, ownerId: userId, actor });
  }

  list(userId: string): Promise<OrgMembership[]> {
    return this.repo.listFor(userId);
  }

  async get(userId: string, orgId: string): Promise<OrgMembership> {
    const m = await this.repo.membership(userId, orgId);
    if (m === null) throw fail(ORG_ERRORS.ORG_NOT_FOUND, `No organization ${orgId} has you as a member.`);
    return m;
  }

  async rename(caller: OrgCaller, orgId: string, name: string): Promise<OrgMembership> {
    const org = await this.repo.rename(orgId, name, caller.actor);
    if (org === null) throw fail(ORG_ERRORS.ORG_NOT_FOUND, `No organization ${orgId} has you as a member.`);
    return { ...org, role: caller.role };
  }

  members(orgId: string): Promise<OrgMember[]> {
    return this.repo.members(orgId);
  }

  invitations(orgId: string): Promise<OrgInvitation[]> {
    return this.repo.invitations(orgId);
  }

  async invite(caller: OrgCaller, org: OrgMembership, email: string, role: OrgRole): Promise<OrgInvitation> {
    if (org.personal) throw fail(ORG_ERRORS.ORG_PERSONAL, 'A personal organization has only its owner: create an organization (POST /v1/orgs) to invite people.');
    if (role === 'owner' && caller.role !== 'owner') throw fail(ORG_ERRORS.ORG_OWNER_ONLY, 'Only an owner may invite an owner.', { role: caller.role });
    const id = randomUUID();
    const link = `${this.opts.publicBaseUrl}/console/orgs/${org.id}/invitations/${id}`;
    const mail = orgInvitationMail({ name: org.name, inviter: caller.email, role }, link, INVITATION_TTL_DAYS);
    const expiresAt = new Date(this.now().getTime() + INVITATION_TTL_DAYS * 86_400_000);
    const r = await this.repo.invite({ id, orgId: org.id, email, role, invitedBy: caller.userId, expiresAt, actor: caller.actor }, mail);
    if (r.kind === 'already_member') throw fail(ORG_ERRORS.ORG_ALREADY_MEMBER, `${email} is already a member of this organization.`, { path: '/email' });
    this.opts.nudgeMail();
    return r.invitation;
  }

  async accept(userId: string, orgId: string, invitationId: string, actor: Actor): Promise<OrgMembership> {
    const r = await this.repo.accept(orgId, invitationId, userId, this.now(), actor);
    switch (r.kind) {
      case 'ok':
        return r.membership;
      case 'not_usable':
        throw fail(ORG_ERRORS.ORG_INVITATION_NOT_USABLE, 'The invitation is unknown, already accepted, revoked or expired; ask for a new one.');
      case 'email_mismatch':
        throw fail(ORG_ERRORS.ORG_INVITATION_EMAIL_MISMATCH, 'The invitation was sent to another address, or your address is not verified yet.');
      case 'already_member':
        throw fail(ORG_ERRORS.ORG_ALREADY_MEMBER, 'You are already a member of this organization.');
    }
  }

  async changeMember(caller: OrgCaller, orgId: string, userId: string, change: MemberChange): Promise<{ member: OrgMember; credentialsCut: number }> {
    if (change.dailyLimitMicros !== undefined || change.monthlyLimitMicros !== undefined) {
      const target = (await this.repo.members(orgId)).find((m) => m.userId === userId);
      const daily = change.dailyLimitMicros === undefined ? (target?.dailyLimitMicros ?? null) : change.dailyLimitMicros;
      const monthly = change.monthlyLimitMicros === undefined ? (target?.monthlyLimitMicros ?? null) : change.monthlyLimitMicros;
      if (daily !== null && monthly !== null && daily > monthly) {
        const path = change.dailyLimitMicros !== undefined ? '/spend_limits/daily_usd' : '/spend_limits/monthly_usd';
        throw fail(HTTP_ERRORS.VALIDATION_FAILED, 'Request body failed validation.', [{ in: 'body', path, code: 'INVALID', message: 'the daily limit cannot be above the monthly limit' }]);
      }
    }
    if (change.role !== undefined && caller.role !== 'owner') {
      const target = (await this.repo.members(orgId)).find((m) => m.userId === userId);
      if (change.role === 'owner' || target?.role === 'owner') throw fail(ORG_ERRORS.ORG_OWNER_ONLY, 'Only an owner may make or change an owner.', { role: caller.role });
    }
    const allowed = change.role === undefined ? undefined : ROLE_SCOPES[change.role];
    const r = await this.repo.changeMember(orgId, userId, change, allowed, caller.actor);
    if (r.kind === 'not_member') throw fail(ORG_ERRORS.ORG_MEMBER_NOT_FOUND, `User ${userId} is not a member of this organization.`);
    if (r.kind === 'last_owner') throw fail(ORG_ERRORS.ORG_LAST_OWNER, 'An organization always keeps an owner: make another member owner first.', { path: '/role' });
    if (r.credentialsCut > 0) this.opts.forgetCredentials();
    return { member: r.member, credentialsCut: r.credentialsCut };
  }

  async removeMember(caller: OrgCaller, orgId: string, userId: string): Promise<{ credentialsRevoked: number }> {
    if (caller.role !== 'owner' && caller.userId !== userId) {
      const target = (await this.repo.members(orgId)).find((m) => m.userId === userId);
      if (target?.role === 'owner') throw fail(ORG_ERRORS.ORG_OWNER_ONLY, 'Only an owner may remove an owner.', { role: caller.role });
    }
    const r = await this.repo.removeMember(orgId, userId, this.now(), caller.actor);
    if (r.kind === 'not_member') throw fail(ORG_ERRORS.ORG_MEMBER_NOT_FOUND, `User ${userId} is not a member of this organization.`);
    if (r.kind === 'last_owner') throw fail(ORG_ERRORS.ORG_LAST_OWNER, 'An organization always keeps an owner: make another member owner first.');
    // Their credentials stop at once here; other nodes drop them when their short credential cache expires.
    this.opts.forgetCredentials();
    return { credentialsRevoked: r.credentialsRevoked };
  }

  /** Closes a team organization (owner only, by the role table); its person's personal one closes with the account. */
  async close(caller: OrgCaller, org: OrgMembership, confirmName: string, acceptForfeiture: boolean): Promise<{ forfeitedMicros: bigint; closedAt: Date; credentialsRevoked: number }> {
    if (org.personal) throw fail(ORG_ERRORS.ORG_PERSONAL, 'A personal organization closes with its person’s account (POST /v1/auth/account/close).');
    if (confirmName.trim() !== org.name) {
      throw fail(HTTP_ERRORS.VALIDATION_FAILED, 'Request body failed validation.', [{ in: 'body', path: '/name', code: 'INVALID', message: 'must be the organization’s name, to confirm closing it' }]);
    }
    const r = await this.repo.close(org.id, acceptForfeiture, this.now(), caller.actor);
    if (r.kind === 'busy') {
      throw fail(AUTH_ERRORS.ACCOUNT_BUSY, `The organization has ${r.openHolds} open hold(s) and ${r.runningJobs} unfinished job(s); release or wait for them, then close.`, {
        open_holds: r.openHolds,
        running_jobs: r.runningJobs,
      });
    }
    if (r.kind === 'unsettled') {
      const usd = formatMicros(r.availableMicros);
      throw fail(AUTH_ERRORS.BALANCE_NOT_SETTLED, `Closing forfeits the available balance of ${usd} USD; repeat with accept_forfeiture: true, or spend it first.`, { available: usd, rule: 'forfeit' });
    }
    // The organization's credentials stop at once here; other nodes drop them when their cache expires.
    this.opts.forgetCredentials();
    return r;
  }

  audit(orgId: string, filter: AuditFilter): Promise<AuditEvent[]> {
    return this.repo.audit(orgId, filter);
  }
}
