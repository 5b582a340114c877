/**
 * The density-matrix method: ρ evolves exactly under the gates and the noise model's channels
 * (depolarizing, amplitude and phase damping as Kraus channels, readout error on the distribution),
 * so `probabilities` are exact with noise and counts are drawn from them. ρ is kept in the Pauli basis
 * (pauli-transfer.ts): each gate, with the noise channels that follow it on its qubits, is one real
 * transfer matrix applied in one pass.
 * Resets are the exact reset channel; a mid-circuit measurement whose bit is overwritten later is a
 * dephasing; conditioned gates (and kept mid-circuit bits) need branching: refused with the methods
 * that run them.
 */
import type { Circuit } from '../../circuits/ir.js';
import { fail } from '../../errors/app-error.js';
import { sampleCounts, tidy, withReadout } from '../distribution.js';
import { SIMULATION_ERRORS } from '../error-codes.js';
import { gateMatrix } from '../gate-matrices.js';
import { checkInteger, checkMemory, deadlineCheck, DEFAULT_MAX_MEMORY_BYTES, DEFAULT_TIME_BUDGET_MS, MAX_SHOTS } from '../limits.js';
import type { NoiseModel } from '../noise.js';
import type { Expectation, PauliTerm } from '../observables.js';
import { randomSeed, SeededRng } from '../rng.js';
import type { SimulationResult } from '../simulate.js';
import { compose, diagonal, initialState, pauliValue, runBlocked, transferMatrix, unitaryChannel, widen } from './pauli-transfer.js';
import { DEPHASE, krausOf, RESET, type Kraus } from './superoperators.js';

export const DENSITY_MATRIX_MAX_QUBITS = 14;
const MAX_EXACT_CLBITS = 20;
/** Qubits per cache block: 4^7 entries (128 KiB) stay in L2. */
const BLOCK_QUBITS = 7;

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

interface PtmOp {
  readonly qubits: readonly number[];
  R: Float64Array;
}

/** The transfer-matrix ops of the circuit (pauli-transfer.ts), the clbit ← qubit map of its terminal measurements and their readout errors. */
function compile(c: Circuit, noise: NoiseModel | undefined): { ops: PtmOp[]; gates: number; source: Int32Array; readout: ([number, number] | null)[] } {
  const n = c.numQubits;
  const ops: PtmOp[] = [];
  let gates = 0;
  const lastUse = new Int32Array(n).fill(-1);
  const lastWriter = new Int32Array(c.numClbits).fill(-1);
  c.ops.forEach((op, i) => {
    if (op.kind === 'gate') for (const q of op.qubits) lastUse[q] = i;
    else if (op.kind === 'reset') lastUse[op.qubit] = i;
    else if (op.kind === 'measure') lastWriter[op.clbit] = i;
    else if (op.kind === 'conditioned') unavailable(i, 'a conditioned gate (a dynamic circuit)');
  });
  // A channel on a subset of the last op's qubits is folded into it (one pass instead of two).
  const push = (qubits: readonly number[], R: Float64Array): void => {
    const last = ops[ops.length - 1];
    if (last !== undefined && qubits.every((q) => last.qubits.includes(q))) {
      const sub = qubits.map((q) => last.qubits.indexOf(q));
      const k = last.qubits.length;
      const same = sub.length === k && sub.every((p, t) => p === t);
      last.R = compose(1 << (2 * k), same ? R : widen(R, sub, k), last.R);
      return;
    }
    ops.push({ qubits, R });
  };
  const channel = (qubits: readonly number[], k: Kraus): void => push(qubits, transferMatrix(k));
  const source = new Int32Array(c.numClbits).fill(-1);
  const readout: ([number, number] | null)[] = new Array<[number, number] | null>(c.numClbits).fill(null);
  const started = new Uint8Array(n);
  c.ops.forEach((op, i) => {
    if (op.kind === 'gate') {
      const m = gateMatrix(op.name, op.params);
      if (m === undefined)
        throw fail(SIMULATION_ERRORS.SIMULATION_UNSUPPORTED_OPERATION, `unknown gate '${op.name}' at operation ${i}`, [{ path: `/ops/${i}`, code: 'UNKNOWN_GATE', message: op.name }]);
      gates++;
      channel(op.qubits, unitaryChannel(m));
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
  return { ops, gates, source, readout };
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
  const { ops, gates, source, readout } = compile(circuit, options.noise);
  const dim = 4 ** n;
  checkMemory(8 * dim, options.maxMemoryBytes ?? DEFAULT_MAX_MEMORY_BYTES, `the density matrix of ${n} qubits (${8 * dim} bytes in the Pauli basis)`);
  const t1 = performance.now();
  const r = initialState(n);
  const blocks = runBlocked(r, n, ops, BLOCK_QUBITS, check);
  const t2 = performance.now();

  // The distribution of the measured clbits from the diagonal of ρ.
  const N = 2 ** n;
  const nc = circuit.numClbits;
  const diag = diagonal(r, n);
  const raw: Record<string, number> = {};
  const chars = new Array<string>(nc);
  for (let i = 0; i < N; i++) {
    const p = diag[i]!;
    if (!(p > 1e-15)) continue;
    for (let c = 0; c < nc; c++) chars[nc - 1 - c] = source[c]! >= 0 && ((i >>> source[c]!) & 1) === 1 ? '1' : '0';
    const k = chars.join('');
    raw[k] = (raw[k] ?? 0) + p;
  }
  let expectation: Expectation | undefined;
  if (options.observables !== undefined && options.observables.length > 0) {
    const terms = options.observables.map((t) => t.coeff * pauliValue(r, n, t.pauli));
    expectation = { value: terms.reduce((a, b) => a + b, 0), terms, kind: 'exact' };
  }
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
    stats: { gates, blocks, trajectories: 1, stateCopies: 0, blockQubits: Math.min(n, BLOCK_QUBITS) },
    ...(keep ? { probabilities: exact } : {}),
    ...(expectation === undefined ? {} : { expectation }),
  };
}
