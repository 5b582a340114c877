import { PGlite, types } from '@electric-sql/pglite';
import { mkdirSync } from 'node:fs';
import type { Database, Queryable, QueryResult } from './db.js';
import { countError, StoreUnavailableError } from './db.js';
import { lockDataDir } from './data-dir-lock.js';

/**
 * Embedded PostgreSQL. One process owns the data directory; PGlite serialises
 * queries itself, and `transaction` holds its lock for the whole callback.
 */
export async function openPgliteDatabase(dataDir: string): Promise<Database> {
  const inMemory = dataDir === 'memory://' || dataDir === ':memory:';
  if (!inMemory) mkdirSync(dataDir, { recursive: true });
  // Before PGlite reads a byte: a second process on the same files would each lose the other's writes.
  const lock = inMemory ? undefined : lockDataDir(dataDir);
  let db: PGlite;
  try {
    db = await PGlite.create(inMemory ? undefined : dataDir, {
      parsers: { [types.INT8]: (v: string) => BigInt(v) },
    });
  } catch (e) {
    lock?.release();
    throw e;
  }

  // A closed (or closing) instance is a store that is not there: 503, like a lost PostgreSQL.
  const gone = (e: unknown): unknown => (e instanceof Error && /^PGlite is clos(ed|ing)/.test(e.message) ? new StoreUnavailableError(e) : e);
  const errorsByClass = new Map<string, number>();
  const run = async <R>(c: { query: PGlite['query'] }, sql: string, params?: readonly unknown[]): Promise<QueryResult<R>> => {
    try {
      const r = await c.query<R>(sql, params as unknown[] | undefined);
      return { rows: r.rows, rowCount: r.affectedRows ?? r.rows.length };
    } catch (e) {
      countError(errorsByClass, e);
      throw gone(e);
    }
  };
  let closed = false;

  // Statement names (QueryOptions) are not used: PGlite's query API has none.
  return {
    driver: 'pglite',
    query: (sql, params) => run(db, sql, params),
    async exec(sql) {
      await db.exec(sql).catch((e: unknown) => {
        throw gone(e);
      });
    },
    tx: (fn) =>
      db
        .transaction(async (t) => {
          const q: Queryable = {
            query: (sql, params) => run(t, sql, params),
            exec: async (sql) => {
              await t.exec(sql);
            },
          };
          return fn(q);
        })
        .catch((e: unknown) => {
          throw gone(e);
        }),
    async ping() {
      await run(db, 'SELECT 1');
    },
    stats: () => ({ connections: null, errorsByClass }),
    async close() {
      if (closed) return;
      closed = true;
      try {
        await db.close();
      } finally {
        lock?.release();
      }
    },
  };
}
