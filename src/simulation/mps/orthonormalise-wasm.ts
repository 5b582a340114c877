/**
 * WebAssembly SIMD kernel of the QR steps' Gram–Schmidt (orthonormalise.ts): one pass of projecting
 * column j off the earlier columns, two at a time, with the coefficients added into R. The inner
 * products are scalar chains in the JS order (each vector of products added lane by lane); the
 * column updates are per element, two to a vector, so the result is bit for bit the JS one.
 */
import type { Code, FnDef } from '../wasm-emit.js';
import { I32, V128, w } from '../wasm-emit.js';
import { F64T, conjMulIm, conjMulRe, expr, f64Zero, loadF64, loop, ltU, mul, mulIm, mulRe, rep, subInto, vAt, when, whileDo } from './wasm-code.js';

const f64add: Code = [0xa0];
const f64eq: Code = [0x61];
const and: Code = [0x71];
const eqz: Code = [0x45];
const store = [0x39, 3, 0];
const lane = (l: number): Code => [0xfd, 0x21, l];

/** project(re, im, rr, ri, m, q, j): columns (m each, column c at c·m) of an m×q matrix, R q×q. */
export function project(): FnDef {
  const [re, im, rr, ri, m, q, j] = [0, 1, 2, 3, 4, 5, 6];
  const [c, ib, mb, pj, qj, pc, qc, pd, qd] = [7, 8, 9, 10, 11, 12, 13, 14, 15];
  const [dr, di, er, ei] = [16, 17, 18, 19];
  const [Vr, Vi, Ur, Ui, Wr, Wi, T, Dr, Di, Er, Ei] = [20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30];
  const sum = (s: number, terms: Code): Code => [terms, w.set(T), w.get(s), w.get(T), lane(0), f64add, w.get(T), lane(1), f64add, w.set(s)];
  const isZero = (s: number): Code => [w.get(s), f64Zero, f64eq];
  /** R[row, j] += s, row = c + dc. */
  const intoR = (base: number, dc: number, s: number): Code => {
    const addr: Code = [w.get(base), w.get(c), w.i32(dc), w.add, w.get(q), mul, w.get(j), w.add, w.i32(3), w.shl, w.add];
    return [addr, addr, loadF64(0), w.get(s), f64add, store];
  };
  const columns: Code = [
    [w.get(c), w.get(mb), mul, w.tee(pc), w.get(im), w.add, w.set(qc), w.get(pc), w.get(re), w.add, w.tee(pc), w.get(mb), w.add, w.set(pd)],
    [w.get(qc), w.get(mb), w.add, w.set(qd)],
  ];
  const pairDots: Code = [
    [vAt(pj, ib), w.set(Vr), vAt(qj, ib), w.set(Vi), vAt(pc, ib), w.set(Ur), vAt(qc, ib), w.set(Ui), vAt(pd, ib), w.set(Wr), vAt(qd, ib), w.set(Wi)],
    sum(dr, expr([...conjMulRe(Ur, Ui, Vr, Vi)])),
    sum(di, expr([...conjMulIm(Ur, Ui, Vr, Vi)])),
    sum(er, expr([...conjMulRe(Wr, Wi, Vr, Vi)])),
    sum(ei, expr([...conjMulIm(Wr, Wi, Vr, Vi)])),
  ];
  const pairAxpy: Code = [
    [vAt(pc, ib), w.set(Ur), vAt(qc, ib), w.set(Ui), vAt(pd, ib), w.set(Wr), vAt(qd, ib), w.set(Wi)],
    subInto(pj, ib, expr([...mulRe(Dr, Di, Ur, Ui), ...mulRe(Er, Ei, Wr, Wi)])),
    subInto(qj, ib, expr([...mulIm(Dr, Di, Ur, Ui), ...mulIm(Er, Ei, Wr, Wi)])),
  ];
  const pair: Code = [
    columns,
    [f64Zero, w.set(dr), f64Zero, w.set(di), f64Zero, w.set(er), f64Zero, w.set(ei)],
    loop(ib, w.i32(0), w.get(mb), w.i32(16), pairDots),
    when(
      [isZero(dr), isZero(di), and, isZero(er), and, isZero(ei), and, eqz],
      [
        intoR(rr, 0, dr),
        intoR(ri, 0, di),
        intoR(rr, 1, er),
        intoR(ri, 1, ei),
        [w.get(dr), w.splat, w.set(Dr), w.get(di), w.splat, w.set(Di), w.get(er), w.splat, w.set(Er), w.get(ei), w.splat, w.set(Ei)],
        loop(ib, w.i32(0), w.get(mb), w.i32(16), pairAxpy),
      ],
    ),
    [w.get(c), w.i32(2), w.add, w.set(c)],
  ];
  const oneDots: Code = [
    [vAt(pc, ib), w.set(Ur), vAt(qc, ib), w.set(Ui), vAt(pj, ib), w.set(Vr), vAt(qj, ib), w.set(Vi)],
    sum(dr, expr([...conjMulRe(Ur, Ui, Vr, Vi)])),
    sum(di, expr([...conjMulIm(Ur, Ui, Vr, Vi)])),
  ];
  const oneAxpy: Code = [[vAt(pc, ib), w.set(Ur), vAt(qc, ib), w.set(Ui)], subInto(pj, ib, expr([...mulRe(Dr, Di, Ur, Ui)])), subInto(qj, ib, expr([...mulIm(Dr, Di, Ur, Ui)]))];
  const one: Code = [
    columns,
    [f64Zero, w.set(dr), f64Zero, w.set(di)],
    loop(ib, w.i32(0), w.get(mb), w.i32(16), oneDots),
    when([isZero(dr), isZero(di), and, eqz], [intoR(rr, 0, dr), intoR(ri, 0, di), [w.get(dr), w.splat, w.set(Dr), w.get(di), w.splat, w.set(Di)], loop(ib, w.i32(0), w.get(mb), w.i32(16), oneAxpy)]),
  ];
  return {
    name: 'project',
    params: rep(7, I32),
    locals: [...rep(9, I32), ...rep(4, F64T), ...rep(11, V128)],
    body: [
      [w.get(m), w.i32(3), w.shl, w.set(mb)],
      [w.get(j), w.get(mb), mul, w.tee(pj), w.get(im), w.add, w.set(qj), w.get(pj), w.get(re), w.add, w.set(pj)],
      [w.i32(0), w.set(c)],
      whileDo([w.get(c), w.i32(1), w.add, w.get(j), ltU], pair),
      when([w.get(c), w.get(j), ltU], one),
    ],
  };
}
