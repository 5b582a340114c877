/**
 * Gate fusion by cache blocking. A run of gates whose qubits all lie in a set S of at
 * most L qubits is one block; executing a block makes ONE pass over the state: for
 * each of the 2^(n-L) chunks (fixed values of the other qubits) the 2^L amplitudes are
 * gathered into an L2-resident buffer, every gate of the block is applied there with
 * the cheap kernels (diagonal, permutation, 2×2, ...), and the chunk is written back.
 * That is the memory traffic of one fused 2^L-qubit matrix at the arithmetic cost of
 * the individual (already 1-qubit-fused) gates. When S is the lowest L qubits the
 * chunk is contiguous and is processed in place without any copy.
 */
import type { GateItem } from './compile.js';
import { makeKOp, pairSingleQubitOps } from './compile.js';
import type { KOp } from './kernels.js';
import { scheduleOps } from './schedule.js';
import { streamable, Workspace } from './workspace.js';

/** Qubits always kept in S (when n > L) so gathers copy runs of ≥ 2^LOW_FORCED contiguous amplitudes (a cache line). */
const LOW_FORCED = 3;

export interface Block {
  /** Global qubits of the block, ascending; local bit j ↔ qubits[j]. */
  readonly qubits: readonly number[];
  readonly ops: readonly KOp[];
  /** Original circuit gates in this block. */
  readonly gates: number;
  /** Number of lowest qubits 0..r-1 contained in S (contiguous run length 2^r). */
  readonly runBits: number;
  /** Offsets of the 2^(L-r) runs inside a chunk. */
  readonly runOffsets: Int32Array;
  /** OR of 1 << q over the block's qubits. */
  readonly mask: number;
  /**
   * A block of one uncontrolled single-qubit gate, compiled on its global qubit: on a
   * state in wasm memory it runs as one streaming pass in place (gathering would only
   * add copies to a pass that has no other work).
   */
  readonly single?: KOp;
}

export interface Plan {
  readonly numQubits: number;
  /** Block width in qubits (min(n, configured L)). */
  readonly width: number;
  /** True when the whole state is one block (n ≤ L): ops run in place, no chunking. */
  readonly direct: boolean;
  readonly blocks: readonly Block[];
  readonly gates: number;
}

export const DEFAULT_BLOCK_QUBITS = 14;

/** Runs at least this long are copied with TypedArray.set (measured faster than a JS loop). */
const MEMCPY_RUN = 256;

/** `schedule`: reorder and compose ops inside blocks (schedule.ts); false keeps gate order (tests). */
export function planUnitary(items: readonly GateItem[], n: number, blockQubits = DEFAULT_BLOCK_QUBITS, schedule = true): Plan {
  const gates = items.reduce((a, it) => a + it.gates, 0);
  if (n <= blockQubits) {
    const qubits = Array.from({ length: n }, (_, i) => i);
    const block = makeBlock(items, qubits, schedule);
    return { numQubits: n, width: n, direct: true, blocks: items.length === 0 ? [] : [block], gates };
  }
  const L = blockQubits;
  const forced = Array.from({ length: Math.min(LOW_FORCED, L) }, (_, i) => i);
  const blocks: Block[] = [];
  let remaining: readonly GateItem[] = items;
  while (remaining.length > 0) {
    const inS = new Uint8Array(n);
    let size = 0;
    for (const q of forced) {
      inS[q] = 1;
      size++;
    }
    const blocked = new Uint8Array(n);
    let blockedCount = 0;
    const taken: GateItem[] = [];
    const next: GateItem[] = [];
    let i = 0;
    for (; i < remaining.length; i++) {
      const it = remaining[i]!;
      let ok = true;
      let extra = 0;
      for (const q of it.qubits) {
        if (blocked[q] === 1) ok = false;
        if (inS[q] === 0) extra++;
      }
      if (ok && size + extra <= L) {
        for (const q of it.qubits)
          if (inS[q] === 0) {
            inS[q] = 1;
            size++;
          }
        taken.push(it);
      } else {
        for (const q of it.qubits)
          if (blocked[q] === 0) {
            blocked[q] = 1;
            blockedCount++;
          }
        next.push(it);
        // Every qubit blocked: nothing later can join this block.
        if (blockedCount === n) {
          i++;
          break;
        }
      }
    }
    for (; i < remaining.length; i++) next.push(remaining[i]!);
    if (taken.length === 0) {
      // The first gate does not fit beside the forced low qubits: give it a block of its own.
      const first = next.shift()!;
      inS.fill(0);
      size = 0;
      for (const q of first.qubits) {
        inS[q] = 1;
        size++;
      }
      taken.push(first);
    }
    // Pad S to exactly L qubits with the lowest free ones (longer contiguous runs).
    for (let q = 0; q < n && size < L; q++)
      if (inS[q] === 0) {
        inS[q] = 1;
        size++;
      }
    const qubits: number[] = [];
    for (let q = 0; q < n; q++) if (inS[q] === 1) qubits.push(q);
    blocks.push(makeBlock(taken, qubits, schedule));
    remaining = next;
  }
  return { numQubits: n, width: L, direct: false, blocks, gates };
}

function makeBlock(items: readonly GateItem[], qubits: readonly number[], schedule: boolean): Block {
  const local = new Map<number, number>();
  qubits.forEach((q, j) => local.set(q, j));
  const placed = items.map((it) => {
    const bits = it.qubits.map((q) => local.get(q)!);
    return { op: makeKOp(it.mat, bits), mask: bits.reduce((a, b) => a | (1 << b), 0) };
  });
  const ops = schedule ? scheduleOps(placed) : pairSingleQubitOps(placed.map((p) => p.op));
  let r = 0;
  while (r < qubits.length && qubits[r] === r) r++;
  const hi = qubits.slice(r);
  const runOffsets = new Int32Array(1 << hi.length);
  for (let t = 0; t < runOffsets.length; t++) {
    let o = 0;
    for (let j = 0; j < hi.length; j++) if ((t >> j) & 1) o |= 1 << hi[j]!;
    runOffsets[t] = o;
  }
  const mask = qubits.reduce((a, q) => a | (1 << q), 0);
  const gates = items.reduce((a, it) => a + it.gates, 0);
  const single = items.length === 1 && items[0]!.qubits.length === 1 ? makeKOp(items[0]!.mat, items[0]!.qubits) : undefined;
  return { qubits, ops, gates, runBits: r, runOffsets, mask, ...(single !== undefined && streamable(single) ? { single } : {}) };
}

/** Called between pieces of work; throws when the time budget is spent. */
export type BudgetCheck = () => void;

/** A reusable workspace, so running a plan allocates nothing per gate and O(1) per block. */
export class PlanRunner {
  readonly ws: Workspace;

  /** `useWasm: false` forces the scalar JS kernels (tests compare both paths). */
  constructor(useWasm = true, ws?: Workspace) {
    this.ws = ws ?? new Workspace(useWasm);
  }

  /** Scratch bytes this runner needs for a plan (memory check, and reserved next to a resident state). */
  static bufferBytes(plan: Plan): number {
    const amps = 2 ** plan.width;
    return plan.blocks.reduce((a, b) => Math.max(a, Workspace.scratchBytes(b.ops, amps)), Workspace.scratchBytes([], amps));
  }

  /** `onBlock` is told after each block (progress reports; it must be cheap). */
  run(plan: Plan, re: Float64Array, im: Float64Array, check: BudgetCheck, onBlock?: () => void): void {
    const n = plan.numQubits;
    const ws = this.ws;
    const resident = ws.holds(re, im);
    if (plan.direct) {
      // The whole state is one chunk: worked on in place when it lives in the workspace,
      // else copied in and back out.
      const dim = 2 ** n;
      for (const b of plan.blocks) {
        ws.prepare(b.ops, dim);
        if (!resident) {
          ws.re.set(re);
          ws.im.set(im);
        }
        // Check the clock about every 2^18 amplitude updates, not per gate.
        let work = 0;
        for (let o = 0; o < b.ops.length; o++) {
          if (resident) ws.applyState(b.ops[o]!, o);
          else ws.apply(b.ops[o]!, o);
          work += dim;
          if (work >= 262144) {
            check();
            work = 0;
          }
        }
        if (!resident) {
          re.set(ws.re);
          im.set(ws.im);
        }
        onBlock?.();
      }
      return;
    }
    for (const b of plan.blocks) {
      check();
      if (resident && b.single !== undefined) ws.applyState(b.single, 0);
      else runBlock(b, n, plan.width, re, im, ws, check);
      onBlock?.();
    }
  }
}

export function runBlock(b: Block, n: number, L: number, re: Float64Array, im: Float64Array, ws: Workspace, check: BudgetCheck, part = 0, parts = 1): void {
  // `part` of `parts`: this caller handles chunks c with c % parts === part (parallel runners).
  const ops = b.ops;
  const nops = ops.length;
  const chunk = 1 << L;
  const total = 2 ** n;
  const checkEvery = Math.max(1, Math.floor(2 ** 22 / (chunk * Math.max(1, nops))));
  let since = 0;
  ws.prepare(ops, chunk);
  const bre = ws.re;
  const bim = ws.im;
  const runLen = 1 << b.runBits;
  const runs = b.runOffsets;
  const nruns = runs.length;
  const r = b.runBits;
  const mask = b.mask;
  const notMask = ~mask;
  let c = -1;
  for (let base = 0; base < total; base = ((base | mask) + 1) & notMask) {
    if (parts > 1 && ++c % parts !== part) continue;
    if (runLen >= MEMCPY_RUN)
      for (let t = 0; t < nruns; t++) {
        // Long runs: TypedArray.set is a memcpy (a small view object per run, none per gate).
        const src = base + runs[t]!;
        bre.set(re.subarray(src, src + runLen), t << r);
        bim.set(im.subarray(src, src + runLen), t << r);
      }
    else
      for (let t = 0; t < nruns; t++) {
        const src = base + runs[t]!;
        const dst = t << r;
        for (let i = 0; i < runLen; i++) {
          bre[dst + i] = re[src + i]!;
          bim[dst + i] = im[src + i]!;
        }
      }
    for (let o = 0; o < nops; o++) ws.apply(ops[o]!, o);
    if (runLen >= MEMCPY_RUN)
      for (let t = 0; t < nruns; t++) {
        const src = t << r;
        re.set(bre.subarray(src, src + runLen), base + runs[t]!);
        im.set(bim.subarray(src, src + runLen), base + runs[t]!);
      }
    else
      for (let t = 0; t < nruns; t++) {
        const dst = base + runs[t]!;
        const src = t << r;
        for (let i = 0; i < runLen; i++) {
          re[dst + i] = bre[src + i]!;
          im[dst + i] = bim[src + i]!;
        }
      }
    if (++since >= checkEvery) {
      check();
      since = 0;
    }
  }
}
