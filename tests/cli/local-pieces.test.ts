import { chmodSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { UsageError } from '../../src/cli/cli-command.js';
import { readCircuitFile } from '../../src/cli/circuit-file.js';
import { histogram } from '../../src/cli/histogram.js';
import { EMPTY_CONFIG, readUserConfig, withService, writeUserConfig } from '../../src/cli/user-config.js';

const dir = mkdtempSync(join(tmpdir(), 'qrail-cli-local-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('the CLI pieces that need no service', () => {
  it('draws counts most frequent first, scaled to the largest, with counts and percentages', () => {
    expect(histogram({ '11': 250, '00': 500, '01': 250 }, { width: 8 })).toBe(['  00  ████████  500   50.0%', '  01  ████      250   25.0%', '  11  ████      250   25.0%', ''].join('\n'));
    expect(histogram({ '0': 7, '1': 1 }, { width: 8 })).toContain('  1  █▏        1   12.5%');
    const many = Object.fromEntries(Array.from({ length: 40 }, (_, i) => [i.toString(2).padStart(6, '0'), 40 - i]));
    expect(histogram(many).split('\n').at(-2)).toBe('  … 8 more outcomes (36 shots); --json has them all');
  });

  it('writes the config file 0600 whatever the umask, keeps one entry per URL and warns when others can read it', () => {
    const file = join(dir, 'a', 'config.json');
    const old = process.umask(0o022);
    try {
      writeUserConfig(file, withService(EMPTY_CONFIG, 'http://x.test/', { session: { token: 'qrs_1', email: 'a@b.c' } }));
    } finally {
      process.umask(old);
    }
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const first = readUserConfig(file);
    expect(first.warning).toBeUndefined();
    expect(first.config).toEqual({ version: 1, current: 'http://x.test', services: { 'http://x.test': { session: { token: 'qrs_1', email: 'a@b.c' } } } });
    const two = withService(first.config, 'http://y.test', { credential: { client_id: 'c', client_secret: 'qrj_s' } });
    expect(two.current).toBe('http://y.test');
    expect(Object.keys(two.services)).toEqual(['http://x.test', 'http://y.test']);
    // Forgetting the current service leaves no current one; forgetting another keeps it.
    expect(withService(two, 'http://y.test', undefined).current).toBeUndefined();
    expect(withService(two, 'http://x.test', undefined, false).current).toBe('http://y.test');
    chmodSync(file, 0o644);
    expect(readUserConfig(file).warning).toMatch(/readable by others \(mode 644\); run: chmod 600 /);
    writeFileSync(file, '{"not": "ours"}');
    expect(() => readUserConfig(file)).toThrow(UsageError);
    expect(readUserConfig(join(dir, 'none.json')).config).toEqual(EMPTY_CONFIG);
  });

  it('reads OpenQASM by extension or header, JSON circuits or request bodies, and refuses the rest as usage errors', () => {
    const qasm = join(dir, 'c.txt');
    writeFileSync(qasm, '// a comment\nOPENQASM 3.0;\nqubit[1] q;\n');
    expect(readCircuitFile(qasm)).toEqual({ format: 'qasm3', source: readFileSync(qasm, 'utf8') });
    const body = join(dir, 'body.json');
    writeFileSync(body, JSON.stringify({ circuit: { schema: '0.2', num_qubits: 1, gates: [] }, shots: 5 }));
    expect(readCircuitFile(body)).toEqual({ schema: '0.2', num_qubits: 1, gates: [] });
    writeFileSync(join(dir, 'bad.json'), '{oops');
    expect(() => readCircuitFile(join(dir, 'bad.json'))).toThrow(/neither OpenQASM nor JSON/);
    expect(() => readCircuitFile(join(dir, 'missing.qasm'))).toThrow(/^file not found: .*missing\.qasm$/);
  });
});
