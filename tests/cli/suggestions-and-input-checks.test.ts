import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { CliContext } from '../../src/cli/cli-command.js';
import { fileProblem } from '../../src/cli/circuit-file.js';
import { CLI_ENVIRONMENT, SECTIONS } from '../../src/cli/commands.js';
import { closest, editDistance } from '../../src/cli/did-you-mean.js';
import { runCli } from '../../src/cli/run-cli.js';
import { SERVICE_VERSION } from '../../src/version.js';

const root = mkdtempSync(join(tmpdir(), 'qrail-cli-suggest-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** The dispatcher in-process; any request to the service is recorded (and fails): these mistakes must be caught before one. */
async function run(argv: string[]) {
  let out = '';
  let err = '';
  const requests: string[] = [];
  const ctx: CliContext = {
    io: { out: (s) => void (out += s), err: (s) => void (err += s), readStdin: async () => '', promptSecret: async () => undefined },
    serverConfig: async () => {
      throw new Error('the service configuration was loaded');
    },
    remote: { configFile: join(root, `config-${Math.random().toString(36).slice(2)}.json`) },
    fetch: async (input) => {
      requests.push(String(input instanceof Request ? input.url : input));
      throw new Error('the network was used');
    },
  };
  const code = await runCli(argv, ctx, { sections: SECTIONS, version: SERVICE_VERSION, environment: CLI_ENVIRONMENT });
  return { code, out, err, requests };
}

describe('qrail command line: suggestions, unknown commands with --help, job ids and unreadable files', () => {
  it('measures edits with transpositions (Damerau) and suggests only a close name', () => {
    expect(editDistance('jobs', 'jobs')).toBe(0);
    expect(editDistance('jbos', 'jobs')).toBe(1);
    expect(editDistance('stauts', 'status')).toBe(1);
    expect(editDistance('lst', 'list')).toBe(1);
    expect(editDistance('kitten', 'sitting')).toBe(3);
    expect(closest('jbos', ['jobs', 'login', 'logout'])).toBe('jobs');
    expect(closest('xyzzyq', ['jobs', 'login', 'logout'])).toBeUndefined();
  });

  it('says "did you mean" for a mistyped command, sub-command or flag, exit 2', async () => {
    const cases: [string[], string, string][] = [
      [['jbos', 'list'], 'unknown command "jbos"', 'did you mean "jobs"?'],
      [['jobs', 'lsit'], 'unknown command "lsit"', 'did you mean "jobs list"?'],
      [['validate', 'x.qasm'], 'unknown command "validate"', 'did you mean "circuits validate"?'],
      [['jobs', 'list', '--stauts', 'queued'], 'unknown option "--stauts"', 'did you mean "--status"?'],
      [['--verison'], 'unknown option "--verison"', 'did you mean "--version"?'],
    ];
    for (const [argv, unknown, suggestion] of cases) {
      const r = await run(argv);
      expect({ argv, code: r.code, out: r.out, requests: r.requests }).toEqual({ argv, code: 2, out: '', requests: [] });
      expect(r.err).toContain(unknown);
      expect(r.err).toContain(suggestion);
    }
    const far = await run(['xyzzyq']);
    expect(far.code).toBe(2);
    expect(far.err).toContain('unknown command "xyzzyq"');
    expect(far.err).not.toContain('did you mean');
  });

  it('names an unknown command asked for help (exit 2), instead of printing the global help', async () => {
    for (const argv of [
      ['snapshot', '--help'],
      ['help', 'snapshot'],
      ['snapshot', '-h'],
    ]) {
      const r = await run(argv);
      expect({ argv, code: r.code, out: r.out }).toEqual({ argv, code: 2, out: '' });
      expect(r.err).toContain('unknown command "snapshot"');
      expect(r.err).not.toContain('Environment:');
    }
    // A real command's help still answers 0.
    expect((await run(['jobs', 'get', '--help'])).code).toBe(0);
  });

  it('checks a job id is a UUID before asking the service, exit 2', async () => {
    for (const command of ['get', 'wait', 'cancel']) {
      const r = await run(['jobs', command, 'not-a-job']);
      expect({ command, code: r.code, requests: r.requests }).toEqual({ command, code: 2, requests: [] });
      expect(r.err).toContain('JOB_ID must be a UUID');
      expect(r.err).toContain('"not-a-job"');
    }
    const json = await run(['jobs', 'get', '1234', '--json']);
    expect(json.code).toBe(2);
    expect((JSON.parse(json.err) as { error: { code: string; message: string } }).error).toMatchObject({ code: 'USAGE', message: expect.stringContaining('JOB_ID must be a UUID') });
  });

  it('says "file not found", "is a directory" or "permission denied" with the path, never the raw errno, exit 2', async () => {
    const missing = join(root, 'nope.qasm');
    const r = await run(['circuits', 'validate', missing]);
    expect({ code: r.code, requests: r.requests }).toEqual({ code: 2, requests: [] });
    expect(r.err).toContain(`file not found: ${missing}`);
    expect(r.err).not.toContain('ENOENT');
    const dir = await run(['run', root]);
    expect(dir.code).toBe(2);
    expect(dir.err).toContain(`is a directory: ${root}`);
    expect(dir.err).not.toContain('EISDIR');
    const bad = await run(['jobs', 'submit', 'circuit.simulate', '--max-price', '0.01', '--request', join(root, 'absent.json')]);
    expect(bad.code).toBe(2);
    expect(bad.err).toContain(`file not found: ${join(root, 'absent.json')}`);
    // Permission: root reads any file, so the wording is checked on the error itself.
    expect(fileProblem(Object.assign(new Error('EACCES: permission denied'), { code: 'EACCES' }), '/etc/x.qasm')).toBe('permission denied: /etc/x.qasm');
    expect(fileProblem(Object.assign(new Error('EPERM'), { code: 'EPERM' }), 'a.json')).toBe('permission denied: a.json');
    expect(fileProblem(Object.assign(new Error('EISDIR'), { code: 'EISDIR' }), 'd')).toBe('is a directory: d');
    expect(fileProblem(Object.assign(new Error('ENOENT'), { code: 'ENOENT' }), 'f')).toBe('file not found: f');
    expect(fileProblem(Object.assign(new Error('too many'), { code: 'EMFILE' }), 'f')).toBe('cannot read f: too many');
  });
});
