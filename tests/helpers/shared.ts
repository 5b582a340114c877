import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/**
 * A file of the team's shared folder (specification, benchmark circuits): `SHARED_DIR` when set,
 * else `../shared` beside the checkout. The one place tests and benchmarks find it.
 */
export function sharedFile(relative: string): string {
  const override = process.env['SHARED_DIR'];
  const root = override !== undefined && override !== '' ? override : fileURLToPath(new URL('../../../shared', import.meta.url));
  const path = `${root.replace(/\/$/, '')}/${relative}`;
  if (!existsSync(path)) throw new Error(`shared file ${relative} not found at ${path}: put the shared folder beside the checkout or set SHARED_DIR`);
  return path;
}
