import { createHash } from 'node:crypto';
import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { EXIT, type CliCommand } from './cli-command.js';
import { serviceUrl } from './billing-commands.js';
import { fileProblem } from './circuit-file.js';
import { printJson, reportFailure } from './output.js';
import { strOption } from './parse-command-line.js';

const JSON_OPTION = { type: 'boolean', description: 'machine output: one JSON document on stdout, errors as JSON on stderr' } as const;

/** `qrail backup`: an online snapshot of the embedded database, asked of the running service. */
export const backupCommand: CliCommand = {
  name: 'backup',
  summary: 'operator: a consistent online backup of the embedded (PGlite) database to a file',
  description: `Asks the running service (its operator endpoint, with QRAIL_OPERATOR_TOKEN) for a
snapshot of the embedded data directory, taken while it serves, and writes it to --out
(written whole or not at all). The service goes on serving. The archive records its migration
level and is checked against its SHA-256 before it is kept. On PostgreSQL use pg_dump instead
(docs/operations.md#backups). Restore with qrail restore.`,
  options: {
    out: { type: 'string', value: 'file', required: true, description: 'where to write the archive (.tar.gz)' },
    url: { type: 'string', value: 'url', description: 'the running service (default: QRAIL_URL, else http://HOST:PORT)' },
    json: JSON_OPTION,
  },
  examples: ['QRAIL_OPERATOR_TOKEN=… qrail backup --out qrail-2026-11-28.tar.gz', 'qrail backup --out backup.tar.gz --url http://127.0.0.1:8080 --json'],
  async run(input, ctx) {
    const config = await ctx.serverConfig();
    const json = input.options['json'] === true;
    const out = strOption(input.options['out']) ?? '';
    if (config.databaseUrl !== undefined) {
      return reportFailure(ctx.io, json, { code: 'BACKUP_NOT_EMBEDDED', message: 'DATABASE_URL selects PostgreSQL: back it up with pg_dump (docs/operations.md#backups).' }, EXIT.USAGE);
    }
    if (config.operatorToken === undefined) {
      return reportFailure(
        ctx.io,
        json,
        { code: 'OPERATOR_TOKEN_MISSING', message: 'Set QRAIL_OPERATOR_TOKEN (the value the service runs with): only the running service can snapshot its data directory.' },
        EXIT.USAGE,
      );
    }
    const target = `${serviceUrl(config, ctx, strOption(input.options['url']))}/v1/operator/backup`;
    let res: Response;
    try {
      res = await (ctx.fetch ?? fetch)(target, { method: 'POST', headers: { authorization: `Bearer ${config.operatorToken}` } });
    } catch (e) {
      return reportFailure(ctx.io, json, { code: 'NETWORK_ERROR', message: `Cannot reach the service at ${target}: ${e instanceof Error ? e.message : String(e)}. Is it running?` });
    }
    if (res.status !== 200) {
      const body = (await res.json().catch(() => ({}))) as { error?: { code?: string; message?: string } };
      return reportFailure(ctx.io, json, { code: body.error?.code ?? `HTTP_${res.status}`, message: body.error?.message ?? 'backup refused', status: res.status });
    }
    const archive = new Uint8Array(await res.arrayBuffer());
    const sha256 = createHash('sha256').update(archive).digest('base64');
    if (res.headers.get('repr-digest') !== `sha-256=:${sha256}:`) {
      return reportFailure(ctx.io, json, { code: 'BACKUP_CORRUPTED', message: 'the archive received does not match the digest the service sent; nothing was written' });
    }
    // Written beside the target, then renamed: a cut-off transfer never leaves a partial backup under the name.
    const partial = `${out}.partial`;
    try {
      writeFileSync(partial, archive, { mode: 0o600 });
      renameSync(partial, out);
    } catch (e) {
      return reportFailure(ctx.io, json, { code: 'FILE_UNWRITABLE', message: fileProblem(e, out, 'write') }, EXIT.USAGE);
    }
    const result = { file: out, bytes: archive.length, sha256_base64: sha256, migration_level: res.headers.get('qrail-migration-level') || null };
    if (json) printJson(ctx.io, result);
    else ctx.io.out(`backup written: ${out} (${archive.length} bytes, migration ${result.migration_level ?? 'none'})\n`);
    return EXIT.OK;
  },
};

/** `qrail restore`: loads a backup into a new data directory, offline. */
export const restoreCommand: CliCommand = {
  name: 'restore',
  summary: 'operator: load a backup from qrail backup into a new embedded data directory',
  description: `Loads the archive into --data-dir (default DATA_DIR), which must be new or empty: a
restore never overwrites a database. A backup from a newer release (a migration this one does not
know) is refused. Then start the service on that directory (DATA_DIR=… qrail serve); it applies
any newer migrations, and qrail ledger check confirms the balances.`,
  positionals: [{ name: 'file', description: 'the archive written by qrail backup' }],
  options: {
    'data-dir': { type: 'string', value: 'dir', description: 'the new data directory (default: DATA_DIR)' },
    json: JSON_OPTION,
  },
  examples: ['qrail restore qrail-2026-11-28.tar.gz --data-dir ./data-restored && DATA_DIR=./data-restored qrail serve'],
  async run(input, ctx) {
    const config = await ctx.serverConfig();
    const json = input.options['json'] === true;
    const file = input.positionals[0] ?? '';
    const dataDir = strOption(input.options['data-dir']) ?? config.dataDir;
    let archive: Uint8Array;
    try {
      archive = readFileSync(file);
    } catch (e) {
      return reportFailure(ctx.io, json, { code: 'FILE_UNREADABLE', message: fileProblem(e, file) }, EXIT.USAGE);
    }
    const { restoreEmbedded } = await import('../store/embedded-backup.js');
    const r = await restoreEmbedded(archive, dataDir);
    if (!r.ok) return reportFailure(ctx.io, json, { code: r.code, message: r.message }, EXIT.USAGE);
    const result = { data_dir: dataDir, migration_level: r.migrationLevel, migrations_pending: r.pending };
    if (json) printJson(ctx.io, result);
    else ctx.io.out(`restored into ${dataDir} (migration ${r.migrationLevel ?? 'none'}${r.pending > 0 ? `; ${r.pending} newer migrations apply at the next start` : ''})\n`);
    return EXIT.OK;
  },
};
