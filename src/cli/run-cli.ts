import { EXIT, UsageError, type CliCommand, type CliContext } from './cli-command.js';
import { commandHelp, groupHelp, rootHelp, usageLine, type CommandSection } from './help-text.js';
import { parseCommandLine, wantsHelp } from './parse-command-line.js';
import { reportFailure } from './output.js';
import { closest, suggestion } from './did-you-mean.js';

export interface CliTable {
  readonly sections: readonly CommandSection[];
  readonly version: string;
  /** Lines of the "Environment" block of `qrail --help`. */
  readonly environment: readonly string[];
}

const jsonWanted = (args: readonly string[]) => args.includes('--json');

function usageFailure(ctx: CliContext, args: readonly string[], where: string, message: string, usage: string): number {
  if (jsonWanted(args)) return reportFailure(ctx.io, true, { code: 'USAGE', message: `${where}: ${message}`, details: { usage } }, EXIT.USAGE);
  ctx.io.err(`${where}: ${message}\n${usage}\n`);
  return EXIT.USAGE;
}

/** Parses `args` for `command` and runs it; a usage error prints the usage line and returns 2. */
export async function invokeCommand(command: CliCommand, args: readonly string[], ctx: CliContext): Promise<number> {
  if (wantsHelp(args)) {
    ctx.io.out(commandHelp(command));
    return EXIT.OK;
  }
  let input;
  try {
    input = parseCommandLine(command, args);
  } catch (e) {
    if (e instanceof UsageError) return usageFailure(ctx, args, `qrail ${command.name}`, e.message, `${usageLine(command)}\nRun \`qrail ${command.name} --help\` for its options.`);
    throw e;
  }
  try {
    return await command.run(input, ctx);
  } catch (e) {
    // A command may find a usage problem only once it looks at a value (an unreadable FILE).
    if (e instanceof UsageError) return usageFailure(ctx, args, `qrail ${command.name}`, e.message, usageLine(command));
    throw e;
  }
}

/** A first word close to the typed one ("jbos" → "jobs"), else a command whose last word is close ("validate" → "circuits validate"). */
function suggestCommand(word: string, all: readonly CliCommand[]): string {
  const first = closest(word, new Set(all.map((c) => c.name.split(' ')[0] ?? c.name)));
  if (first !== undefined) return `; did you mean "${first}"?`;
  const byLast = new Map(all.filter((c) => c.name.includes(' ')).map((c) => [c.name.split(' ').at(-1) ?? c.name, c.name]));
  const last = closest(word, byLast.keys());
  return last === undefined ? '' : `; did you mean "${byLast.get(last)}"?`;
}

/**
 * The dispatcher: `qrail [group] <command> [args]`. Help (`-h`, `--help`, `help …`) and the
 * version are answered from the table alone, before any command runs, so they never load the
 * configuration, open a database or start a server. Returns the exit code.
 */
export async function runCli(argv: readonly string[], ctx: CliContext, table: CliTable): Promise<number> {
  const all = table.sections.flatMap((s) => s.commands);
  const root = () => rootHelp(table.sections, table.environment);
  let args = [...argv];
  let help = wantsHelp(args);
  if (args[0] === 'help') {
    help = true;
    args = args.slice(1);
  }
  // `qrail --org <id> <command> …`: the global form of every client command's --org, moved after the command.
  const lead: string[] = [];
  while (args[0] === '--org' || args[0]?.startsWith('--org=') === true) lead.push(...args.splice(0, args[0] === '--org' ? 2 : 1));
  const words: string[] = [];
  for (const a of args) {
    if (a.startsWith('-')) break;
    words.push(a);
  }
  // The longest run of leading words that names a command: "jobs wait" before "jobs".
  let command: CliCommand | undefined;
  for (let n = Math.min(words.length, 3); n > 0 && command === undefined; n--) command = all.find((c) => c.name === words.slice(0, n).join(' '));
  const group = command === undefined && words[0] !== undefined ? all.filter((c) => c.name.startsWith(`${words[0]} `)) : [];

  if (command === undefined && group.length === 0 && words.length === 0) {
    if (help) {
      ctx.io.out(root());
      return EXIT.OK;
    }
    if (args.includes('-V') || args.includes('--version')) {
      ctx.io.out(jsonWanted(args) ? `${JSON.stringify({ version: table.version })}\n` : `qrail ${table.version}\n`);
      return EXIT.OK;
    }
    if (args.length === 0) {
      ctx.io.err(root());
      return EXIT.USAGE;
    }
    return usageFailure(
      ctx,
      args,
      'qrail',
      `unknown option "${args[0]}"${suggestion(args[0] ?? '', ['--help', '--version'])}`,
      'usage: qrail <command> [options]\nRun `qrail --help` for the commands.',
    );
  }
  if (command === undefined && group.length > 0) {
    if (help && words.length === 1) {
      ctx.io.out(groupHelp(words[0] as string, group));
      return EXIT.OK;
    }
    const what = words[1] === undefined ? 'a command' : `"${words[1]}"`;
    const near =
      words[1] === undefined
        ? undefined
        : closest(
            words[1],
            group.map((c) => c.name.slice(words[0]!.length + 1)),
          );
    const message = words[1] === undefined ? `needs ${what}` : `unknown command ${what}${near === undefined ? '' : `; did you mean "${words[0]} ${near}"?`}`;
    if (jsonWanted(args)) return reportFailure(ctx.io, true, { code: 'USAGE', message: `qrail ${words[0]}: ${message}` }, EXIT.USAGE);
    ctx.io.err(`qrail ${words[0]}: ${message}\n${groupHelp(words[0] as string, group)}`);
    return EXIT.USAGE;
  }
  if (command === undefined) {
    // Even with --help: help for a command that does not exist is a usage error naming it, not the global help.
    return usageFailure(ctx, args, 'qrail', `unknown command "${words[0]}"${suggestCommand(words[0] ?? '', all)}`, 'usage: qrail <command> [options]\nRun `qrail --help` for the commands.');
  }
  const rest = [...args.slice(command.name.split(' ').length), ...lead];
  // `-V` after a command is its version request too (`qrail serve --version`), unless the command declares it.
  if (!help && (rest.includes('--version') || rest.includes('-V')) && command.options?.['version'] === undefined) {
    ctx.io.out(`qrail ${table.version}\n`);
    return EXIT.OK;
  }
  return invokeCommand(command, help ? [...rest, '--help'] : rest, ctx);
}
