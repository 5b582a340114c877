import pg from 'pg';
import type { AvailabilityListener, Database, Queryable, QueryOptions, QueryResult } from './db.js';
import { countError, statementAttributes, StoreConflictError, StoreUnavailableError } from './db.js';
import { inSpan, SpanKind } from '../telemetry/trace.js';

// bigint (int8) columns come back as strings by default; money is int8, so parse to BigInt.
pg.types.setTypeParser(20, (v: string) => BigInt(v));

/**
 * "The store is not there": the server is unreachable, shutting down, killed our backend
 * (57P01 on pg_terminate_backend), the database was dropped (3D000) or the connection broke.
 * Each is a 503 the client may retry, never a 500. A missing table (42P01) is not among them:
 * that is a broken deployment or a bug, and hiding it behind a retryable 503 would hide it.
 */
const CONNECTION_ERRORS = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'ENOTFOUND',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EAI_AGAIN',
  'EPIPE',
  '57P01',
  '57P02',
  '57P03',
  '3D000',
  '53300',
  '08000',
  '08001',
  '08003',
  '08004',
  '08006',
  '08007',
  '08P01',
]);

/** Errors pg raises without a code when a connection dies or cannot be had in time. */
const CONNECTION_MESSAGES = /^(Connection terminated|Client has encountered a connection error|Client was closed|timeout exceeded when trying to connect)/;

function isConnectionError(e: unknown): boolean {
  const err = e as { code?: unknown; message?: unknown } | null;
  if (typeof err?.code === 'string' && CONNECTION_ERRORS.has(err.code)) return true;
  return typeof err?.message === 'string' && CONNECTION_MESSAGES.test(err.message);
}

/** deadlock_detected, serialization_failure: PostgreSQL rolled the transaction back. */
const CONFLICT_ERRORS = new Set(['40P01', '40001']);

function wrap(e: unknown): unknown {
  if (e instanceof StoreUnavailableError || e instanceof StoreConflictError) return e;
  if (isConnectionError(e)) return new StoreUnavailableError(e);
  const code = (e as { code?: string } | null)?.code;
  if (code !== undefined && CONFLICT_ERRORS.has(code)) return new StoreConflictError(e);
  return e;
}

/** A connection checked out of the pool, and the way to give it back. */
interface Lease {
  readonly client: pg.PoolClient;
  /** Returns the connection to the pool, or destroys it when it broke (or `destroy` says so). */
  release(destroy: boolean): void;
}

/**
 * Checks a connection out. Any failure to obtain one (auth, database gone, not accepting
 * connections, timeout) is a StoreUnavailableError. pg-pool listens for `error` only on idle
 * connections: a checked-out one whose server ends it between two statements (57P01 on a
 * restart, failover or pooler recycle, while a transaction's callback awaits something else)
 * would emit an unhandled `error` and end the process. The lease listens for it while the
 * connection is out; the next statement then fails as "not queryable", a 503, and the broken
 * connection is destroyed instead of going back to the pool.
 */
async function checkout(pool: pg.Pool, failed: (e: unknown) => void): Promise<Lease> {
  let client: pg.PoolClient;
  try {
    client = await pool.connect();
  } catch (e) {
    failed(e);
    throw new StoreUnavailableError(e);
  }
  let lost = false;
  const onError = (): void => {
    lost = true;
  };
  client.on('error', onError);
  return {
    client,
    release(destroy) {
      client.removeListener('error', onError);
      client.release(destroy || lost);
    },
  };
}

/**
 * Checkouts that neither an idle connection nor a new one can serve now: the pool's saturation.
 * pg-pool queues every checkout made while a connection is idle and hands it over on the next
 * tick, so its own `waitingCount` read during a scrape (whose collectors just asked for
 * connections) showed 4–6 "waiting" on an idle process.
 */
function waitingForCapacity(pool: pg.Pool, max: number): number {
  return Math.max(0, pool.waitingCount - pool.idleCount - (max - pool.totalCount));
}

export async function openPgDatabase(url: string, options: { schema?: string; max?: number } = {}): Promise<Database> {
  if (options.schema !== undefined) {
    if (!/^[a-z_][a-z0-9_]*$/.test(options.schema)) throw new Error('bad schema name');
    const admin = new pg.Client({ connectionString: url });
    admin.on('error', () => undefined); // a failure shows on the statement that meets it
    try {
      await admin.connect();
    } catch (e) {
      throw new StoreUnavailableError(e);
    }
    await admin.query(`CREATE SCHEMA IF NOT EXISTS ${options.schema}`);
    await admin.end();
  }
  // Without a connect timeout an unreachable (black-holed) server would hold every request forever;
  // generous, because it also bounds the wait for a free pooled connection under load.
  const max = options.max ?? 10;
  const poolConfig: pg.PoolConfig = { connectionString: url, max, connectionTimeoutMillis: 15_000 };
  if (options.schema !== undefined) poolConfig.options = `-c search_path=${options.schema}`;
  const pool = new pg.Pool(poolConfig);
  // An idle client losing its connection must not crash the process.
  pool.on('error', () => undefined);

  const errorsByClass = new Map<string, number>();
  const listeners: AvailabilityListener[] = [];
  let available = true;
  const setAvailable = (now: boolean, cause?: unknown): void => {
    if (now === available) return;
    available = now;
    for (const l of listeners) l(now, cause);
  };
  /** A failure to connect or a broken connection is counted (class 08 without a SQLSTATE) and marks the store unreachable. */
  const failed = (e: unknown): void => {
    const lost = isConnectionError(e);
    countError(errorsByClass, e, lost ? '08' : '');
    if (lost) setAvailable(false, e);
  };
  const connectFailed = (e: unknown): void => {
    countError(errorsByClass, e, '08');
    setAvailable(false, e);
  };
  const run = <R>(c: pg.PoolClient, sql: string, params?: readonly unknown[], options?: QueryOptions): Promise<QueryResult<R>> =>
    inSpan('db.query', statementAttributes('postgresql', sql), () => runUntraced<R>(c, sql, params, options), SpanKind.CLIENT);
  const runUntraced = async <R>(c: pg.PoolClient, sql: string, params?: readonly unknown[], options?: QueryOptions): Promise<QueryResult<R>> => {
    try {
      const values = params as unknown[] | undefined;
      const r = options?.name === undefined ? await c.query(sql, values) : await c.query({ name: options.name, text: sql, ...(values === undefined ? {} : { values }) });
      if (!available) setAvailable(true);
      return { rows: r.rows as R[], rowCount: r.rowCount ?? 0 };
    } catch (e) {
      failed(e);
      throw wrap(e);
    }
  };

  // pool.query without its shortcut: a failure to connect is told apart from a failing statement,
  // and a connection that broke is destroyed instead of going back to the pool.
  const runPooled = async <R>(sql: string, params?: readonly unknown[], options?: QueryOptions): Promise<QueryResult<R>> => {
    const lease = await checkout(pool, connectFailed);
    try {
      const r = await run<R>(lease.client, sql, params, options);
      lease.release(false);
      return r;
    } catch (e) {
      lease.release(e instanceof StoreUnavailableError);
      throw e;
    }
  };

  return {
    driver: 'pg',
    query: (sql, params, options) => runPooled(sql, params, options),
    async exec(sql) {
      await runPooled(sql);
    },
    async tx(fn) {
      const lease = await checkout(pool, connectFailed);
      const client = lease.client;
      let broken = false;
      const q: Queryable = {
        query: (sql, params, options) => run(client, sql, params, options),
        exec: async (sql) => {
          await run(client, sql);
        },
      };
      try {
        await runUntraced(client, 'BEGIN');
        const out = await fn(q);
        await runUntraced(client, 'COMMIT');
        return out;
      } catch (e) {
        const wrapped = wrap(e);
        broken = wrapped instanceof StoreUnavailableError;
        if (!broken) await client.query('ROLLBACK').catch(() => undefined);
        throw wrapped;
      } finally {
        lease.release(broken);
      }
    },
    async ping() {
      await runPooled('SELECT 1');
    },
    stats: () => ({ connections: { total: pool.totalCount, idle: pool.idleCount, waiting: waitingForCapacity(pool, max) }, errorsByClass }),
    watchAvailability(listener) {
      listeners.push(listener);
    },
    async close() {
      await pool.end();
    },
  };
}
