#!/usr/bin/env node
// Runs the JavaScript that the install compiled into dist/ (scripts/build-server.js): no
// TypeScript loader at start, nothing written to $TMPDIR. When dist/ is missing, or a file under
// src/ changed after the build (a developer's edit), it runs the sources through tsx instead, so
// the command never runs stale code. `npm run dev` always runs the sources.
import { readFileSync, readdirSync, statSync } from 'node:fs';

const root = new URL('../', import.meta.url);

function builtAndCurrent() {
  let info;
  try {
    info = JSON.parse(readFileSync(new URL('dist/build-info.json', root), 'utf8'));
  } catch {
    return false;
  }
  // The sources the build compiled: the service's and the typed client's it imports.
  for (const dir of ['src/', 'packages/client/src/']) {
    const base = new URL(dir, root);
    let files;
    try {
      files = readdirSync(base, { recursive: true });
    } catch {
      continue; // an image that ships dist/ without the sources
    }
    if (files.some((f) => statSync(new URL(f, base)).mtimeMs > info.sources_mtime_ms)) return false;
  }
  return true;
}

if (process.env.QRAIL_RUN_SOURCES !== '1' && builtAndCurrent()) {
  await import('../dist/src/main.js');
} else {
  const { register } = await import('tsx/esm/api');
  register();
  await import('../src/main.ts');
}
