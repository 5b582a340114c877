import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { CliContext } from '../../src/cli/cli-command.js';
import { CLI_ENVIRONMENT, COMMANDS, SECTIONS } from '../../src/cli/commands.js';
import { runCli } from '../../src/cli/run-cli.js';
import { parseCommandLine } from '../../src/cli/parse-command-line.js';
import { SERVICE_VERSION } from '../../src/version.js';

const BIN = new URL('../../bin/qrail.js', import.meta.url).pathname;
const root = mkdtempSync(join(tmpdir(), 'qrail-cli-help-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** The dispatcher in-process with a context that records every side effect a command could have. */
function harness() {
  let out = '';
  let err = '';
  const touched: string[] = [];
  const configFile = join(root, `config-${Math.random().toString(36).slice(2)}`, 'config.json');
  const ctx: CliContext = {
    io: { out: (s) => void (out += s), err: (s) => void (err += s), readStdin: async () => (touched.push('stdin'), ''), promptSecret: async () => (touched.push('prompt'), undefined) },
    serverConfig: async () => {
      touched.push('serverConfig');
      throw new Error('the service configuration was loaded');
    },
    remote: { configFile },
    fetch: async () => {
      touched.push('fetch');
      throw new Error('the network was used');
    },
  };
  const run = (argv: string[]) => runCli(argv, ctx, { sections: SECTIONS, version: SERVICE_VERSION, environment: CLI_ENVIRONMENT });
  return { run, out: () => out, err: () => err, touched, configFile };
}

function spawnBin(args: string[], dataDir: string): Promise<{ code: number | null; out: string; err: string }> {
  // DATABASE_URL empty: the embedded store, so "nothing was opened" shows as a DATA_DIR never created.
  const child = spawn(process.execPath, [BIN, ...args], { env: { ...process.env, DATA_DIR: dataDir, DATABASE_URL: '', PORT: '0', QRAIL_CONFIG: join(dataDir, 'config.json') } });
  let out = '';
  let err = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (err += d));
  return new Promise((resolve) => child.on('exit', (code) => resolve({ code, out, err })));
}

describe('qrail command line: help, version and usage errors', () => {
  it('every command and group prints its help, with options and exit codes, and does nothing else', async () => {
    const groups = [...new Set(COMMANDS.filter((c) => c.name.includes(' ')).map((c) => c.name.split(' ')[0] as string))];
    expect(groups).toEqual(expect.arrayContaining(['jobs', 'circuits', 'credit', 'ledger', 'credentials']));
    for (const argv of [
      ...COMMANDS.flatMap((c) => [
        [...c.name.split(' '), '--help'],
        [...c.name.split(' '), '-h', '--bogus'],
        ['help', ...c.name.split(' ')],
      ]),
      ...groups.map((g) => [g, '--help']),
    ]) {
      const h = harness();
      expect(await h.run(argv), argv.join(' ')).toBe(0);
      const name = argv.filter((a) => !a.startsWith('-') && a !== 'help').join(' ');
      expect(h.out(), argv.join(' ')).toMatch(new RegExp(`^usage: qrail ${name}`));
      expect(h.out()).toContain('Exit codes: 0 ok; 1 failure');
      expect(h.err()).toBe('');
      expect(h.touched, argv.join(' ')).toEqual([]);
      expect(existsSync(h.configFile)).toBe(false);
    }
    const c = COMMANDS.find((x) => x.name === 'circuits optimize');
    const h = harness();
    await h.run(['circuits', 'optimize', '--help']);
    expect(h.out()).toContain('--profile <profile>');
    expect(h.out()).toContain('safe | balanced | aggressive');
    expect(h.out()).toContain(`Examples:\n  ${c?.examples?.[0]}`);
  });

  it('an unknown flag, a missing argument or a bad choice is refused with exit 2, the flag named and the usage, nothing run', async () => {
    const cases: Array<[string[], RegExp]> = [
      [['serve', '--rol', 'api'], /^qrail serve: unknown option "--rol"; did you mean "--role"\?\nusage: qrail serve \[options\]/],
      [['serve', '--role=api', '--bogus'], /unknown option "--bogus"/],
      [['serve', '--role', 'cook'], /--role must be one of api, worker, all \(got "cook"\)/],
      [['migrate', '--force'], /^qrail migrate: unknown option "--force"/],
      [['jobs', 'wait'], /^qrail jobs wait: missing JOB_ID\nusage: qrail jobs wait <JOB_ID> \[options\]/],
      [['jobs', 'submit', 'circuit.simulate', 'x.qasm'], /missing required option --max-price/],
      [['circuits', 'optimize', 'a.qasm', 'b.qasm'], /unexpected argument "b.qasm"/],
      [['credit', 'grant', '--email', 'a@b.c'], /missing required option --amount/],
      [['run', 'x.qasm', '--shots'], /option "--shots" needs a value/],
      [['balance', '--json=yes'], /option "--json" takes no value/],
      [['jobs', 'frobnicate'], /^qrail jobs: unknown command "frobnicate"\nusage: qrail jobs <command>/],
      [['frobnicate'], /^qrail: unknown command "frobnicate"/],
      [['--bogus'], /^qrail: unknown option "--bogus"/],
      [[], /^usage: qrail <command>/],
    ];
    for (const [argv, message] of cases) {
      const h = harness();
      expect(await h.run(argv), argv.join(' ')).toBe(2);
      expect(h.err(), argv.join(' ')).toMatch(message);
      expect(h.out()).toBe('');
      expect(h.touched, argv.join(' ')).toEqual([]);
    }
    // With --json, the usage error is JSON on stderr too.
    const h = harness();
    expect(await h.run(['jobs', 'list', '--limit', '5', '--nope', '--json'])).toBe(2);
    expect(JSON.parse(h.err())).toMatchObject({ error: { code: 'USAGE', message: 'qrail jobs list: unknown option "--nope"' } });
    // A value the command checks itself: still a usage error.
    const n = harness();
    expect(await n.run(['jobs', 'list', '--limit', 'ten'])).toBe(2);
    expect(n.err()).toMatch(/--limit must be a whole number \(got "ten"\)/);
  });

  it('the real binary: help and version never start, migrate or open anything; an unknown flag exits 2', async () => {
    const cases: Array<[string[], number, RegExp]> = [
      [['--help'], 0, /^usage: qrail <command> \[options\]\n/],
      [['serve', '--help'], 0, /^usage: qrail serve \[options\]\n/],
      [['migrate', '-h'], 0, /^usage: qrail migrate \[options\]\n/],
      [['jobs', '--help'], 0, /^usage: qrail jobs <command> \[options\]\n[\s\S]*jobs wait/],
      [['serve', '--version'], 0, new RegExp(`^qrail ${SERVICE_VERSION.replace(/\./g, '\\.')}\\n$`)],
      [['migrate', '--force'], 2, /^$/],
    ];
    const results = await Promise.all(cases.map(([args], i) => spawnBin(args, join(root, `bin-${i}`))));
    results.forEach((r, i) => {
      const [args, code, out] = cases[i] as (typeof cases)[number];
      expect(r.code, `${args.join(' ')}: ${r.err}`).toBe(code);
      expect(r.out, args.join(' ')).toMatch(out);
      if (code === 2) expect(r.err).toMatch(/unknown option "--force"/);
      expect(existsSync(join(root, `bin-${i}`)), args.join(' ')).toBe(false);
    });
  });

  it('docs/cli.md documents every command and each of its options', () => {
    const doc = readFileSync(new URL('../../docs/cli.md', import.meta.url), 'utf8');
    const missing = COMMANDS.flatMap((c) => [`qrail ${c.name}`, ...Object.keys(c.options ?? {}).map((o) => `--${o}`)].filter((w) => !doc.includes(w)).map((w) => `${c.name}: ${w}`));
    expect(missing).toEqual([]);
  });

  it("the examples of every command's help and README's quick start are command lines the table accepts", () => {
    /** The words of the first `qrail …` command on a shell line (quotes honoured; stops at a pipe or redirection). */
    const words = (line: string): string[] => {
      const at = /(?:^|\s)qrail\s/.exec(line);
      if (at === null) throw new Error(`no qrail command in: ${line}`);
      const tokens = [...line.slice(at.index + at[0].length).matchAll(/"([^"]*)"|'([^']*)'|(\S+)/g)].map((m) => m[1] ?? m[2] ?? m[3] ?? '');
      const end = tokens.findIndex((t) => ['|', '>', '&&', '||', '#'].includes(t));
      return end < 0 ? tokens : tokens.slice(0, end);
    };
    const check = (line: string) => {
      const argv = words(line).map((w) => w.replace(/^<job_id>$/, '7f3c2a9e-1b4d-4e8f-a6c5-0d9e8b7a6f51'));
      const command = [...COMMANDS].sort((a, b) => b.name.length - a.name.length).find((c) => argv.join(' ').startsWith(`${c.name} `) || argv.join(' ') === c.name);
      if (command === undefined) throw new Error(`no command for: ${line}`);
      expect(() => parseCommandLine(command, argv.slice(command.name.split(' ').length)), line).not.toThrow();
    };
    for (const c of COMMANDS) for (const e of c.examples ?? []) check(e);
    const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
    const quickStart = /^## Quick start[\s\S]*?^## /m.exec(readme)?.[0] ?? '';
    const lines = quickStart.split('\n').filter((l) => /^(npx qrail|npm) /.test(l));
    // The first optimization and the first paid job, start included, in under ten commands.
    expect(lines.length).toBeLessThan(10);
    expect(lines.filter((l) => l.startsWith('npx qrail ')).map((l) => words(l).slice(0, 2).join(' '))).toEqual(
      expect.arrayContaining(['circuits optimize', 'credentials create', 'jobs submit', 'jobs wait', 'balance']),
    );
    for (const l of lines.filter((x) => x.startsWith('npx qrail '))) check(l);
  });
});
