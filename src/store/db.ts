/**
 * One data-access surface over two drivers (PostgreSQL via `pg`, embedded PGlite).
 * Repositories depend on `Queryable`/`Database` only; SQL is the same on both.
 */
export interface QueryResult<R> {
  readonly rows: R[];
  readonly rowCount: number;
}

export interface QueryOptions {
  /**
   * A name for a statement whose text never changes: the PostgreSQL driver then keeps it
   * prepared on each pooled connection (parsed and planned once) instead of parsing it per call.
   */
  readonly name?: string;
}

export interface Queryable {
  query<R = Record<string, unknown>>(sql: string, params?: readonly unknown[], options?: QueryOptions): Promise<QueryResult<R>>;
  /** Runs a script of several statements without parameters (migrations). */
  exec(sql: string): Promise<void>;
}

/** What the metrics read from a database at scrape (src/store/store-metrics.ts). */
export interface DatabaseStats {
  /** The pool's connections (PostgreSQL); null for the embedded database, which has none. */
  readonly connections: { readonly total: number; readonly idle: number; readonly waiting: number } | null;
  /** Failed statements since start, by SQLSTATE class (`23` integrity, `40` rollback, …; `` for no SQLSTATE). */
  readonly errorsByClass: ReadonlyMap<string, number>;
}

/** A statement's span attributes: its text (parameters are never in it), shortened. */
export function statementAttributes(system: string, sql: string): Record<string, string> {
  return { 'db.system.name': system, 'db.query.text': sql.length > 300 ? `${sql.slice(0, 300)}…` : sql };
}

/**
 * Counts a failed statement (or a failed attempt to connect) under its SQLSTATE class; `fallback`
 * is the class of a failure that carries no SQLSTATE (a refused or reset socket, a connect timeout:
 * `08`, connection exception, for the driver that knows it was one).
 */
export function countError(into: Map<string, number>, e: unknown, fallback = ''): void {
  const code = (e as { code?: unknown } | null)?.code;
  const cls = typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code) ? code.slice(0, 2) : fallback;
  into.set(cls, (into.get(cls) ?? 0) + 1);
}

/** Told when the database stops answering (with the failure) and when it answers again. */
export type AvailabilityListener = (available: boolean, cause?: unknown) => void;

export interface Database extends Queryable {
  readonly driver: 'pg' | 'pglite';
  /** Runs `fn` in one transaction; rolls back on throw. */
  tx<T>(fn: (q: Queryable) => Promise<T>): Promise<T>;
  /** Cheap liveness probe for /readyz. */
  ping(): Promise<void>;
  stats?(): DatabaseStats;
  /**
   * Calls `listener` once per change of reachability (a server that can drop connections:
   * PostgreSQL): false on the first connection failure, true on the next statement that succeeds.
   */
  watchAvailability?(listener: AvailabilityListener): void;
  /**
   * Embedded PGlite only: a consistent snapshot of the whole data directory while the service
   * runs (a gzip tar that `qrail restore` loads into a new directory). PostgreSQL has pg_dump.
   */
  snapshot?(): Promise<Uint8Array>;
  close(): Promise<void>;
}

/** Thrown when the store cannot be reached; mapped to 503 `STORE_UNAVAILABLE`. */
export class StoreUnavailableError extends Error {
  constructor(cause: unknown) {
    super('database unavailable', { cause });
    this.name = 'StoreUnavailableError';
  }
}

/**
 * The database aborted the transaction to resolve a collision with a concurrent one (deadlock,
 * serialization failure). Nothing of it was applied; the same request may be retried as is.
 */
export class StoreConflictError extends Error {
  constructor(cause: unknown) {
    super('transaction aborted by a concurrent one', { cause });
    this.name = 'StoreConflictError';
  }
}
