import type { Recorder } from '../recorder.js';
export function translateGates(_rec: Recorder, _native: ReadonlySet<string>): void {}
