import { resolve } from 'node:path';
import type { Config } from '../config/config.js';
import { ConfigError } from '../config/env-parser.js';
import { DataDirLockedError } from '../store/data-dir-lock.js';
import { StoreUnavailableError } from '../store/db.js';
import { MigrationChecksumError } from '../store/migrate.js';

/**
 * What the operator reads at start: which store the process uses, and one line instead of a
 * stack trace when it cannot start for a reason the operator can fix (exit 2).
 */

/** "PostgreSQL db.internal:5432/qrail" or "PGlite /srv/qrail/data": never a user or password. */
export function describeDatabase(config: Pick<Config, 'databaseUrl' | 'dataDir'>): string {
  if (config.databaseUrl !== undefined) {
    try {
      const u = new URL(config.databaseUrl);
      const db = decodeURIComponent(u.pathname.replace(/^\//, '')) || '(default database)';
      return `PostgreSQL ${u.hostname || 'localhost'}:${u.port || '5432'}/${db}`;
    } catch {
      return 'PostgreSQL (DATABASE_URL)';
    }
  }
  if (config.dataDir === 'memory://' || config.dataDir === ':memory:') return 'PGlite in memory (nothing is kept)';
  return `PGlite ${resolve(config.dataDir)}`;
}

const LISTEN_REASONS: Record<string, string> = {
  EADDRINUSE: 'the address is already in use (another process listens there)',
  EADDRNOTAVAIL: "the address is not one of this machine's",
  EACCES: 'permission denied (ports below 1024 need privileges)',
  ENOTFOUND: 'the host name does not resolve',
  EAI_AGAIN: 'the host name could not be resolved (DNS unavailable)',
  EAI_FAIL: 'the host name could not be resolved',
};

interface SysError {
  readonly code?: string;
  readonly syscall?: string;
  readonly path?: string;
  readonly message?: string;
}

function oneLine(s: string): string {
  return s.replace(/\s+/g, ' ').trim();
}

/** Strips a `user:password@` that a driver might have echoed back. */
function scrub(s: string): string {
  return s.replace(/\/\/[^/@\s]*@/g, '//***@');
}

/**
 * The line to print for a failure before the process is serving, or undefined for a bug
 * (those keep their stack trace and exit 1).
 */
export function startupFailure(e: unknown, config: Config | undefined): string | undefined {
  if (e instanceof ConfigError || e instanceof DataDirLockedError || e instanceof MigrationChecksumError) return oneLine(e.message);
  const sys = (e ?? {}) as SysError;
  if (e instanceof StoreUnavailableError || (config?.databaseUrl !== undefined && isPgStartupError(e))) {
    const cause = e instanceof StoreUnavailableError ? (e.cause as SysError | undefined) : sys;
    const reason = cause?.message ? scrub(oneLine(cause.message)) : 'unreachable';
    const where = config === undefined ? 'the database' : describeDatabase(config);
    const variable = config?.databaseUrl !== undefined ? 'DATABASE_URL' : 'DATA_DIR';
    return `Cannot open the database ${where} (${variable}): ${reason}${sys.code === undefined && cause?.code ? ` [${cause.code}]` : ''}`;
  }
  if (sys.syscall === 'listen' || sys.syscall === 'getaddrinfo' || (sys.code !== undefined && sys.code in LISTEN_REASONS && sys.syscall === undefined)) {
    const reason = LISTEN_REASONS[sys.code ?? ''] ?? oneLine(sys.message ?? 'failed');
    const { listenPort, listenVariable } = e as { listenPort?: number; listenVariable?: string };
    const at = config === undefined ? '' : ` ${config.host}:${listenPort ?? config.port}`;
    return `Cannot listen on${at} (HOST, ${listenPort === undefined ? 'PORT' : (listenVariable ?? 'JOBS_PORT')}): ${reason} [${sys.code ?? 'error'}]`;
  }
  if (config !== undefined && config.databaseUrl === undefined && typeof sys.path === 'string' && sys.code !== undefined && /^E[A-Z]+$/.test(sys.code)) {
    return `Cannot open the embedded database in ${resolve(config.dataDir)} (DATA_DIR): ${sys.code} on ${sys.path}`;
  }
  return undefined;
}

/** A PostgreSQL error raised while connecting or migrating: it has a SQLSTATE class of connection or access. */
function isPgStartupError(e: unknown): boolean {
  const code = (e as SysError | null)?.code;
  return typeof code === 'string' && /^(08|28|3D|57P)/.test(code);
}
