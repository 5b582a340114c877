import { parseArgs, type ParseArgsConfig } from 'node:util';
import { UsageError, type CliCommand, type ParsedInput } from './cli-command.js';
import { suggestion } from './did-you-mean.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** `-h`/`--help` anywhere before a `--`: help wins over everything else on the line. */
export function wantsHelp(argv: readonly string[]): boolean {
  const end = argv.indexOf('--');
  return (end < 0 ? argv : argv.slice(0, end)).some((a) => a === '-h' || a === '--help');
}

type ParseArgsError = Error & { code?: string };

/** node:util's messages, rewritten to name the flag the way every qrail message does. */
function usageMessage(e: ParseArgsError, command: CliCommand): string {
  const flag = /'(-{1,2}[^' ]+)/.exec(e.message)?.[1];
  switch (e.code) {
    case 'ERR_PARSE_ARGS_UNKNOWN_OPTION':
      return `unknown option "${flag ?? e.message}"${flag === undefined ? '' : suggestion(flag, [...Object.keys(command.options ?? {}).map((n) => `--${n}`), '--help'])}`;
    case 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE':
      return /does not take an argument/.test(e.message) ? `option "${flag}" takes no value` : `option "${flag}" needs a value`;
    default:
      return e.message;
  }
}

/**
 * Parses a command's arguments with `node:util` `parseArgs` in strict mode: an unknown flag,
 * a missing value, a missing required option or positional, an extra positional or a value
 * outside the declared choices is a UsageError (exit 2), raised before the command runs.
 */
export function parseCommandLine(command: CliCommand, args: readonly string[]): ParsedInput {
  const options: NonNullable<ParseArgsConfig['options']> = {};
  for (const [name, o] of Object.entries(command.options ?? {})) options[name] = { type: o.type, ...(o.short === undefined ? {} : { short: o.short }) };
  let parsed: { values: Record<string, string | boolean | undefined>; positionals: string[] };
  try {
    parsed = parseArgs({ args: [...args], options, strict: true, allowPositionals: true }) as typeof parsed;
  } catch (e) {
    if (e instanceof TypeError && typeof (e as ParseArgsError).code === 'string') throw new UsageError(usageMessage(e, command));
    throw e;
  }
  for (const [name, o] of Object.entries(command.options ?? {})) {
    const v = parsed.values[name];
    if (o.required === true && v === undefined) throw new UsageError(`missing required option --${name}`);
    if (o.choices !== undefined && typeof v === 'string' && !o.choices.includes(v)) throw new UsageError(`--${name} must be one of ${o.choices.join(', ')} (got "${v}")`);
  }
  const declared = command.positionals ?? [];
  const required = declared.filter((p) => p.optional !== true).length;
  if (parsed.positionals.length < required) throw new UsageError(`missing ${declared[parsed.positionals.length]?.name ?? 'argument'}`);
  if (parsed.positionals.length > declared.length) throw new UsageError(`unexpected argument "${parsed.positionals[declared.length]}"`);
  parsed.positionals.forEach((v, i) => {
    const p = declared[i];
    if (p?.format === 'uuid' && !UUID.test(v)) throw new UsageError(`${p.name} must be a UUID like 0b6f3c2e-5d1a-4c8e-9f7a-2e4b6d8c0a1f (got "${v}")`);
  });
  return { options: parsed.values, positionals: parsed.positionals };
}

/** A string option's value (undefined when absent). */
export const strOption = (v: string | boolean | undefined): string | undefined => (typeof v === 'string' ? v : undefined);

/** A whole-number option's value; anything else is a usage error naming the flag. */
export function intOption(v: string | boolean | undefined, name: string): number | undefined {
  if (typeof v !== 'string') return undefined;
  if (!/^\d+$/.test(v)) throw new UsageError(`--${name} must be a whole number (got "${v}")`);
  return Number(v);
}
