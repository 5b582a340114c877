import { EXIT, UsageError, type CliCommand } from './cli-command.js';
import { intOption, strOption } from './parse-command-line.js';
import { printJson } from './output.js';
import { remoteCommand, requireSession, type RemoteService } from './remote-session.js';

/** Organizations (docs/organizations.md), with the person's session: the `qrail orgs …` commands. */

const ROLES = ['owner', 'admin', 'developer', 'billing', 'viewer'] as const;
type Role = (typeof ROLES)[number];

const ORG_ARG = { name: 'org-id', description: 'the organization (default: --org, QRAIL_ORG, else your personal one)', optional: true, format: 'uuid' } as const;

/**
 * The organization a command is about: its argument, else the one the command acts in (--org,
 * QRAIL_ORG), else the person's personal organization, looked up, since a personal org's id is
 * the account's and is not saved anywhere on this machine.
 */
async function targetOrg(svc: RemoteService, arg: string | undefined): Promise<string> {
  if (arg !== undefined) return arg;
  if (svc.org !== undefined) return svc.org;
  const personal = (await svc.client.orgs.list()).find((o) => o.personal);
  // Every person has one (a migration made them); an answer without it is a service fault, not a usage slip.
  if (personal === undefined) throw new Error('the service listed no personal organization');
  return personal.org_id;
}

/** Text columns padded to the widest cell, headings first. */
function columns(headings: readonly string[], rows: readonly (readonly string[])[]): string {
  const widths = headings.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: readonly string[]) =>
    cells
      .map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i] ?? 0)))
      .join('  ')
      .trimEnd();
  return `${[line(headings), ...rows.map(line)].join('\n')}\n`;
}

export const orgsListCommand = remoteCommand({
  name: 'orgs list',
  summary: 'the organizations you belong to, with your role in each',
  examples: ['qrail orgs list', 'qrail orgs list --json'],
  async run(_input, svc, ctx) {
    requireSession(svc);
    const orgs = await svc.client.orgs.list();
    if (svc.json) printJson(ctx.io, { orgs });
    else
      ctx.io.out(
        columns(
          ['ORG_ID', 'ROLE', 'KIND', 'NAME'],
          orgs.map((o) => [o.org_id, o.role, o.personal ? 'personal' : 'team', o.name]),
        ),
      );
    return EXIT.OK;
  },
});

export const orgsCreateCommand = remoteCommand({
  name: 'orgs create',
  summary: 'create an organization (you are its owner)',
  description: 'Its wallet starts empty; act in it with --org <org_id> (or QRAIL_ORG) on any client command.',
  positionals: [{ name: 'name', description: 'its display name' }],
  examples: ['qrail orgs create "Quantum Lab"', 'qrail orgs create "Quantum Lab" --json | jq -r .org_id'],
  async run(input, svc, ctx) {
    requireSession(svc);
    const o = await svc.client.orgs.create(input.positionals[0] ?? '');
    if (svc.json) printJson(ctx.io, o);
    else ctx.io.out(`created organization ${o.org_id} "${o.name}"; act in it with --org ${o.org_id}\n`);
    return EXIT.OK;
  },
});

export const orgsShowCommand = remoteCommand({
  name: 'orgs show',
  summary: 'one organization and your role in it',
  positionals: [ORG_ARG],
  examples: ['qrail orgs show', 'qrail orgs show 6f1c2a9e-1b4d-4e8f-a6c5-0d9e8b7a6f51'],
  async run(input, svc, ctx) {
    requireSession(svc);
    const o = await svc.client.orgs.get(await targetOrg(svc, input.positionals[0]));
    if (svc.json) printJson(ctx.io, o);
    else ctx.io.out(`${o.name}\n  org_id   ${o.org_id}\n  kind     ${o.personal ? 'personal' : 'team'}\n  role     ${o.role}\n  created  ${o.created_at}\n`);
    return EXIT.OK;
  },
});

export const orgsMembersCommand = remoteCommand({
  name: 'orgs members',
  summary: "an organization's members and their roles; --set-role changes one member's role",
  positionals: [ORG_ARG],
  options: {
    'set-role': { type: 'string', value: 'user_id=role', description: `change a member's role (${ROLES.join(', ')}); owners and admins only` },
  },
  examples: ['qrail orgs members --org 6f1c2a9e-1b4d-4e8f-a6c5-0d9e8b7a6f51', 'qrail orgs members 6f1c2a9e-1b4d-4e8f-a6c5-0d9e8b7a6f51 --set-role 2a9d4c1e-7b3f-4a6d-9e8c-5f0b1d2c3e4a=developer'],
  async run(input, svc, ctx) {
    requireSession(svc);
    const orgId = await targetOrg(svc, input.positionals[0]);
    const change = strOption(input.options['set-role']);
    if (change !== undefined) {
      const [userId, role] = change.split('=');
      if (userId === undefined || role === undefined || !(ROLES as readonly string[]).includes(role))
        throw new UsageError(`--set-role takes <user_id>=<role> with a role among ${ROLES.join(', ')} (got "${change}")`);
      const r = await svc.client.orgs.changeRole(orgId, userId, role as Role);
      if (!svc.json) ctx.io.err(`${r.member.email} is now ${r.member.role}${r.credentials_cut > 0 ? `; ${r.credentials_cut} of their credentials lost scopes the role lacks` : ''}\n`);
    }
    const members = await svc.client.orgs.members(orgId);
    if (svc.json) printJson(ctx.io, { org_id: orgId, members });
    else
      ctx.io.out(
        columns(
          ['USER_ID', 'ROLE', 'JOINED', 'EMAIL'],
          members.map((m) => [m.user_id, m.role, m.joined_at, m.email]),
        ),
      );
    return EXIT.OK;
  },
});

export const orgsInviteCommand = remoteCommand({
  name: 'orgs invite',
  summary: 'mail an invitation to join an organization (single use, 7 days); without an email, list the invitations',
  description: `The invitee accepts it signed in with the invited address, verified: the mail's link opens the
console, or \`qrail orgs accept <org_id> <invitation_id>\`.`,
  positionals: [{ name: 'email', description: "the invitee's address", optional: true }],
  options: { role: { type: 'string', value: 'role', choices: ROLES, description: 'the role they get (default: developer)' } },
  examples: ['qrail orgs invite ada@example.com --role admin --org 6f1c2a9e-1b4d-4e8f-a6c5-0d9e8b7a6f51', 'qrail orgs invite --org 6f1c2a9e-1b4d-4e8f-a6c5-0d9e8b7a6f51'],
  async run(input, svc, ctx) {
    requireSession(svc);
    const orgId = await targetOrg(svc, undefined);
    const email = input.positionals[0];
    if (email !== undefined) {
      const role = (strOption(input.options['role']) ?? 'developer') as Role;
      const inv = await svc.client.orgs.invite(orgId, { email, role });
      if (svc.json) printJson(ctx.io, inv);
      else ctx.io.out(`invited ${inv.email} as ${inv.role} (invitation ${inv.invitation_id}, expires ${inv.expires_at})\n`);
      return EXIT.OK;
    }
    const list = await svc.client.orgs.invitations(orgId);
    if (svc.json) printJson(ctx.io, { org_id: orgId, invitations: list });
    else
      ctx.io.out(
        columns(
          ['INVITATION_ID', 'STATUS', 'ROLE', 'EXPIRES', 'EMAIL'],
          list.map((i) => [i.invitation_id, i.status, i.role, i.expires_at, i.email]),
        ),
      );
    return EXIT.OK;
  },
});

export const orgsAcceptCommand = remoteCommand({
  name: 'orgs accept',
  summary: 'accept an invitation mailed to you (your address must be verified)',
  positionals: [
    { name: 'org-id', description: "the organization, from the mail's link (/console/orgs/<org_id>/invitations/<invitation_id>)", format: 'uuid' },
    { name: 'invitation-id', description: 'the invitation, from the same link', format: 'uuid' },
  ],
  examples: ['qrail orgs accept 6f1c2a9e-1b4d-4e8f-a6c5-0d9e8b7a6f51 2a9d4c1e-7b3f-4a6d-9e8c-5f0b1d2c3e4a'],
  async run(input, svc, ctx) {
    requireSession(svc);
    // The person accepts as themself: Qrail-Org would name an organization they are not in yet.
    const m = await svc.withoutOrg().orgs.acceptInvitation(input.positionals[0] ?? '', input.positionals[1] ?? '');
    if (svc.json) printJson(ctx.io, m);
    else ctx.io.out(`joined ${m.name} (${m.org_id}) as ${m.role}; act in it with --org ${m.org_id}\n`);
    return EXIT.OK;
  },
});

export const orgsAuditCommand = remoteCommand({
  name: 'orgs audit',
  summary: "an organization's audit log, newest first (owners, admins and billing)",
  description: `One page at a time: the next page's --cursor is printed last (with --json: next_cursor).
--csv prints the same page as CSV, the export the console downloads.`,
  positionals: [ORG_ARG],
  options: {
    action: { type: 'string', value: 'action', description: 'only this action, e.g. member.role_changed' },
    actor: { type: 'string', value: 'id', description: 'only events by this person or credential id' },
    since: { type: 'string', value: 'time', description: 'ISO 8601; events at or after it' },
    until: { type: 'string', value: 'time', description: 'ISO 8601; events before it' },
    limit: { type: 'string', value: 'n', description: 'events per page, 1–200 (default 50)' },
    cursor: { type: 'string', value: 'cursor', description: 'the next_cursor of the previous page' },
    csv: { type: 'boolean', description: 'print the page as CSV' },
  },
  examples: [
    'qrail orgs audit --org 6f1c2a9e-1b4d-4e8f-a6c5-0d9e8b7a6f51',
    'qrail orgs audit 6f1c2a9e-1b4d-4e8f-a6c5-0d9e8b7a6f51 --action member.role_changed --since 2026-11-01T00:00:00Z',
    'qrail orgs audit 6f1c2a9e-1b4d-4e8f-a6c5-0d9e8b7a6f51 --csv > audit.csv',
  ],
  async run(input, svc, ctx) {
    requireSession(svc);
    const orgId = await targetOrg(svc, input.positionals[0]);
    const o = input.options;
    const limit = intOption(o['limit'], 'limit');
    const query = {
      ...(strOption(o['action']) === undefined ? {} : { action: strOption(o['action']) as string }),
      ...(strOption(o['actor']) === undefined ? {} : { actor_id: strOption(o['actor']) as string }),
      ...(strOption(o['since']) === undefined ? {} : { since: strOption(o['since']) as string }),
      ...(strOption(o['until']) === undefined ? {} : { until: strOption(o['until']) as string }),
      ...(strOption(o['cursor']) === undefined ? {} : { cursor: strOption(o['cursor']) as string }),
      ...(limit === undefined ? {} : { limit }),
    };
    if (o['csv'] === true) {
      // The answer is text/csv; the client hands back the text as it came.
      const r = await svc.client.request('get', '/v1/orgs/{org_id}/audit', { params: { org_id: orgId }, query: { ...query, format: 'csv' } });
      ctx.io.out(typeof r.data === 'string' ? r.data : JSON.stringify(r.data));
      return EXIT.OK;
    }
    const page = await svc.client.orgs.audit(orgId, query);
    if (svc.json) {
      printJson(ctx.io, page);
      return EXIT.OK;
    }
    const rows = page.events.map((e) => [e.at, e.action, `${e.actor.kind}:${e.actor.id ?? '-'}`, e.target ?? '-', Object.keys(e.details).length === 0 ? '' : JSON.stringify(e.details)]);
    ctx.io.out(rows.length === 0 ? 'no audit events\n' : columns(['AT', 'ACTION', 'ACTOR', 'TARGET', 'DETAILS'], rows));
    if (page.next_cursor !== null) ctx.io.out(`more: --cursor ${page.next_cursor}\n`);
    return EXIT.OK;
  },
});

export const ORGS_COMMANDS: readonly CliCommand[] = [orgsListCommand, orgsCreateCommand, orgsShowCommand, orgsMembersCommand, orgsInviteCommand, orgsAcceptCommand, orgsAuditCommand];
