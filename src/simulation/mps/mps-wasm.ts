/**
 * WebAssembly SIMD versions of the MPS split's three big complex products (complex-kernels.ts):
 * A·B, U†θ and the Gram lower triangle. Each output element is accumulated in exactly the order of the
 * JS kernel (two neighbouring outputs share one f64x2, never one sum split over lanes), so the results
 * are bit for bit those of the JS code; the gain is two lanes per instruction and no bounds checks.
 * Inputs are copied into the module's memory and the product copied out: O(size) against O(size^1.5)
 * arithmetic. Odd sizes (and a missing WebAssembly) take the JS kernels.
 */
import type { Code, FnDef } from '../wasm-emit.js';
import { I32, moduleBytes, V128, w } from '../wasm-emit.js';
import { backTransform, rank2, symv } from './eigen-wasm.js';
import { project } from './orthonormalise-wasm.js';
import { addInto, expr, fneg, loadF64, loop, mul, rep, splatLoad, vAt, zero } from './wasm-code.js';

/** cmm(ar, ai, br, bi, cr, ci, m, p, q): C += A·B, A m×p, B p×q, all even, row-major. As `times`. */
function cmm(): FnDef {
  const [ar, ai, br, bi, cr, ci, m, p, q] = [0, 1, 2, 3, 4, 5, 6, 7, 8];
  const [i, kb, c, pb, qb, aR, aI, cR, cI, bR, bI, cR1, cI1, bR1, bI1] = [9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23];
  const [x0r, x0i, x1r, x1i, y0r, y0i, y1r, y1i, ur, ui, vr, vi] = [24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35];
  const sp = (base: number, off: number, dst: number): Code => [w.get(base), w.get(kb), w.add, splatLoad(off), w.set(dst)];
  const inner: Code = [
    [vAt(bR, c), w.set(ur), vAt(bI, c), w.set(ui), vAt(bR1, c), w.set(vr), vAt(bI1, c), w.set(vi)],
    addInto(
      cR,
      c,
      expr([
        [1, x0r, ur],
        [-1, x0i, ui],
        [1, x1r, vr],
        [-1, x1i, vi],
      ]),
    ),
    addInto(
      cI,
      c,
      expr([
        [1, x0r, ui],
        [1, x0i, ur],
        [1, x1r, vi],
        [1, x1i, vr],
      ]),
    ),
    addInto(
      cR1,
      c,
      expr([
        [1, y0r, ur],
        [-1, y0i, ui],
        [1, y1r, vr],
        [-1, y1i, vi],
      ]),
    ),
    addInto(
      cI1,
      c,
      expr([
        [1, y0r, ui],
        [1, y0i, ur],
        [1, y1r, vi],
        [1, y1i, vr],
      ]),
    ),
  ];
  const overK: Code = [
    sp(aR, 0, x0r),
    sp(aI, 0, x0i),
    sp(aR, 8, x1r),
    sp(aI, 8, x1i),
    [w.get(aR), w.get(pb), w.add, w.get(kb), w.add, splatLoad(0), w.set(y0r)],
    [w.get(aI), w.get(pb), w.add, w.get(kb), w.add, splatLoad(0), w.set(y0i)],
    [w.get(aR), w.get(pb), w.add, w.get(kb), w.add, splatLoad(8), w.set(y1r)],
    [w.get(aI), w.get(pb), w.add, w.get(kb), w.add, splatLoad(8), w.set(y1i)],
    // Rows k and k+1 of B: k·q·8 bytes = (kb/8)·qb.
    [w.get(br), w.get(kb), w.i32(3), w.shrU, w.get(qb), mul, w.add, w.tee(bR), w.get(qb), w.add, w.set(bR1)],
    [w.get(bi), w.get(kb), w.i32(3), w.shrU, w.get(qb), mul, w.add, w.tee(bI), w.get(qb), w.add, w.set(bI1)],
    loop(c, w.i32(0), w.get(qb), w.i32(16), inner),
  ];
  const overI: Code = [
    [w.get(ar), w.get(i), w.get(pb), mul, w.add, w.set(aR), w.get(ai), w.get(i), w.get(pb), mul, w.add, w.set(aI)],
    [w.get(cr), w.get(i), w.get(qb), mul, w.add, w.tee(cR), w.get(qb), w.add, w.set(cR1)],
    [w.get(ci), w.get(i), w.get(qb), mul, w.add, w.tee(cI), w.get(qb), w.add, w.set(cI1)],
    loop(kb, w.i32(0), w.get(pb), w.i32(16), overK),
  ];
  return {
    name: 'cmm',
    params: rep(9, I32),
    locals: [...rep(15, I32), ...rep(12, V128)],
    body: [[w.get(p), w.i32(3), w.shl, w.set(pb), w.get(q), w.i32(3), w.shl, w.set(qb)], loop(i, w.i32(0), w.get(m), w.i32(2), overI)],
  };
}

/** cadj(ur, ui, tr, ti, rr, ri, m, k, n): R += U†θ, U m×k, θ m×n, R k×n, all even. As `adjointTimes`. */
function cadj(): FnDef {
  const [ur, ui, tr, ti, rr, ri, m, k, n] = [0, 1, 2, 3, 4, 5, 6, 7, 8];
  const [i, jb, c, kb, nb, uR, uI, tR, tI, tR1, tI1, rR, rI, rR1, rI1] = [9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23];
  const [a0r, a0i, b0r, b0i, a1r, a1i, b1r, b1i, xr, xi, yr, yi] = [24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35];
  // conj(U[i(+1), j(+1)]): the real part splatted, the imaginary part negated then splatted.
  const coef = (base: number, row1: boolean, off: number, neg: boolean, dst: number): Code => [
    w.get(base),
    row1 ? [w.get(kb), w.add] : [],
    w.get(jb),
    w.add,
    neg ? [loadF64(off), fneg, w.splat] : splatLoad(off),
    w.set(dst),
  ];
  const inner: Code = [
    [vAt(tR, c), w.set(xr), vAt(tI, c), w.set(xi), vAt(tR1, c), w.set(yr), vAt(tI1, c), w.set(yi)],
    addInto(
      rR,
      c,
      expr([
        [1, a0r, xr],
        [-1, a0i, xi],
        [1, b0r, yr],
        [-1, b0i, yi],
      ]),
    ),
    addInto(
      rI,
      c,
      expr([
        [1, a0r, xi],
        [1, a0i, xr],
        [1, b0r, yi],
        [1, b0i, yr],
      ]),
    ),
    addInto(
      rR1,
      c,
      expr([
        [1, a1r, xr],
        [-1, a1i, xi],
        [1, b1r, yr],
        [-1, b1i, yi],
      ]),
    ),
    addInto(
      rI1,
      c,
      expr([
        [1, a1r, xi],
        [1, a1i, xr],
        [1, b1r, yi],
        [1, b1i, yr],
      ]),
    ),
  ];
  const overJ: Code = [
    coef(uR, false, 0, false, a0r),
    coef(uI, false, 0, true, a0i),
    coef(uR, true, 0, false, b0r),
    coef(uI, true, 0, true, b0i),
    coef(uR, false, 8, false, a1r),
    coef(uI, false, 8, true, a1i),
    coef(uR, true, 8, false, b1r),
    coef(uI, true, 8, true, b1i),
    // Rows j and j+1 of R: j·n·8 bytes = (jb/8)·nb.
    [w.get(rr), w.get(jb), w.i32(3), w.shrU, w.get(nb), mul, w.add, w.tee(rR), w.get(nb), w.add, w.set(rR1)],
    [w.get(ri), w.get(jb), w.i32(3), w.shrU, w.get(nb), mul, w.add, w.tee(rI), w.get(nb), w.add, w.set(rI1)],
    loop(c, w.i32(0), w.get(nb), w.i32(16), inner),
  ];
  const overI: Code = [
    [w.get(ur), w.get(i), w.get(kb), mul, w.add, w.set(uR), w.get(ui), w.get(i), w.get(kb), mul, w.add, w.set(uI)],
    [w.get(tr), w.get(i), w.get(nb), mul, w.add, w.tee(tR), w.get(nb), w.add, w.set(tR1)],
    [w.get(ti), w.get(i), w.get(nb), mul, w.add, w.tee(tI), w.get(nb), w.add, w.set(tI1)],
    loop(jb, w.i32(0), w.get(kb), w.i32(16), overJ),
  ];
  return {
    name: 'cadj',
    params: rep(9, I32),
    locals: [...rep(15, I32), ...rep(12, V128)],
    body: [[w.get(k), w.i32(3), w.shl, w.set(kb), w.get(n), w.i32(3), w.shl, w.set(nb)], loop(i, w.i32(0), w.get(m), w.i32(2), overI)],
  };
}

/**
 * cgram(tr, ti, gr, gi, m, n): the lower triangle (2×2 blocks, b ≤ a) of G = θθ† from T = θᵀ (n×m,
 * so entries b and b+1 of one column of θ are adjacent and share a vector). As `gramLower`, m even.
 */
function cgram(): FnDef {
  const [tr, ti, gr, gi, m, n] = [0, 1, 2, 3, 4, 5];
  const [a, b, c, mb, end, pa, pb, t] = [6, 7, 8, 9, 10, 11, 12, 13];
  const [R0, I0, R1, I1, Yr, Yi, x0r, x0i, x1r, x1i] = [14, 15, 16, 17, 18, 19, 20, 21, 22, 23];
  const acc = (dst: number, terms: readonly (readonly [1 | -1, number, number])[]): Code => [w.get(dst), expr(terms), w.vadd, w.set(dst)];
  const inner: Code = [
    [w.get(tr), w.get(c), w.add, w.tee(t), w.get(pb), w.add, w.loadV, w.set(Yr)],
    [w.get(t), w.get(pa), w.add, w.tee(t), splatLoad(0), w.set(x0r), w.get(t), splatLoad(8), w.set(x1r)],
    [w.get(ti), w.get(c), w.add, w.tee(t), w.get(pb), w.add, w.loadV, w.set(Yi)],
    [w.get(t), w.get(pa), w.add, w.tee(t), splatLoad(0), w.set(x0i), w.get(t), splatLoad(8), w.set(x1i)],
    acc(R0, [
      [1, x0r, Yr],
      [1, x0i, Yi],
    ]),
    acc(I0, [
      [1, x0i, Yr],
      [-1, x0r, Yi],
    ]),
    acc(R1, [
      [1, x1r, Yr],
      [1, x1i, Yi],
    ]),
    acc(I1, [
      [1, x1i, Yr],
      [-1, x1r, Yi],
    ]),
  ];
  const store = (base: number, row1: boolean, v: number): Code => [
    w.get(base),
    w.get(pa),
    w.i32(3),
    w.shrU,
    w.get(mb),
    mul,
    w.add,
    row1 ? [w.get(mb), w.add] : [],
    w.get(pb),
    w.add,
    w.get(v),
    w.storeV,
  ];
  const overB: Code = [
    [w.get(b), w.i32(3), w.shl, w.set(pb)],
    [zero, w.set(R0), zero, w.set(I0), zero, w.set(R1), zero, w.set(I1)],
    loop(c, w.i32(0), w.get(end), w.get(mb), inner),
    store(gr, false, R0),
    store(gi, false, I0),
    store(gr, true, R1),
    store(gi, true, I1),
  ];
  const overA: Code = [[w.get(a), w.i32(3), w.shl, w.set(pa)], loop(b, w.i32(0), [w.get(a), w.i32(1), w.add], w.i32(2), overB)];
  return {
    name: 'cgram',
    params: rep(6, I32),
    locals: [...rep(8, I32), ...rep(10, V128)],
    body: [[w.get(m), w.i32(3), w.shl, w.tee(mb), w.get(n), mul, w.set(end)], loop(a, w.i32(0), w.get(m), w.i32(2), overA)],
  };
}

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

/** Byte addresses of consecutive regions of the given f64 counts (16-byte aligned), memory grown to fit. */
function regions(k: Exports, counts: readonly number[]): number[] {
  const at: number[] = [];
  let top = 0;
  for (const n of counts) {
    at.push(top);
    top += (n * 8 + 15) & ~15;
  }
  const have = k.mem.buffer.byteLength;
  if (top > have) k.mem.grow(Math.ceil((top - have) / 65536));
  if (f64.buffer !== k.mem.buffer) f64 = new Float64Array(k.mem.buffer);
  return at;
}

const put = (at: number, a: Float64Array, n: number): void => f64.set(n === a.length ? a : a.subarray(0, n), at >> 3);
const take = (at: number, out: Float64Array, n: number): void => out.set(f64.subarray(at >> 3, (at >> 3) + n));

/** C = A·B as `times`; false (nothing done) when an odd size or no WebAssembly leaves it to JS. */
export function timesWasm(m: number, p: number, q: number, ar: Float64Array, ai: Float64Array, br: Float64Array, bi: Float64Array, cr: Float64Array, ci: Float64Array): boolean {
  const k = (m | p | q) & 1 || m === 0 || p === 0 || q === 0 ? null : instance();
  if (k === null) return false;
  const [a0, a1, b0, b1, c0, c1] = regions(k, [m * p, m * p, p * q, p * q, m * q, m * q]) as [number, number, number, number, number, number];
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
  const [u0, u1, t0, t1, r0, r1] = regions(k, [m * kk, m * kk, m * n, m * n, kk * n, kk * n]) as [number, number, number, number, number, number];
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
  const [t0, t1, g0, g1] = regions(k, [m * n, m * n, m * m, m * m]) as [number, number, number, number];
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
  const [c0, c1, r0, r1] = regions(x, [m * q, m * q, q * q, q * q]) as [number, number, number, number];
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
