/**
 * The keyset page both lists share (GET /v1/jobs, GET /v1/execute/jobs): newest first by
 * (created_at, id), an optional creation-time range and the position after the previous page,
 * written so that an index on (<filter columns>, created_at DESC, id DESC) is read in order and
 * stops after the page (migration 0600).
 */
import type { Database } from './db.js';

/**
 * Every filter has an index in the list's order, so a page never needs a sort: the statement
 * runs with sorts and bitmap scans priced out. Without statistics (PGlite never analyzes; a new
 * PostgreSQL table before autovacuum) the planner guesses that a few hundred rows match an
 * account and reads and sorts the account's whole history for each page instead
 * (docs/decisions/jobs-list-plans.md).
 */
const ORDERED_PLAN = ['SET LOCAL enable_sort = off', 'SET LOCAL enable_bitmapscan = off'];

/** Runs a list statement (built with pageClauses) with the planner settings above, in its own transaction. */
export function listQuery<R>(db: Database, sql: string, params: readonly unknown[]): Promise<R[]> {
  return db.tx(async (q) => {
    for (const s of ORDERED_PLAN) await q.exec(s);
    return (await q.query<R>(sql, params)).rows;
  });
}

/** The planner settings of listQuery, for a test that EXPLAINs a list statement inside its own transaction. */
export const LIST_PLAN_SETTINGS: readonly string[] = ORDERED_PLAN;
export interface PageBounds {
  /** Created at or after (µs since the epoch). */
  readonly afterMicros?: bigint | undefined;
  /** Created strictly before (µs since the epoch). */
  readonly beforeMicros?: bigint | undefined;
  /** Strictly older than this (created_at, id): the last item of the previous page. */
  readonly position?: { readonly createdAtMicros: bigint; readonly id: string } | undefined;
  readonly limit: number;
}

const at = (param: number) => `(timestamptz 'epoch' + $${param}::bigint * interval '1 microsecond')`;

/**
 * The page's conditions over the columns `createdAt` and `id`, their parameters pushed onto
 * `params`, and the ORDER BY … LIMIT that ends the statement (LIMIT alone when `unordered`: a
 * lookup that finds at most one row, which a priced-out sort must not turn into a scan).
 */
export function pageClauses(createdAt: string, id: string, b: PageBounds, params: unknown[], unordered = false): { where: string[]; tail: string } {
  const where: string[] = [];
  if (b.afterMicros !== undefined) {
    params.push(b.afterMicros.toString());
    where.push(`${createdAt} >= ${at(params.length)}`);
  }
  if (b.beforeMicros !== undefined) {
    params.push(b.beforeMicros.toString());
    where.push(`${createdAt} < ${at(params.length)}`);
  }
  if (b.position !== undefined) {
    params.push(b.position.createdAtMicros.toString(), b.position.id);
    where.push(`(${createdAt}, ${id}) < (${at(params.length - 1)}, $${params.length}::uuid)`);
  }
  params.push(b.limit);
  return { where, tail: `${unordered ? '' : `ORDER BY ${createdAt} DESC, ${id} DESC `}LIMIT $${params.length}` };
}
