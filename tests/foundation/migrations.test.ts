import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import type { Database } from '../../src/store/db.js';
import { listMigrations, migrate, MigrationChecksumError } from '../../src/store/migrate.js';
import { openDatabase } from '../../src/store/open-database.js';
import { openPgliteDatabase } from '../../src/store/pglite-database.js';
import { refusal } from '../hardening/process-child.js';

/**
 * The migration runner on both drivers: each migration in its own transaction, a sha256 per
 * applied file, an edited file refused. With DATABASE_URL each store is a fresh schema there,
 * otherwise an in-memory PGlite.
 */
const url = process.env['DATABASE_URL'];
const schemas: string[] = [];
const dirs: string[] = [];
const open: Database[] = [];

async function freshStore(schema = `t_${randomBytes(6).toString('hex')}`): Promise<Database> {
  if (url !== undefined && !schemas.includes(schema)) schemas.push(schema);
  // An empty database: these tests apply migrations themselves (not the install's migrated baseline).
  const db = await openDatabase({ databaseUrl: url, dataDir: 'memory://', baseline: false, ...(url === undefined ? {} : { schema }) });
  open.push(db);
  return db;
}

/** A folder of migrations named 0001_m1.sql, … with the given SQL texts. */
function folder(sqls: readonly string[]): string {
  const dir = mkdtempSync(join(tmpdir(), 'qrail-migrations-'));
  dirs.push(dir);
  sqls.forEach((sql, i) => writeFileSync(join(dir, `000${i + 1}_m${i + 1}.sql`), sql));
  return dir;
}

const sha256 = (path: string) => createHash('sha256').update(readFileSync(path)).digest('hex');
const rows = async (db: Database) => (await db.query<{ id: string; checksum: string | null }>('SELECT id, checksum FROM schema_migrations ORDER BY id')).rows;
const tableExists = async (db: Database, name: string) => (await db.query<{ t: string | null }>('SELECT to_regclass($1)::text AS t', [name])).rows[0]?.t != null;

afterAll(async () => {
  for (const db of open) await db.close().catch(() => undefined);
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
  if (url !== undefined && schemas.length > 0) {
    const c = new pg.Client({ connectionString: url });
    await c.connect();
    for (const s of schemas) await c.query(`DROP SCHEMA IF EXISTS ${s} CASCADE`);
    await c.end();
  }
});

describe('database migrations', { timeout: 120_000 }, () => {
  it('a fresh database gets every migration once, each with the sha256 of its file', async () => {
    const db = await freshStore();
    const all = listMigrations();
    expect(await migrate(db)).toEqual(all.map((m) => m.id));
    const dir = new URL('../../src/store/migrations/', import.meta.url).pathname;
    const files = readdirSync(dir)
      .filter((f) => f.endsWith('.sql'))
      .sort();
    expect((await rows(db)).map((r) => [r.id, r.checksum])).toEqual(files.map((f) => [f.replace(/\.sql$/, ''), sha256(join(dir, f))]));
    expect(await migrate(db)).toEqual([]);
  });

  it('every migration has its own number (two branches picking the same one would apply in name order by accident)', () => {
    const numbers = listMigrations().map((m) => m.id.slice(0, 4));
    expect(numbers.filter((n, i) => numbers.indexOf(n) !== i)).toEqual([]);
  });

  it("upgrade: rows applied before checksums existed get the file's checksum on the first run, and the rest is applied", async () => {
    const dir = folder(['CREATE TABLE a (id int)', 'CREATE TABLE b (id int)', 'CREATE TABLE c (id int)']);
    const db = await freshStore();
    // What the earlier runner left: no checksum column, the first two applied.
    await db.exec(
      "CREATE TABLE schema_migrations (id text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now()); CREATE TABLE a (id int); CREATE TABLE b (id int); INSERT INTO schema_migrations (id) VALUES ('0001_m1'), ('0002_m2');",
    );
    expect(await migrate(db, listMigrations(dir))).toEqual(['0003_m3']);
    expect(await rows(db)).toEqual([
      { id: '0001_m1', checksum: sha256(join(dir, '0001_m1.sql')) },
      { id: '0002_m2', checksum: sha256(join(dir, '0002_m2.sql')) },
      { id: '0003_m3', checksum: sha256(join(dir, '0003_m3.sql')) },
    ]);
    // From now on the backfilled checksums guard those files too.
    writeFileSync(join(dir, '0001_m1.sql'), 'CREATE TABLE a (id bigint)');
    await expect(migrate(db, listMigrations(dir))).rejects.toThrow(/^Migration 0001_m1\.sql was changed after it was applied/);
  });

  it('a migration file edited after it was applied stops the run naming the file; nothing newer is applied', async () => {
    const dir = folder(['CREATE TABLE a (id int)', 'CREATE TABLE b (id int)']);
    const db = await freshStore();
    expect(await migrate(db, listMigrations(dir))).toEqual(['0001_m1', '0002_m2']);
    writeFileSync(join(dir, '0002_m2.sql'), 'CREATE TABLE b (id int, note text)');
    writeFileSync(join(dir, '0003_m3.sql'), 'CREATE TABLE c (id int)');
    const e = await migrate(db, listMigrations(dir)).then(
      () => undefined,
      (x: unknown) => x,
    );
    expect(e).toBeInstanceOf(MigrationChecksumError);
    expect((e as Error).message).toMatch(
      /^Migration 0002_m2\.sql was changed after it was applied \(sha256 [0-9a-f]{12}… recorded, [0-9a-f]{12}… now\): restore the file and put the change in a new migration$/,
    );
    expect(await tableExists(db, 'c')).toBe(false);
    expect((await rows(db)).map((r) => r.id)).toEqual(['0001_m1', '0002_m2']);
  });

  it('a failing migration rolls back alone: the earlier ones stay applied, the later ones wait', async () => {
    const dir = folder(['CREATE TABLE a (id int)', 'CREATE TABLE b (id int)', 'CREATE TABLE half (id int); SELECT no_such_function()', 'CREATE TABLE d (id int)']);
    const db = await freshStore();
    await expect(migrate(db, listMigrations(dir))).rejects.toThrow(/no_such_function/);
    expect((await rows(db)).map((r) => r.id)).toEqual(['0001_m1', '0002_m2']);
    expect(await tableExists(db, 'a')).toBe(true);
    expect(await tableExists(db, 'b')).toBe(true);
    expect(await tableExists(db, 'half')).toBe(false); // its own transaction rolled back
    expect(await tableExists(db, 'd')).toBe(false);
    // Fixed, the run goes on from there.
    writeFileSync(join(dir, '0003_m3.sql'), 'CREATE TABLE half (id int)');
    expect(await migrate(db, listMigrations(dir))).toEqual(['0003_m3', '0004_m4']);
  });

  it('concurrent migrators apply every migration exactly once, in order', async () => {
    const all = listMigrations().map((m) => m.id);
    let results: string[][];
    if (url === undefined) {
      // PGlite: one process owns the store; two migrate calls still interleave their transactions.
      const db = await freshStore();
      results = await Promise.all([migrate(db), migrate(db), migrate(db)]);
      expect((await rows(db)).map((r) => r.id)).toEqual(all);
    } else {
      // PostgreSQL: three pools, as three nodes starting at once.
      const schema = `t_${randomBytes(6).toString('hex')}`;
      const dbs = [await freshStore(schema), await freshStore(schema), await freshStore(schema)]; // CREATE SCHEMA itself races
      results = await Promise.all(dbs.map((d) => migrate(d)));
      expect((await rows(dbs[0]!)).map((r) => r.id)).toEqual(all);
    }
    const applied = results.flat();
    expect([...applied].sort()).toEqual(all);
    for (const r of results) expect(r).toEqual([...r].sort()); // each saw them in filename order
  });

  it('qrail migrate and qrail serve refuse an edited migration with one line naming the file, exit 2', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'qrail-migrate-edited-'));
    dirs.push(dataDir);
    // The embedded store, so the child needs no database of its own; a recorded checksum that is
    // not the file's is what an edited file looks like to the runner.
    const db = await openPgliteDatabase(dataDir);
    await migrate(db);
    await db.query("UPDATE schema_migrations SET checksum = repeat('0', 64) WHERE id = '0100_billing_ledger'");
    await db.close();
    for (const args of [['migrate'], ['serve']]) {
      const r = await refusal(args, { DATA_DIR: dataDir, DATABASE_URL: '', PORT: '0' });
      expect(r.code, r.err).toBe(2);
      const lines = r.err
        .trim()
        .split('\n')
        .filter((l) => !l.startsWith('{')); // serve's JSON log lines
      expect(lines).toEqual([expect.stringMatching(/^Migration 0100_billing_ledger\.sql was changed after it was applied \(sha256 000000000000… recorded, [0-9a-f]{12}… now\)/)]);
    }
  });
});
