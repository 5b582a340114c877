/**
 * The matrix-product-state method: one- and two-qubit gates on an MPS (mps-state.ts), non-adjacent
 * pairs brought together by swaps, two-site updates split by SVD and truncated by
 * `maxBondDimension` and `truncationThreshold`. Without truncation the run is exact (numerical zeros
 * aside). Measurements must be terminal (resets of untouched qubits are no-ops); conditioned gates
 * and gates on three or more qubits are refused with the method that runs them.
 */
import type { Circuit } from '../../circuits/ir.js';
import { fail } from '../../errors/app-error.js';
import { sampleCounts, tidy } from '../distribution.js';
import { SIMULATION_ERRORS } from '../error-codes.js';
import { gateMatrix, type DenseMatrix } from '../gate-matrices.js';
import { checkInteger, deadlineCheck, DEFAULT_TIME_BUDGET_MS, MAX_SHOTS } from '../limits.js';
import type { Expectation, PauliTerm } from '../observables.js';
import { randomSeed, SeededRng } from '../rng.js';
import type { SimulationResult } from '../simulate.js';
import { runInCommutingOrder } from './commuting-order.js';
import { Mps } from './mps-state.js';

export const MPS_MAX_QUBITS = 1024;
/** Bond dimension when none is given: large enough that `auto` only picks circuits that stay exact. */
export const DEFAULT_MAX_BOND_DIMENSION = 256;
export const MAX_BOND_DIMENSION_LIMIT = 1024;
const MAX_EXACT_CLBITS = 20;
/** Nodes of the exact-probability walk (pruned at zero probability) before it gives up. */
const MAX_WALK_NODES = 1 << 18;

export interface MpsOptions {
  readonly shots: number;
  readonly seed?: number;
  readonly maxBondDimension?: number;
  readonly truncationThreshold?: number;
  readonly observables?: readonly PauliTerm[];
  readonly maxProbabilityEntries?: number;
  readonly timeBudgetMs?: number;
  readonly onProgress?: (fraction: number) => void;
}

export interface MpsTruncationReport {
  /** (1 − D²/2)² with D = Σ √(2 − 2√(1 − w_k)) over the truncations: a rigorous bound, 1 when nothing was discarded. */
  readonly fidelityLowerBound: number;
  /** ∏ (1 − w_k): the usual estimate (exact for one truncation, not a bound in general). */
  readonly fidelityEstimate: number;
  readonly maxBondDimensionReached: number;
  readonly truncations: number;
  readonly discardedWeight: number;
}

export type MpsResult = SimulationResult & { readonly truncation: MpsTruncationReport };

const refuse = (i: number, what: string): never => {
  const message = `operation ${i} is ${what}; the matrix_product_state method cannot run it — use statevector`;
  throw fail(SIMULATION_ERRORS.SIMULATION_METHOD_UNAVAILABLE, message, { method: 'matrix_product_state', operation: i, path: `/circuit/gates/${i}` });
};

export function simulateMps(circuit: Circuit, options: MpsOptions): MpsResult {
  const t0 = performance.now();
  const shots = checkInteger('shots', options.shots, 0, MAX_SHOTS);
  const seed = options.seed === undefined ? randomSeed() : checkInteger('seed', options.seed, 0, Number.MAX_SAFE_INTEGER);
  const maxBond = options.maxBondDimension === undefined ? DEFAULT_MAX_BOND_DIMENSION : checkInteger('max_bond_dimension', options.maxBondDimension, 1, MAX_BOND_DIMENSION_LIMIT);
  const threshold = options.truncationThreshold ?? 0;
  const n = circuit.numQubits;
  if (n > MPS_MAX_QUBITS)
    throw fail(SIMULATION_ERRORS.SIMULATION_METHOD_UNAVAILABLE, `the circuit has ${n} qubits; the matrix_product_state method takes at most ${MPS_MAX_QUBITS}`, {
      method: 'matrix_product_state',
      max_qubits: MPS_MAX_QUBITS,
      num_qubits: n,
    });
  const check = deadlineCheck(options.timeBudgetMs ?? DEFAULT_TIME_BUDGET_MS, t0);
  const mps = new Mps(n, { maxBond, threshold });
  const lastUse = new Int32Array(n).fill(-1);
  const source = new Int32Array(circuit.numClbits).fill(-1);
  circuit.ops.forEach((op, i) => {
    if (op.kind === 'gate') for (const q of op.qubits) lastUse[q] = i;
    if (op.kind === 'conditioned') refuse(i, 'a conditioned gate (a dynamic circuit)');
  });
  const started = new Uint8Array(n);
  // Checked in the given order (so errors name the first offending operation), run afterwards.
  const gateOps: { i: number; qubits: readonly number[]; m: DenseMatrix }[] = [];
  circuit.ops.forEach((op, i) => {
    if (op.kind === 'gate') {
      const m = gateMatrix(op.name, op.params);
      if (m === undefined)
        throw fail(SIMULATION_ERRORS.SIMULATION_UNSUPPORTED_OPERATION, `unknown gate '${op.name}' at operation ${i}`, [{ path: `/ops/${i}`, code: 'UNKNOWN_GATE', message: op.name }]);
      if (op.qubits.length > 2) refuse(i, `a ${op.qubits.length}-qubit gate (${op.name})`);
      gateOps.push({ i, qubits: op.qubits, m });
      for (const q of op.qubits) started[q] = 1;
    } else if (op.kind === 'measure') {
      if (lastUse[op.qubit]! > i) refuse(i, 'a mid-circuit measurement');
      started[op.qubit] = 1;
      source[op.clbit] = op.qubit;
    } else if (op.kind === 'reset' && started[op.qubit] === 1) refuse(i, 'a reset of a qubit in use');
  });
  // Measurements are terminal and resets only of fresh qubits, so the gates form one unitary block.
  const gates = gateOps.length;
  let done = 0;
  runInCommutingOrder(
    n,
    gateOps.map((g) => g.qubits),
    (qs) => mps.moveCost(qs[0]!, qs[1]!),
    (g) => {
      if ((done++ & 63) === 0) {
        check();
        options.onProgress?.(done / gates);
      }
      const { qubits, m } = gateOps[g]!;
      if (qubits.length === 1) mps.apply1(qubits[0]!, m);
      else mps.apply2(qubits[0]!, qubits[1]!, m);
    },
  );
  const t1 = performance.now();
  let expectation: Expectation | undefined;
  if (options.observables !== undefined && options.observables.length > 0) {
    const terms = options.observables.map((t) => {
      const ops = new Map<number, string>();
      for (let k = 0; k < n; k++) {
        const ch = t.pauli[n - 1 - k]!;
        if (ch !== 'I') ops.set(k, ch);
      }
      return t.coeff * mps.pauliExpectation(ops);
    });
    expectation = { value: terms.reduce((a, b) => a + b, 0), terms, kind: 'exact' };
  }
  mps.prepareSampling();
  const nc = circuit.numClbits;
  const keyOf = (bits: Uint8Array): string => {
    let s = '';
    for (let c = nc - 1; c >= 0; c--) s += source[c]! >= 0 && bits[source[c]!] === 1 ? '1' : '0';
    return s;
  };
  // Exact distribution: walk the outcome tree site by site, pruning zero-probability branches.
  const maxEntries = options.maxProbabilityEntries ?? 65536;
  let probabilities: Record<string, number> | undefined;
  if (nc <= MAX_EXACT_CLBITS) {
    const out: Record<string, number> = {};
    let nodes = 0;
    const bits = new Uint8Array(n);
    // Sites whose qubit is measured; past the last one the right-canonical tail is the identity.
    const measuredQubit = new Uint8Array(n);
    for (const q of source) if (q >= 0) measuredQubit[q] = 1;
    let last = -1;
    for (let site = 0; site < n; site++) if (measuredQubit[mps.at[site]!] === 1) last = site;
    const trace = (m: { re: Float64Array }, d: number): number => {
      let t = 0;
      for (let i = 0; i < d; i++) t += m.re[i * d + i]!;
      return t;
    };
    // ρ of the prefix in the bond basis, normalised; unmeasured sites are traced out, measured ones branch.
    const walk = (site: number, rr: Float64Array, ri: Float64Array, p: number): boolean => {
      if (++nodes > MAX_WALK_NODES) return false;
      if (site > last) {
        const k = keyOf(bits);
        out[k] = (out[k] ?? 0) + p;
        return true;
      }
      const r = mps.sites[site]!.r;
      if (measuredQubit[mps.at[site]!] === 0) {
        const t = mps.transferTraced(site, rr, ri);
        return walk(site + 1, t.re, t.im, p);
      }
      const [t0, t1] = mps.transfer(site, rr, ri);
      const ps = [trace(t0, r), trace(t1, r)];
      const tot = ps[0]! + ps[1]!;
      for (const s of [0, 1]) {
        const q = ps[s]! / tot;
        if (!(q > 1e-16)) continue;
        bits[mps.at[site]!] = s;
        const m = s === 0 ? t0 : t1;
        const f = 1 / ps[s]!;
        if (
          !walk(
            site + 1,
            m.re.map((v) => v * f),
            m.im.map((v) => v * f),
            p * q,
          )
        )
          return false;
      }
      return true;
    };
    if (walk(0, Float64Array.of(1), Float64Array.of(0), 1)) {
      const t = tidy(out);
      if (Object.keys(t).length <= maxEntries) probabilities = t;
    }
  }
  const rng = new SeededRng(seed);
  let counts: Record<string, number>;
  if (probabilities !== undefined) counts = sampleCounts(probabilities, shots, rng);
  else {
    const m = new Map<string, number>();
    const bits = new Uint8Array(n);
    for (let shot = 0; shot < shots; shot++) {
      if ((shot & 63) === 0) check();
      let vr = Float64Array.of(1);
      let vi = Float64Array.of(0);
      for (let site = 0; site < n; site++) {
        const [a0r, a0i, a1r, a1i] = mps.step(site, vr, vi);
        const p0 = norm2(a0r, a0i);
        const p1 = norm2(a1r, a1i);
        const s = rng.next() * (p0 + p1) < p0 ? 0 : 1;
        const f = 1 / Math.sqrt(s === 0 ? p0 : p1);
        bits[mps.at[site]!] = s;
        vr = (s === 0 ? a0r : a1r).map((v) => v * f);
        vi = (s === 0 ? a0i : a1i).map((v) => v * f);
      }
      const k = keyOf(bits);
      m.set(k, (m.get(k) ?? 0) + 1);
    }
    counts = {};
    for (const k of [...m.keys()].sort()) counts[k] = m.get(k)!;
  }
  const notes: string[] = [];
  if (mps.truncations > 0)
    notes.push(
      `truncated ${mps.truncations} times (bond dimension ≤ ${maxBond}, threshold ${threshold}): fidelity ≥ ${mps.fidelityLowerBound().toPrecision(6)} (estimate ${mps.fidelity.toPrecision(6)}, the product of kept weights)`,
    );
  let kind: SimulationResult['probabilitiesKind'] = probabilities === undefined ? 'omitted' : 'exact';
  if (probabilities === undefined && shots > 0 && nc <= MAX_EXACT_CLBITS) {
    probabilities = {};
    for (const [k, v] of Object.entries(counts)) probabilities[k] = v / shots;
    kind = 'estimated';
  } else if (probabilities === undefined) notes.push(`probabilities omitted: more than ${MAX_EXACT_CLBITS} measured clbits`);
  const t2 = performance.now();
  return {
    numQubits: n,
    numClbits: nc,
    shots,
    seed,
    counts,
    probabilitiesKind: kind,
    notes,
    timing: { compileMs: 0, runMs: t1 - t0, sampleMs: t2 - t1, totalMs: t2 - t0 },
    stats: { gates, blocks: 0, trajectories: 1, stateCopies: 0, blockQubits: 0 },
    truncation: {
      fidelityLowerBound: mps.fidelityLowerBound(),
      fidelityEstimate: mps.fidelity,
      maxBondDimensionReached: mps.maxBondReached,
      truncations: mps.truncations,
      discardedWeight: mps.discarded,
    },
    ...(probabilities === undefined ? {} : { probabilities }),
    ...(expectation === undefined ? {} : { expectation }),
  };
}

function norm2(re: Float64Array, im: Float64Array): number {
  let s = 0;
  for (let i = 0; i < re.length; i++) s += re[i]! * re[i]! + im[i]! * im[i]!;
  return s;
}
