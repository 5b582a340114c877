import { chmodSync, mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { UsageError } from './cli-command.js';

/**
 * The per-user config file of the client commands (docs/decisions/cli-config-file.md): JSON,
 * mode 0600 in a 0700 directory, one entry per service base URL, and which one is current.
 * It holds secrets (a session token, a machine credential), so it is written atomically with
 * its final mode from the start and never printed.
 */
export interface SavedSession {
  readonly token: string;
  readonly email: string;
  readonly expires_at?: string;
}

export interface SavedCredential {
  readonly client_id: string;
  readonly client_secret: string;
  readonly scope?: string;
}

export interface ServiceEntry {
  readonly session?: SavedSession;
  readonly credential?: SavedCredential;
}

export interface UserConfig {
  readonly version: 1;
  readonly current?: string;
  readonly services: Readonly<Record<string, ServiceEntry>>;
}

export const EMPTY_CONFIG: UserConfig = { version: 1, services: {} };

/** The base URL as a key: no trailing slash. */
export const normaliseUrl = (url: string): string => url.replace(/\/+$/, '');

export interface LoadedConfig {
  readonly config: UserConfig;
  /** Set when the file can be read by others (it is still used). */
  readonly warning?: string;
}

export function readUserConfig(file: string): LoadedConfig {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    if ((e as { code?: string }).code === 'ENOENT') return { config: EMPTY_CONFIG };
    throw new UsageError(`cannot read the config file ${file}: ${(e as Error).message}`);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new UsageError(`the config file ${file} is not JSON; fix it or delete it and log in again`);
  }
  const c = parsed as Partial<UserConfig> | null;
  if (c === null || typeof c !== 'object' || c.version !== 1 || typeof c.services !== 'object' || c.services === null) {
    throw new UsageError(`the config file ${file} is not a qrail config (version 1); delete it and log in again`);
  }
  const mode = statSync(file).mode & 0o777;
  const warning = (mode & 0o077) !== 0 ? `the config file ${file} holds secrets but is readable by others (mode ${mode.toString(8)}); run: chmod 600 ${file}` : undefined;
  return { config: c as UserConfig, ...(warning === undefined ? {} : { warning }) };
}

/** Writes the whole file: a temporary file created with mode 0600, then renamed over the old one. */
export function writeUserConfig(file: string, config: UserConfig): void {
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, `${JSON.stringify(config, null, 2)}\n`, { mode: 0o600 });
  // The mode given at creation is masked by the umask; set it exactly.
  chmodSync(tmp, 0o600);
  renameSync(tmp, file);
}

/** A copy with one service's entry changed (and made current); `undefined` removes the entry. */
export function withService(config: UserConfig, url: string, entry: ServiceEntry | undefined, makeCurrent = true): UserConfig {
  const key = normaliseUrl(url);
  const services = { ...config.services };
  if (entry === undefined || (entry.session === undefined && entry.credential === undefined)) delete services[key];
  else services[key] = entry;
  const kept = services[key] !== undefined;
  const current = makeCurrent && kept ? key : config.current === key && !kept ? undefined : config.current;
  return { version: 1, ...(current === undefined ? {} : { current }), services };
}
