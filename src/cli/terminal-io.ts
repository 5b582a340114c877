import { homedir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { Writable } from 'node:stream';
import type { CliIo } from './cli-command.js';

/** The process's own streams as the CLI's io: stdout, stderr, stdin for `--password-stdin`, the terminal for prompts. */
export function terminalIo(): CliIo {
  return {
    out: (s) => void process.stdout.write(s),
    err: (s) => void process.stderr.write(s),
    errIsTty: process.stderr.isTTY === true,
    async readStdin() {
      const chunks: Buffer[] = [];
      for await (const c of process.stdin) chunks.push(c as Buffer);
      return Buffer.concat(chunks).toString('utf8');
    },
    async promptSecret(question) {
      if (process.stdin.isTTY !== true) return undefined;
      process.stderr.write(question);
      // The answer is read from the terminal with echo off: nothing typed reaches the screen.
      const muted = new Writable({ write: (_chunk, _enc, done) => done() });
      const rl = createInterface({ input: process.stdin, output: muted, terminal: true });
      try {
        return await new Promise<string>((resolve) => rl.question('', resolve));
      } finally {
        rl.close();
        process.stderr.write('\n');
      }
    },
  };
}

/** The per-user config file when QRAIL_CONFIG does not name one: the XDG base directory convention. */
export function defaultConfigFile(xdgConfigHome: string | undefined): string {
  return join(xdgConfigHome !== undefined && xdgConfigHome !== '' ? xdgConfigHome : join(homedir(), '.config'), 'qrail', 'config.json');
}
