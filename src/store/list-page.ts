/**
 * The keyset page both lists share (GET /v1/jobs, GET /v1/execute/jobs): newest first by
 * (created_at, id), an optional creation-time range and the position after the previous page,
 * written so that an index on (<filter columns>, created_at DESC, id DESC) is read in order and
 * stops after the page (migration 0600).
 */
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
 * `params`, and the ORDER BY … LIMIT that ends the statement.
 */
export function pageClauses(createdAt: string, id: string, b: PageBounds, params: unknown[]): { where: string[]; tail: string } {
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
  return { where, tail: `ORDER BY ${createdAt} DESC, ${id} DESC LIMIT $${params.length}` };
}
