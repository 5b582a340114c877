import { PGlite, types } from '@electric-sql/pglite';
import { mkdirSync } from 'node:fs';
import type { Database, Queryable, QueryResult } from './db.js';
import { countError, statementAttributes, StoreUnavailableError } from './db.js';
import { inSpan, SpanKind } from '../telemetry/trace.js';
import { LOCK_FILE, lockDataDir } from './data-dir-lock.js';
import { clearInterruptedSeeding, seedDataDir, seedingInterrupted } from './data-dir-seed.js';

/**
 * Embedded PostgreSQL. One process owns the data directory; PGlite serialises
 * queries itself, and `transaction` holds its lock for the whole callback.
 */
export async function openPgliteDatabase(dataDir: string, options: { loadDataDir?: Blob; seed?: Uint8Array } = {}): Promise<Database> {
  const inMemory = dataDir === 'memory://' || dataDir === ':memory:';
  if (!inMemory) mkdirSync(dataDir, { recursive: true });
  // Before PGlite reads a byte: a second process on the same files would each lose the other's writes.
  const lock = inMemory ? undefined : lockDataDir(dataDir);
  let db: PGlite;
  try {
    // Under the lock: a second process must not seed (or clear) the same files.
    if (!inMemory && options.seed !== undefined) seedDataDir(dataDir, options.seed, [LOCK_FILE, `${LOCK_FILE}.takeover`]);
    else if (!inMemory && seedingInterrupted(dataDir)) clearInterruptedSeeding(dataDir, [LOCK_FILE, `${LOCK_FILE}.takeover`]);
    db = await PGlite.create(inMemory ? undefined : dataDir, {
      parsers: { [types.INT8]: (v: string) => BigInt(v) },
      ...(options.loadDataDir === undefined ? {} : { loadDataDir: options.loadDataDir }),
    });
  } catch (e) {
    lock?.release();
    throw e;
  }

  // A closed (or closing) instance is a store that is not there: 503, like a lost PostgreSQL.
  const gone = (e: unknown): unknown => (e instanceof Error && /^PGlite is clos(ed|ing)/.test(e.message) ? new StoreUnavailableError(e) : e);
  const errorsByClass = new Map<string, number>();
  const run = <R>(c: { query: PGlite['query'] }, sql: string, params?: readonly unknown[]): Promise<QueryResult<R>> =>
    inSpan('db.query', statementAttributes('pglite', sql), () => runUntraced<R>(c, sql, params), SpanKind.CLIENT);
  const runUntraced = async <R>(c: { query: PGlite['query'] }, sql: string, params?: readonly unknown[]): Promise<QueryResult<R>> => {
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
    // PGlite takes its query lock for the dump, so no statement runs while the files are read;
    // a transaction open between two statements is in the snapshot as in a crash (rolled back on
    // load), every committed one is in its WAL. The checkpoint first keeps recovery at load short.
    async snapshot() {
      await run(db, 'CHECKPOINT');
      const blob = await db.dumpDataDir('gzip');
      return new Uint8Array(await blob.arrayBuffer());
    },
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
