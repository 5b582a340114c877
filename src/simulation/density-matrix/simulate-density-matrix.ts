/**
 * The density-matrix method: ρ evolves exactly under the gates and the noise model's channels
 * (depolarizing, amplitude and phase damping as Kraus channels, readout error on the distribution),
 * so `probabilities` are exact with noise and counts are drawn from them. ρ is a state of 2n qubits
 * (superoperators.ts) run by the state-vector engine's fused-block kernels: a gate is U on the row
 * qubits and conj(U) on the column qubits, a channel one superoperator on both.
 * Resets are the exact reset channel; a mid-circuit measurement whose bit is overwritten later is a
 * dephasing; conditioned gates (and kept mid-circuit bits) need branching: refused with the methods
 * that run them.
 */
import type { Circuit } from '../../circuits/ir.js';
import { fail } from '../../errors/app-error.js';
import { sampleCounts, tidy, withReadout } from '../distribution.js';
import { SIMULATION_ERRORS } from '../error-codes.js';
import { gateMatrix } from '../gate-matrices.js';
import type { GateItem } from '../compile.js';
import { checkInteger, checkMemory, deadlineCheck, DEFAULT_MAX_MEMORY_BYTES, DEFAULT_TIME_BUDGET_MS, MAX_SHOTS } from '../limits.js';
import type { NoiseModel } from '../noise.js';
import type { Expectation, PauliTerm } from '../observables.js';
import { DEFAULT_BLOCK_QUBITS, PlanRunner, planUnitary } from '../plan.js';
import { randomSeed, SeededRng } from '../rng.js';
import type { SimulationResult } from '../simulate.js';
import { acquireWorkspace, releaseWorkspace } from '../workspace.js';
import { conjugate, DEPHASE, krausOf, RESET, superoperator, type Kraus } from './superoperators.js';

export const DENSITY_MATRIX_MAX_QUBITS = 14;
const MAX_EXACT_CLBITS = 20;

export interface DensityMatrixOptions {
  readonly shots: number;
  readonly seed?: number;
  readonly noise?: NoiseModel;
  readonly observables?: readonly PauliTerm[];
  readonly maxProbabilityEntries?: number;
  readonly timeBudgetMs?: number;
  readonly maxMemoryBytes?: number;
}

const unavailable = (i: number, what: string): never => {
  const message = `operation ${i} is ${what}; the density_matrix method evolves one mixed state and cannot keep it — use statevector (or stabilizer for Clifford circuits)`;
  throw fail(SIMULATION_ERRORS.SIMULATION_METHOD_UNAVAILABLE, message, { method: 'density_matrix', operation: i, path: `/circuit/gates/${i}` });
};

/** The superoperator items of the circuit, the clbit ← qubit map of its terminal measurements and their readout errors. */
function compile(c: Circuit, noise: NoiseModel | undefined): { items: GateItem[]; source: Int32Array; readout: ([number, number] | null)[] } {
  const n = c.numQubits;
  const items: GateItem[] = [];
  const lastUse = new Int32Array(n).fill(-1);
  const lastWriter = new Int32Array(c.numClbits).fill(-1);
  c.ops.forEach((op, i) => {
    if (op.kind === 'gate') for (const q of op.qubits) lastUse[q] = i;
    else if (op.kind === 'reset') lastUse[op.qubit] = i;
    else if (op.kind === 'measure') lastWriter[op.clbit] = i;
    else if (op.kind === 'conditioned') unavailable(i, 'a conditioned gate (a dynamic circuit)');
  });
  const channel = (qubits: readonly number[], k: Kraus): void => {
    items.push({ qubits: [...qubits, ...qubits.map((q) => q + n)], mat: superoperator(k), gates: 0 });
  };
  const source = new Int32Array(c.numClbits).fill(-1);
  const readout: ([number, number] | null)[] = new Array<[number, number] | null>(c.numClbits).fill(null);
  const started = new Uint8Array(n);
  c.ops.forEach((op, i) => {
    if (op.kind === 'gate') {
      const m = gateMatrix(op.name, op.params);
      if (m === undefined)
        throw fail(SIMULATION_ERRORS.SIMULATION_UNSUPPORTED_OPERATION, `unknown gate '${op.name}' at operation ${i}`, [{ path: `/ops/${i}`, code: 'UNKNOWN_GATE', message: op.name }]);
      items.push({ qubits: op.qubits, mat: m, gates: 1 }, { qubits: op.qubits.map((q) => q + n), mat: conjugate(m), gates: 0 });
      for (const q of op.qubits) started[q] = 1;
      for (const ch of noise?.afterGate(op.name, op.qubits) ?? []) {
        const { qubits, kraus } = krausOf(ch);
        channel(qubits, kraus);
      }
    } else if (op.kind === 'reset') {
      if (started[op.qubit] === 1) channel([op.qubit], RESET);
    } else if (op.kind === 'measure') {
      started[op.qubit] = 1;
      const terminal = lastUse[op.qubit]! < i;
      if (lastWriter[op.clbit] === i) {
        if (!terminal) unavailable(i, 'a mid-circuit measurement whose bit is kept');
        source[op.clbit] = op.qubit;
        const ro = noise?.readout(op.qubit);
        if (ro !== undefined && (ro[0] > 0 || ro[1] > 0)) readout[op.clbit] = [ro[0], ro[1]];
      } else if (!terminal) channel([op.qubit], DEPHASE);
    }
  });
  return { items, source, readout };
}

/** Tr(ρP) for a Pauli string (rightmost character on qubit 0); ρ_ij at i + 2^n·j. */
function traceWithPauli(re: Float64Array, im: Float64Array, n: number, pauli: string): number {
  let x = 0;
  let z = 0;
  let ny = 0;
  for (let k = 0; k < n; k++) {
    const ch = pauli[n - 1 - k];
    if (ch === 'X' || ch === 'Y') x |= 1 << k;
    if (ch === 'Z' || ch === 'Y') z |= 1 << k;
    if (ch === 'Y') ny++;
  }
  // P|i⟩ = i^ny (−1)^{|i∧z|} |i⊕x⟩, so Tr(ρP) = Σ_i ρ_{i, i⊕x}·P_{i⊕x, i}... with ⟨i⊕x|P|i⟩ the phase of column i.
  const N = 1 << n;
  let sr = 0;
  let si = 0;
  for (let i = 0; i < N; i++) {
    const j = i ^ x;
    let bits = i & z;
    let par = 0;
    while (bits !== 0) {
      par ^= 1;
      bits &= bits - 1;
    }
    const sign = par === 1 ? -1 : 1;
    // Tr(ρP) = Σ_{i} ρ_{i,j} P_{j,i}: ρ_{i,j} at i + N·j.
    const a = re[i + N * j]!;
    const b = im[i + N * j]!;
    sr += sign * a;
    si += sign * b;
  }
  // Multiply by i^ny: the result is real for a Hermitian P.
  switch (ny & 3) {
    case 0:
      return sr;
    case 1:
      return -si;
    case 2:
      return -sr;
    default:
      return si;
  }
}

export function simulateDensityMatrix(circuit: Circuit, options: DensityMatrixOptions): SimulationResult {
  const t0 = performance.now();
  const shots = checkInteger('shots', options.shots, 0, MAX_SHOTS);
  const seed = options.seed === undefined ? randomSeed() : checkInteger('seed', options.seed, 0, Number.MAX_SAFE_INTEGER);
  const n = circuit.numQubits;
  if (n > DENSITY_MATRIX_MAX_QUBITS)
    throw fail(SIMULATION_ERRORS.SIMULATION_METHOD_UNAVAILABLE, `the circuit has ${n} qubits; the density_matrix method takes at most ${DENSITY_MATRIX_MAX_QUBITS}`, {
      method: 'density_matrix',
      max_qubits: DENSITY_MATRIX_MAX_QUBITS,
      num_qubits: n,
    });
  const check = deadlineCheck(options.timeBudgetMs ?? DEFAULT_TIME_BUDGET_MS, t0);
  const { items, source, readout } = compile(circuit, options.noise);
  const dim = 4 ** n;
  const plan = planUnitary(items, 2 * n, Math.min(DEFAULT_BLOCK_QUBITS, Math.max(2 * n, 1)));
  checkMemory(16 * dim + PlanRunner.bufferBytes(plan), options.maxMemoryBytes ?? DEFAULT_MAX_MEMORY_BYTES, `the density matrix of ${n} qubits (${16 * dim} bytes)`);
  const t1 = performance.now();
  const runner = new PlanRunner(true, acquireWorkspace());
  const st = runner.ws.allocState(dim, PlanRunner.bufferBytes(plan)) ?? { re: new Float64Array(dim), im: new Float64Array(dim) };
  st.re[0] = 1;
  runner.run(plan, st.re, st.im, check);
  const t2 = performance.now();

  // The distribution of the measured clbits from the diagonal of ρ.
  const N = 2 ** n;
  const nc = circuit.numClbits;
  const raw: Record<string, number> = {};
  const chars = new Array<string>(nc);
  for (let i = 0; i < N; i++) {
    const p = st.re[i * (N + 1)]!;
    if (!(p > 0)) continue;
    for (let c = 0; c < nc; c++) chars[nc - 1 - c] = source[c]! >= 0 && ((i >>> source[c]!) & 1) === 1 ? '1' : '0';
    const k = chars.join('');
    raw[k] = (raw[k] ?? 0) + p;
  }
  let expectation: Expectation | undefined;
  if (options.observables !== undefined && options.observables.length > 0) {
    const terms = options.observables.map((t) => t.coeff * traceWithPauli(st.re, st.im, n, t.pauli));
    expectation = { value: terms.reduce((a, b) => a + b, 0), terms, kind: 'exact' };
  }
  releaseWorkspace(runner.ws);
  const exact = tidy(withReadout(raw, readout));
  const counts = sampleCounts(exact, shots, new SeededRng(seed));
  const notes: string[] = [];
  const maxEntries = options.maxProbabilityEntries ?? 65536;
  const keep = nc <= MAX_EXACT_CLBITS && Object.keys(exact).length <= maxEntries;
  if (!keep) notes.push(nc > MAX_EXACT_CLBITS ? `probabilities omitted: more than ${MAX_EXACT_CLBITS} measured clbits` : `probabilities omitted: more than ${maxEntries} outcomes`);
  const t3 = performance.now();
  return {
    numQubits: n,
    numClbits: nc,
    shots,
    seed,
    counts,
    probabilitiesKind: keep ? 'exact' : 'omitted',
    notes,
    timing: { compileMs: t1 - t0, runMs: t2 - t1, sampleMs: t3 - t2, totalMs: t3 - t0 },
    stats: { gates: plan.gates, blocks: plan.blocks.length, trajectories: 1, stateCopies: 0, blockQubits: plan.width },
    ...(keep ? { probabilities: exact } : {}),
    ...(expectation === undefined ? {} : { expectation }),
  };
}
