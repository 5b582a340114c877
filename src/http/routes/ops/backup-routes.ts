import { createHash } from 'node:crypto';
import { fail } from '../../../errors/app-error.js';
import { STORE_ERRORS } from '../../../store/error-codes.js';
import { migrationLevel } from '../../../store/embedded-backup.js';
import type { App } from '../../app-types.js';
import { errors } from '../../envelope-schemas.js';
import { operatorGuard, operatorRateLimit } from '../../plugins/operator-guard.js';

/**
 * `qrail backup` against a running service on embedded PGlite: only the process that owns the
 * data directory can read it consistently, so the snapshot is taken here and streamed back.
 */
export default async function backupRoutes(app: App): Promise<void> {
  const guard = operatorGuard(app);
  app.post(
    '/v1/operator/backup',
    {
      onRequest: guard,
      config: { rateLimit: operatorRateLimit(app) },
      schema: {
        tags: ['operator'],
        operationId: 'backupEmbeddedDatabase',
        summary: 'A consistent snapshot of the embedded database, taken online (operator token)',
        description:
          'The gzip tar of the PGlite data directory, taken while the service runs (no statement runs during the copy). `qrail restore FILE --data-dir DIR` loads it into a new directory. `Qrail-Migration-Level` names the newest migration it holds; `Repr-Digest` (RFC 9530) its SHA-256. On PostgreSQL: 409 BACKUP_NOT_EMBEDDED (use pg_dump).',
        security: [{ operatorToken: [] }],
        response: {
          200: {
            description: 'The backup archive',
            content: { 'application/gzip': { schema: { type: 'string', format: 'binary' } } },
          },
          ...errors(403, 409),
        },
      },
    },
    async (_req, reply) => {
      const db = app.db;
      if (db.snapshot === undefined) throw fail(STORE_ERRORS.BACKUP_NOT_EMBEDDED, 'This service runs on PostgreSQL: back it up with pg_dump (docs/operations.md#backups).');
      const level = await migrationLevel(db);
      const archive = await db.snapshot();
      const at = new Date().toISOString().replace(/[:.]/g, '-');
      return reply
        .header('content-type', 'application/gzip')
        .header('content-disposition', `attachment; filename="qrail-backup-${at}.tar.gz"`)
        .header('cache-control', 'no-store')
        .header('qrail-migration-level', level ?? '')
        .header('repr-digest', `sha-256=:${createHash('sha256').update(archive).digest('base64')}:`)
        .send(Buffer.from(archive.buffer, archive.byteOffset, archive.byteLength));
    },
  );
}
