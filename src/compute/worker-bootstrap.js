// Entry of a compute worker thread. Worker threads do not run the main thread's tsx loader
// (nor vitest's transform), so TypeScript is made importable here first, as bin/qrail.js does.
import { register } from 'tsx/esm/api';

register();
await import('./worker-entry.ts');
