import { defineCode } from '../errors/app-error.js';

/** Codes of the store's operator features (backups of the embedded database). */
export const STORE_ERRORS = {
  BACKUP_NOT_EMBEDDED: defineCode(
    'BACKUP_NOT_EMBEDDED',
    409,
    'The service runs on PostgreSQL (DATABASE_URL): back it up with pg_dump or the server’s own backups; the backup endpoint snapshots the embedded PGlite data directory only.',
  ),
} as const;
