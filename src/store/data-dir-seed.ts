/**
 * Writes the embedded database's baseline archive (PGlite's gzipped tar of a data directory) onto
 * a new data directory with Node's own file calls. PGlite's `loadDataDir` does the same through
 * its emulated file system, file by file inside the WebAssembly runtime, which made a fresh start
 * take about twice as long as opening the same directory again (bench:startup).
 *
 * Only what PGlite writes is accepted: regular files and directories, relative names without `..`.
 * A marker file makes an interrupted seeding visible: the next start sees it, clears what the
 * seeding wrote and seeds again, instead of opening half a data directory.
 */
import { existsSync, mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join, normalize, sep } from 'node:path';
import { gunzipSync } from 'node:zlib';

export const SEEDING_MARKER = '.qrail-seeding';

const BLOCK = 512;

interface TarEntry {
  readonly name: string;
  readonly type: 'file' | 'dir';
  readonly mode: number;
  readonly data: Uint8Array;
}

function field(h: Uint8Array, offset: number, length: number): string {
  const raw = h.subarray(offset, offset + length);
  const end = raw.indexOf(0);
  return Buffer.from(end === -1 ? raw : raw.subarray(0, end)).toString('utf8');
}

const octal = (h: Uint8Array, offset: number, length: number): number => {
  const s = field(h, offset, length).trim();
  return s === '' ? 0 : Number.parseInt(s, 8);
};

/** The entries of a ustar archive; throws on anything a PGlite dump does not contain. */
export function readTar(tar: Uint8Array): TarEntry[] {
  const entries: TarEntry[] = [];
  for (let at = 0; at + BLOCK <= tar.length;) {
    const h = tar.subarray(at, at + BLOCK);
    if (h.every((b) => b === 0)) break; // the end-of-archive blocks
    const prefix = field(h, 345, 155);
    const name = (prefix === '' ? '' : `${prefix}/`) + field(h, 0, 100);
    const size = octal(h, 124, 12);
    const flag = String.fromCharCode(h[156] ?? 0);
    if (!Number.isSafeInteger(size) || size < 0 || at + BLOCK + size > tar.length) throw new Error(`baseline archive: entry ${name} is cut short`);
    const type = flag === '5' ? 'dir' : flag === '0' || flag === '\0' ? 'file' : undefined;
    if (type === undefined) throw new Error(`baseline archive: entry ${name} has type ${JSON.stringify(flag)}`);
    entries.push({ name, type, mode: octal(h, 100, 8) & 0o777, data: tar.subarray(at + BLOCK, at + BLOCK + size) });
    at += BLOCK + Math.ceil(size / BLOCK) * BLOCK;
  }
  return entries;
}

function target(dataDir: string, name: string): string {
  const rel = normalize(name.replace(/^\/+/, ''));
  if (rel === '' || rel === '.' || rel.split(sep).includes('..')) throw new Error(`baseline archive: entry name ${JSON.stringify(name)} is outside the data directory`);
  return join(dataDir, rel);
}

/** True when a seeding started in this directory did not finish. */
export const seedingInterrupted = (dataDir: string): boolean => existsSync(join(dataDir, SEEDING_MARKER));

/**
 * Removes what an interrupted seeding wrote (everything but `keep` and the marker itself goes), so
 * the directory is new again; without a baseline to seed from, PGlite's initdb then fills it.
 */
export function clearInterruptedSeeding(dataDir: string, keep: readonly string[]): void {
  for (const e of readdirSync(dataDir)) if (e !== SEEDING_MARKER && !keep.includes(e)) rmSync(join(dataDir, e), { recursive: true, force: true });
  rmSync(join(dataDir, SEEDING_MARKER), { force: true });
}

/**
 * Writes the archive into dataDir (existing, locked by the caller). Entries named in `keep` (the
 * lock file) are left alone when an interrupted seeding is cleared.
 */
export function seedDataDir(dataDir: string, gzippedTar: Uint8Array, keep: readonly string[]): void {
  const entries = readTar(gunzipSync(gzippedTar));
  const marker = join(dataDir, SEEDING_MARKER);
  if (existsSync(marker)) clearInterruptedSeeding(dataDir, keep);
  writeFileSync(marker, '');
  for (const e of entries) {
    const path = target(dataDir, e.name);
    if (e.type === 'dir') mkdirSync(path, { recursive: true, mode: e.mode || 0o700 });
    else {
      mkdirSync(join(path, '..'), { recursive: true, mode: 0o700 });
      writeFileSync(path, e.data, { mode: e.mode || 0o600 });
    }
  }
  rmSync(marker);
}
