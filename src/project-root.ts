import { fileURLToPath } from 'node:url';

/**
 * The checkout's root directory (with console/, dist/, docs/), for the files the service reads
 * outside its own modules. This module is src/project-root.ts, or dist/src/project-root.js once
 * built (scripts/build-server.js keeps the tree's layout under dist/): one level deeper.
 */
export const PROJECT_ROOT = fileURLToPath(new URL(import.meta.url.endsWith('.js') ? '../../' : '../', import.meta.url));
