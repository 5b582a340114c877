import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/**
 * A vendored fixture of the repository (`tests/fixtures/…`: the specification, the benchmark
 * circuits with their published reference outputs). The one place tests and benchmarks find
 * them, so a clean clone alone passes `npm test` and runs `npm run bench:opt`.
 */
export function fixtureFile(relative: string): string {
  const path = fileURLToPath(new URL(`../fixtures/${relative}`, import.meta.url));
  if (!existsSync(path)) throw new Error(`fixture ${relative} not found at ${path}`);
  return path;
}
