import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { SERVICE_VERSION } from '../../src/version.js';

const BIN = new URL('../../bin/qrail.js', import.meta.url).pathname;
const root = mkdtempSync(join(tmpdir(), 'qrail-cli-args-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

function run(args: string[], dataDir: string): Promise<{ code: number | null; out: string; err: string }> {
  // DATABASE_URL empty: the embedded store, so "nothing was opened" shows as a DATA_DIR never created.
  const child = spawn(process.execPath, [BIN, ...args], { env: { ...process.env, DATA_DIR: dataDir, DATABASE_URL: '', PORT: '0' } });
  let out = '';
  let err = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (err += d));
  return new Promise((resolve) => child.on('exit', (code) => resolve({ code, out, err })));
}

describe('qrail command line', () => {
  it('help and version never start, migrate or open anything', async () => {
    for (const args of [['serve', '--help'], ['migrate', '--help'], ['migrate', '-h'], ['--help'], ['help'], ['serve', '--version'], ['-V']]) {
      const dir = join(root, args.join('_'));
      const r = await run(args, dir);
      expect(r.code, `${args.join(' ')}: ${r.err}`).toBe(0);
      expect(r.out).toMatch(args.some((a) => a === '--version' || a === '-V') ? new RegExp(`^qrail ${SERVICE_VERSION.replace(/\./g, '\\.')}\\n$`) : /^usage: qrail <command>/);
      expect(existsSync(dir), args.join(' ')).toBe(false);
    }
  });

  it('an unknown flag on serve or migrate is refused with exit 2 and the usage, nothing opened', async () => {
    for (const args of [
      ['serve', '--rol', 'api'],
      ['serve', '--role=api', '--bogus'],
      ['migrate', '--force'],
    ]) {
      const dir = join(root, args.join('_'));
      const r = await run(args, dir);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.err).toMatch(/unknown argument "--(rol|bogus|force)"/);
      expect(existsSync(dir), args.join(' ')).toBe(false);
    }
  });
});
