import { pass, type CallOptions, type RequestFn } from '../call.js';
import type { JsonBody, Operation, Query } from '../types.js';

/**
 * Organizations (session): create and list them, members and roles, invitations and the audit
 * log. To act in one for every other call, create the client with `org` (sent as `Qrail-Org`).
 */
export function orgsArea(request: RequestFn) {
  const org = (orgId: string) => ({ org_id: orgId });
  return {
    async list(options?: CallOptions) {
      return (await request('get', '/v1/orgs', pass(options))).data.orgs;
    },
    async create(name: string, options?: CallOptions) {
      return (await request('post', '/v1/orgs', { body: { name }, ...pass(options) })).data;
    },
    async get(orgId: string, options?: CallOptions) {
      return (await request('get', '/v1/orgs/{org_id}', { params: org(orgId), ...pass(options) })).data;
    },
    async rename(orgId: string, name: string, options?: CallOptions) {
      return (await request('patch', '/v1/orgs/{org_id}', { params: org(orgId), body: { name }, ...pass(options) })).data;
    },
    async members(orgId: string, options?: CallOptions) {
      return (await request('get', '/v1/orgs/{org_id}/members', { params: org(orgId), ...pass(options) })).data.members;
    },
    /** A lower role cuts the scopes of the credentials the member created there (`credentials_cut`). */
    async changeRole(orgId: string, userId: string, role: NonNullable<JsonBody<Operation<'/v1/orgs/{org_id}/members/{user_id}', 'patch'>>['role']>, options?: CallOptions) {
      return (await request('patch', '/v1/orgs/{org_id}/members/{user_id}', { params: { org_id: orgId, user_id: userId }, body: { role }, ...pass(options) })).data;
    },
    /** The member's own daily and monthly limits ("10.00"; null clears one; left out keeps it), checked with every hold and job reservation. */
    async setSpendLimits(orgId: string, userId: string, spendLimits: NonNullable<JsonBody<Operation<'/v1/orgs/{org_id}/members/{user_id}', 'patch'>>['spend_limits']>, options?: CallOptions) {
      return (await request('patch', '/v1/orgs/{org_id}/members/{user_id}', { params: { org_id: orgId, user_id: userId }, body: { spend_limits: spendLimits }, ...pass(options) })).data;
    },
    /** Owner only; `name` is the organization's name typed again; a balance is forfeited only with `accept_forfeiture: true`. */
    async close(orgId: string, body: JsonBody<Operation<'/v1/orgs/{org_id}/close', 'post'>>, options?: CallOptions) {
      return (await request('post', '/v1/orgs/{org_id}/close', { params: org(orgId), body, ...pass(options) })).data;
    },
    /** Ends the member's access at once and revokes the credentials they created there. */
    async removeMember(orgId: string, userId: string, options?: CallOptions) {
      return (await request('delete', '/v1/orgs/{org_id}/members/{user_id}', { params: { org_id: orgId, user_id: userId }, ...pass(options) })).data;
    },
    async invite(orgId: string, body: JsonBody<Operation<'/v1/orgs/{org_id}/invitations', 'post'>>, options?: CallOptions) {
      return (await request('post', '/v1/orgs/{org_id}/invitations', { params: org(orgId), body, ...pass(options) })).data;
    },
    async invitations(orgId: string, options?: CallOptions) {
      return (await request('get', '/v1/orgs/{org_id}/invitations', { params: org(orgId), ...pass(options) })).data.invitations;
    },
    /** With the invited person's session (the email must match and be verified). */
    async acceptInvitation(orgId: string, invitationId: string, options?: CallOptions) {
      return (await request('post', '/v1/orgs/{org_id}/invitations/{invitation_id}/accept', { params: { org_id: orgId, invitation_id: invitationId }, ...pass(options) })).data;
    },
    /** Newest first; `next_cursor` pages. */
    async audit(orgId: string, query?: Omit<NonNullable<Query<Operation<'/v1/orgs/{org_id}/audit', 'get'>>>, 'format'>, options?: CallOptions) {
      return (await request('get', '/v1/orgs/{org_id}/audit', { params: org(orgId), query, ...pass(options) })).data;
    },
  };
}
