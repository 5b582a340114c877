import type { Config } from '../config/config.js';

/**
 * The shape of an operator command. It lives apart from the command table (commands.ts) so that
 * each area's commands can implement it without importing the table that lists them.
 */
export interface CliCommand {
  readonly summary: string;
  /** Returns the process exit code. */
  run(config: Config, args: readonly string[], io: CliIo): Promise<number>;
}

export interface CliIo {
  out(s: string): void;
  err(s: string): void;
}
