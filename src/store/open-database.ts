import type { Database } from './db.js';
import { openPgDatabase } from './pg-database.js';
import { openEmbeddedDatabase } from './pglite-baseline.js';
import { openPgliteDatabase } from './pglite-database.js';

export interface StoreOptions {
  readonly databaseUrl: string | undefined;
  readonly dataDir: string;
  /** PostgreSQL only: isolate this app in its own schema (tests). */
  readonly schema?: string;
  readonly poolSize?: number;
  /** Embedded only: a new database starts from the install's migrated baseline (default); false: an empty one. */
  readonly baseline?: boolean;
}

export async function openDatabase(o: StoreOptions): Promise<Database> {
  if (o.databaseUrl !== undefined) {
    const opts: { schema?: string; max?: number } = {};
    if (o.schema !== undefined) opts.schema = o.schema;
    if (o.poolSize !== undefined) opts.max = o.poolSize;
    return openPgDatabase(o.databaseUrl, opts);
  }
  return o.baseline === false ? openPgliteDatabase(o.dataDir) : openEmbeddedDatabase(o.dataDir);
}
