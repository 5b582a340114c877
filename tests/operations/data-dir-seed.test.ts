/**
 * A new embedded data directory is written from the install's baseline with Node's file calls
 * (src/store/data-dir-seed.ts) instead of PGlite's loadDataDir: the result is a working database at
 * the current migration level, an interrupted seeding is cleared and redone, and the archive
 * reader refuses entries a PGlite dump never holds.
 */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import { readTar, SEEDING_MARKER, seedDataDir } from '../../src/store/data-dir-seed.js';
import { listMigrations, migrate } from '../../src/store/migrate.js';
import { openEmbeddedDatabase, usableBaseline } from '../../src/store/pglite-baseline.js';

const root = mkdtempSync(join(tmpdir(), 'qrail-seed-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** A ustar archive of the given entries (type '0' file, '5' directory, anything else as given). */
function tar(entries: readonly { name: string; type?: string; data?: string }[]): Uint8Array {
  const blocks: Buffer[] = [];
  for (const e of entries) {
    const data = Buffer.from(e.data ?? '');
    const h = Buffer.alloc(512);
    h.write(e.name, 0, 100, 'utf8');
    h.write('0000644\0', 100);
    h.write(`${data.length.toString(8).padStart(11, '0')}\0`, 124);
    h.write(e.type ?? '0', 156);
    h.write('ustar\0', 257);
    blocks.push(h, data, Buffer.alloc((512 - (data.length % 512)) % 512));
  }
  blocks.push(Buffer.alloc(1024));
  return new Uint8Array(Buffer.concat(blocks));
}

const migrationLevel = async (dir: string) => {
  const db = await openEmbeddedDatabase(dir);
  try {
    await migrate(db);
    return (await db.query<{ n: number }>('SELECT count(*)::int AS n FROM schema_migrations')).rows[0]?.n;
  } finally {
    await db.close();
  }
};

describe('seeding a new embedded data directory from the baseline', { timeout: 120_000 }, () => {
  it('the install wrote a baseline that fits this tree', () => {
    expect(usableBaseline()).toBeInstanceOf(Uint8Array);
  });

  it('a new directory opens at the current migration level and keeps what is written', async () => {
    const dir = join(root, 'fresh');
    expect(await migrationLevel(dir)).toBe(listMigrations().length);
    expect(existsSync(join(dir, 'PG_VERSION'))).toBe(true);
    expect(existsSync(join(dir, SEEDING_MARKER))).toBe(false);
    let db = await openEmbeddedDatabase(dir);
    await db.exec('CREATE TABLE seed_probe (v int); INSERT INTO seed_probe VALUES (42)');
    await db.close();
    db = await openEmbeddedDatabase(dir);
    try {
      expect((await db.query<{ v: number }>('SELECT v FROM seed_probe')).rows).toEqual([{ v: 42 }]);
    } finally {
      await db.close();
    }
  });

  it('an interrupted seeding is cleared and done again', async () => {
    const dir = join(root, 'interrupted');
    mkdirSync(join(dir, 'base', '1'), { recursive: true });
    writeFileSync(join(dir, SEEDING_MARKER), '');
    writeFileSync(join(dir, 'base', '1', 'half-written'), 'x');
    expect(await migrationLevel(dir)).toBe(listMigrations().length);
    expect(existsSync(join(dir, 'base', '1', 'half-written'))).toBe(false);
    expect(readdirSync(dir)).not.toContain(SEEDING_MARKER);
  });

  it('reads files and directories, and refuses links and names outside the directory', () => {
    const ok = readTar(
      tar([
        { name: '/base', type: '5' },
        { name: '/base/1', data: 'hello' },
      ]),
    );
    expect(ok.map((e) => [e.name, e.type, Buffer.from(e.data).toString()])).toEqual([
      ['/base', 'dir', ''],
      ['/base/1', 'file', 'hello'],
    ]);
    expect(() => readTar(tar([{ name: '/pg_wal/x', type: '2' }]))).toThrow(/type "2"/);
    const dir = join(root, 'hostile');
    mkdirSync(dir);
    expect(() => seedDataDir(dir, gzipSync(tar([{ name: '../escaped', data: 'x' }])), [])).toThrow(/outside the data directory/);
    expect(existsSync(join(root, 'escaped'))).toBe(false);
    const cut = tar([{ name: '/big', data: 'x'.repeat(2000) }]).subarray(0, 1024);
    expect(() => readTar(cut)).toThrow(/cut short/);
  });
});
