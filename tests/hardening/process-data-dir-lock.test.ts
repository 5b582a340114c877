import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { DataDirLockedError, LOCK_FILE, lockDataDir } from '../../src/store/data-dir-lock.js';
import { complete, refusal, request, serve, stop, type Child } from './process-child.js';

/**
 * Issue #17 defect 7: PGlite is single-process. A second `serve` or `migrate` on the same
 * DATA_DIR must refuse to start (one line naming the holder's pid, exit 2) instead of
 * silently losing the first one's writes; a lock left by a killed process is taken over.
 * Embedded store only: these children never see DATABASE_URL.
 */
describe('one process per PGlite data directory', { timeout: 240_000 }, () => {
  const dirs: string[] = [];
  const children: Child[] = [];
  const tempDir = (tag: string) => {
    const d = mkdtempSync(join(tmpdir(), `qrail-lock-${tag}-`));
    dirs.push(d);
    return d;
  };
  afterAll(async () => {
    for (const c of children) await stop(c);
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });

  it('a second serve, migrate or worker on a held DATA_DIR exits 2 naming the holder; after a SIGKILL the next one takes over with the data intact', async () => {
    const dir = tempDir('serve');
    const first = await serve({ DATA_DIR: dir });
    children.push(first);
    // Without PUBLIC_BASE_URL the start log names the port PORT=0 chose.
    await first.waitFor(/qrail started/);
    expect(first.out()).toContain(`docs http://127.0.0.1:${first.port}/docs`);
    const email = `lock.${Date.now()}@example.com`;
    const reg = await request(first.port, 'POST', '/v1/auth/register', { email, password: 'lock password 1' });
    expect(reg.status).toBe(201);

    for (const args of [['serve'], ['migrate'], ['serve', '--role', 'worker']]) {
      const second = await refusal(args, { DATA_DIR: dir, PORT: '0' });
      expect({ args, code: second.code }).toEqual({ args, code: 2 });
      const lines = second.err.trim().split('\n');
      expect(lines).toHaveLength(1);
      expect(lines[0]).toContain(`pid ${first.pid}`);
      expect(lines[0]).toContain(dir);
      expect(second.err).not.toMatch(/\n\s+at /);
    }
    // The holder was not disturbed.
    expect((await request(first.port, 'GET', '/healthz')).status).toBe(200);

    first.child.kill('SIGKILL');
    await first.exited;
    expect(existsSync(join(dir, LOCK_FILE))).toBe(true); // nobody removed it: the holder died

    const next = await serve({ DATA_DIR: dir });
    children.push(next);
    const login = await request(next.port, 'POST', '/v1/auth/login', { email, password: 'lock password 1' });
    expect(login.status).toBe(200);
    expect(JSON.parse(readFileSync(join(dir, LOCK_FILE), 'utf8')).pid).toBe(next.pid);

    // A clean stop removes the lock, and migrate can then open the directory.
    next.child.kill('SIGTERM');
    expect(await next.exited).toBe(0);
    expect(existsSync(join(dir, LOCK_FILE))).toBe(false);
    const migrate = await complete(['migrate'], { DATA_DIR: dir });
    expect(migrate).toMatchObject({ code: 0, out: 'database is up to date\n' });
    expect(existsSync(join(dir, LOCK_FILE))).toBe(false);
  });

  it('a lock whose pid now belongs to another process (reused pid) or is unreadable is taken over', () => {
    const dir = tempDir('stale');
    // This test's own pid is alive, but its recorded start time is not this process's.
    writeFileSync(join(dir, LOCK_FILE), JSON.stringify({ pid: process.pid, host: hostname(), startTime: '1', since: 'earlier', token: 'old' }));
    const lock = lockDataDir(dir);
    expect(JSON.parse(readFileSync(join(dir, LOCK_FILE), 'utf8')).token).not.toBe('old');
    lock.release();
    expect(existsSync(join(dir, LOCK_FILE))).toBe(false);

    writeFileSync(join(dir, LOCK_FILE), '{"pid": 12'); // a torn write from another tool
    lockDataDir(dir).release();
    expect(existsSync(join(dir, LOCK_FILE))).toBe(false);
  });

  it('a live holder in this process, or on another host (cannot be checked), is refused', () => {
    const dir = tempDir('live');
    const lock = lockDataDir(dir);
    expect(() => lockDataDir(dir)).toThrow(DataDirLockedError);
    expect(() => lockDataDir(dir)).toThrow(`pid ${process.pid}`);
    lock.release();

    writeFileSync(join(dir, LOCK_FILE), JSON.stringify({ pid: 4242, host: 'elsewhere.example', startTime: null, since: 'earlier', token: 'remote' }));
    expect(() => lockDataDir(dir)).toThrow(/pid 4242 on host elsewhere\.example.*delete .*qrail\.lock/);
    expect(JSON.parse(readFileSync(join(dir, LOCK_FILE), 'utf8')).token).toBe('remote');
  });
});
