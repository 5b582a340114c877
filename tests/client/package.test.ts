import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/** @qrail/client stays publishable on its own: ESM, no runtime dependency, nothing imported from the service. */
const ROOT = fileURLToPath(new URL('../../packages/client/', import.meta.url));

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? sources(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : []));
}

describe('packages/client', () => {
  it('is an ESM package with exports and no runtime dependency', () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
    expect(pkg).toMatchObject({ name: '@qrail/client', type: 'module', exports: { '.': { types: './dist/index.d.ts', import: './dist/index.js' } } });
    expect(pkg.dependencies ?? {}).toEqual({});
    expect(pkg.peerDependencies ?? {}).toEqual({});
  });

  it('imports only its own modules (no node: built-ins, no package, nothing from src)', () => {
    const bad: string[] = [];
    for (const file of sources(join(ROOT, 'src'))) {
      for (const m of readFileSync(file, 'utf8').matchAll(/(?:from|import)\s*\(?\s*'([^']+)'/g)) {
        const spec = m[1] ?? '';
        const inside = spec.startsWith('./') || (spec.startsWith('../') && join(file, '..', spec).startsWith(join(ROOT, 'src')));
        if (!inside) bad.push(`${file.slice(ROOT.length)}: ${spec}`);
      }
    }
    expect(bad).toEqual([]);
  });
});
