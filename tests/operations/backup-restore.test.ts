import { mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { bell } from '../helpers/circuits.js';
import { call, runCommand, startNode, type Node } from './cluster.js';

/**
 * Backups of the embedded database, as an operator takes them: a real `serve` on PGlite with money
 * in it is backed up while it serves (`qrail backup`), keeps moving money, is stopped; the backup
 * is restored into a new directory (`qrail restore`), a service starts on it, and
 * `qrail ledger check` passes with the balances of the moment of the backup.
 */
const TOKEN = 'operator-token-for-backups-0123456789';
const PASSWORD = 'backup restore password 1';

describe('qrail backup and qrail restore of the embedded database', () => {
  const dirs: string[] = [];
  const nodes: Node[] = [];
  const temp = (tag: string) => {
    const d = mkdtempSync(join(tmpdir(), `qrail-${tag}-`));
    dirs.push(d);
    return d;
  };
  afterAll(async () => {
    for (const n of nodes) await n.kill('SIGKILL').catch(() => undefined);
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });

  const envFor = (dataDir: string) => ({
    DATABASE_URL: '',
    DATA_DIR: dataDir,
    QRAIL_OPERATOR_TOKEN: TOKEN,
    PUBLIC_BASE_URL: '',
    REDIS_URL: '',
    LOG_LEVEL: 'warn',
    COMPUTE_THREADS: '1',
    JOBS_POLL_MS: '50',
    SHUTDOWN_DRAIN_DELAY_MS: '0',
  });

  it('backs up a running service with money in it; the restore starts and reconciles with the same balances', async () => {
    const env = envFor(join(temp('live'), 'data'));
    const live = await startNode('all', env);
    nodes.push(live);
    const email = `backup.${Date.now()}@example.com`;
    expect((await call(live.url, 'POST', '/v1/auth/register', { body: { email, password: PASSWORD } })).status).toBe(201);
    const login = await call(live.url, 'POST', '/v1/auth/login', { body: { email, password: PASSWORD } });
    const auth = { authorization: `Bearer ${login.body.data.token as string}` };
    const topup = (amount: string) => call(live.url, 'POST', '/v1/billing/processor/payment-intent', { body: { amount, payment_method: 'pm_card_visa' }, headers: auth });
    expect((await topup('20.00')).status).toBe(200);
    const grant = await runCommand(['credit', 'grant', '--email', email, '--amount', '2.5', '--url', live.url], env);
    expect(grant.code, grant.err).toBe(0);
    const sim = await call(live.url, 'POST', '/v1/execute/provider-one', { body: { circuit: bell, shots: 100, client_token: 'backup-sim' }, headers: auth });
    expect(sim.status).toBe(200);
    const balanceAtBackup = (await call(live.url, 'GET', '/v1/billing/wallet', { headers: auth })).body.data;
    expect(balanceAtBackup.available).toBe('22.500000');

    // Online: the service keeps serving while the snapshot is taken.
    const file = join(temp('archive'), 'qrail.tar.gz');
    const [backup, during] = await Promise.all([runCommand(['backup', '--out', file, '--url', live.url, '--json'], env), call(live.url, 'GET', '/readyz')]);
    expect(backup.code, backup.err).toBe(0);
    expect(during.status).toBe(200);
    const written = JSON.parse(backup.out) as { file: string; bytes: number; migration_level: string };
    expect(written.bytes).toBe(readFileSync(file).length);
    expect(written.migration_level).toMatch(/^\d{4}_/);
    expect(existsSync(`${file}.partial`)).toBe(false);

    // Money after the backup is not in it.
    expect((await topup('5.00')).status).toBe(200);
    await live.kill('SIGTERM');

    // Restore into a new directory; a non-empty one and a file that is not a backup are refused.
    const restored = join(temp('restored'), 'data');
    const notEmpty = await runCommand(['restore', file, '--data-dir', env.DATA_DIR], env);
    expect(notEmpty.code).toBe(2);
    expect(notEmpty.err).toContain('RESTORE_TARGET_NOT_EMPTY');
    const bogus = join(temp('bogus'), 'x.tar.gz');
    writeFileSync(bogus, 'not a backup');
    const notBackup = await runCommand(['restore', bogus, '--data-dir', join(temp('bogus-target'), 'd')], env);
    expect(notBackup.code).toBe(2);
    expect(notBackup.err).toContain('RESTORE_NOT_A_BACKUP');
    const missing = await runCommand(['restore', join(temp('missing'), 'nope.tar.gz'), '--data-dir', join(temp('m'), 'd')], env);
    expect(missing.code).toBe(2);
    expect(missing.err).toContain('file not found');

    const restore = await runCommand(['restore', file, '--data-dir', restored, '--json'], env);
    expect(restore.code, restore.err).toBe(0);
    expect(JSON.parse(restore.out)).toMatchObject({ data_dir: restored, migration_level: written.migration_level, migrations_pending: 0 });

    const envRestored = envFor(restored);
    const back = await startNode('all', envRestored);
    nodes.push(back);
    const check = await runCommand(['ledger', 'check', '--url', back.url], envRestored);
    expect(check.code, check.out + check.err).toBe(0);
    const again = await call(back.url, 'POST', '/v1/auth/login', { body: { email, password: PASSWORD } });
    expect(again.status).toBe(200);
    const balance = (await call(back.url, 'GET', '/v1/billing/wallet', { headers: { authorization: `Bearer ${again.body.data.token as string}` } })).body.data;
    expect(balance.available).toBe(balanceAtBackup.available);
    // The operator endpoint needs the token.
    expect((await call(back.url, 'POST', '/v1/operator/backup')).status).toBe(403);
  }, 240_000);
});
