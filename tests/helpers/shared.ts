import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/**
 * A file of the team's shared folder (specification, benchmark circuits): beside the checkout
 * (`../shared`), or at /work/shared when the checkout lives elsewhere.
 */
export function sharedFile(relative: string): string {
  const beside = fileURLToPath(new URL(`../../../shared/${relative}`, import.meta.url));
  return existsSync(beside) ? beside : `/work/shared/${relative}`;
}
