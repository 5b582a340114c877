import { existsSync, readdirSync } from 'node:fs';
import type { Database } from './db.js';
import { listMigrations } from './migrate.js';
import { openPgliteDatabase } from './pglite-database.js';

/** The newest migration a database has applied: the level a backup is taken at. */
export async function migrationLevel(db: Database): Promise<string | null> {
  const r = await db.query<{ id: string | null }>('SELECT max(id) AS id FROM schema_migrations');
  return r.rows[0]?.id ?? null;
}

export type RestoreOutcome =
  | { readonly ok: true; readonly migrationLevel: string | null; readonly pending: number }
  | { readonly ok: false; readonly code: 'RESTORE_TARGET_NOT_EMPTY' | 'RESTORE_NOT_A_BACKUP' | 'RESTORE_NEWER_THAN_BUILD'; readonly message: string };

/**
 * Loads a backup (the gzip tar of `Database.snapshot`) into a new data directory, offline. The
 * target must not hold a database already (a restore never overwrites one). A backup taken by a
 * newer build than this one (migrations this build does not know) is refused: its schema would
 * be one this code was never written for. Older backups are fine: the next start migrates them.
 */
export async function restoreEmbedded(archive: Uint8Array, dataDir: string): Promise<RestoreOutcome> {
  if (existsSync(dataDir) && readdirSync(dataDir).length > 0) {
    return { ok: false, code: 'RESTORE_TARGET_NOT_EMPTY', message: `${dataDir} is not empty: restore into a new directory, then point DATA_DIR at it` };
  }
  // gzip magic: anything else is not a backup of ours (PGlite would fail deep inside its loader).
  if (archive.length < 18 || archive[0] !== 0x1f || archive[1] !== 0x8b) {
    return { ok: false, code: 'RESTORE_NOT_A_BACKUP', message: 'the file is not a qrail backup (expected the gzip archive written by qrail backup)' };
  }
  let db: Database;
  try {
    db = await openPgliteDatabase(dataDir, { loadDataDir: new Blob([archive]) });
  } catch (e) {
    return { ok: false, code: 'RESTORE_NOT_A_BACKUP', message: `the archive could not be loaded as a database: ${e instanceof Error ? e.message : String(e)}` };
  }
  let level: string | null;
  try {
    level = await migrationLevel(db);
  } finally {
    await db.close();
  }
  const known = listMigrations().map((m) => m.id);
  if (level !== null && !known.includes(level)) {
    return {
      ok: false,
      code: 'RESTORE_NEWER_THAN_BUILD',
      message: `the backup is at migration ${level}, which this build does not know (newest ${known.at(-1) ?? 'none'}): restore it with the release that took it`,
    };
  }
  return { ok: true, migrationLevel: level, pending: known.filter((id) => level === null || id > level).length };
}
