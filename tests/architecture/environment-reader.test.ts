import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const SRC = fileURLToPath(new URL('../../src', import.meta.url));

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = join(dir, e.name);
    if (e.isDirectory()) return sourceFiles(p);
    return /\.(ts|js)$/.test(e.name) ? [p] : [];
  });
}

describe('one environment reader', () => {
  it('only src/main.ts reads process.env; everything else receives a Config', () => {
    const readers = sourceFiles(SRC)
      .filter((f) =>
        readFileSync(f, 'utf8')
          .split('\n')
          .some((line) => /process\.env\b/.test(line) && !/^\s*(\*|\/\/)/.test(line)),
      )
      .map((f) => relative(SRC, f).replaceAll('\\', '/'));
    expect(readers).toEqual(['main.ts']);
  });
});
