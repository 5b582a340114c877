/**
 * Runs a program over all shots with batched trajectories. Shots travel together while
 * their outcomes agree: at a mid-circuit measurement, reset or noise channel the batch
 * is split by sampling how many shots take each branch (binomial draws from the
 * branch probabilities), each smaller branch continues on a copy of the state and the
 * largest continues in place. Because a recursed branch holds at most half the shots,
 * at most log2(shots) copies are alive at once; every copy is checked against the
 * memory limit before it is allocated.
 *
 * Each batch carries its classical register (the bits mid-circuit measurements wrote). A
 * conditioned step (a dynamic circuit's `if`) applies its gates to a batch only when the
 * batch's bits satisfy its condition, and so do the noise channels after those gates: every
 * shot of a batch shares its bits, so the condition is decided once per batch, never per shot.
 */
import { fail } from '../errors/app-error.js';
import { SIMULATION_ERRORS } from './error-codes.js';
import { makeKOp } from './compile.js';
import { gateMatrix } from './gate-matrices.js';
import type { KOp } from './kernels.js';
import { applyOp } from './kernels.js';
import type { BudgetCheck, PlanRunner } from './plan.js';
import type { Program, Step } from './program.js';
import { guardHolds } from './program.js';
import type { SeededRng } from './rng.js';
import { collapse, lowerQubit, prob1, scaleHalves } from './state-ops.js';

export interface StateBuffers {
  readonly re: Float64Array;
  readonly im: Float64Array;
}

export type LeafHandler = (re: Float64Array, im: Float64Array, shots: number, reg: Uint8Array) => void;

export interface EngineStats {
  /** Leaves reached (distinct trajectories that were sampled). */
  leaves: number;
  /** State copies made for branches. */
  copies: number;
  /** Fused blocks executed (each one pass over the state when n > block width). */
  blocks: number;
}

/** Holds spare state buffers for branches, within a byte budget. */
export class StatePool {
  private readonly free: StateBuffers[] = [];
  private allocated = 0;
  constructor(
    private readonly dim: number,
    private readonly availableBytes: number,
    private readonly limitBytes: number,
  ) {}

  acquire(): StateBuffers {
    const s = this.free.pop();
    if (s !== undefined) return s;
    const bytes = 16 * this.dim;
    if (this.allocated + bytes > this.availableBytes)
      throw fail(SIMULATION_ERRORS.SIMULATION_MEMORY_LIMIT, `branching trajectories need another state copy of ${bytes} bytes; the memory limit of ${this.limitBytes} bytes would be exceeded`, {
        limit_bytes: this.limitBytes,
        copy_bytes: bytes,
      });
    this.allocated += bytes;
    return { re: new Float64Array(this.dim), im: new Float64Array(this.dim) };
  }

  release(s: StateBuffers): void {
    this.free.push(s);
  }
}

interface Branch {
  readonly count: number;
  readonly apply: (re: Float64Array, im: Float64Array) => void;
  readonly clbit: number;
  readonly value: number;
}

export class Engine {
  readonly stats: EngineStats = { leaves: 0, copies: 0, blocks: 0 };
  private readonly dim: number;
  private readonly paulis = new Map<string, KOp>();

  constructor(
    private readonly program: Program,
    private readonly rng: SeededRng,
    private readonly check: BudgetCheck,
    private readonly pool: StatePool,
    /** Its workspace may hold the initial state (kernels in place); branch copies are plain arrays. */
    private readonly runner: PlanRunner,
    private readonly onLeaf: LeafHandler,
    /** Told the fraction of the program's blocks run so far (a branching run counts each block once per branch, so it is clamped to 1). */
    private readonly onProgress?: (fraction: number) => void,
  ) {
    this.dim = 2 ** program.numQubits;
    this.totalBlocks = program.steps.reduce((a, s) => a + (s.kind === 'unitary' || s.kind === 'conditioned' ? s.plan.blocks.length : 0), 0);
  }

  private readonly totalBlocks: number;
  private blocksRun = 0;
  private readonly blockDone = (): void => {
    this.blocksRun++;
    this.onProgress?.(Math.min(1, this.blocksRun / Math.max(1, this.totalBlocks)));
  };

  run(re: Float64Array, im: Float64Array, shots: number): void {
    this.runFrom(0, re, im, shots, new Uint8Array(this.program.numClbits));
  }

  private runFrom(start: number, re: Float64Array, im: Float64Array, shots: number, reg: Uint8Array): void {
    const steps = this.program.steps;
    let s = shots;
    for (let i = start; i < steps.length; i++) {
      this.check();
      const step = steps[i]!;
      if (step.kind === 'unitary') {
        this.runner.run(step.plan, re, im, this.check, this.onProgress === undefined ? undefined : this.blockDone);
        this.stats.blocks += step.plan.blocks.length;
        continue;
      }
      if (step.kind === 'conditioned') {
        if (guardHolds(reg, step.when)) {
          this.runner.run(step.plan, re, im, this.check, this.onProgress === undefined ? undefined : this.blockDone);
          this.stats.blocks += step.plan.blocks.length;
        }
        continue;
      }
      if (step.kind !== 'measure' && step.kind !== 'reset' && step.when !== undefined && !guardHolds(reg, step.when)) continue;
      s = this.branch(i, re, im, reg, this.branchesOf(step, re, im, s));
    }
    this.stats.leaves++;
    this.onLeaf(re, im, s, reg);
  }

  /** Runs every branch but the largest on copies; applies the largest in place and returns its shot count. */
  private branch(i: number, re: Float64Array, im: Float64Array, reg: Uint8Array, branches: Branch[]): number {
    const live = branches.filter((b) => b.count > 0).sort((a, b) => a.count - b.count);
    const last = live.pop();
    if (last === undefined) return 0;
    for (const b of live) {
      const st = this.pool.acquire();
      this.stats.copies++;
      st.re.set(re);
      st.im.set(im);
      b.apply(st.re, st.im);
      const r2 = reg.slice();
      if (b.clbit >= 0) r2[b.clbit] = b.value;
      this.runFrom(i + 1, st.re, st.im, b.count, r2);
      this.pool.release(st);
    }
    last.apply(re, im);
    if (last.clbit >= 0) reg[last.clbit] = last.value;
    return last.count;
  }

  private pauli(name: 'x' | 'y' | 'z', q: number): KOp {
    const key = `${name}${q}`;
    let op = this.paulis.get(key);
    if (op === undefined) {
      op = makeKOp(gateMatrix(name, [])!, [q]);
      this.paulis.set(key, op);
    }
    return op;
  }

  /**
   * A mid-circuit measurement whose reported bit may be wrong: the state collapses to the true
   * outcome, the register gets the reported one (flipped with the readout probabilities).
   */
  private noisyMeasure(q: number, clbit: number, readout: readonly [number, number], re: Float64Array, im: Float64Array, shots: number): Branch[] {
    const dim = this.dim;
    const p1 = Math.min(1, Math.max(0, prob1(re, im, dim, q)));
    const n1 = this.rng.binomial(shots, p1);
    const n0 = shots - n1;
    const f0 = this.rng.binomial(n0, readout[0]);
    const f1 = this.rng.binomial(n1, readout[1]);
    const to0 = (r: Float64Array, m: Float64Array) => collapse(r, m, dim, q, 0, 1 / Math.sqrt(1 - p1));
    const to1 = (r: Float64Array, m: Float64Array) => collapse(r, m, dim, q, 1, 1 / Math.sqrt(p1));
    return [
      { count: n0 - f0, apply: to0, clbit, value: 0 },
      { count: f0, apply: to0, clbit, value: 1 },
      { count: n1 - f1, apply: to1, clbit, value: 1 },
      { count: f1, apply: to1, clbit, value: 0 },
    ];
  }

  private branchesOf(step: Exclude<Step, { kind: 'unitary' | 'conditioned' }>, re: Float64Array, im: Float64Array, shots: number): Branch[] {
    const dim = this.dim;
    const rng = this.rng;
    switch (step.kind) {
      case 'measure':
      case 'reset': {
        if (step.kind === 'measure' && step.readout !== undefined) return this.noisyMeasure(step.qubit, step.clbit, step.readout, re, im, shots);
        const q = step.qubit;
        const p1 = Math.min(1, Math.max(0, prob1(re, im, dim, q)));
        const n1 = rng.binomial(shots, p1);
        const clbit = step.kind === 'measure' ? step.clbit : -1;
        const one =
          step.kind === 'measure'
            ? (r: Float64Array, m: Float64Array) => collapse(r, m, dim, q, 1, 1 / Math.sqrt(p1))
            : (r: Float64Array, m: Float64Array) => lowerQubit(r, m, dim, q, 1 / Math.sqrt(p1));
        return [
          { count: shots - n1, apply: (r, m) => collapse(r, m, dim, q, 0, 1 / Math.sqrt(1 - p1)), clbit, value: 0 },
          { count: n1, apply: one, clbit, value: 1 },
        ];
      }
      case 'amplitude_damping': {
        const q = step.qubit;
        const g = step.gamma;
        const p1 = Math.min(1, Math.max(0, prob1(re, im, dim, q)));
        const pj = g * p1;
        const jumps = rng.binomial(shots, pj);
        return [
          { count: shots - jumps, apply: (r, m) => scaleHalves(r, m, dim, q, 1 / Math.sqrt(1 - pj), Math.sqrt(1 - g) / Math.sqrt(1 - pj)), clbit: -1, value: 0 },
          { count: jumps, apply: (r, m) => lowerQubit(r, m, dim, q, 1 / Math.sqrt(p1)), clbit: -1, value: 0 },
        ];
      }
      case 'phase_flip': {
        const q = step.qubit;
        const flips = rng.binomial(shots, step.pz);
        const z = this.pauli('z', q);
        return [
          { count: shots - flips, apply: () => {}, clbit: -1, value: 0 },
          { count: flips, apply: (r, m) => applyOp(z, r, m, 0, dim), clbit: -1, value: 0 },
        ];
      }
      case 'pauli': {
        const errors = rng.binomial(shots, step.pErr);
        const out: Branch[] = [{ count: shots - errors, apply: () => {}, clbit: -1, value: 0 }];
        if (errors === 0) return out;
        // Each error is one of the 4^k − 1 non-identity Paulis, uniformly.
        const k = step.qubits.length;
        const kinds = 4 ** k - 1;
        const per = new Map<number, number>();
        for (let e = 0; e < errors; e++) {
          const idx = 1 + rng.int(kinds);
          per.set(idx, (per.get(idx) ?? 0) + 1);
        }
        for (const [idx, count] of per) {
          const ops: KOp[] = [];
          for (let j = 0; j < k; j++) {
            const letter = (idx >> (2 * j)) & 3; // 0 I, 1 X, 2 Y, 3 Z
            if (letter !== 0) ops.push(this.pauli(letter === 1 ? 'x' : letter === 2 ? 'y' : 'z', step.qubits[j]!));
          }
          out.push({ count, apply: (r, m) => ops.forEach((op) => applyOp(op, r, m, 0, dim)), clbit: -1, value: 0 });
        }
        return out;
      }
    }
  }
}
