/**
 * WebAssembly SIMD builders of the MPS split's three big complex products (complex-kernels.ts): A·B,
 * U†θ and the Gram lower triangle, each output accumulated in the JS kernel's order (mps-wasm.ts).
 */
import type { Code, FnDef } from '../wasm-emit.js';
import { I32, V128, w } from '../wasm-emit.js';
import { addInto, expr, fneg, loadF64, loop, mul, mulIm, mulRe, rep, splatLoad, vAt, zero } from './wasm-code.js';

/** cmm(ar, ai, br, bi, cr, ci, m, p, q): C += A·B, A m×p, B p×q, all even, row-major. As `times`. */
export function cmm(): FnDef {
  const [ar, ai, br, bi, cr, ci, m, p, q] = [0, 1, 2, 3, 4, 5, 6, 7, 8];
  const [i, kb, c, pb, qb, aR, aI, cR, cI, bR, bI, cR1, cI1, bR1, bI1] = [9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23];
  const [x0r, x0i, x1r, x1i, y0r, y0i, y1r, y1i, ur, ui, vr, vi] = [24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35];
  const sp = (base: number, off: number, dst: number): Code => [w.get(base), w.get(kb), w.add, splatLoad(off), w.set(dst)];
  const inner: Code = [
    [vAt(bR, c), w.set(ur), vAt(bI, c), w.set(ui), vAt(bR1, c), w.set(vr), vAt(bI1, c), w.set(vi)],
    addInto(cR, c, expr([...mulRe(x0r, x0i, ur, ui), ...mulRe(x1r, x1i, vr, vi)])),
    addInto(cI, c, expr([...mulIm(x0r, x0i, ur, ui), ...mulIm(x1r, x1i, vr, vi)])),
    addInto(cR1, c, expr([...mulRe(y0r, y0i, ur, ui), ...mulRe(y1r, y1i, vr, vi)])),
    addInto(cI1, c, expr([...mulIm(y0r, y0i, ur, ui), ...mulIm(y1r, y1i, vr, vi)])),
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
export function cadj(): FnDef {
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
    addInto(rR, c, expr([...mulRe(a0r, a0i, xr, xi), ...mulRe(b0r, b0i, yr, yi)])),
    addInto(rI, c, expr([...mulIm(a0r, a0i, xr, xi), ...mulIm(b0r, b0i, yr, yi)])),
    addInto(rR1, c, expr([...mulRe(a1r, a1i, xr, xi), ...mulRe(b1r, b1i, yr, yi)])),
    addInto(rI1, c, expr([...mulIm(a1r, a1i, xr, xi), ...mulIm(b1r, b1i, yr, yi)])),
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
export function cgram(): FnDef {
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
