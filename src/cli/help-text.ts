import type { CliCommand, OptionSpec } from './cli-command.js';

/** The commands of one heading of `qrail --help`. */
export interface CommandSection {
  readonly title: string;
  readonly commands: readonly CliCommand[];
}

export const EXIT_CODES_LINE = 'Exit codes: 0 ok; 1 failure (including an error answered by the service, a failed job, a broken ledger); 2 usage (bad flag or argument, invalid configuration).';

const HELP_OPTION = '  -h, --help'.padEnd(30) + 'show this help and do nothing else';

function optionLabel(name: string, o: OptionSpec): string {
  const short = o.short === undefined ? '    ' : `-${o.short}, `;
  return `  ${short}--${name}${o.type === 'string' ? ` <${o.value ?? 'value'}>` : ''}`;
}

function column(label: string, text: string): string {
  return label.length < 30 ? `${label.padEnd(30)}${text}` : `${label}\n${''.padEnd(30)}${text}`;
}

/** `qrail jobs wait <job-id> [options]`. */
export function usageLine(c: CliCommand): string {
  const args = (c.positionals ?? []).map((p) => (p.optional === true ? `[${p.name}]` : `<${p.name}>`));
  const required = Object.entries(c.options ?? {})
    .filter(([, o]) => o.required === true)
    .map(([n, o]) => `--${n} <${o.value ?? 'value'}>`);
  return ['usage: qrail', c.name, ...args, ...required, '[options]'].join(' ');
}

/** The full help of one command: usage, summary, description, arguments, options, examples, exit codes. */
export function commandHelp(c: CliCommand): string {
  const parts = [usageLine(c), '', c.summary];
  if (c.description !== undefined) parts.push('', c.description.trim());
  if ((c.positionals ?? []).length > 0) parts.push('', 'Arguments:', ...(c.positionals ?? []).map((p) => column(`  ${p.name}`, p.description)));
  const opts = Object.entries(c.options ?? {}).map(([n, o]) =>
    column(optionLabel(n, o), `${o.description}${o.choices === undefined ? '' : ` (${o.choices.join(' | ')})`}${o.required === true ? ' (required)' : ''}`),
  );
  parts.push('', 'Options:', ...opts, HELP_OPTION);
  if ((c.examples ?? []).length > 0) parts.push('', 'Examples:', ...(c.examples ?? []).map((e) => `  ${e}`));
  parts.push('', EXIT_CODES_LINE);
  return `${parts.join('\n')}\n`;
}

/** `qrail jobs --help`: the sub-commands of a group. */
export function groupHelp(group: string, commands: readonly CliCommand[]): string {
  const lines = [`usage: qrail ${group} <command> [options]`, '', 'Commands:', ...commands.map((c) => column(`  ${c.name}`, c.summary))];
  lines.push('', `\`qrail ${group} <command> --help\` shows a command's options and examples.`, '', EXIT_CODES_LINE);
  return `${lines.join('\n')}\n`;
}

/** `qrail --help`. */
export function rootHelp(sections: readonly CommandSection[], environment: readonly string[]): string {
  const lines = ['usage: qrail <command> [options]', '', 'qrail serves the quantum circuit API, and talks to it as a client.', ''];
  for (const s of sections) lines.push(`${s.title}:`, ...s.commands.map((c) => column(`  ${c.name}`, c.summary)), '');
  lines.push(
    'Options:',
    column('  -h, --help', 'help (of the whole tool, a group or a command); does nothing else'),
    column('  -V, --version', 'print the version'),
    '',
    'Environment:',
    ...environment.map((e) => `  ${e}`),
    '',
    '`qrail <command> --help` shows its options and examples; docs/cli.md has them all.',
    EXIT_CODES_LINE,
  );
  return `${lines.join('\n')}\n`;
}
