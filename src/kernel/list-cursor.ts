/**
 * The opaque cursor and time bounds of the keyset lists (GET /v1/jobs, GET /v1/execute/jobs):
 * a cursor is the (created_at in µs, id) of the last item of a page, base64url-encoded.
 */
import { fail } from '../errors/app-error.js';
import { HTTP_ERRORS } from '../errors/http-error-codes.js';

export interface ListPosition {
  readonly createdAtMicros: bigint;
  readonly id: string;
}

/** Page sizes of every list: at most 100 items, 50 unless asked. */
export const LIST_MAX = 100;
export const LIST_DEFAULT = 50;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

export function encodeCursor(p: ListPosition): string {
  return Buffer.from(`${p.createdAtMicros.toString()}|${p.id}`, 'utf8').toString('base64url');
}

/** The position a cursor names; 400 INVALID_CURSOR for anything a list did not return. Undefined for none. */
export function decodeCursor(c: string | undefined): ListPosition | undefined {
  if (c === undefined || c === '') return undefined;
  const [at, id] = Buffer.from(c, 'base64url').toString('utf8').split('|');
  if (at === undefined || !/^\d{1,20}$/.test(at) || id === undefined || !UUID.test(id)) {
    throw fail(HTTP_ERRORS.INVALID_CURSOR, 'The cursor is not a next_cursor returned by this list.', [
      { in: 'querystring', path: '/cursor', code: HTTP_ERRORS.INVALID_CURSOR.code, message: 'is not a valid cursor' },
    ]);
  }
  return { createdAtMicros: BigInt(at), id };
}

/** An ISO 8601 date-time of the query (format-checked by the route's schema) in µs since the epoch. */
export function timeBound(iso: string | undefined): bigint | undefined {
  return iso === undefined ? undefined : BigInt(Date.parse(iso)) * 1000n;
}

export function pageSize(limit: number | undefined): number {
  return Math.min(Math.max(limit ?? LIST_DEFAULT, 1), LIST_MAX);
}

/** What every list's query has beside its own filters (validated by the route's schema). */
export interface PageRequest {
  readonly createdAfter?: string | undefined;
  readonly createdBefore?: string | undefined;
  readonly limit?: number | undefined;
  readonly cursor?: string | undefined;
}

/** A PageRequest as the store's bounds: only those given (400 INVALID_CURSOR for a cursor no list returned). */
export function pageBounds(q: PageRequest): { before?: ListPosition; createdAfterMicros?: bigint; createdBeforeMicros?: bigint } {
  const before = decodeCursor(q.cursor);
  const after = timeBound(q.createdAfter);
  const until = timeBound(q.createdBefore);
  return { ...(before === undefined ? {} : { before }), ...(after === undefined ? {} : { createdAfterMicros: after }), ...(until === undefined ? {} : { createdBeforeMicros: until }) };
}

/** Only the filters that are set (the store's queries take absent ones as "any"). */
export function given<T extends Record<string, unknown>>(filters: T): { [K in keyof T]?: Exclude<T[K], undefined> } {
  return Object.fromEntries(Object.entries(filters).filter(([, v]) => v !== undefined)) as { [K in keyof T]?: Exclude<T[K], undefined> };
}

/**
 * One page from `fetch(limit + 1)`: the extra row tells whether there is a next page, and the
 * cursor is the last returned item's position.
 */
export async function keysetPage<T>(limit: number, fetch: (n: number) => Promise<T[]>, position: (t: T) => ListPosition): Promise<{ items: T[]; nextCursor: string | null; hasMore: boolean }> {
  const rows = await fetch(limit + 1);
  const items = rows.slice(0, limit);
  const last = items[items.length - 1];
  const hasMore = rows.length > limit && last !== undefined;
  return { items, nextCursor: hasMore ? encodeCursor(position(last)) : null, hasMore };
}
