/**
 * The public entry points of the state-vector simulator: `simulate` (shots, counts,
 * probabilities, optional state vector) and `finalState` (the pure state after all
 * gates, for reduced density matrices).
 *
 * Conventions: amplitude index i has bit k ↔ qubit k (qubit 0 is the least significant
 * bit); counts and probabilities are keyed by strings of num_clbits characters with
 * clbit 0 rightmost (Qiskit / OpenQASM order).
 */
import type { Circuit } from '../circuits/ir.js';
import { fail } from '../errors/app-error.js';
import { Engine, StatePool } from './engine.js';
import { SIMULATION_ERRORS } from './error-codes.js';
import { checkInteger, checkMemory, checkPositive, checkQubits, deadlineCheck, DEFAULT_MAX_MEMORY_BYTES, DEFAULT_MAX_QUBITS, DEFAULT_TIME_BUDGET_MS, HARD_MAX_QUBITS, MAX_SHOTS } from './limits.js';
import type { NoiseModel } from './noise.js';
import { DEFAULT_BLOCK_QUBITS, PlanRunner } from './plan.js';
import { acquireWorkspace, releaseWorkspace } from './workspace.js';
import type { Program } from './program.js';
import { buildProgram } from './program.js';
import { randomSeed, SeededRng } from './rng.js';
import { CountsBuilder, exactProbabilities, sampleIndices } from './sampling.js';
import { exactExpectation, type Expectation, type PauliTerm } from './observables.js';

export interface LimitOptions {
  /** Largest circuit accepted (default 28, at most 30). */
  readonly maxQubits?: number;
  /** Wall-clock budget of the run in ms (default 120000). Checked per fused block, not per gate. */
  readonly timeBudgetMs?: number;
  /** Memory the run may allocate: state vector, buffers, branch copies, sampling (default 4.5 GiB). */
  readonly maxMemoryBytes?: number;
  /** Width of fused blocks in qubits (default: n up to 16 qubits, else 14; tuning knob for benchmarks and tests). */
  readonly blockQubits?: number;
}

export interface SimulateOptions extends LimitOptions {
  readonly shots: number;
  /** Told the fraction of the state evolution done (0–1), after each block of gates; for progress reports, so it must be cheap. */
  readonly onProgress?: (fraction: number) => void;
  /** Same seed, same circuit, same options → same counts. A random seed is drawn (and reported) when absent. */
  readonly seed?: number;
  readonly noise?: NoiseModel;
  /** Return the final state vector when the run is pure (no branching) and n ≤ maxStatevectorQubits. */
  readonly returnStatevector?: boolean;
  /** Largest state vector returned (default 16 qubits = 65536 amplitudes). */
  readonly maxStatevectorQubits?: number;
  /** Exact probabilities are returned only up to this many non-zero outcomes (default 65536). */
  readonly maxProbabilityEntries?: number;
  /** Pauli-sum observable: its exact expectation on the final state (pure runs only; see observables.ts). */
  readonly observables?: readonly PauliTerm[];
}

export interface SimulationResult {
  readonly numQubits: number;
  readonly numClbits: number;
  readonly shots: number;
  /** The seed actually used. */
  readonly seed: number;
  /** Bitstring of num_clbits bits (clbit 0 rightmost) → shots. Sums to `shots`. */
  readonly counts: Record<string, number>;
  /**
   * Distribution over clbit strings. `exact`: from the final state (noise-free, no
   * mid-circuit measurement, reset or conditioned gate), outcomes below 1e-15 left out. `estimated`:
   * counts / shots (noisy or branching runs, dynamic circuits included). Absent (`omitted`) when there would be
   * too many outcomes (more than maxProbabilityEntries, or more than 20 measured clbits).
   */
  readonly probabilities?: Record<string, number>;
  readonly probabilitiesKind: 'exact' | 'estimated' | 'omitted';
  /** Final state (index bit k ↔ qubit k) when requested and available. */
  readonly statevector?: { readonly re: number[]; readonly im: number[] };
  /** ⟨H⟩ of `observables` on the final state, when asked and the run is pure. */
  readonly expectation?: Expectation;
  /** Why something asked for was left out. */
  readonly notes: readonly string[];
  readonly timing: { readonly compileMs: number; readonly runMs: number; readonly sampleMs: number; readonly totalMs: number };
  readonly stats: {
    /** Original gates in the circuit. */
    readonly gates: number;
    /** Fused blocks executed (summed over trajectories). */
    readonly blocks: number;
    /** Trajectory batches sampled (1 for a pure run). */
    readonly trajectories: number;
    /** State copies made for branches. */
    readonly stateCopies: number;
    readonly blockQubits: number;
  };
}

const MAX_EXACT_CLBITS = 20;
/** finalState copies states up to this many amplitudes out of a pooled workspace. */
const SMALL_STATE = 2 ** 18;

interface Resolved {
  maxQubits: number;
  timeBudgetMs: number;
  maxMemoryBytes: number;
  /** 0 = choose by n (widthFor). */
  blockQubits: number;
}

/**
 * Up to this many qubits the default is one block over the whole state, worked on in place
 * (2^16 amplitudes = 1 MiB stay in L2/L3): measured ~15% faster at n = 15, 16 than blocks of 14.
 */
const DIRECT_QUBITS = 16;

/** The block width for n qubits: the explicit option, else the whole state up to DIRECT_QUBITS, else 14. */
const widthFor = (lim: Resolved, n: number): number => (lim.blockQubits !== 0 ? lim.blockQubits : n <= DIRECT_QUBITS ? Math.max(n, 1) : DEFAULT_BLOCK_QUBITS);

function resolveLimits(o: LimitOptions): Resolved {
  return {
    maxQubits: o.maxQubits === undefined ? DEFAULT_MAX_QUBITS : checkInteger('maxQubits', o.maxQubits, 1, HARD_MAX_QUBITS),
    timeBudgetMs: o.timeBudgetMs === undefined ? DEFAULT_TIME_BUDGET_MS : checkPositive('timeBudgetMs', o.timeBudgetMs),
    maxMemoryBytes: o.maxMemoryBytes === undefined ? DEFAULT_MAX_MEMORY_BYTES : checkPositive('maxMemoryBytes', o.maxMemoryBytes),
    blockQubits: o.blockQubits === undefined ? 0 : checkInteger('blockQubits', o.blockQubits, 5, 20),
  };
}

function hasReadout(program: Program, noise: NoiseModel | undefined): boolean {
  if (noise === undefined) return false;
  for (const q of program.clbitSource) if (q >= 0 && noise.readout(q).some((p) => p > 0)) return true;
  return false;
}

function blockBufferBytes(program: Program): number {
  let max = 0;
  for (const s of program.steps) if (s.kind === 'unitary' || s.kind === 'conditioned') max = Math.max(max, PlanRunner.bufferBytes(s.plan));
  return max;
}

/** |0…0⟩, in the runner's wasm memory when possible (kernels then work on it in place). */
function newState(runner: PlanRunner, dim: number, program: Program): { re: Float64Array; im: Float64Array } {
  const st = runner.ws.allocState(dim, blockBufferBytes(program)) ?? { re: new Float64Array(dim), im: new Float64Array(dim) };
  st.re[0] = 1;
  return st;
}

export function simulate(circuit: Circuit, options: SimulateOptions): SimulationResult {
  const t0 = performance.now();
  const lim = resolveLimits(options);
  const shots = checkInteger('shots', options.shots, 0, MAX_SHOTS);
  const seed = options.seed === undefined ? randomSeed() : checkInteger('seed', options.seed, 0, Number.MAX_SAFE_INTEGER);
  const maxSv = options.maxStatevectorQubits ?? 16;
  const maxEntries = options.maxProbabilityEntries ?? 65536;
  const n = circuit.numQubits;
  checkQubits(n, lim.maxQubits);
  const check = deadlineCheck(lim.timeBudgetMs, t0);
  const width = widthFor(lim, n);
  const program = buildProgram(circuit, options.noise, width);
  const readout = hasReadout(program, options.noise);
  const dim = 2 ** n;
  const stateBytes = 16 * dim;
  const wantSv = options.returnStatevector === true && !program.branching && n <= maxSv;
  const exact = !program.branching && !readout && program.terminal.length <= MAX_EXACT_CLBITS;
  const needed = stateBytes + blockBufferBytes(program) + 8 * shots + (exact ? 8 * 2 ** program.terminal.length : 0) + (wantSv ? stateBytes : 0);
  checkMemory(needed, lim.maxMemoryBytes, `simulating ${n} qubits (state vector ${stateBytes} bytes plus buffers and sampling)`);
  const t1 = performance.now();

  const rng = new SeededRng(seed);
  const runner = new PlanRunner(true, acquireWorkspace());
  const { re, im } = newState(runner, dim, program);
  const builder = new CountsBuilder(program, rng, readout ? options.noise : undefined);
  let sampleMs = 0;
  let probabilities: Record<string, number> | undefined;
  let statevector: { re: number[]; im: number[] } | undefined;
  let expectation: Expectation | undefined;
  const wantExp = options.observables !== undefined && options.observables.length > 0 && !program.branching;
  const notes: string[] = [];
  const pool = new StatePool(dim, lim.maxMemoryBytes - needed, lim.maxMemoryBytes);
  const engine = new Engine(
    program,
    rng,
    check,
    pool,
    runner,
    (sre, sim, s, reg) => {
      const ts = performance.now();
      if (program.terminal.length === 0) {
        if (s > 0) builder.record(0, s, reg);
      } else sampleIndices(sre, sim, s, rng, (index, count) => builder.record(index, count, reg));
      if (exact) probabilities = exactProbabilities(program, sre, sim, MAX_EXACT_CLBITS, maxEntries);
      if (wantSv) statevector = { re: Array.from(sre), im: Array.from(sim) };
      if (wantExp) expectation = exactExpectation(sre, sim, options.observables);
      sampleMs += performance.now() - ts;
    },
    options.onProgress,
  );
  engine.run(re, im, shots);
  releaseWorkspace(runner.ws);
  const t2 = performance.now();

  const counts: Record<string, number> = {};
  for (const [k, v] of [...builder.counts].sort((a, b) => (a[0] < b[0] ? -1 : 1))) counts[k] = v;
  let kind: SimulationResult['probabilitiesKind'] = 'omitted';
  if (exact && probabilities !== undefined) kind = 'exact';
  else if (!exact && shots > 0) {
    probabilities = {};
    for (const [k, v] of Object.entries(counts)) probabilities[k] = v / shots;
    kind = 'estimated';
  } else {
    probabilities = undefined;
    notes.push(exact ? `probabilities omitted: more than ${maxEntries} outcomes` : `probabilities omitted: more than ${MAX_EXACT_CLBITS} measured clbits`);
  }
  const why = program.dynamic ? 'conditioned gates, mid-circuit measurement, reset or noise' : 'mid-circuit measurement, reset or noise';
  if (options.observables !== undefined && options.observables.length > 0 && expectation === undefined) notes.push(`expectation omitted: the run has ${why}, so there is no single final state`);
  if (options.returnStatevector === true && statevector === undefined)
    notes.push(program.branching ? `statevector omitted: the run has ${why}, so there is no single final state` : `statevector omitted: more than ${maxSv} qubits`);
  const result: SimulationResult = {
    numQubits: n,
    numClbits: circuit.numClbits,
    shots,
    seed,
    counts,
    probabilitiesKind: kind,
    notes,
    timing: { compileMs: t1 - t0, runMs: t2 - t1 - sampleMs, sampleMs, totalMs: performance.now() - t0 },
    stats: {
      gates: program.gates,
      blocks: engine.stats.blocks,
      trajectories: engine.stats.leaves,
      stateCopies: engine.stats.copies,
      blockQubits: width,
    },
    ...(probabilities === undefined ? {} : { probabilities }),
    ...(statevector === undefined ? {} : { statevector }),
    ...(expectation === undefined ? {} : { expectation }),
  };
  return result;
}

export interface PureState {
  readonly numQubits: number;
  /** Real parts; amplitude index bit k ↔ qubit k. */
  readonly re: Float64Array;
  readonly im: Float64Array;
}

/**
 * The pure state after every gate of the circuit (terminal measurements and barriers are
 * ignored; resets of untouched qubits are no-ops). Throws SIMULATION_NOT_UNITARY when a
 * qubit is measured or reset before later operations on it.
 */
export function finalState(circuit: Circuit, options: LimitOptions = {}): PureState {
  const t0 = performance.now();
  const lim = resolveLimits(options);
  const n = circuit.numQubits;
  checkQubits(n, lim.maxQubits);
  const program = buildProgram(circuit, undefined, widthFor(lim, n));
  // A dynamic circuit is refused even when no conditioned step survived (every condition never
  // true): which gates run is decided by measured bits, so "the pure state after every gate" is not its meaning.
  const cond = circuit.ops.findIndex((op) => op.kind === 'conditioned');
  if (cond >= 0)
    throw fail(SIMULATION_ERRORS.SIMULATION_NOT_UNITARY, `the circuit has a conditioned gate (operation ${cond}): which gates run depends on measured bits, so it has no single pure final state`, {
      operation: 'conditioned',
    });
  const bad = program.steps.find((s) => s.kind !== 'unitary');
  if (bad !== undefined)
    throw fail(SIMULATION_ERRORS.SIMULATION_NOT_UNITARY, `the circuit has a mid-circuit ${bad.kind} on qubit ${'qubit' in bad ? bad.qubit : '?'}, so it has no single pure final state`, {
      operation: bad.kind,
    });
  const dim = 2 ** n;
  checkMemory(16 * dim + blockBufferBytes(program), lim.maxMemoryBytes, `the final state of ${n} qubits`);
  const check = deadlineCheck(lim.timeBudgetMs, t0);
  // Small states: a pooled workspace and copies out (cheaper than fresh pages); large ones
  // keep their own memory and the views are returned as they are.
  const small = dim <= SMALL_STATE;
  const runner = small ? new PlanRunner(true, acquireWorkspace()) : new PlanRunner();
  const { re, im } = newState(runner, dim, program);
  for (const s of program.steps) if (s.kind === 'unitary') runner.run(s.plan, re, im, check);
  if (!small) return { numQubits: n, re, im };
  const out = { numQubits: n, re: re.slice(), im: im.slice() };
  releaseWorkspace(runner.ws);
  return out;
}
