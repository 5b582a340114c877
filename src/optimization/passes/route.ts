import type { Recorder } from '../recorder.js';
export function routeOnCoupling(_rec: Recorder, _coupling: readonly (readonly [number, number])[]): void {}
