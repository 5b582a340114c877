import { BILLING_COMMANDS } from './billing-commands.js';
import type { CliCommand } from './cli-command.js';

/** Operator commands by name ("credit grant", "ledger check", …). Each area adds its own. */
export const COMMANDS: Record<string, CliCommand> = { ...BILLING_COMMANDS };
