/**
 * Storage port of organizations (issue #39), implemented in src/store/orgs. Every change that an
 * audit event records writes that event in the same transaction.
 */
import type { MailContent } from '../mail/mail.js';
import type { OrgRole } from './roles.js';

export interface Org {
  readonly id: string;
  readonly name: string;
  readonly personal: boolean;
  readonly createdAt: Date;
  readonly closedAt: Date | null;
}

export interface OrgMembership extends Org {
  readonly role: OrgRole;
}

export interface OrgMember {
  readonly userId: string;
  readonly email: string;
  readonly role: OrgRole;
  readonly dailyLimitMicros: bigint | null;
  readonly monthlyLimitMicros: bigint | null;
  readonly joinedAt: Date;
}

export interface OrgInvitation {
  readonly id: string;
  readonly orgId: string;
  readonly email: string;
  readonly role: OrgRole;
  readonly invitedBy: string;
  readonly createdAt: Date;
  readonly expiresAt: Date;
  readonly acceptedAt: Date | null;
}

/** Who did it, for the audit log: a person or a machine credential. */
export interface Actor {
  readonly kind: 'person' | 'credential' | 'system';
  readonly id: string | null;
  readonly requestId: string | null;
}

export interface AuditEvent {
  readonly id: bigint;
  readonly at: Date;
  readonly actor: { readonly kind: string; readonly id: string | null };
  readonly action: string;
  readonly target: string | null;
  readonly requestId: string | null;
  readonly details: Record<string, unknown>;
}

export interface AuditFilter {
  readonly action?: string | undefined;
  readonly actorId?: string | undefined;
  readonly since?: Date | undefined;
  readonly until?: Date | undefined;
  /** Keyset: events with a smaller id (newest first). */
  readonly before?: bigint | undefined;
  readonly limit: number;
}

export type MemberChange = { readonly role?: OrgRole | undefined; readonly dailyLimitMicros?: bigint | null | undefined; readonly monthlyLimitMicros?: bigint | null | undefined };

export type MemberChangeResult = { readonly kind: 'ok'; readonly member: OrgMember; readonly credentialsCut: number } | { readonly kind: 'not_member' } | { readonly kind: 'last_owner' };

export type CloseOrgResult =
  | { readonly kind: 'busy'; readonly openHolds: number; readonly runningJobs: number }
  | { readonly kind: 'unsettled'; readonly availableMicros: bigint }
  | { readonly kind: 'closed'; readonly forfeitedMicros: bigint; readonly closedAt: Date; readonly credentialsRevoked: number };

export type AcceptResult = { readonly kind: 'ok'; readonly membership: OrgMembership } | { readonly kind: 'not_usable' } | { readonly kind: 'email_mismatch' } | { readonly kind: 'already_member' };

export interface OrgRepository {
  /** The caller's membership of an open organization, or null. */
  membership(userId: string, orgId: string): Promise<OrgMembership | null>;
  create(o: { id: string; name: string; ownerId: string; actor: Actor }): Promise<OrgMembership>;
  listFor(userId: string): Promise<OrgMembership[]>;
  rename(orgId: string, name: string, actor: Actor): Promise<Org | null>;
  members(orgId: string): Promise<OrgMember[]>;
  /** Stores the invitation and its mail in one transaction; 'already_member' when the address is a member's. */
  invite(
    i: { id: string; orgId: string; email: string; role: OrgRole; invitedBy: string; expiresAt: Date; actor: Actor },
    mail: MailContent,
  ): Promise<{ kind: 'ok'; invitation: OrgInvitation } | { kind: 'already_member' }>;
  invitations(orgId: string): Promise<OrgInvitation[]>;
  /** Consumes the invitation for this user (email must match theirs and be verified) and adds the membership. */
  accept(orgId: string, invitationId: string, userId: string, now: Date, actor: Actor): Promise<AcceptResult>;
  /** Changes a role or budget; a role change cuts the member's credentials in the organization to `allowedScopes`. */
  changeMember(orgId: string, userId: string, change: MemberChange, allowedScopes: readonly string[] | undefined, actor: Actor): Promise<MemberChangeResult>;
  /** Removes the member and revokes the credentials they created in the organization. */
  removeMember(orgId: string, userId: string, now: Date, actor: Actor): Promise<{ kind: 'ok'; credentialsRevoked: number } | { kind: 'not_member' } | { kind: 'last_owner' }>;
  audit(orgId: string, filter: AuditFilter): Promise<AuditEvent[]>;
  /**
   * Closes a team organization in one transaction under its wallet's lock, by the account-closure
   * rules: refused while holds are pending or jobs unfinished; the available balance is settled
   * through the ledger (forfeited, when accepted); its credentials are revoked.
   */
  close(orgId: string, acceptForfeiture: boolean, now: Date, actor: Actor): Promise<CloseOrgResult>;
}
