/**
 * WebAssembly SIMD kernels of the Hermitian eigen-solver's Householder tridiagonalisation
 * (hermitian-eigen.ts): its O(n³) loops, p = A v and the rank-2 update, per column. Two neighbouring
 * entries share one f64x2 and every element is updated in the JS loop's order (a sum over a row stays
 * one scalar chain), so the results are bit for bit the JS ones.
 */
import type { Code, FnDef } from '../wasm-emit.js';
import { I32, uleb, V128, w } from '../wasm-emit.js';
import { F64T, addInto, conjMulIm, conjMulRe, expr, f64Zero, loadF64, loop, mul, mulIm, mulRe, rep, splatLoad, subInto, vAt } from './wasm-code.js';

const f64add: Code = [0xa0];
const f64sub: Code = [0xa1];
const f64mul: Code = [0xa2];
const storeF64 = (offset = 0): Code => [0x39, 3, ...uleb(offset)];
const lane = (l: number): Code => [0xfd, 0x21, l];
/** Scalar (((first ± c·x) ± …), left to right as the JS expressions. */
const sexpr = (first: number, terms: readonly (readonly [1 | -1, number, number])[]): Code => [w.get(first), terms.map(([sign, c, x]) => [w.get(c), w.get(x), f64mul, sign > 0 ? f64add : f64sub])];
/** The byte address of A[(j+1+a)·n + j+1] (row a of the trailing block) from base. */
const trailingRow = (base: number, j: number, a: number, n: number): Code => [
  w.get(base),
  w.get(j),
  w.i32(1),
  w.add,
  w.get(a),
  w.add,
  w.get(n),
  mul,
  w.get(j),
  w.add,
  w.i32(1),
  w.add,
  w.i32(3),
  w.shl,
  w.add,
];

/**
 * symv(ar, ai, vcr, vci, pr, pi, n, j): the paired-row part of p += A v over the trailing block of
 * column j (rows a, a+1 of the lower triangle while a + 1 < len), as hermitian-eigen.ts's loop. The
 * row sums s are accumulated in scalars in the JS order (the two lanes' products added one after the
 * other); the p updates are per element, two to a vector.
 */
export function symv(): FnDef {
  const [ar, ai, vcr, vci, pr, pi, n, j] = [0, 1, 2, 3, 4, 5, 6, 7];
  const [len, a, bb, hR, hI, gR, gI, nb, ab] = [8, 9, 10, 11, 12, 13, 14, 15, 16];
  const [s0r, s0i, s1r, s1i, v0r, v0i, v1r, v1i, d0, d1, cr, ci] = [17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28];
  const [Hr, Hi, Gr, Gi, Vr, Vi, V0r, V0i, V1r, V1i, T] = [29, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39];
  const sum = (s: number, terms: Code): Code => [terms, w.set(T), w.get(s), w.get(T), lane(0), f64add, w.get(T), lane(1), f64add, w.set(s)];
  const inner: Code = [
    [vAt(hR, bb), w.set(Hr), vAt(hI, bb), w.set(Hi), vAt(gR, bb), w.set(Gr), vAt(gI, bb), w.set(Gi), vAt(vcr, bb), w.set(Vr), vAt(vci, bb), w.set(Vi)],
    sum(s0r, expr([...mulRe(Hr, Hi, Vr, Vi)])),
    sum(s0i, expr([...mulIm(Hr, Hi, Vr, Vi)])),
    sum(s1r, expr([...mulRe(Gr, Gi, Vr, Vi)])),
    sum(s1i, expr([...mulIm(Gr, Gi, Vr, Vi)])),
    addInto(pr, bb, expr([...conjMulRe(Hr, Hi, V0r, V0i), ...conjMulRe(Gr, Gi, V1r, V1i)])),
    addInto(pi, bb, expr([...conjMulIm(Hr, Hi, V0r, V0i), ...conjMulIm(Gr, Gi, V1r, V1i)])),
  ];
  /** p[a + off] += value, with p's base in local `base`. */
  const bump = (base: number, off: number, value: Code): Code => [w.get(base), w.get(ab), w.add, w.get(base), w.get(ab), w.add, loadF64(off), value, f64add, storeF64(off)];
  const perA: Code = [
    [w.get(a), w.i32(3), w.shl, w.set(ab)],
    [w.get(vcr), w.get(ab), w.add, loadF64(0), w.set(v0r), w.get(vci), w.get(ab), w.add, loadF64(0), w.set(v0i)],
    [w.get(vcr), w.get(ab), w.add, loadF64(8), w.set(v1r), w.get(vci), w.get(ab), w.add, loadF64(8), w.set(v1i)],
    [w.get(v0r), w.splat, w.set(V0r), w.get(v0i), w.splat, w.set(V0i), w.get(v1r), w.splat, w.set(V1r), w.get(v1i), w.splat, w.set(V1i)],
    [trailingRow(ar, j, a, n), w.tee(hR), w.get(nb), w.add, w.set(gR), trailingRow(ai, j, a, n), w.tee(hI), w.get(nb), w.add, w.set(gI)],
    [f64Zero, w.set(s0r), f64Zero, w.set(s0i), f64Zero, w.set(s1r), f64Zero, w.set(s1i)],
    loop(bb, w.i32(0), w.get(ab), w.i32(16), inner),
    // The 2×2 diagonal block: A[a][a], A[a+1][a] (and its conjugate), A[a+1][a+1].
    [w.get(hR), w.get(ab), w.add, loadF64(0), w.set(d0), w.get(gR), w.get(ab), w.add, loadF64(8), w.set(d1)],
    [w.get(gR), w.get(ab), w.add, loadF64(0), w.set(cr), w.get(gI), w.get(ab), w.add, loadF64(0), w.set(ci)],
    bump(
      pr,
      0,
      sexpr(s0r, [
        [1, d0, v0r],
        [1, cr, v1r],
        [1, ci, v1i],
      ]),
    ),
    bump(
      pi,
      0,
      sexpr(s0i, [
        [1, d0, v0i],
        [1, cr, v1i],
        [-1, ci, v1r],
      ]),
    ),
    bump(
      pr,
      8,
      sexpr(s1r, [
        [1, d1, v1r],
        [1, cr, v0r],
        [-1, ci, v0i],
      ]),
    ),
    bump(
      pi,
      8,
      sexpr(s1i, [
        [1, d1, v1i],
        [1, cr, v0i],
        [1, ci, v0r],
      ]),
    ),
  ];
  return {
    name: 'symv',
    params: rep(8, I32),
    locals: [...rep(9, I32), ...rep(12, F64T), ...rep(11, V128)],
    body: [
      [w.get(n), w.get(j), w.sub, w.i32(1), w.sub, w.set(len), w.get(n), w.i32(3), w.shl, w.set(nb)],
      // while (a + 1 < len)
      loop(a, w.i32(0), [w.get(len), w.i32(1), w.sub], w.i32(2), perA),
    ],
  };
}

/**
 * rank2(ar, ai, vcr, vci, pr, pi, n, j): A ← A − v w† − w v† on the paired rows a, a+1 of the trailing
 * block's lower triangle (w in p), entries 0…a+1 of both rows two to a vector. Entry a+1 of row a lies
 * above the diagonal (never read); entry a+1 of row a+1 is the diagonal, whose JS formula is the same
 * expression with v_b = v_{a+1}, w_b = w_{a+1}. The last row of an odd block is left to JS.
 */
export function rank2(): FnDef {
  const [ar, ai, vcr, vci, pr, pi, n, j] = [0, 1, 2, 3, 4, 5, 6, 7];
  const [len, ra, bb, rR, rI, rR1, rI1, nb, ab] = [8, 9, 10, 11, 12, 13, 14, 15, 16];
  const [v0r, v0i, w0r, w0i, v1r, v1i, w1r, w1i, Vr, Vi, Wr, Wi] = [17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28];
  const sp = (base: number, off: number, dst: number): Code => [w.get(base), w.get(ab), w.add, splatLoad(off), w.set(dst)];
  const inner: Code = [
    [vAt(vcr, bb), w.set(Vr), vAt(vci, bb), w.set(Vi), vAt(pr, bb), w.set(Wr), vAt(pi, bb), w.set(Wi)],
    subInto(rR, bb, expr([...conjMulRe(v0r, v0i, Wr, Wi), ...conjMulRe(w0r, w0i, Vr, Vi)])),
    subInto(
      rI,
      bb,
      expr([
        [1, v0i, Wr],
        [-1, v0r, Wi],
        [1, w0i, Vr],
        [-1, w0r, Vi],
      ]),
    ),
    subInto(rR1, bb, expr([...conjMulRe(v1r, v1i, Wr, Wi), ...conjMulRe(w1r, w1i, Vr, Vi)])),
    subInto(
      rI1,
      bb,
      expr([
        [1, v1i, Wr],
        [-1, v1r, Wi],
        [1, w1i, Vr],
        [-1, w1r, Vi],
      ]),
    ),
  ];
  const perA: Code = [
    [w.get(ra), w.i32(3), w.shl, w.set(ab)],
    [sp(vcr, 0, v0r), sp(vci, 0, v0i), sp(pr, 0, w0r), sp(pi, 0, w0i), sp(vcr, 8, v1r), sp(vci, 8, v1i), sp(pr, 8, w1r), sp(pi, 8, w1i)],
    [trailingRow(ar, j, ra, n), w.tee(rR), w.get(nb), w.add, w.set(rR1), trailingRow(ai, j, ra, n), w.tee(rI), w.get(nb), w.add, w.set(rI1)],
    loop(bb, w.i32(0), [w.get(ab), w.i32(16), w.add], w.i32(16), inner),
  ];
  return {
    name: 'rank2',
    params: rep(8, I32),
    locals: [...rep(9, I32), ...rep(12, V128)],
    body: [[w.get(n), w.get(j), w.sub, w.i32(1), w.sub, w.set(len), w.get(n), w.i32(3), w.shl, w.set(nb)], loop(ra, w.i32(0), [w.get(len), w.i32(1), w.sub], w.i32(2), perA)],
  };
}
