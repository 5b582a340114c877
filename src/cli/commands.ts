import { BILLING_COMMANDS } from './billing-commands.js';
import { backupCommand, restoreCommand } from './backup-commands.js';
import type { CliCommand } from './cli-command.js';
import type { CommandSection } from './help-text.js';
import { migrateCommand, serveCommand } from './server-commands.js';
import { balanceCommand, loginCommand, logoutCommand, registerCommand, topupCommand } from './account-commands.js';
import { analyzeCommand, optimizeCommand, validateCommand } from './circuit-commands.js';
import { credentialsCreateCommand, credentialsListCommand, credentialsRevokeCommand } from './credentials-commands.js';
import { jobsCancelCommand, jobsGetCommand, jobsListCommand, jobsSubmitCommand, jobsWaitCommand } from './jobs-commands.js';
import { mcpCommand } from './mcp-command.js';
import { ORGS_COMMANDS } from './orgs-commands.js';
import { runCommand } from './run-command.js';

/**
 * The command table: every command of `qrail`, by heading of `qrail --help`. Each area adds
 * its own commands here; the dispatcher (run-cli.ts) and the help read nothing else.
 */
export const SECTIONS: readonly CommandSection[] = [
  { title: 'Service', commands: [serveCommand, migrateCommand] },
  { title: 'Operator', commands: [...BILLING_COMMANDS, backupCommand, restoreCommand] },
  {
    title: 'Account (client of a running service)',
    commands: [registerCommand, loginCommand, logoutCommand, balanceCommand, topupCommand, credentialsCreateCommand, credentialsListCommand, credentialsRevokeCommand],
  },
  { title: 'Organizations (a team sharing a wallet; --org or QRAIL_ORG on any client command acts in one)', commands: ORGS_COMMANDS },
  { title: 'Circuits and runs', commands: [validateCommand, analyzeCommand, optimizeCommand, runCommand] },
  { title: 'Account Jobs (prepaid jobs, with a machine credential)', commands: [jobsSubmitCommand, jobsGetCommand, jobsListCommand, jobsWaitCommand, jobsCancelCommand] },
  { title: 'Agents (MCP)', commands: [mcpCommand] },
];

export const COMMANDS: readonly CliCommand[] = SECTIONS.flatMap((s) => s.commands);

/** The environment variables the command line itself reads (the service's are in docs/configuration.md). */
export const CLI_ENVIRONMENT: readonly string[] = [
  'QRAIL_URL      the service base URL for client commands (default: the logged-in one, else http://127.0.0.1:8080)',
  'QRAIL_TOKEN    a bearer token to use instead of the saved login (qrs_… session, or a Jobs token)',
  'QRAIL_ORG      the organization client commands act in, sent as Qrail-Org (default: your personal one; --org wins)',
  'QRAIL_CONFIG   the per-user config file (default: $XDG_CONFIG_HOME/qrail/config.json, ~/.config/qrail/config.json)',
  'serve, migrate and the operator commands read the service configuration (docs/configuration.md).',
];
