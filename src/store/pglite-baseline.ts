/**
 * The embedded database's baseline: an empty PGlite data directory with every migration of this
 * build applied, written at install (scripts/build-server.js) into dist/. A new embedded database
 * (an empty DATA_DIR, or memory://) is loaded from it instead of running PGlite's initdb and the
 * migrations, which took most of a fresh start. The baseline carries its schema_migrations rows,
 * so the usual migrate() still runs after it: it applies what is newer and checks every recorded
 * checksum against the files, as on any other database.
 */
import { existsSync, readFileSync, readdirSync, writeFileSync, mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { listMigrations, migrate, type Migration } from './migrate.js';
import { openPgliteDatabase } from './pglite-database.js';
import type { Database } from './db.js';
import { PROJECT_ROOT } from '../project-root.js';
import { LOCK_FILE } from './data-dir-lock.js';
import { SEEDING_MARKER } from './data-dir-seed.js';

const DIST = join(PROJECT_ROOT, 'dist');
const ARCHIVE = join(DIST, 'pglite-baseline.tar.gz');
const INFO = join(DIST, 'pglite-baseline.json');

interface BaselineInfo {
  readonly pglite: string;
  readonly migrations: readonly { readonly id: string; readonly checksum: string }[];
}

function pgliteVersion(): string {
  const entry = createRequire(import.meta.url).resolve('@electric-sql/pglite');
  // The package's own package.json: the entry sits in its dist/.
  for (let dir = dirname(entry); dir !== dirname(dir); dir = dirname(dir)) {
    const p = join(dir, 'package.json');
    if (!existsSync(p)) continue;
    const pkg = JSON.parse(readFileSync(p, 'utf8')) as { name?: string; version?: string };
    if (pkg.name === '@electric-sql/pglite') return pkg.version ?? 'unknown';
  }
  return 'unknown';
}

/** Builds the baseline from this tree's migrations (install time). */
export async function writeBaseline(migrations: readonly Migration[] = listMigrations()): Promise<{ migrations: number }> {
  const db = await openPgliteDatabase('memory://');
  try {
    await migrate(db, migrations);
    const archive = await db.snapshot!();
    const info: BaselineInfo = { pglite: pgliteVersion(), migrations: migrations.map((m) => ({ id: m.id, checksum: m.checksum ?? '' })) };
    mkdirSync(DIST, { recursive: true });
    writeFileSync(ARCHIVE, archive);
    writeFileSync(INFO, `${JSON.stringify(info, null, 1)}\n`);
    return { migrations: migrations.length };
  } finally {
    await db.close();
  }
}

let cached: Uint8Array | null | undefined;

/**
 * The baseline archive, or undefined when there is none (a tree run from source without an
 * install) or it does not fit this tree: another PGlite, or a recorded migration whose file is
 * gone or differs (migrate() would refuse the database it produced). Then initdb runs as before.
 */
export function usableBaseline(): Uint8Array | undefined {
  if (cached !== undefined) return cached ?? undefined;
  cached = null;
  try {
    if (!existsSync(ARCHIVE) || !existsSync(INFO)) return undefined;
    const info = JSON.parse(readFileSync(INFO, 'utf8')) as BaselineInfo;
    if (info.pglite !== pgliteVersion()) return undefined;
    const current = new Map(listMigrations().map((m) => [m.id, m.checksum]));
    if (!info.migrations.every((m) => current.get(m.id) === m.checksum)) return undefined;
    cached = new Uint8Array(readFileSync(ARCHIVE));
  } catch {
    // A damaged or half-written baseline only costs the fast path.
    cached = null;
  }
  return cached ?? undefined;
}

/** Empty but for our own lock files, or a seeding from the baseline that did not finish. */
function isNewDataDir(dataDir: string): boolean {
  if (dataDir === 'memory://' || dataDir === ':memory:' || !existsSync(dataDir)) return true;
  const entries = readdirSync(dataDir);
  return entries.includes(SEEDING_MARKER) || entries.every((e) => e === LOCK_FILE || e === `${LOCK_FILE}.takeover`);
}

/**
 * Opens the embedded database, from the baseline when it is a new one and a baseline fits: a
 * directory on disk is written from it with Node's file calls (data-dir-seed.ts), an in-memory
 * database loads it through PGlite.
 */
export async function openEmbeddedDatabase(dataDir: string): Promise<Database> {
  const baseline = isNewDataDir(dataDir) ? usableBaseline() : undefined;
  if (baseline === undefined) return openPgliteDatabase(dataDir);
  const inMemory = dataDir === 'memory://' || dataDir === ':memory:';
  return openPgliteDatabase(dataDir, inMemory ? { loadDataDir: new Blob([baseline]) } : { seed: baseline });
}
