/**
 * WebAssembly SIMD kernel of the Hermitian eigen-solver's back-transformation (hermitian-eigen.ts):
 * V ← H_0 ⋯ H_{n−3} V of the tridiagonal's eigenvectors by the Householder reflectors. Two
 * neighbouring columns of V share one f64x2 and every element is updated in the JS loop's order, so
 * the result is bit for bit the JS one.
 */
import type { Code, FnDef } from '../wasm-emit.js';
import { I32, V128, w } from '../wasm-emit.js';
import { F64T, addInto, expr, f64Zero, f64ne, fneg, loadF64, loop, ltU, mul, mulIm, mulRe, rep, scaleInto, splatLoad, subInto, vAt, when, whileDo, zero } from './wasm-code.js';

/**
 * back(ar, ai, tau, vr, vi, sr, si, n, kv): A n×n holds reflector j in column j below the diagonal
 * (H_j = I − τ_j v v†), V n×kv (kv even), s kv work. For j = n−3 … 0 with τ_j ≠ 0:
 * s = τ_j·v†V (rows j+1…), V −= v s.
 */
export function backTransform(): FnDef {
  const [ar, ai, tau, vr, vi, sr, si, n, kv] = [0, 1, 2, 3, 4, 5, 6, 7, 8];
  const [jj, j, i, c, nb, kvb, pa, vR, vI, vR1, vI1] = [9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19];
  const t = 20;
  const [A, Ai, B, Bi, mr, mi, nr, ni, T] = [21, 22, 23, 24, 25, 26, 27, 28, 29];
  // The reflector's entries in rows i and i+1 (conjugated when `conj`), splatted.
  const coefs = (conj: boolean): Code => [
    [w.get(i), w.get(n), mul, w.get(j), w.add, w.i32(3), w.shl, w.set(pa)],
    [w.get(ar), w.get(pa), w.add, splatLoad(0), w.set(A)],
    [w.get(ai), w.get(pa), w.add, loadF64(0), conj ? fneg : [], w.splat, w.set(Ai)],
    [w.get(ar), w.get(pa), w.add, w.get(nb), w.add, splatLoad(0), w.set(B)],
    [w.get(ai), w.get(pa), w.add, w.get(nb), w.add, loadF64(0), conj ? fneg : [], w.splat, w.set(Bi)],
    [w.get(vr), w.get(i), w.get(kvb), mul, w.add, w.tee(vR), w.get(kvb), w.add, w.set(vR1)],
    [w.get(vi), w.get(i), w.get(kvb), mul, w.add, w.tee(vI), w.get(kvb), w.add, w.set(vI1)],
  ];
  const rows = (pairBody: Code, oneBody: Code, conj: boolean): Code => [
    [w.get(j), w.i32(1), w.add, w.set(i)],
    whileDo([w.get(i), w.i32(1), w.add, w.get(n), ltU], [coefs(conj), loop(c, w.i32(0), w.get(kvb), w.i32(16), pairBody), w.get(i), w.i32(2), w.add, w.set(i)]),
    when([w.get(i), w.get(n), ltU], [coefs(conj), loop(c, w.i32(0), w.get(kvb), w.i32(16), oneBody)]),
  ];
  const loadMN: Code = [vAt(vR, c), w.set(mr), vAt(vI, c), w.set(mi), vAt(vR1, c), w.set(nr), vAt(vI1, c), w.set(ni)];
  // s += conj(a)·V_i + conj(b)·V_{i+1}, as `sr[c] += ar*mr − ai*mi + br*nr − bi*ni` with ai, bi negated.
  const gatherPair: Code = [loadMN, addInto(sr, c, expr([...mulRe(A, Ai, mr, mi), ...mulRe(B, Bi, nr, ni)])), addInto(si, c, expr([...mulIm(A, Ai, mr, mi), ...mulIm(B, Bi, nr, ni)]))];
  const gatherOne: Code = [vAt(vR, c), w.set(mr), vAt(vI, c), w.set(mi), addInto(sr, c, expr([...mulRe(A, Ai, mr, mi)])), addInto(si, c, expr([...mulIm(A, Ai, mr, mi)]))];
  // V_i −= a·s, V_{i+1} −= b·s (mr/mi hold s here).
  const scatterPair: Code = [
    vAt(sr, c),
    w.set(mr),
    vAt(si, c),
    w.set(mi),
    subInto(vR, c, expr([...mulRe(A, Ai, mr, mi)])),
    subInto(vI, c, expr([...mulIm(A, Ai, mr, mi)])),
    subInto(vR1, c, expr([...mulRe(B, Bi, mr, mi)])),
    subInto(vI1, c, expr([...mulIm(B, Bi, mr, mi)])),
  ];
  const scatterOne: Code = [vAt(sr, c), w.set(mr), vAt(si, c), w.set(mi), subInto(vR, c, expr([...mulRe(A, Ai, mr, mi)])), subInto(vI, c, expr([...mulIm(A, Ai, mr, mi)]))];
  const perJ: Code = [
    [w.get(n), w.i32(3), w.sub, w.get(jj), w.sub, w.set(j)],
    [w.get(tau), w.get(j), w.i32(3), w.shl, w.add, loadF64(0), w.set(t)],
    when(
      [w.get(t), f64Zero, f64ne],
      [
        loop(c, w.i32(0), w.get(kvb), w.i32(16), [w.get(sr), w.get(c), w.add, zero, w.storeV, w.get(si), w.get(c), w.add, zero, w.storeV]),
        rows(gatherPair, gatherOne, true),
        [w.get(t), w.splat, w.set(T)],
        loop(c, w.i32(0), w.get(kvb), w.i32(16), [scaleInto(sr, c, T), scaleInto(si, c, T)]),
        rows(scatterPair, scatterOne, false),
      ],
    ),
  ];
  return {
    name: 'back',
    params: rep(9, I32),
    locals: [...rep(11, I32), F64T, ...rep(9, V128)],
    body: [[w.get(n), w.i32(3), w.shl, w.set(nb), w.get(kv), w.i32(3), w.shl, w.set(kvb)], loop(jj, w.i32(0), [w.get(n), w.i32(2), w.sub], w.i32(1), perJ)],
  };
}
