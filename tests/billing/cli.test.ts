import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import type { AddressInfo } from 'node:net';
import type { App } from '../../src/http/app-types.js';
import { loadConfig } from '../../src/config/config.js';
import { creditGrantCommand, ledgerCheckCommand } from '../../src/cli/billing-commands.js';
import { COMMANDS } from '../../src/cli/commands.js';
import type { CliCommand, CliIo } from '../../src/cli/cli-command.js';
import { invokeCommand } from '../../src/cli/run-cli.js';
import type { Config } from '../../src/config/config.js';
import { buildTestApp, signUp } from '../helpers/app.js';
import { expectLedgerInvariants } from '../helpers/ledger.js';

const TOKEN = 'op_token_for_tests_0123456789abcdef';
const run = promisify(execFile);

/** Runs a command as the dispatcher does (parse, then run) with this configuration. */
const invoke = (command: CliCommand, config: Config, args: string[], cliIo: CliIo) =>
  invokeCommand(command, args, { io: cliIo, serverConfig: async () => config, remote: { configFile: '/nonexistent/qrail-config.json' } });

function io() {
  const out: string[] = [];
  const err: string[] = [];
  return { io: { out: (s: string) => void out.push(s), err: (s: string) => void err.push(s) }, out, err };
}

describe('operator CLI: credit grant and ledger check', () => {
  let app: App;
  let url: string;
  beforeAll(async () => {
    app = await buildTestApp({ QRAIL_OPERATOR_TOKEN: TOKEN });
    await app.listen({ port: 0, host: '127.0.0.1' });
    url = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  });
  afterEach(async () => expectLedgerInvariants(app));
  afterAll(async () => app.close());

  it('is registered as "credit grant" and "ledger check"', () => {
    expect(COMMANDS.map((c) => c.name)).toEqual(expect.arrayContaining(['credit grant', 'ledger check']));
  });

  it('direct database mode: grants by email, idempotently, and checks the ledger', async () => {
    const u = await signUp(app);
    const deps = { openDb: async () => app.db, keepOpen: true };
    const config = loadConfig({ DATA_DIR: 'memory://' });
    const a = io();
    expect(await invoke(creditGrantCommand(deps), config, ['--email', u.email.toUpperCase(), '--amount', '12.5', '--idempotency-key', 'welcome'], a.io)).toBe(0);
    expect(a.out.join('')).toContain('granted 12.500000 USD');
    const b = io();
    expect(await invoke(creditGrantCommand(deps), config, ['--email', u.email, '--amount', '12.5', '--idempotency-key', 'welcome'], b.io)).toBe(0);
    expect(b.out.join('')).toContain('already granted');
    expect((await app.inject({ method: 'GET', url: '/v1/billing/wallet', headers: u.auth })).json().data.available).toBe('12.500000');
    const bad = io();
    expect(await invoke(creditGrantCommand(deps), config, ['--email', 'nobody@example.com', '--amount', '1'], bad.io)).toBe(1);
    expect(bad.err.join('')).toContain('USER_NOT_FOUND');
    expect(await invoke(creditGrantCommand(deps), config, ['--email', u.email], io().io)).toBe(2);

    const ok = io();
    expect(await invoke(ledgerCheckCommand(deps), config, [], ok.io)).toBe(0);
    expect(ok.out.join('')).toMatch(/^ledger OK: \d+ transfers/);
    // Break a cached balance: the check must fail loudly, then pass again once repaired.
    await app.db.query('UPDATE billing_wallets SET available_micros = available_micros + 7 WHERE account_id = $1', [u.accountId]);
    const broken = io();
    expect(await invoke(ledgerCheckCommand(deps), config, [], broken.io)).toBe(1);
    expect(broken.err.join('')).toContain(u.accountId);
    await app.db.query('UPDATE billing_wallets SET available_micros = available_micros - 7 WHERE account_id = $1', [u.accountId]);
    expect(await invoke(ledgerCheckCommand(deps), config, [], io().io)).toBe(0);
  });

  it('embedded mode: goes through the running service with the operator token', async () => {
    const u = await signUp(app);
    const config = loadConfig({ DATA_DIR: 'memory://', QRAIL_OPERATOR_TOKEN: TOKEN });
    const a = io();
    expect(await invoke(creditGrantCommand(), config, ['--email', u.email, '--amount', '3', '--url', url], a.io)).toBe(0);
    expect(a.out.join('')).toContain('available now 3.000000 USD');
    const c = io();
    expect(await invoke(ledgerCheckCommand(), config, ['--url', url], c.io)).toBe(0);

    const wrong = loadConfig({ DATA_DIR: 'memory://', QRAIL_OPERATOR_TOKEN: 'x'.repeat(32) });
    const w = io();
    expect(await invoke(creditGrantCommand(), wrong, ['--email', u.email, '--amount', '3', '--url', url], w.io)).toBe(1);
    expect(w.err.join('')).toContain('OPERATOR_FORBIDDEN');
    const none = io();
    expect(await invoke(ledgerCheckCommand(), loadConfig({ DATA_DIR: 'memory://' }), ['--url', url], none.io)).toBe(2);
    expect(none.err.join('')).toContain('QRAIL_OPERATOR_TOKEN');
    expect((await app.inject({ method: 'GET', url: '/v1/billing/operator/ledger-check' })).statusCode).toBe(403);
    expect((await app.inject({ method: 'GET', url: '/v1/billing/wallet', headers: u.auth })).json().data.available).toBe('3.000000');
  });

  it.skipIf(process.env['DATABASE_URL'] === undefined)('PostgreSQL: the real `qrail` binary grants and checks on the database directly while the service runs', async () => {
    const u = await signUp(app);
    // The binary connects on its own to the running service's database (the test app's schema).
    const schema = (await app.db.query<{ s: string }>('SELECT current_schema() AS s')).rows[0]?.s ?? '';
    const direct = new URL(process.env['DATABASE_URL'] ?? '');
    direct.searchParams.set('options', `-c search_path=${schema}`);
    // No operator token and no --url: with DATABASE_URL the commands never go through the service.
    const env = { ...process.env, DATABASE_URL: direct.toString(), QRAIL_OPERATOR_TOKEN: '', LOG_LEVEL: 'silent' };
    const fail = (what: string) => (e: { stdout: string; stderr: string; code: number }) => {
      throw new Error(`${what} exited ${e.code}: ${e.stdout} ${e.stderr}`);
    };
    const g = await run('node', ['bin/qrail.js', 'credit', 'grant', '--email', u.email, '--amount', '2.75', '--idempotency-key', 'pg-direct'], { env }).catch(fail('credit grant'));
    expect(g.stdout).toContain('granted 2.750000 USD');
    const again = await run('node', ['bin/qrail.js', 'credit', 'grant', '--email', u.email, '--amount', '2.75', '--idempotency-key', 'pg-direct'], { env }).catch(fail('credit grant'));
    expect(again.stdout).toContain('already granted');
    // The running service sees the grant at once.
    expect((await app.inject({ method: 'GET', url: '/v1/billing/wallet', headers: u.auth })).json().data.available).toBe('2.750000');
    const c = await run('node', ['bin/qrail.js', 'ledger', 'check'], { env }).catch(fail('ledger check'));
    expect(c.stdout).toContain('ledger OK');
    await app.db.query('UPDATE billing_wallets SET available_micros = available_micros + 3 WHERE account_id = $1', [u.accountId]);
    const broken = await run('node', ['bin/qrail.js', 'ledger', 'check'], { env }).then(
      () => 0,
      (e: { code: number; stderr: string }) => e,
    );
    await app.db.query('UPDATE billing_wallets SET available_micros = available_micros - 3 WHERE account_id = $1', [u.accountId]);
    expect(broken).toMatchObject({ code: 1 });
    expect((broken as { stderr: string }).stderr).toContain(u.accountId);
  });

  it('the real `qrail` binary grants and checks against the running service', async () => {
    const u = await signUp(app);
    const env = { ...process.env, QRAIL_OPERATOR_TOKEN: TOKEN, DATABASE_URL: '', LOG_LEVEL: 'silent' };
    const g = await run('node', ['bin/qrail.js', 'credit', 'grant', '--email', u.email, '--amount', '1.25', '--url', url], { env }).catch((e: { stdout: string; stderr: string; code: number }) => {
      throw new Error(`credit grant exited ${e.code}: ${e.stdout} ${e.stderr}`);
    });
    expect(g.stdout).toContain('granted 1.250000 USD');
    const c = await run('node', ['bin/qrail.js', 'ledger', 'check', '--url', url], { env }).catch((e: { stdout: string; stderr: string; code: number }) => {
      throw new Error(`ledger check exited ${e.code}: ${e.stdout} ${e.stderr}`);
    });
    expect(c.stdout).toContain('ledger OK');
    await app.db.query('UPDATE billing_wallets SET held_micros = held_micros + 1 WHERE account_id = $1', [u.accountId]);
    const broken = await run('node', ['bin/qrail.js', 'ledger', 'check', '--url', url], { env }).then(
      () => 0,
      (e: { code: number; stderr: string }) => e,
    );
    expect(broken).toMatchObject({ code: 1 });
    expect((broken as { stderr: string }).stderr).toContain('ledger BROKEN');
    await app.db.query('UPDATE billing_wallets SET held_micros = held_micros - 1 WHERE account_id = $1', [u.accountId]);
  });
});
