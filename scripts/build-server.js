// Runs on `npm ci` / `npm install` (the package's prepare script, before the console build):
// compiles src/ to plain JavaScript in dist/ so that `npm start` and `qrail` load no TypeScript
// loader, and writes the embedded database's baseline (a migrated empty PGlite data directory)
// so that a fresh start skips initdb and the migrations. Type checking is `npm run typecheck`'s
// job: this is esbuild's per-file transform, the same one tsx applies at run time, so the built
// code behaves as `npm run dev` does. Why: docs/decisions/operations-compiled-runtime.md.
import { build } from 'esbuild';
import { cpSync, mkdirSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const src = join(root, 'src');
const dist = join(root, 'dist');

function walk(dir, out = []) {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) walk(p, out);
    else out.push(p);
  }
  return out;
}

const started = performance.now();
const files = walk(src);
// src/ imports the typed client's sources (packages/client/src): built beside it, in the same layout.
const clientFiles = walk(join(root, 'packages', 'client', 'src'));
const isModule = (f) => f.endsWith('.ts') && !f.endsWith('.d.ts');
const entryPoints = [...files, ...clientFiles].filter(isModule);
rmSync(dist, { recursive: true, force: true });
await build({
  entryPoints,
  outdir: dist,
  outbase: root,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  bundle: false,
  sourcemap: 'linked',
  logLevel: 'warning',
});
// Files the code reads next to itself: the migrations (SQL) and the worker bootstrap (JS).
cpSync(join(src, 'store', 'migrations'), join(dist, 'src', 'store', 'migrations'), { recursive: true });
for (const f of files.filter((f) => f.endsWith('.js'))) cpSync(f, join(dist, relative(root, f)));

// bin/qrail.js runs dist/ only while no source file is newer than this stamp (else tsx runs src/).
const newest = Math.max(...[...files, ...clientFiles].map((f) => statSync(f).mtimeMs));
mkdirSync(dist, { recursive: true });
writeFileSync(join(dist, 'build-info.json'), `${JSON.stringify({ sources_mtime_ms: newest, files: entryPoints.length })}\n`);

const { writeBaseline } = await import(new URL('../dist/src/store/pglite-baseline.js', import.meta.url).href);
const baseline = await writeBaseline();
console.log(
  `qrail: compiled ${entryPoints.length} files to dist/ and wrote the embedded database baseline (${baseline.migrations} migrations) in ${((performance.now() - started) / 1000).toFixed(1)} s`,
);
