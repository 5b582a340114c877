import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/http/app-types.js';
import { buildLiveApp, signUp, verifyEmail } from '../helpers/app.js';

type User = Awaited<ReturnType<typeof signUp>>;

/**
 * `qrail orgs …` and `--org` / QRAIL_ORG: the real `bin/qrail.js` against a live app on a
 * listening port, each person's session given as QRAIL_TOKEN (as in CI). An owner creates an
 * organization, invites a person who accepts from the command line, changes their role and reads
 * the audit log; `--org` is seen to act in the organization (its own, empty wallet; the role's
 * refusals). Every spawn pays the tsx start-up, so independent commands run side by side.
 */
const BIN = new URL('../../bin/qrail.js', import.meta.url).pathname;
const dir = mkdtempSync(join(tmpdir(), 'qrail-cli-orgs-'));
let url = '';

function qrail(args: string[], env: Record<string, string>): Promise<{ code: number | null; out: string; err: string }> {
  const child = spawn(process.execPath, [BIN, ...args], { env: { PATH: process.env['PATH'] ?? '', QRAIL_URL: url, QRAIL_CONFIG: join(dir, 'none.json'), ...env }, cwd: dir });
  let out = '';
  let err = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (err += d));
  child.stdin.end('');
  return new Promise((resolve) => child.on('exit', (code) => resolve({ code, out, err })));
}

async function ok(args: string[], env: Record<string, string>): Promise<string> {
  const r = await qrail(args, env);
  if (r.code !== 0) throw new Error(`qrail ${args.join(' ')} exited ${r.code}\nstdout: ${r.out}\nstderr: ${r.err}`);
  return r.out;
}

describe('qrail orgs and --org (the real binary)', { timeout: 120_000 }, () => {
  let app: App;
  let owner: User;
  let invitee: User;
  const as = (u: User, extra: Record<string, string> = {}) => ({ QRAIL_TOKEN: u.token, ...extra });

  const verify = (u: User) => verifyEmail(app, u);

  beforeAll(async () => {
    ({ app, url } = await buildLiveApp());
    owner = await signUp(app);
    invitee = await signUp(app);
    await Promise.all([verify(owner), verify(invitee)]);
  });
  afterAll(async () => {
    await app.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('create → list → invite → accept → members → role change → audit (JSON, text and CSV), acting with --org and QRAIL_ORG', async () => {
    const created = JSON.parse(await ok(['orgs', 'create', 'CLI Lab', '--json'], as(owner)));
    expect(created).toMatchObject({ name: 'CLI Lab', role: 'owner', personal: false });
    const org = created.org_id as string;

    // The personal wallet has money; the organization's own wallet, named by --org (global form and per command) or QRAIL_ORG, has none.
    await ok(['topup', '5'], as(owner));
    const [list, personal, teamGlobal, teamEnv] = await Promise.all([
      ok(['orgs', 'list'], as(owner)),
      ok(['balance', '--json'], as(owner)),
      ok(['--org', org, 'balance', '--json'], as(owner)),
      ok(['balance', '--json'], as(owner, { QRAIL_ORG: org })),
    ]);
    expect(list.split('\n')[0]).toMatch(/^ORG_ID +ROLE +KIND +NAME$/);
    expect(list).toMatch(new RegExp(`^${owner.accountId} +owner +personal +`, 'm'));
    expect(list).toMatch(new RegExp(`^${org} +owner +team +CLI Lab$`, 'm'));
    expect(JSON.parse(personal).available).toBe('5.000000');
    expect(JSON.parse(teamGlobal).available).toBe('0.000000');
    expect(JSON.parse(teamEnv).available).toBe('0.000000');

    const inv = JSON.parse(await ok(['orgs', 'invite', invitee.email, '--role', 'viewer', '--org', org, '--json'], as(owner)));
    expect(inv).toMatchObject({ email: invitee.email, role: 'viewer', status: 'pending' });
    const pending = await ok(['orgs', 'invite'], as(owner, { QRAIL_ORG: org }));
    expect(pending).toMatch(new RegExp(`^${inv.invitation_id} +pending +viewer +\\S+ +${invitee.email.replace(/\./g, '\\.')}$`, 'm'));

    // Accepting drops Qrail-Org even when QRAIL_ORG names the organization the person is not in yet.
    const joined = await ok(['orgs', 'accept', org, inv.invitation_id], as(invitee, { QRAIL_ORG: org }));
    expect(joined).toBe(`joined CLI Lab (${org}) as viewer; act in it with --org ${org}\n`);
    // A viewer acting in the organization is refused what the role lacks, with the API's code.
    const refused = await qrail(['orgs', 'invite', 'someone@example.com', '--json'], as(invitee, { QRAIL_ORG: org }));
    expect(refused.code).toBe(1);
    expect(JSON.parse(refused.err).error).toMatchObject({ code: 'ORG_ROLE_FORBIDDEN', status: 403, details: { role: 'viewer', permission: 'members' } });

    const changed = await qrail(['orgs', 'members', org, '--set-role', `${invitee.userId}=developer`], as(owner));
    expect(changed.code, changed.err).toBe(0);
    expect(changed.err).toBe(`${invitee.email} is now developer\n`);
    const rows = changed.out.trimEnd().split('\n');
    expect(rows[0]).toMatch(/^USER_ID +ROLE +JOINED +EMAIL$/);
    expect(rows.slice(1).map((r) => r.split(/ +/))).toEqual(
      expect.arrayContaining([
        [owner.userId, 'owner', expect.stringMatching(/^\d{4}-/), owner.email],
        [invitee.userId, 'developer', expect.stringMatching(/^\d{4}-/), invitee.email],
      ]),
    );
    expect(rows).toHaveLength(3);

    const [audit, text, csv] = await Promise.all([
      ok(['orgs', 'audit', '--org', org, '--action', 'member.role_changed', '--json'], as(owner)),
      ok(['orgs', 'audit', org, '--limit', '2'], as(owner)),
      ok(['orgs', 'audit', org, '--csv'], as(owner)),
    ]);
    const page = JSON.parse(audit);
    expect(page.events).toHaveLength(1);
    expect(page.events[0]).toMatchObject({
      action: 'member.role_changed',
      actor: { kind: 'person', id: owner.userId },
      target: invitee.userId,
      details: { role: { from: 'viewer', to: 'developer' } },
    });
    // Two newest events, then the cursor of the next page, which holds the older ones.
    const lines = text.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^AT +ACTION +ACTOR +TARGET +DETAILS$/);
    expect(lines[1]).toMatch(/ member\.role_changed +person:/);
    const cursor = /^more: --cursor (\d+)$/.exec(lines.at(-1) ?? '')?.[1];
    expect(cursor).toBeDefined();
    const older = JSON.parse(await ok(['orgs', 'audit', org, '--cursor', cursor ?? '', '--json'], as(owner)));
    expect(older.events.map((e: { action: string }) => e.action)).toContain('org.created');
    expect(csv.split(/\r?\n/)[0]).toMatch(/^"?event_id"?,/);
    expect(csv).toContain('member.role_changed');
    expect(csv).toContain('member.invited');
  });

  it('orgs show defaults to --org, else the personal organization; a malformed id is a usage error before any request', async () => {
    const [personal, bad] = await Promise.all([ok(['orgs', 'show', '--json'], as(owner)), qrail(['orgs', 'show', 'not-a-uuid'], as(owner))]);
    expect(JSON.parse(personal)).toMatchObject({ org_id: owner.accountId, personal: true, role: 'owner' });
    expect(bad.code).toBe(2);
    expect(bad.err).toMatch(/org-id must be a UUID/);
    const other = await qrail(['orgs', 'show', '--org', '00000000-0000-4000-8000-000000000000'], as(owner));
    expect(other.code).toBe(1);
    expect(other.err).toMatch(/^error ORG_NOT_FOUND: /);
  });
});
