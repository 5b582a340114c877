/**
 * The MPS WebAssembly SIMD kernels at run time: one module (products-wasm.ts, eigen-wasm.ts,
 * back-transform-wasm.ts, orthonormalise-wasm.ts) instantiated at first use, its memory holding the
 * operands. Every kernel accumulates each output element in exactly the order of the JS code it
 * replaces (two neighbouring outputs share one f64x2, never one sum split over lanes), so results are
 * bit for bit those of the JS path; the gain is two lanes per instruction and no bounds checks.
 * Products copy their inputs in and the result out (O(size) against O(size^1.5) arithmetic); the
 * eigen-solver and Gram–Schmidt work on views of the memory. Odd sizes, a missing WebAssembly, or
 * `useMpsWasm(false)` leave everything to JS.
 */
import { moduleBytes } from '../wasm-emit.js';
import { backTransform } from './back-transform-wasm.js';
import { rank2, symv } from './eigen-wasm.js';
import { project } from './orthonormalise-wasm.js';
import { cadj, cgram, cmm } from './products-wasm.js';

interface Exports {
  readonly mem: { readonly buffer: ArrayBuffer; grow(pages: number): number };
  cmm(ar: number, ai: number, br: number, bi: number, cr: number, ci: number, m: number, p: number, q: number): void;
  cadj(ur: number, ui: number, tr: number, ti: number, rr: number, ri: number, m: number, k: number, n: number): void;
  cgram(tr: number, ti: number, gr: number, gi: number, m: number, n: number): void;
  back(ar: number, ai: number, tau: number, vr: number, vi: number, sr: number, si: number, n: number, kv: number): void;
  symv(ar: number, ai: number, vcr: number, vci: number, pr: number, pi: number, n: number, j: number): void;
  rank2(ar: number, ai: number, vcr: number, vci: number, pr: number, pi: number, n: number, j: number): void;
  project(re: number, im: number, rr: number, ri: number, m: number, q: number, j: number): void;
}

interface WasmApi {
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object, imports: object) => { readonly exports: unknown };
}

let kernels: Exports | null | undefined;
let f64 = new Float64Array(0);
let enabled = true;

/** Switches the kernels off (everything in JS) or back on: for tests comparing the two paths. */
export function useMpsWasm(on: boolean): void {
  enabled = on;
}

function instance(): Exports | null {
  if (!enabled) return null;
  if (kernels === undefined) {
    const api = (globalThis as { WebAssembly?: WasmApi }).WebAssembly;
    try {
      kernels = api === undefined ? null : (new api.Instance(new api.Module(moduleBytes([cmm(), cadj(), cgram(), backTransform(), symv(), rank2(), project()], 1)), {}).exports as Exports);
    } catch {
      kernels = null;
    }
  }
  return kernels;
}

/**
 * The module's memory never shrinks, so it is kept to this size: it holds every operand up to χ = 512
 * (two-site matrices 1024 wide); larger cuts run in JS rather than pin hundreds of MiB per thread.
 */
export const MPS_WASM_MAX_BYTES = 64 * 1024 * 1024;

/**
 * Byte addresses of consecutive regions of the given f64 counts (16-byte aligned), memory grown to
 * fit; null when they would exceed MPS_WASM_MAX_BYTES or the memory cannot grow (the caller uses JS).
 */
function regions(k: Exports, counts: readonly number[]): number[] | null {
  const at: number[] = [];
  let top = 0;
  for (const n of counts) {
    at.push(top);
    top += (n * 8 + 15) & ~15;
  }
  if (top > MPS_WASM_MAX_BYTES) return null;
  const have = k.mem.buffer.byteLength;
  try {
    if (top > have) k.mem.grow(Math.ceil((top - have) / 65536));
  } catch {
    return null;
  }
  if (f64.buffer !== k.mem.buffer) f64 = new Float64Array(k.mem.buffer);
  return at;
}

const put = (at: number, a: Float64Array, n: number): void => f64.set(n === a.length ? a : a.subarray(0, n), at >> 3);
const take = (at: number, out: Float64Array, n: number): void => out.set(f64.subarray(at >> 3, (at >> 3) + n));

/** C = A·B as `times`; false (nothing done) when an odd size or no WebAssembly leaves it to JS. */
export function timesWasm(m: number, p: number, q: number, ar: Float64Array, ai: Float64Array, br: Float64Array, bi: Float64Array, cr: Float64Array, ci: Float64Array): boolean {
  const k = (m | p | q) & 1 || m === 0 || p === 0 || q === 0 ? null : instance();
  if (k === null) return false;
  const at = regions(k, [m * p, m * p, p * q, p * q, m * q, m * q]);
  if (at === null) return false;
  const [a0, a1, b0, b1, c0, c1] = at as [number, number, number, number, number, number];
  put(a0, ar, m * p);
  put(a1, ai, m * p);
  put(b0, br, p * q);
  put(b1, bi, p * q);
  f64.fill(0, c0 >> 3, (c1 >> 3) + m * q);
  k.cmm(a0, a1, b0, b1, c0, c1, m, p, q);
  take(c0, cr, m * q);
  take(c1, ci, m * q);
  return true;
}

/** R = U†θ as `adjointTimes`; false when left to JS. */
export function adjointTimesWasm(m: number, kk: number, n: number, ur: Float64Array, ui: Float64Array, tr: Float64Array, ti: Float64Array, rr: Float64Array, ri: Float64Array): boolean {
  const k = (m | kk | n) & 1 || m === 0 || kk === 0 || n === 0 ? null : instance();
  if (k === null) return false;
  const at = regions(k, [m * kk, m * kk, m * n, m * n, kk * n, kk * n]);
  if (at === null) return false;
  const [u0, u1, t0, t1, r0, r1] = at as [number, number, number, number, number, number];
  put(u0, ur, m * kk);
  put(u1, ui, m * kk);
  put(t0, tr, m * n);
  put(t1, ti, m * n);
  f64.fill(0, r0 >> 3, (r1 >> 3) + kk * n);
  k.cadj(u0, u1, t0, t1, r0, r1, m, kk, n);
  take(r0, rr, kk * n);
  take(r1, ri, kk * n);
  return true;
}

/** The lower triangle of θθ† into gr/gi as `gramLower` (returns its trace), or null when left to JS. */
export function gramLowerWasm(m: number, n: number, tr: Float64Array, ti: Float64Array, gr: Float64Array, gi: Float64Array): number | null {
  const k = m & 1 || m === 0 || n === 0 ? null : instance();
  if (k === null) return null;
  const at = regions(k, [m * n, m * n, m * m, m * m]);
  if (at === null) return null;
  const [t0, t1, g0, g1] = at as [number, number, number, number];
  // θᵀ, so that neighbouring rows of θ are neighbouring entries.
  const o0 = t0 >> 3;
  const o1 = t1 >> 3;
  for (let a = 0; a < m; a++) {
    const row = a * n;
    for (let c = 0; c < n; c++) {
      f64[o0 + c * m + a] = tr[row + c]!;
      f64[o1 + c * m + a] = ti[row + c]!;
    }
  }
  f64.fill(0, g0 >> 3, (g1 >> 3) + m * m); // entries above the 2×2 diagonal blocks stay zero, as in JS
  k.cgram(t0, t1, g0, g1, m, n);
  take(g0, gr, m * m);
  take(g1, gi, m * m);
  let total = 0;
  for (let a = 0; a < m; a++) total += gr[a * m + a]!;
  return total;
}

/**
 * The eigen-solver's work arrays as views of the module's memory (the matrix copied in), so its JS
 * steps and the kernels share them: `symv(j)` and `rank2(j)` run the paired rows of column j's
 * p = A v and rank-2 update, `back(kv)` the back-transformation of v (n×kv, kv even). The views stay
 * valid until the next call into this module from outside the solver.
 */
export interface EigenSpace {
  readonly are: Float64Array;
  readonly aim: Float64Array;
  readonly vcr: Float64Array;
  readonly vci: Float64Array;
  readonly pr: Float64Array;
  readonly pi: Float64Array;
  readonly tau: Float64Array;
  readonly vr: Float64Array;
  readonly vi: Float64Array;
  symv(j: number): void;
  rank2(j: number): void;
  back(kv: number): void;
}

export function eigenSpace(n: number, k: number, are: Float64Array, aim: Float64Array): EigenSpace | null {
  const x = n < 3 ? null : instance();
  if (x === null) return null;
  const at = regions(x, [n * n, n * n, n, n, n, n, n, n * k, n * k, k, k]);
  if (at === null) return null;
  const [a0, a1, c0, c1, p0, p1, t, v0, v1, s0, s1] = at as [number, number, number, number, number, number, number, number, number, number, number];
  const view = (addr: number, len: number): Float64Array => f64.subarray(addr >> 3, (addr >> 3) + len);
  put(a0, are, n * n);
  put(a1, aim, n * n);
  return {
    are: view(a0, n * n),
    aim: view(a1, n * n),
    vcr: view(c0, n),
    vci: view(c1, n),
    pr: view(p0, n),
    pi: view(p1, n),
    tau: view(t, n).fill(0),
    vr: view(v0, n * k),
    vi: view(v1, n * k),
    symv: (j) => x.symv(a0, a1, c0, c1, p0, p1, n, j),
    rank2: (j) => x.rank2(a0, a1, c0, c1, p0, p1, n, j),
    back: (kv) => x.back(a0, a1, t, v0, v1, s0, s1, n, kv),
  };
}

/**
 * Gram–Schmidt's columns (m×q column-major, m even) and R (q×q) as views of the module's memory,
 * copied in; `project(j)` runs one pass of column j against the earlier ones; `done()` copies the
 * columns and R back out.
 */
export interface QrSpace {
  readonly re: Float64Array;
  readonly im: Float64Array;
  project(j: number): void;
  /** R's real part at index e (its diagonal is set from JS). */
  setR(e: number, v: number): void;
  done(): void;
}

export function qrSpace(m: number, q: number, re: Float64Array, im: Float64Array, rr: Float64Array, ri: Float64Array): QrSpace | null {
  const x = m & 1 || m === 0 || q === 0 ? null : instance();
  if (x === null) return null;
  const at = regions(x, [m * q, m * q, q * q, q * q]);
  if (at === null) return null;
  const [c0, c1, r0, r1] = at as [number, number, number, number];
  put(c0, re, m * q);
  put(c1, im, m * q);
  put(r0, rr, q * q);
  put(r1, ri, q * q);
  return {
    re: f64.subarray(c0 >> 3, (c0 >> 3) + m * q),
    im: f64.subarray(c1 >> 3, (c1 >> 3) + m * q),
    project: (j) => x.project(c0, c1, r0, r1, m, q, j),
    setR: (e, v) => {
      f64[(r0 >> 3) + e] = v;
    },
    done: () => {
      take(c0, re, m * q);
      take(c1, im, m * q);
      take(r0, rr, q * q);
      take(r1, ri, q * q);
    },
  };
}
