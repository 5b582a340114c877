import { Type } from 'typebox';
import { LIST_MAX } from '../../kernel/list-cursor.js';

/** The page size of every keyset-paged list (docs/api-guide.md, lists). */
export const PageLimit = Type.Optional(Type.Integer({ minimum: 1, maximum: LIST_MAX, description: 'Page size (default 50, at most 100)' }));
/** The cursor of every keyset-paged list: the previous page's next_cursor. */
export const PageCursor = Type.Optional(Type.String({ maxLength: 200, description: 'next_cursor of the previous page (with the same filters)' }));

const DateTime = (description: string) => Type.Optional(Type.String({ format: 'date-time', maxLength: 64, description }));

/** The query fields every list of jobs shares: a creation window, a page size and a cursor. */
export function jobPageQuery() {
  return {
    created_after: DateTime('Only jobs created at or after this time (RFC 3339)'),
    created_before: DateTime('Only jobs created before this time (RFC 3339)'),
    limit: PageLimit,
    cursor: PageCursor,
  };
}
