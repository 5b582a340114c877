import pg from 'pg';
import type { Database, Queryable, QueryOptions, QueryResult } from './db.js';
import { StoreConflictError, StoreUnavailableError } from './db.js';

// bigint (int8) columns come back as strings by default; money is int8, so parse to BigInt.
pg.types.setTypeParser(20, (v: string) => BigInt(v));

const CONNECTION_ERRORS = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'ENOTFOUND', '57P01', '57P03', '08006', '08001', '08003']);

/** deadlock_detected, serialization_failure: PostgreSQL rolled the transaction back. */
const CONFLICT_ERRORS = new Set(['40P01', '40001']);

function wrap(e: unknown): unknown {
  const code = (e as { code?: string } | null)?.code;
  if (code === undefined) return e;
  if (CONNECTION_ERRORS.has(code)) return new StoreUnavailableError(e);
  if (CONFLICT_ERRORS.has(code)) return new StoreConflictError(e);
  return e;
}

export async function openPgDatabase(url: string, options: { schema?: string; max?: number } = {}): Promise<Database> {
  if (options.schema !== undefined) {
    if (!/^[a-z_][a-z0-9_]*$/.test(options.schema)) throw new Error('bad schema name');
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    await admin.query(`CREATE SCHEMA IF NOT EXISTS ${options.schema}`);
    await admin.end();
  }
  const poolConfig: pg.PoolConfig = { connectionString: url, max: options.max ?? 10 };
  if (options.schema !== undefined) poolConfig.options = `-c search_path=${options.schema}`;
  const pool = new pg.Pool(poolConfig);
  // An idle client losing its connection must not crash the process.
  pool.on('error', () => undefined);

  const run = async <R>(c: pg.Pool | pg.PoolClient, sql: string, params?: readonly unknown[], options?: QueryOptions): Promise<QueryResult<R>> => {
    try {
      const values = params as unknown[] | undefined;
      const r = options?.name === undefined ? await c.query(sql, values) : await c.query({ name: options.name, text: sql, ...(values === undefined ? {} : { values }) });
      return { rows: r.rows as R[], rowCount: r.rowCount ?? 0 };
    } catch (e) {
      throw wrap(e);
    }
  };

  return {
    driver: 'pg',
    query: (sql, params, options) => run(pool, sql, params, options),
    async exec(sql) {
      await run(pool, sql);
    },
    async tx(fn) {
      let client: pg.PoolClient;
      try {
        client = await pool.connect();
      } catch (e) {
        throw new StoreUnavailableError(e);
      }
      const q: Queryable = {
        query: (sql, params, options) => run(client, sql, params, options),
        exec: async (sql) => {
          await run(client, sql);
        },
      };
      try {
        await client.query('BEGIN');
        const out = await fn(q);
        await client.query('COMMIT');
        return out;
      } catch (e) {
        await client.query('ROLLBACK').catch(() => undefined);
        throw wrap(e);
      } finally {
        client.release();
      }
    },
    async ping() {
      await run(pool, 'SELECT 1');
    },
    async close() {
      await pool.end();
    },
  };
}
