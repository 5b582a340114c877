import { fail } from '../errors/app-error.js';
import { HTTP_ERRORS } from '../errors/http-error-codes.js';

/**
 * The ledger list's keyset position: the last row's instant (microseconds, as PostgreSQL keeps
 * them, so no row is skipped or repeated at a page boundary) and id, opaque to clients.
 */
export function encodeLedgerCursor(position: string, id: string): string {
  return Buffer.from(`${position}|${id}`, 'utf8').toString('base64url');
}

const CURSOR = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z)\|([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$/;

export function decodeLedgerCursor(cursor: string): { position: string; id: string } {
  const m = CURSOR.exec(Buffer.from(cursor, 'base64url').toString('utf8'));
  const at = m === null ? NaN : Date.parse(m[1]!);
  if (m === null || Number.isNaN(at)) {
    throw fail(HTTP_ERRORS.VALIDATION_FAILED, 'Bad cursor.', [{ in: 'querystring', path: '/cursor', code: 'INVALID', message: 'is not a cursor from a previous page' }]);
  }
  return { position: m[1]!, id: m[2]! };
}
