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

/** Counts a failed statement under its SQLSTATE class. */
export function countError(into: Map<string, number>, e: unknown): void {
  const code = (e as { code?: unknown } | null)?.code;
  const cls = typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code) ? code.slice(0, 2) : '';
  into.set(cls, (into.get(cls) ?? 0) + 1);
}

export interface Database extends Queryable {
  readonly driver: 'pg' | 'pglite';
  /** Runs `fn` in one transaction; rolls back on throw. */
  tx<T>(fn: (q: Queryable) => Promise<T>): Promise<T>;
  /** Cheap liveness probe for /readyz. */
  ping(): Promise<void>;
  stats?(): DatabaseStats;
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
