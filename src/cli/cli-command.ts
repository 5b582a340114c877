import type { Config } from '../config/config.js';

/**
 * The shape of a command in the table (src/cli/commands.ts). Each area's commands implement it
 * without importing the table that lists them. A command declares everything its help shows —
 * options, positional arguments, summary, long help, examples — so `-h/--help` is printed from
 * the declaration alone and never reaches `run` (no configuration, database or server is touched).
 */
export interface CliCommand {
  /** Words that select it: "serve", "jobs wait", "credit grant". */
  readonly name: string;
  /** One line for the command list. */
  readonly summary: string;
  /** Paragraphs for `--help`, after the usage line. */
  readonly description?: string;
  readonly options?: Readonly<Record<string, OptionSpec>>;
  readonly positionals?: readonly PositionalSpec[];
  readonly examples?: readonly string[];
  /** Returns the exit code (EXIT in this file), or KEEP_RUNNING for a server. */
  run(input: ParsedInput, ctx: CliContext): Promise<number>;
}

export interface OptionSpec {
  readonly type: 'string' | 'boolean';
  readonly short?: string;
  /** Placeholder shown in help: `--shots <n>`. */
  readonly value?: string;
  readonly description: string;
  /** Missing → usage error (exit 2) naming it. */
  readonly required?: boolean;
  /** Allowed values (checked before `run`; listed in help). */
  readonly choices?: readonly string[];
}

export interface PositionalSpec {
  readonly name: string;
  readonly description: string;
  readonly optional?: boolean;
  /** `uuid`: checked before the command runs (exit 2), so a mistyped id never reaches the service. */
  readonly format?: 'uuid';
}

export interface ParsedInput {
  /** Option values by long name; booleans are `true` when given. */
  readonly options: Readonly<Record<string, string | boolean | undefined>>;
  readonly positionals: readonly string[];
}

/** Exit codes (docs/cli.md, docs/decisions/cli-exit-codes.md). */
export const EXIT = { OK: 0, FAILURE: 1, USAGE: 2 } as const;
/** Returned by a command that keeps the process alive (serve). */
export const KEEP_RUNNING = -1;

export interface CliIo {
  out(s: string): void;
  err(s: string): void;
  /** Whether stderr is a terminal (progress lines redraw in place there). */
  readonly errIsTty?: boolean;
  /** Reads all of stdin (`--password-stdin`). */
  readStdin?(): Promise<string>;
  /** Asks on the terminal without echo; undefined when there is no terminal. */
  promptSecret?(question: string): Promise<string | undefined>;
}

/** What the remote commands need from the environment; main.ts reads it. */
export interface RemoteSettings {
  /** QRAIL_URL. */
  readonly url?: string;
  /** QRAIL_TOKEN: a session token (`qrs_…`) or a Jobs token (anything else). */
  readonly token?: string;
  /** QRAIL_ORG: the organization client commands act in (sent as Qrail-Org); --org wins. */
  readonly org?: string;
  /** The per-user config file (QRAIL_CONFIG, or the XDG default). */
  readonly configFile: string;
}

export interface CliContext {
  readonly io: CliIo;
  /**
   * The service's configuration from the environment, parsed and checked (throws ConfigError,
   * exit 2). Only server and operator commands call it: a client command never needs the
   * service's settings to be valid on the machine it runs on.
   */
  serverConfig(opts?: { readonly quietUnknownVariables?: boolean }): Promise<Config>;
  readonly remote: RemoteSettings;
  readonly fetch?: typeof fetch;
}

/** A mistake in how the command was called: printed with the command's usage, exit 2. */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}
