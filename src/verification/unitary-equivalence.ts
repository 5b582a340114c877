/**
 * Whole-unitary equivalence up to global phase, for small circuits (≤ 12 qubits by default).
 *
 * W = B†·A is applied to every computational basis column e_j (A's gates, then B's gates
 * inverted in reverse order) and each column must satisfy ‖W e_j − λ e_j‖₂ ≤ ε with one
 * common λ (|λ| = 1). That is exactly "W = λ I up to ε per column", i.e. A = λ B.
 * Cost is 2^n columns × passes × 2^n amplitudes; runs of monomial gates (permutations with
 * phases: x, cx, ccx, swap, t, s, z, rz, cz, …) are fused into one pass, so a Clifford+T
 * circuit costs about one pass per Hadamard. The first mismatching column stops the check.
 */
import type { Circuit, GateOp } from '../circuits/ir.js';
import type { EquivalenceResult, EquivalenceStats } from './equivalence-result.js';
import { dagger, gateMatrix } from './gate-matrices.js';
import { Compiler, type Step } from './unitary-compiler.js';
import { BatchSimulator, ColumnSimulator } from './unitary-simulators.js';

/** Columns simulated together once the state is dense, and the size from which batching pays. */
const BATCH = 8;
const BATCH_MIN_QUBITS = 6;
import { basisLabel, gateShapeProblem, prepareCircuits, trimNote } from './prepare-circuits.js';
import { PROOF_EPS } from './numeric-policy.js';

export interface UnitaryOptions {
  /** Tolerance on ‖W e_j − λ e_j‖₂ per column, and on |λ_j − λ_0|. Default 1e-9. */
  readonly epsilon?: number;
  /** Refuse (answer 'unknown') above this many qubits. Default 12. */
  readonly maxQubits?: number;
  /** Give up with 'unknown' after this long. Default: no limit. */
  readonly timeBudgetMs?: number;
}

export const DEFAULT_EPSILON = PROOF_EPS;
export const DEFAULT_MAX_UNITARY_QUBITS = 12;
function result(equivalent: true | false | 'unknown', checked: string, start: number, extra: { reason?: string; stats?: EquivalenceStats } = {}): EquivalenceResult {
  return { equivalent, method: 'unitary', checked, ...extra, elapsedMs: Date.now() - start };
}

/** Compiles A then B⁻¹; a string is the reason the circuits cannot be compiled. */
function compile(n: number, a: readonly GateOp[], b: readonly GateOp[]): Step[] | string {
  const comp = new Compiler(n);
  for (const [list, inverse] of [
    [a, false],
    [[...b].reverse(), true],
  ] as const) {
    for (const g of list) {
      const shape = gateShapeProblem(g, n);
      if (shape) return shape;
      const m = gateMatrix(g.name, g.params);
      if (!m) return `no matrix for gate ${g.name} with ${g.params.length} parameter(s)`;
      if (m.dim !== 1 << g.qubits.length) return `gate ${g.name} expects ${Math.log2(m.dim)} qubits, got ${g.qubits.length}`;
      comp.add(inverse ? dagger(m) : m, g.qubits);
    }
  }
  return comp.finish();
}

/** Fail closed on internal errors too: an exception becomes 'unknown' with the message. */
export function unitaryEquivalent(a: Circuit, b: Circuit, opts: UnitaryOptions = {}): EquivalenceResult {
  const start = Date.now();
  try {
    return unitaryEquivalentUnguarded(a, b, opts);
  } catch (e) {
    return {
      equivalent: 'unknown',
      method: 'unitary',
      checked: 'nothing (internal error)',
      reason: `internal checker error: ${e instanceof Error ? e.message : String(e)}`,
      elapsedMs: Date.now() - start,
    };
  }
}

function unitaryEquivalentUnguarded(a: Circuit, b: Circuit, opts: UnitaryOptions): EquivalenceResult {
  const start = Date.now();
  const eps = opts.epsilon ?? DEFAULT_EPSILON;
  const maxQubits = opts.maxQubits ?? DEFAULT_MAX_UNITARY_QUBITS;
  const deadline = opts.timeBudgetMs === undefined ? Infinity : start + opts.timeBudgetMs;
  const prep = prepareCircuits(a, b);
  if (prep.kind === 'decided') return result(prep.equivalent, 'circuit structure (qubits, clbits, measurements)', start, { reason: prep.reason });
  const n = prep.numQubits;
  const what = `whole unitary on ${n} qubit(s) up to global phase: ‖B†A·e_j − λ·e_j‖₂ ≤ ${eps} for every basis state j with one common λ` + trimNote(prep);
  if (n > maxQubits) return result('unknown', what, start, { reason: `${n} qubits is above the unitary limit of ${maxQubits}` });
  const steps = compile(n, prep.a, prep.b);
  if (typeof steps === 'string') return result('unknown', what, start, { reason: steps });
  const N = 1 << n;
  const stats = { qubits: n, trimmedPrefix: prep.trimmedPrefix, trimmedSuffix: prep.trimmedSuffix, gatesA: prep.a.length, gatesB: prep.b.length, passesPerColumn: steps.length };
  const sim = new ColumnSimulator(N);
  let lr = 0;
  let li = 0;
  const mismatch = (j: number, dist: number): EquivalenceResult =>
    result(false, what, start, {
      reason: `basis state ${basisLabel(prep, (k) => ((j >> k) & 1) === 1)} (qubit 0 rightmost) is mapped differently: ‖B†A·e_j − λ·e_j‖₂ = ${dist.toExponential(3)} > ${eps}`,
      stats: { ...stats, columnsChecked: j + 1 },
    });
  const timeout = (j: number): EquivalenceResult =>
    result('unknown', what, start, { reason: `time budget of ${opts.timeBudgetMs} ms ran out after ${j} of ${N} columns`, stats: { ...stats, columnsChecked: j } });
  let j = 0;
  // Column by column while columns stay sparse (reversible networks); once one needs full
  // passes, the rest go through the batched dense simulator.
  for (; j < N && !(sim.everDense && j > 0 && n >= BATCH_MIN_QUBITS); j++) {
    if ((j & 63) === 63 && Date.now() >= deadline) return timeout(j);
    sim.start(j);
    sim.run(steps);
    const { vr, vi } = sim;
    if (j === 0) {
      lr = vr[0]!;
      li = vi[0]!;
    }
    let off = 0;
    if (sim.dense) {
      for (let i = 0; i < N; i++) if (i !== j) off += vr[i]! * vr[i]! + vi[i]! * vi[i]!;
    } else {
      for (let t = 0; t < sim.suppLen; t++) {
        const i = sim.supp[t]!;
        if (i !== j) off += vr[i]! * vr[i]! + vi[i]! * vi[i]!;
      }
    }
    const dr = vr[j]! - lr;
    const di = vi[j]! - li;
    const dist = Math.sqrt(off + dr * dr + di * di);
    if (dist > eps) return mismatch(j, dist);
  }
  if (j < N) {
    const batch = new BatchSimulator(N, BATCH);
    const off = new Float64Array(BATCH);
    for (; j < N; j += BATCH) {
      if (Date.now() >= deadline) return timeout(j);
      const count = Math.min(BATCH, N - j);
      batch.start(j, count);
      batch.run(steps);
      const { vr, vi } = batch;
      off.fill(0);
      for (let i = 0; i < N; i++) {
        const s = i * BATCH;
        // the diagonal entry (i = j + b) is compared with λ below, not summed (no cancellation)
        for (let b = 0; b < count; b++) if (i !== j + b) off[b]! += vr[s + b]! * vr[s + b]! + vi[s + b]! * vi[s + b]!;
      }
      for (let b = 0; b < count; b++) {
        const at = (j + b) * BATCH + b;
        const xr = vr[at]!;
        const xi = vi[at]!;
        const dr = xr - lr;
        const di = xi - li;
        const dist = Math.sqrt(off[b]! + dr * dr + di * di);
        if (dist > eps) return mismatch(j + b, dist);
      }
    }
  }
  return result(true, what, start, { stats: { ...stats, columnsChecked: N } });
}
