/**
 * The memory a run works in, and the dispatch of ops to kernels. With WebAssembly SIMD
 * available this is the kernel module's memory: the resident state (real region, then
 * imaginary region), then the chunk buffer of the current block, then the permutation
 * buffer and tables. JavaScript sees the regions as Float64Array views, so gathers and
 * scatters stay memcpy (`TypedArray.set`), and kinds without a wasm kernel run the
 * scalar JS kernels on the same views. Without wasm everything runs in JS on plain arrays.
 */
import type { KOp } from './kernels.js';
import { applyOp, K_DH, K_DIAG1, K_H, K_MAT1, K_MAT1X2, K_PERM, K_X } from './kernels.js';
import { applyCycles, permCycles, permTable } from './perm.js';
import type { WasmKernels } from './wasm-kernels.js';
import { instantiateKernels } from './wasm-kernels.js';

const R = Math.SQRT1_2;
const H_ROWS = Float64Array.of(R, 0, R, 0);
const PAGE = 65536;
/**
 * Where regions start inside their page. Large Float64Arrays are page aligned; copying
 * between two page-aligned regions made every load alias a recent store (4K aliasing):
 * measured 4–5× slower memcpy. So the state's real part starts at byte 64 of its page
 * (imaginary part IM_GAP later), the chunk buffer's at byte CHUNK_AT (gathers copy state
 * ↔ chunk), and neither is at 0 (copies to and from plain arrays: branches, results).
 */
const RE_AT = 64;
const CHUNK_AT = 2112;
const IM_GAP = 1024;
/** Before each region of the out-of-place permutation buffer. */
const ALT_GAP = 512;

export interface StateViews {
  readonly re: Float64Array;
  readonly im: Float64Array;
}

/** Largest state kept in wasm memory (2 GiB of amplitudes; wasm32 memories end at 4 GiB). */
const MAX_RESIDENT_DIM = 2 ** 27;

/** Uncontrolled single-qubit kinds that have a wasm kernel for any bit, so they can run in place on a state. */
export function streamable(op: KOp): boolean {
  return op.cmask === 0 && (op.kind === K_MAT1 || op.kind === K_H || op.kind === K_DH || op.kind === K_DIAG1 || op.kind === K_X);
}

export class Workspace {
  /** Views of the buffer: amplitudes [0, amps) of the current block. */
  re = new Float64Array(0);
  im = new Float64Array(0);
  private readonly k: WasmKernels | null;
  private amps = 0;
  private reB = CHUNK_AT;
  private imB = 0;
  private altB = 0;
  private altImB = 0;
  /** Byte offset of the scratch region (buffer, cycles): after the resident state, if any. */
  private base = 0;
  private state: StateViews | null = null;
  private stateReB = 0;
  private stateImB = 0;
  /** Per op index of the prepared block: byte address of its permutation table (wasm) … */
  private permAt = new Int32Array(0);
  /** … or the cycles themselves (JS fallback). */
  private permJs: Int32Array[] = [];

  constructor(useWasm = true) {
    this.k = useWasm ? instantiateKernels() : null;
  }

  get usesWasm(): boolean {
    return this.k !== null;
  }

  /** Scratch bytes `prepare(ops, amps)` needs (buffer, alignment, permutation tables and their buffer). */
  static scratchBytes(ops: readonly KOp[], amps: number): number {
    const perms = ops.reduce((a, op) => a + (op.kind === K_PERM ? 1 : 0), 0);
    const cycles = perms * 4 * (amps + (amps >> 1)); // JS fallback; the wasm tables need less
    return CHUNK_AT + 16 * amps + IM_GAP + (perms > 0 ? 16 * amps + 2 * ALT_GAP : 0) + cycles;
  }

  /**
   * A zeroed state of `dim` amplitudes in the kernels' memory, with `scratch` bytes
   * reserved after it (memory never grows later, so the views stay valid), or null
   * when there is no wasm or the state is too large: callers then use plain arrays.
   */
  allocState(dim: number, scratch: number): StateViews | null {
    const k = this.k;
    if (k === null || dim < 2 || dim > MAX_RESIDENT_DIM) return null;
    const reB = RE_AT;
    const imB = reB + 8 * dim + IM_GAP;
    const base = Math.ceil((imB + 8 * dim) / PAGE) * PAGE;
    const need = base + scratch;
    const have = k.mem.buffer.byteLength;
    const fresh = this.state === null && this.base === 0;
    try {
      if (need > have) k.mem.grow(Math.ceil((need - have) / PAGE));
    } catch {
      return null;
    }
    this.base = base;
    this.stateReB = reB;
    this.stateImB = imB;
    this.amps = 0;
    const st = { re: new Float64Array(k.mem.buffer, reB, dim), im: new Float64Array(k.mem.buffer, imB, dim) };
    // A reused workspace (pool) holds the previous run's amplitudes; fresh memory is zero.
    if (!fresh) {
      st.re.fill(0);
      st.im.fill(0);
    }
    this.state = st;
    return st;
  }

  /** Bytes of memory this workspace holds (pools keep only small ones). */
  get memoryBytes(): number {
    return this.k === null ? 16 * this.re.length : this.k.mem.buffer.byteLength;
  }

  /** True when (re, im) is this workspace's resident state: kernels can run on it in place. */
  holds(re: Float64Array, im: Float64Array): boolean {
    return this.state !== null && re === this.state.re && im === this.state.im;
  }

  /** Makes `re`/`im` views of exactly `amps` amplitudes and computes the block's permutations. */
  prepare(ops: readonly KOp[], amps: number): void {
    if (this.k === null) {
      if (this.re.length !== amps) {
        this.re = new Float64Array(amps);
        this.im = new Float64Array(amps);
      }
      this.permJs = ops.map((op) => (op.kind === K_PERM ? permCycles(op, amps) : new Int32Array(0)));
      return;
    }
    const mem = this.k.mem;
    const need = this.base + Workspace.scratchBytes(ops, amps);
    if (mem.buffer.byteLength < need) {
      // Growing would detach the resident state's views; its scratch was reserved up front.
      if (this.state !== null) throw new Error(`simulator workspace: scratch of ${need} bytes was not reserved`);
      mem.grow(Math.ceil((need - mem.buffer.byteLength) / PAGE));
    }
    if (this.amps !== amps || this.re.buffer !== mem.buffer) {
      this.amps = amps;
      this.reB = this.base + CHUNK_AT;
      this.imB = this.reB + 8 * amps + IM_GAP;
      this.altB = this.imB + 8 * amps + ALT_GAP;
      this.altImB = this.altB + 8 * amps + ALT_GAP;
      this.re = new Float64Array(mem.buffer, this.reB, amps);
      this.im = new Float64Array(mem.buffer, this.imB, amps);
    }
    this.permAt = new Int32Array(ops.length);
    let at = this.altImB + 8 * amps;
    ops.forEach((op, o) => {
      if (op.kind !== K_PERM) return;
      permTable(op, amps, new Int32Array(mem.buffer, at, amps));
      this.permAt[o] = at;
      at += 4 * amps;
    });
  }

  /** Applies op number `o` of the prepared block to the whole buffer. */
  apply(op: KOp, o: number): void {
    this.applyTo(op, o, this.reB, this.imB, this.re, this.im);
  }

  /** Applies an op (bits = qubits) in place to the resident state; K_PERM ops need `prepare(ops, dim)` first. */
  applyState(op: KOp, o: number): void {
    const st = this.state!;
    this.applyTo(op, o, this.stateReB, this.stateImB, st.re, st.im);
  }

  private applyTo(op: KOp, o: number, reB: number, imB: number, re: Float64Array, im: Float64Array): void {
    const k = this.k;
    const amps = re.length;
    if (k === null) {
      if (op.kind === K_PERM) applyCycles(re, im, this.permJs[o]!);
      else applyOp(op, re, im, 0, amps);
      return;
    }
    const bytes = 8 * amps;
    switch (op.kind) {
      case K_MAT1:
        if (op.cmask !== 0) break;
        mat(k, reB, imB, bytes, op.t, op.m, 0);
        return;
      case K_H:
        rowPhasedH(k, reB, imB, bytes, op.t, H_ROWS);
        return;
      case K_DH:
        rowPhasedH(k, reB, imB, bytes, op.t, op.m);
        return;
      case K_MAT1X2:
        mat(k, reB, imB, bytes, op.t, op.m, 0);
        mat(k, reB, imB, bytes, op.cmask, op.m, 8);
        return;
      case K_DIAG1: {
        if (op.cmask !== 0) break;
        const m = op.m;
        if (op.t === 0) k.diag1lo(reB, imB, bytes, m[0]!, m[1]!, m[2]!, m[3]!);
        else k.diag1hi(reB, imB, bytes, 8 << op.t, m[0]!, m[1]!, m[2]!, m[3]!);
        return;
      }
      case K_X:
        if (op.cmask !== 0) break;
        if (op.t === 0) k.swaplo(reB, imB, bytes);
        else k.swaphi(reB, imB, bytes, 8 << op.t);
        return;
      case K_PERM:
        k.permt(reB, imB, this.altB, this.altImB, this.permAt[o]!, bytes);
        return;
    }
    applyOp(op, re, im, 0, amps);
  }
}

function rowPhasedH(k: WasmKernels, reB: number, imB: number, bytes: number, t: number, m: Float64Array): void {
  const ar = m[0]!,
    ai = m[1]!,
    br = m[2]!,
    bi = m[3]!;
  if (t === 0) k.mat1lo(reB, imB, bytes, ar, ai, ar, ai, br, bi, -br, -bi);
  else k.dhhi(reB, imB, bytes, 8 << t, ar, ai, br, bi);
}

function mat(k: WasmKernels, reB: number, imB: number, bytes: number, t: number, m: Float64Array, at: number): void {
  const ar = m[at]!,
    ai = m[at + 1]!,
    br = m[at + 2]!,
    bi = m[at + 3]!;
  const cr = m[at + 4]!,
    ci = m[at + 5]!,
    dr = m[at + 6]!,
    di = m[at + 7]!;
  if (t === 0) k.mat1lo(reB, imB, bytes, ar, ai, br, bi, cr, ci, dr, di);
  else k.mat1hi(reB, imB, bytes, 8 << t, ar, ai, br, bi, cr, ci, dr, di);
}

/** Idle workspaces of finished runs: reusing one saves the page faults of fresh memory (~0.6 ms per MiB). */
const idle: Workspace[] = [];
const POOL_SIZE = 2;
const POOL_MAX_BYTES = 64 * 1024 * 1024;

export function acquireWorkspace(): Workspace {
  return idle.pop() ?? new Workspace();
}

/** Returns a workspace whose resident state nobody references any more. */
export function releaseWorkspace(ws: Workspace): void {
  if (idle.length < POOL_SIZE && ws.usesWasm && ws.memoryBytes <= POOL_MAX_BYTES) idle.push(ws);
}
