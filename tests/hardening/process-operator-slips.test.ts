import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/config.js';
import { ConfigError } from '../../src/config/env-parser.js';
import { KNOWN_VARIABLES, unknownVariables } from '../../src/config/known-variables.js';
import { describeDatabase } from '../../src/cli/startup-report.js';
import { LOCK_FILE } from '../../src/store/data-dir-lock.js';
import { buildTestApp } from '../helpers/app.js';
import { complete, refusal, serve, stop, type Child } from './process-child.js';

/**
 * Issue #17 defect 13: an operator's slip gets one line and exit 2, never a stack trace or a
 * silently wrong setting; the start log says what the process runs against.
 */
describe('operator slips', { timeout: 240_000 }, () => {
  const dirs: string[] = [];
  const children: Child[] = [];
  const tempDir = () => {
    const d = mkdtempSync(join(tmpdir(), 'qrail-slips-'));
    dirs.push(d);
    return d;
  };
  afterAll(async () => {
    for (const c of children) await stop(c);
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });

  const expectOneLine = (r: { code: unknown; err: string }, pattern: RegExp) => {
    expect(r.code).toBe(2);
    const lines = r.err.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(pattern);
    expect(r.err).not.toMatch(/\n\s+at /);
  };

  it('a port already in use: one line naming address and code, exit 2, data directory released', async () => {
    const blocker = net.createServer();
    await new Promise<void>((r) => blocker.listen(0, '127.0.0.1', r));
    const port = (blocker.address() as net.AddressInfo).port;
    try {
      const dir = tempDir();
      const r = await refusal(['serve'], { DATA_DIR: dir, PORT: String(port) });
      expectOneLine(r, new RegExp(`^Cannot listen on 127\\.0\\.0\\.1:${port} \\(HOST, PORT\\): .*\\[EADDRINUSE\\]$`));
      expect(existsSync(join(dir, LOCK_FILE))).toBe(false);
      // The optional Account Jobs listener is named by its own variable (the main one listened first, so run to the end).
      const jobs = await complete(['serve'], { DATA_DIR: dir, PORT: '0', JOBS_PORT: String(port) });
      expectOneLine(jobs, new RegExp(`^Cannot listen on 127\\.0\\.0\\.1:${port} \\(HOST, JOBS_PORT\\): .*\\[EADDRINUSE\\]$`));
      expect(existsSync(join(dir, LOCK_FILE))).toBe(false);
    } finally {
      await new Promise((r) => blocker.close(r));
    }
  });

  it("a bad HOST: malformed → invalid configuration; not this machine's address → cannot listen; exit 2 both", async () => {
    const malformed = await refusal(['serve'], { DATA_DIR: tempDir(), HOST: 'not a host!' });
    expectOneLine(malformed, /^Invalid configuration: HOST must be an IP address or a host name, got "not a host!"$/);
    // TEST-NET-3: valid, but assigned to no interface here.
    const foreign = await refusal(['serve'], { DATA_DIR: tempDir(), HOST: '203.0.113.77', PORT: '0' });
    expectOneLine(foreign, /^Cannot listen on 203\.0\.113\.77:0 \(HOST, PORT\): .*\[EADDRNOTAVAIL\]$/);
  });

  it('every boolean variable takes exactly true or false (switches also on/off) and refuses anything else', async () => {
    for (const [name, value] of [
      ['TRUST_PROXY', 'yes'],
      ['SANDBOX_AUTO_DELIVER', 'no'],
      ['EXECUTION_PROVIDER_ONE', 'enabled'],
    ] as const) {
      const r = await refusal(['serve'], { DATA_DIR: tempDir(), [name]: value });
      expectOneLine(r, new RegExp(`^Invalid configuration: ${name} must be .*true or false.*, got "${value}"$`));
    }
    for (const value of ['yes', '1', 'TRUE', 'True', 'on', ' true']) {
      expect(() => loadConfig({ TRUST_PROXY: value }), value).toThrow(ConfigError);
    }
    expect(loadConfig({ TRUST_PROXY: 'true' }).trustProxy).toBe(true);
    expect(loadConfig({ TRUST_PROXY: 'false' }).trustProxy).toBe(false);
    expect(loadConfig({}).trustProxy).toBe(false);
  });

  it('TRUST_PROXY=true takes the client address from X-Forwarded-For', async () => {
    const app = await buildTestApp({ TRUST_PROXY: 'true', RATE_LIMIT_AUTH_PER_MINUTE: '1' });
    try {
      const login = (ip: string) => app.inject({ method: 'POST', url: '/v1/auth/login', payload: { email: 'nobody@example.com', password: 'whatever123' }, headers: { 'x-forwarded-for': ip } });
      expect((await login('198.51.100.1')).statusCode).toBe(401);
      expect((await login('198.51.100.1')).statusCode).toBe(429); // same forwarded client: its bucket is spent
      expect((await login('198.51.100.2')).statusCode).toBe(401); // another client behind the same proxy
    } finally {
      await app.close();
    }
  });

  it('the start log names the database, the payment processor (loudly when sandbox) and the docs URL, and warns once about look-alike variables', async () => {
    const dir = tempDir();
    const child = await serve({
      DATA_DIR: dir,
      PUBLIC_BASE_URL: 'https://api.qrail.example',
      QRAIL_OPERATER_TOKEN: 'x'.repeat(30),
      DATABSE_URL: 'postgres://u:topsecret@db/qrail',
      STRIPE_SECERT_KEY: 'sk_test_x',
      SHUTDOWN_DRAIN_DELAY_MS: '0',
      HOME: process.env['HOME'] ?? '/root',
    });
    children.push(child);
    // Everything it logs at start is out once it has drained and exited.
    await stop(child, 'SIGTERM');
    const lines = child
      .out()
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { level: number; msg: string; [k: string]: unknown });
    const started = lines.find((l) => l.msg.startsWith('qrail started'));
    expect(started).toMatchObject({ level: 30, database: `PGlite ${dir}`, payment_processor: 'sandbox', docs: 'https://api.qrail.example/docs' });
    const sandbox = lines.filter((l) => l.level === 40 && /SANDBOX/.test(l.msg));
    expect(sandbox).toHaveLength(1);
    // No SMTP_URL: the development outbox says so as loudly.
    expect(lines.filter((l) => l.level === 40 && /MAIL IS THE DEVELOPMENT OUTBOX/.test(l.msg))).toHaveLength(1);
    const unknown = lines.filter((l) => l.level === 40 && /unknown variables/.test(l.msg));
    expect(unknown).toHaveLength(1);
    expect(unknown[0]?.['variables']).toEqual(['DATABSE_URL', 'QRAIL_OPERATER_TOKEN', 'STRIPE_SECERT_KEY']);
    expect(unknown[0]?.msg).toContain('DATABSE_URL (did you mean DATABASE_URL?)');
    expect(child.out()).not.toContain('topsecret');

    // Non-serve commands say it on stderr, before their own output.
    const migrate = await complete(['migrate'], { DATA_DIR: dir, TRUSTPROXY: 'true' });
    expect(migrate.code).toBe(0);
    expect(migrate.err).toBe('warning: ignoring unknown variables that look like qrail settings: TRUSTPROXY (did you mean TRUST_PROXY?)\n');
  });

  it('look-alike detection: families and misspellings, not the usual system variables', () => {
    const env = {
      HOME: '/root',
      HOSTNAME: 'box',
      PWD: '/',
      SESSION_MANAGER: 'x',
      LOGNAME: 'root',
      PATH: '/bin',
      NODE_ENV: 'production',
      QRAIL_SERVICE_HOST: '10.0.0.1',
      QRAIL_PORT_8080_TCP_ADDR: '10.0.0.1',
      QRAIL_TEST_REDIS_URL: 'redis://x',
      PORT: '1',
      JOBS_LEASE_MSS: '5',
      LOGIN_MAX_FAILURE: '3',
      QRAIL_FOO: 'x',
      IONQ_KEY: 'k',
      PROT: '80',
    };
    expect(unknownVariables(env).map((u) => u.name)).toEqual(['IONQ_KEY', 'JOBS_LEASE_MSS', 'LOGIN_MAX_FAILURE', 'PROT', 'QRAIL_FOO']);
  });

  it('the known-variable list is exactly the documented one (docs/configuration.md)', () => {
    const doc = readFileSync(new URL('../../docs/configuration.md', import.meta.url), 'utf8');
    const documented = [...doc.matchAll(/^\| (`[A-Z][A-Z0-9_]*`(?:\s*\/\s*`[A-Z][A-Z0-9_]*`)*) \|/gm)].flatMap((m) =>
      [...(m[1] as string).matchAll(/`([A-Z][A-Z0-9_]*)`/g)].map((x) => x[1] as string),
    );
    expect([...KNOWN_VARIABLES].sort()).toEqual([...new Set(documented)].sort());
  });

  it('describes a PostgreSQL database by host, port and name only', () => {
    expect(describeDatabase({ databaseUrl: 'postgres://qrail:s3cr3t@db.internal:6543/prod?sslmode=require', dataDir: './data' })).toBe('PostgreSQL db.internal:6543/prod');
    expect(describeDatabase({ databaseUrl: 'postgresql://db.internal/qrail', dataDir: './data' })).toBe('PostgreSQL db.internal:5432/qrail');
  });
});
