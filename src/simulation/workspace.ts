/**
 * The buffer a fused block works in, and the dispatch of its ops to kernels. With
 * WebAssembly SIMD available the buffer is the kernel module's memory (real parts at
 * byte 0, imaginary parts after them, then the permutation cycles of the current block),
 * exposed to JavaScript as Float64Array views so gathers and scatters stay memcpy
 * (`TypedArray.set`). Kinds without a wasm kernel run the scalar JS kernels on the
 * same views. Without wasm everything runs in JS on plain arrays.
 */
import type { KOp } from './kernels.js';
import { applyOp, K_DIAG1, K_H, K_MAT1, K_MAT1X2, K_PERM, K_X } from './kernels.js';
import { applyCycles, permCycles } from './perm.js';
import type { WasmKernels } from './wasm-kernels.js';
import { instantiateKernels } from './wasm-kernels.js';

const R = Math.SQRT1_2;
const H = Float64Array.of(R, 0, R, 0, R, 0, -R, 0);
const PAGE = 65536;
/**
 * Byte offsets of the real and imaginary regions (plus 8·amps for the latter). Large
 * Float64Arrays are page aligned; a buffer at a page-aligned address too makes every
 * scatter load alias the stores of the copy (4K aliasing): measured 4–5× slower memcpy.
 */
const RE_AT = 64;
const IM_GAP = 1024;

export class Workspace {
  /** Views of the buffer: amplitudes [0, amps) of the current block. */
  re = new Float64Array(0);
  im = new Float64Array(0);
  private readonly k: WasmKernels | null;
  private amps = 0;
  private reB = RE_AT;
  private imB = 0;
  /** Per op index of the prepared block: [start, end) byte range of its cycles (wasm) … */
  private permAt = new Int32Array(0);
  /** … or the cycles themselves (JS fallback). */
  private permJs: Int32Array[] = [];

  constructor(useWasm = true) {
    this.k = useWasm ? instantiateKernels() : null;
  }

  get usesWasm(): boolean {
    return this.k !== null;
  }

  /** Bytes the buffer needs for blocks of 2^width amplitudes (for the memory check). */
  static bytesFor(width: number): number {
    return 24 * 2 ** width + 2 * PAGE;
  }

  /** Makes `re`/`im` views of exactly `amps` amplitudes and computes the block's permutations. */
  prepare(ops: readonly KOp[], amps: number): void {
    const cycles = ops.map((op) => (op.kind === K_PERM ? permCycles(op, amps) : null));
    if (this.k === null) {
      if (this.re.length !== amps) {
        this.re = new Float64Array(amps);
        this.im = new Float64Array(amps);
      }
      this.permJs = cycles.map((c) => c ?? new Int32Array(0));
      return;
    }
    const permBytes = cycles.reduce((a, c) => a + (c === null ? 0 : 4 * c.length), 0);
    const need = RE_AT + 16 * amps + IM_GAP + permBytes;
    const mem = this.k.mem;
    if (mem.buffer.byteLength < need) mem.grow(Math.ceil((need - mem.buffer.byteLength) / PAGE));
    if (this.amps !== amps || this.re.buffer !== mem.buffer) {
      this.amps = amps;
      this.imB = RE_AT + 8 * amps + IM_GAP;
      this.re = new Float64Array(mem.buffer, RE_AT, amps);
      this.im = new Float64Array(mem.buffer, this.imB, amps);
    }
    this.permAt = new Int32Array(2 * ops.length);
    let at = this.imB + 8 * amps;
    cycles.forEach((c, o) => {
      if (c === null) return;
      new Int32Array(mem.buffer, at, c.length).set(c);
      this.permAt[2 * o] = at;
      at += 4 * c.length;
      this.permAt[2 * o + 1] = at;
    });
  }

  /** Applies op number `o` of the prepared block to the whole buffer. */
  apply(op: KOp, o: number): void {
    const k = this.k;
    const amps = this.re.length;
    if (k === null) {
      if (op.kind === K_PERM) applyCycles(this.re, this.im, this.permJs[o]!);
      else applyOp(op, this.re, this.im, 0, amps);
      return;
    }
    const bytes = 8 * amps;
    const reB = this.reB;
    const imB = this.imB;
    switch (op.kind) {
      case K_MAT1:
        if (op.cmask !== 0) break;
        mat(k, reB, imB, bytes, op.t, op.m, 0);
        return;
      case K_H:
        mat(k, reB, imB, bytes, op.t, H, 0);
        return;
      case K_MAT1X2:
        mat(k, reB, imB, bytes, op.t, op.m, 0);
        mat(k, reB, imB, bytes, op.cmask, op.m, 8);
        return;
      case K_DIAG1: {
        if (op.cmask !== 0) break;
        const m = op.m;
        if (op.t === 0) k.mat1lo(reB, imB, bytes, m[0]!, m[1]!, 0, 0, 0, 0, m[2]!, m[3]!);
        else k.diag1hi(reB, imB, bytes, 8 << op.t, m[0]!, m[1]!, m[2]!, m[3]!);
        return;
      }
      case K_X:
        if (op.cmask !== 0) break;
        if (op.t === 0) k.swaplo(reB, imB, bytes);
        else k.swaphi(reB, imB, bytes, 8 << op.t);
        return;
      case K_PERM: {
        const start = this.permAt[2 * o]!;
        const end = this.permAt[2 * o + 1]!;
        if (end > start) k.perm(reB, imB, start, end);
        return;
      }
    }
    applyOp(op, this.re, this.im, 0, amps);
  }
}

function mat(k: WasmKernels, reB: number, imB: number, bytes: number, t: number, m: Float64Array, at: number): void {
  const ar = m[at]!, ai = m[at + 1]!, br = m[at + 2]!, bi = m[at + 3]!;
  const cr = m[at + 4]!, ci = m[at + 5]!, dr = m[at + 6]!, di = m[at + 7]!;
  if (t === 0) k.mat1lo(reB, imB, bytes, ar, ai, br, bi, cr, ci, dr, di);
  else k.mat1hi(reB, imB, bytes, 8 << t, ar, ai, br, bi, cr, ci, dr, di);
}
