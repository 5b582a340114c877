import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import type { Database, Queryable } from './db.js';

const MIGRATIONS_DIR = fileURLToPath(new URL('./migrations/', import.meta.url));
// Arbitrary constant shared by every qrail process: serialises concurrent migrators.
const MIGRATION_LOCK = 7_364_201;

export interface Migration {
  readonly id: string;
  readonly sql: string;
  /** sha256 (hex) of the file; computed from `sql` when a caller builds a migration by hand. */
  readonly checksum?: string;
}

const sha256 = (bytes: Uint8Array | string) => createHash('sha256').update(bytes).digest('hex');

export function listMigrations(dir: string = MIGRATIONS_DIR): Migration[] {
  return readdirSync(dir)
    .filter((f) => /^\d{4}_[a-z0-9_]+\.sql$/.test(f))
    .sort()
    .map((f) => {
      const bytes = readFileSync(join(dir, f));
      return { id: f.replace(/\.sql$/, ''), sql: bytes.toString('utf8'), checksum: sha256(bytes) };
    });
}

const checksumOf = (m: Migration) => m.checksum ?? sha256(m.sql);

/**
 * A migration file changed after it was applied. The database was built from the old text, so
 * running on would leave it different from what a fresh install gets; the fix is to restore the
 * file and put the change in a new migration.
 */
export class MigrationChecksumError extends Error {
  constructor(
    readonly migration: string,
    readonly recorded: string,
    readonly current: string,
  ) {
    super(
      `Migration ${migration}.sql was changed after it was applied (sha256 ${recorded.slice(0, 12)}… recorded, ${current.slice(0, 12)}… now): restore the file and put the change in a new migration`,
    );
    this.name = 'MigrationChecksumError';
  }
}

async function lock(q: Queryable): Promise<void> {
  await q.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK]);
}

/**
 * Creates the bookkeeping table (and, on a database migrated before checksums existed, adds the
 * column and records the current files' checksums for the rows that have none), then refuses to
 * go on if an applied migration's file differs from what was applied. Returns the ids applied.
 */
async function bootstrap(q: Queryable, byId: ReadonlyMap<string, Migration>): Promise<Set<string>> {
  await q.query('CREATE TABLE IF NOT EXISTS schema_migrations (id text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now(), checksum text)');
  await q.query('ALTER TABLE schema_migrations ADD COLUMN IF NOT EXISTS checksum text');
  const rows = (await q.query<{ id: string; checksum: string | null }>('SELECT id, checksum FROM schema_migrations ORDER BY id')).rows;
  for (const r of rows) {
    const m = byId.get(r.id);
    // A row without a file here: a migration of a newer release, or one a caller left out of its list.
    if (m === undefined) continue;
    if (r.checksum === null) await q.query('UPDATE schema_migrations SET checksum = $2 WHERE id = $1 AND checksum IS NULL', [r.id, checksumOf(m)]);
    else if (r.checksum !== checksumOf(m)) throw new MigrationChecksumError(r.id, r.checksum, checksumOf(m));
  }
  return new Set(rows.map((r) => r.id));
}

/**
 * Applies pending migrations in filename order, each in its own transaction: a failing migration
 * rolls back alone and leaves the earlier ones applied. Every transaction first takes the same
 * advisory lock and re-reads what is applied, so concurrent migrators (several nodes starting at
 * once) apply each migration exactly once and in order. Returns the ids this call applied.
 */
export async function migrate(db: Database, migrations: readonly Migration[] = listMigrations()): Promise<string[]> {
  const byId = new Map(migrations.map((m) => [m.id, m]));
  const done = await db.tx(async (q) => {
    await lock(q);
    return bootstrap(q, byId);
  });
  const applied: string[] = [];
  for (const m of migrations) {
    if (done.has(m.id)) continue;
    const ran = await db.tx(async (q) => {
      await lock(q);
      const row = (await q.query<{ checksum: string | null }>('SELECT checksum FROM schema_migrations WHERE id = $1', [m.id])).rows[0];
      if (row !== undefined) {
        // Applied meanwhile by a concurrent migrator: it must have applied this very file.
        if (row.checksum !== null && row.checksum !== checksumOf(m)) throw new MigrationChecksumError(m.id, row.checksum, checksumOf(m));
        return false;
      }
      await q.exec(m.sql);
      await q.query('INSERT INTO schema_migrations (id, checksum) VALUES ($1, $2)', [m.id, checksumOf(m)]);
      return true;
    });
    if (ran) applied.push(m.id);
  }
  return applied;
}
