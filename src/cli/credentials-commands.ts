import { EXIT, UsageError } from './cli-command.js';
import { printJson } from './output.js';
import { saveCredential } from './account-commands.js';
import { remoteCommand, requireSession } from './remote-session.js';

/** Machine credentials for both interfaces, managed with the session. */

// The scopes a credential can hold (docs/security.md#credentials-and-scopes); the default stays the Jobs pair.
const SCOPES = ['jobs:read', 'jobs:write', 'circuits:run', 'execute:simulator', 'execute:hardware', 'billing:read'] as const;
type Scope = (typeof SCOPES)[number];
const DEFAULT_SCOPES: readonly Scope[] = ['jobs:read', 'jobs:write'];

export const credentialsCreateCommand = remoteCommand({
  name: 'credentials create',
  summary: 'create a machine credential with its scopes (its secret is shown once)',
  description: `Prints the credential as <credential_id>:<secret>, the form \`qrail login --credential\`
takes; the secret is never shown again. --login saves it at once (then nothing is printed but its id).`,
  options: {
    name: { type: 'string', value: 'name', required: true, description: 'a label, e.g. "ci agent"' },
    scopes: { type: 'string', value: 'list', description: `comma-separated: ${SCOPES.join(', ')} (default: jobs:read,jobs:write)` },
    login: { type: 'boolean', description: 'save it in the config file, as `qrail login --credential` does' },
  },
  examples: [
    'qrail credentials create --name "ci agent" --login',
    'qrail credentials create --name reader --scopes jobs:read --json',
    'qrail credentials create --name hw-agent --scopes circuits:run,execute:simulator,execute:hardware,billing:read',
  ],
  async run(input, svc, ctx) {
    requireSession(svc);
    const raw = typeof input.options['scopes'] === 'string' ? input.options['scopes'].split(',').map((s) => s.trim()) : [...DEFAULT_SCOPES];
    const bad = raw.find((s) => !(SCOPES as readonly string[]).includes(s));
    if (bad !== undefined) throw new UsageError(`unknown scope "${bad}" (allowed: ${SCOPES.join(', ')})`);
    const c = await svc.client.auth.createCredential({ name: String(input.options['name']), scopes: raw as Scope[] });
    if (input.options['login'] === true) await saveCredential(svc, { client_id: c.client_id, client_secret: c.secret });
    if (svc.json) printJson(ctx.io, { ...c, saved: input.options['login'] === true });
    else if (input.options['login'] === true) ctx.io.out(`created machine credential ${c.credential_id} (${c.scopes.join(' ')}) and saved it for ${svc.url}\n`);
    else ctx.io.out(`${c.client_id}:${c.secret}\n`);
    if (!svc.json && input.options['login'] !== true) ctx.io.err(`created machine credential ${c.credential_id}; the line above is shown once — use it with: qrail login --credential <that line>\n`);
    return EXIT.OK;
  },
});

export const credentialsListCommand = remoteCommand({
  name: 'credentials list',
  summary: "the account's machine credentials (never their secrets)",
  examples: ['qrail credentials list'],
  async run(_input, svc, ctx) {
    requireSession(svc);
    const list = await svc.client.auth.listCredentials();
    if (svc.json) {
      printJson(ctx.io, list);
      return EXIT.OK;
    }
    const rows = list.credentials.map((c) => `${c.credential_id}  ${c.status.padEnd(8)}  ${c.scopes.join(',').padEnd(20)}  ${c.secret_hint}  ${c.name}`);
    ctx.io.out(rows.length === 0 ? 'no machine credentials\n' : `${rows.join('\n')}\n`);
    return EXIT.OK;
  },
});

export const credentialsRevokeCommand = remoteCommand({
  name: 'credentials revoke',
  summary: 'revoke a machine credential (its access tokens stop working too)',
  positionals: [{ name: 'credential-id', description: 'as `qrail credentials list` shows it' }],
  examples: ['qrail credentials revoke 0b6f…'],
  async run(input, svc, ctx) {
    requireSession(svc);
    const id = input.positionals[0] ?? '';
    const r = await svc.client.auth.revokeCredential(id);
    if (svc.json) printJson(ctx.io, r);
    else ctx.io.out(`revoked machine credential ${id}\n`);
    return EXIT.OK;
  },
});
