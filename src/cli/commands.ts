import type { Config } from '../config/config.js';
import { BILLING_COMMANDS } from './billing-commands.js';

export interface CliIo {
  out(s: string): void;
  err(s: string): void;
}

export interface CliCommand {
  readonly summary: string;
  /** Returns the process exit code. */
  run(config: Config, args: readonly string[], io: CliIo): Promise<number>;
}

/** Operator commands by name ("credit grant", "ledger check", …). Each area adds its own. */
export const COMMANDS: Record<string, CliCommand> = { ...BILLING_COMMANDS };
