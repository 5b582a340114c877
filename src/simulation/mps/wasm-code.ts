/**
 * Code fragments for the MPS WebAssembly kernels (mps-wasm.ts, eigen-wasm.ts), on top of the
 * emitter of the state-vector kernels (../wasm-emit.ts): loops that may run zero times, SIMD loads
 * that splat one f64, and read-modify-write of a vector in memory with the JS kernels' operation order.
 */
import type { Code } from '../wasm-emit.js';
import { uleb, w } from '../wasm-emit.js';

export const rep = <T>(k: number, x: T): T[] => Array.from({ length: k }, () => x);
export const simd = (op: number): number[] => [0xfd, ...uleb(op)];
export const mul: Code = [0x6c];
export const geU: Code = [0x4f];
/** v128.load64_splat: both lanes ← the f64 at the address (+ offset bytes). */
export const splatLoad = (offset = 0): Code => [...simd(0x0a), 3, ...uleb(offset)];
export const loadF64 = (offset = 0): Code => [0x2b, 3, ...uleb(offset)];
export const fneg: Code = [0x9a];
export const zero: Code = [0x44, 0, 0, 0, 0, 0, 0, 0, 0, w.splat];

/** for (i = init; i < end; i += step) body — zero iterations allowed. */
export const loop = (i: number, init: Code, end: Code, step: Code, body: Code): Code => [
  init,
  w.set(i),
  [0x02, 0x40, 0x03, 0x40],
  [w.get(i), end, geU, 0x0d, 1],
  body,
  [w.get(i), step, w.add, w.set(i), 0x0c, 0, 0x0b, 0x0b],
];
/** The v128 at local a + local b. */
export const vAt = (a: number, b: number): Code => [w.get(a), w.get(b), w.add, w.loadV];
/** mem[a + b] ← mem[a + b] + value (the value's code leaves one v128). */
export const addInto = (a: number, b: number, value: Code): Code => [w.get(a), w.get(b), w.add, vAt(a, b), value, w.vadd, w.storeV];
/** ((p·x ∓ q·y) + r·z) ∓ s·t, left to right as the JS expressions. */
type Term = readonly [1 | -1, number, number];
export const expr = (terms: readonly Term[]): Code => terms.map(([sign, c, x], k) => [w.get(c), w.get(x), w.vmul, k === 0 ? [] : sign > 0 ? w.vadd : w.vsub]);

/** mem[a + b] ← mem[a + b] − value. */
export const subInto = (a: number, b: number, value: Code): Code => [w.get(a), w.get(b), w.add, vAt(a, b), value, w.vsub, w.storeV];
/** The terms of Re and Im of (ar + i·ai)(xr + i·xi), in the JS loops' order: ar·xr − ai·xi, ar·xi + ai·xr. */
export const mulRe = (ar: number, ai: number, xr: number, xi: number): Term[] => [
  [1, ar, xr],
  [-1, ai, xi],
];
export const mulIm = (ar: number, ai: number, xr: number, xi: number): Term[] => [
  [1, ar, xi],
  [1, ai, xr],
];
/** The same for conj(a)·x: ar·xr + ai·xi, ar·xi − ai·xr. */
export const conjMulRe = (ar: number, ai: number, xr: number, xi: number): Term[] => [
  [1, ar, xr],
  [1, ai, xi],
];
export const conjMulIm = (ar: number, ai: number, xr: number, xi: number): Term[] => [
  [1, ar, xi],
  [-1, ai, xr],
];
/** mem[a + b] ← mem[a + b] · local v. */
export const scaleInto = (a: number, b: number, v: number): Code => [w.get(a), w.get(b), w.add, vAt(a, b), w.get(v), w.vmul, w.storeV];
/** while (cond) body — cond leaves an i32. */
export const whileDo = (cond: Code, body: Code): Code => [[0x02, 0x40, 0x03, 0x40], cond, [0x45, 0x0d, 1], body, [0x0c, 0, 0x0b, 0x0b]];
/** if (cond) body. */
export const when = (cond: Code, body: Code): Code => [cond, 0x04, 0x40, body, 0x0b];
export const ltU: Code = [0x49];
export const f64ne: Code = [0x62];
export const f64Zero: Code = [0x44, 0, 0, 0, 0, 0, 0, 0, 0];
export const F64T = 0x7c;
