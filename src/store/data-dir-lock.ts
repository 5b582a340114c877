import { randomBytes } from 'node:crypto';
import { linkSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join, resolve } from 'node:path';

/**
 * An exclusive lock on a PGlite data directory. PGlite is single-process: a second process
 * on the same files keeps its own copy of the catalogue in memory and each silently loses
 * the other's writes. The lock is a file created atomically (a complete temporary file is
 * hard-linked into place, so nobody ever reads a half-written lock) holding the owner's pid,
 * host and process start time; a lock whose owner is gone is taken over.
 */
export const LOCK_FILE = 'qrail.lock';

export interface LockHolder {
  readonly pid: number;
  readonly host: string;
  /** Kernel start time of the process (Linux), so a reused pid is not mistaken for the holder. */
  readonly startTime: string | null;
  readonly since: string;
  readonly token: string;
}

export class DataDirLockedError extends Error {
  constructor(
    readonly dataDir: string,
    readonly holder: LockHolder,
  ) {
    const where = holder.host === hostname() ? `pid ${holder.pid}` : `pid ${holder.pid} on host ${holder.host}`;
    const hint = holder.host === hostname() ? 'stop it first or point DATA_DIR elsewhere' : `stop it first; if it is gone, delete ${join(dataDir, LOCK_FILE)}`;
    super(`DATA_DIR ${dataDir} is in use by another qrail process (${where}, since ${holder.since}); ${hint}`);
    this.name = 'DataDirLockedError';
  }
}

export interface DataDirLock {
  /** Removes the lock file if it is still ours. Idempotent. */
  release(): void;
}

/** Field 22 of /proc/<pid>/stat; null where there is no procfs. */
function processStartTime(pid: number | 'self'): string | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) may hold spaces and parentheses; fields after it are plain.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return fields[19] ?? null;
  } catch {
    return null;
  }
}

function readHolder(path: string): LockHolder | null {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw e;
  }
  try {
    const h = JSON.parse(text) as Partial<LockHolder>;
    if (typeof h.pid === 'number' && typeof h.host === 'string' && typeof h.token === 'string') {
      return { pid: h.pid, host: h.host, startTime: typeof h.startTime === 'string' ? h.startTime : null, since: String(h.since ?? '?'), token: h.token };
    }
  } catch {
    // Unparsable: not written by us through a complete link; treated as a dead holder below.
  }
  return { pid: 0, host: hostname(), startTime: null, since: '?', token: `unparsable:${text.length}` };
}

/** Whether the recorded holder can still be running. Another host's process cannot be checked. */
function alive(h: LockHolder): boolean {
  if (h.host !== hostname()) return true;
  if (!Number.isInteger(h.pid) || h.pid <= 0) return false;
  try {
    process.kill(h.pid, 0);
  } catch (e) {
    // EPERM: the pid exists but belongs to another user.
    if ((e as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  if (h.startTime === null) return true;
  const now = processStartTime(h.pid);
  return now === null || now === h.startTime;
}

function tryLink(content: string, target: string): boolean {
  const tmp = `${target}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  writeFileSync(tmp, content, { mode: 0o644 });
  try {
    linkSync(tmp, target);
    return true;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw e;
  } finally {
    unlinkSync(tmp);
  }
}

function removeIfSame(path: string, token: string): void {
  const h = readHolder(path);
  if (h !== null && h.token === token) {
    try {
      unlinkSync(path);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
    }
  }
}

/** Takes the directory's lock or throws `DataDirLockedError` naming the live holder. */
export function lockDataDir(dir: string): DataDirLock {
  const dataDir = resolve(dir);
  const path = join(dataDir, LOCK_FILE);
  const takeover = `${path}.takeover`;
  const me: LockHolder = { pid: process.pid, host: hostname(), startTime: processStartTime('self'), since: new Date().toISOString(), token: randomBytes(12).toString('hex') };
  const content = `${JSON.stringify(me)}\n`;

  for (let attempt = 0; attempt < 5; attempt++) {
    if (tryLink(content, path)) return ownLock(path, me.token);
    const holder = readHolder(path);
    if (holder === null) continue; // released between our link and our read
    if (alive(holder)) throw new DataDirLockedError(dataDir, holder);
    // Stale. Two processes recovering at once must not both win: the one that creates the
    // takeover marker replaces the lock, and only if it still is the stale one it inspected.
    if (!tryLink(content, takeover)) {
      const other = readHolder(takeover);
      if (other !== null && alive(other)) throw new DataDirLockedError(dataDir, other);
      if (other !== null) removeIfSame(takeover, other.token);
      continue;
    }
    try {
      const again = readHolder(path);
      if (again !== null && again.token === holder.token) removeIfSame(path, holder.token);
      if (tryLink(content, path)) return ownLock(path, me.token);
    } finally {
      removeIfSame(takeover, me.token);
    }
  }
  const last = readHolder(path);
  throw new DataDirLockedError(dataDir, last ?? me);
}

function ownLock(path: string, token: string): DataDirLock {
  let held = true;
  const release = () => {
    if (!held) return;
    held = false;
    process.off('exit', release);
    removeIfSame(path, token);
  };
  // A process that exits without closing the store (process.exit on a fatal path) leaves no lock.
  process.on('exit', release);
  return { release };
}
