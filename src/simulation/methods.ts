/**
 * Simulation methods and the choice among them (docs/simulator.md, "Methods"): `auto` picks the
 * stabilizer method for Clifford-only circuits, the state vector within its limit, a matrix product
 * state when a bound on its bond dimension shows it stays exact, and otherwise refuses naming the
 * method and limit that would take the circuit. `runMethod` runs the chosen one.
 */
import type { Circuit } from '../circuits/ir.js';
import { fail } from '../errors/app-error.js';
import { DENSITY_MATRIX_MAX_QUBITS, simulateDensityMatrix } from './density-matrix/simulate-density-matrix.js';
import { SIMULATION_ERRORS } from './error-codes.js';
import { customNoise, type CustomNoiseSpec } from './noise.js';
import { DEFAULT_MAX_BOND_DIMENSION, MPS_MAX_QUBITS, simulateMps, type MpsTruncationReport } from './mps/simulate-mps.js';
import { simulate, type SimulateOptions, type SimulationResult } from './simulate.js';
import { cliffordPrims } from './stabilizer/clifford-gates.js';
import { simulateStabilizer, STABILIZER_MAX_QUBITS } from './stabilizer/simulate-stabilizer.js';
import { compileStabilizer } from './stabilizer/stabilizer-program.js';

/** The result types of a run (workload.ts's RESULT_TYPES; restated here so this module does not import the workload). */
type ResultType = 'counts' | 'memory' | 'probabilities' | 'statevector' | 'expectation';

export const METHODS = ['auto', 'statevector', 'stabilizer', 'matrix_product_state', 'density_matrix'] as const;
export type MethodRequest = (typeof METHODS)[number];
export type Method = Exclude<MethodRequest, 'auto'>;

export interface MethodOptions {
  readonly maxBondDimension?: number;
  readonly truncationThreshold?: number;
  /** density_matrix: a noise model given with the request (simulator devices; emulated devices bring their own). */
  readonly noise?: CustomNoiseSpec;
}

/** Qubit limit of each method on a deployment (the state vector's is EXECUTION_SIM_MAX_QUBITS). */
export type MethodLimits = Readonly<Record<Method, number>>;

export const defaultMethodLimits = (statevector: number): MethodLimits => ({
  statevector,
  stabilizer: STABILIZER_MAX_QUBITS,
  matrix_product_state: MPS_MAX_QUBITS,
  density_matrix: Math.min(DENSITY_MATRIX_MAX_QUBITS, statevector),
});

/** What each method can return (the table of docs/simulator.md). */
export const METHOD_RESULT_TYPES: Readonly<Record<Method, readonly ResultType[]>> = {
  statevector: ['counts', 'memory', 'probabilities', 'statevector', 'expectation'],
  stabilizer: ['counts', 'memory', 'probabilities', 'expectation'],
  matrix_product_state: ['counts', 'memory', 'probabilities', 'expectation'],
  density_matrix: ['counts', 'memory', 'probabilities', 'expectation'],
};

export interface MethodChoice {
  readonly method: Method;
  /** For `auto`: why this method. */
  readonly reason?: string;
}

/** The first operation that is not Clifford, or -1. */
export function firstNonClifford(c: Circuit): number {
  return c.ops.findIndex((op) =>
    op.kind === 'gate' ? cliffordPrims(op.name, op.qubits, op.params) === null : op.kind === 'conditioned' ? cliffordPrims(op.gate.name, op.gate.qubits, op.gate.params) === null : false,
  );
}

/**
 * log2 of an upper bound on the MPS bond dimension over every cut, without truncation: each
 * two-qubit gate across a cut multiplies it by at most 4 (its operator Schmidt rank), a cut never
 * exceeds 2^min(left, right). Qubits are in index order (the swaps do not change the bound's meaning
 * for gates between distant qubits: every cut in between is crossed). Infinity for gates on 3+ qubits.
 */
export function mpsBondBoundLog2(c: Circuit): number {
  const n = c.numQubits;
  const crossings = new Float64Array(Math.max(0, n - 1));
  for (const op of c.ops) {
    const qs = op.kind === 'gate' ? op.qubits : op.kind === 'conditioned' ? op.gate.qubits : [];
    if (qs.length > 2) return Infinity;
    if (qs.length < 2) continue;
    const lo = Math.min(qs[0]!, qs[1]!);
    const hi = Math.max(qs[0]!, qs[1]!);
    for (let k = lo; k < hi; k++) crossings[k]! += 1;
  }
  let worst = 0;
  crossings.forEach((x, k) => (worst = Math.max(worst, Math.min(2 * x, k + 1, n - k - 1))));
  return worst;
}

const unavailable = (message: string, details: Record<string, unknown>): never => {
  throw fail(SIMULATION_ERRORS.SIMULATION_METHOD_UNAVAILABLE, message, details);
};

/**
 * The method for a run: the one asked for, checked against its limit and the result types, or the
 * `auto` choice with its reason. Throws SIMULATION_METHOD_UNAVAILABLE / SIMULATION_NOT_CLIFFORD /
 * SIMULATION_RESULT_TYPE_UNSUPPORTED (422) when nothing fits.
 */
export function chooseMethod(c: Circuit, requested: MethodRequest, limits: MethodLimits, resultTypes: readonly ResultType[] = ['counts'], options: MethodOptions = {}): MethodChoice {
  const n = c.numQubits;
  const supports = (m: Method): boolean => resultTypes.every((t) => METHOD_RESULT_TYPES[m].includes(t));
  if (requested !== 'auto') {
    const limit = limits[requested];
    if (n > limit) {
      const alt = chooseAuto(c, limits, resultTypes, options, true);
      unavailable(`the circuit has ${n} qubits; the ${requested} method takes at most ${limit} qubits here${alt === null ? '' : ` — ${alt.method} would take it (${alt.reason})`}`, {
        method: requested,
        max_qubits: limit,
        num_qubits: n,
        ...(alt === null ? {} : { suggested_method: alt.method }),
      });
    }
    const bad = resultTypes.findIndex((t) => !METHOD_RESULT_TYPES[requested].includes(t));
    if (bad >= 0) {
      const message = `the ${requested} method does not return '${resultTypes[bad]}' (it returns ${METHOD_RESULT_TYPES[requested].join(', ')})`;
      throw fail(SIMULATION_ERRORS.SIMULATION_RESULT_TYPE_UNSUPPORTED, message, [{ path: '/result_types', code: 'RESULT_TYPE_UNSUPPORTED', message }]);
    }
    if (requested === 'stabilizer') compileStabilizer(c); // refuses a non-Clifford gate with its path
    return { method: requested };
  }
  const choice = chooseAuto(c, limits, resultTypes, options, false);
  if (choice !== null) return choice;
  const nc = firstNonClifford(c);
  const bond = mpsBondBoundLog2(c);
  const parts = [
    `the circuit has ${n} qubits, above the statevector limit of ${limits.statevector}`,
    nc >= 0
      ? `it is not Clifford-only (operation ${nc}), so the stabilizer method (up to ${limits.stabilizer} qubits) cannot run it`
      : `the stabilizer method takes at most ${limits.stabilizer} qubits`,
    bond === Infinity
      ? 'it has gates on three or more qubits, which the matrix_product_state method does not run'
      : `its entanglement bound (bond dimension up to 2^${bond}) is above the exact matrix_product_state limit of ${DEFAULT_MAX_BOND_DIMENSION}; ask for method matrix_product_state with max_bond_dimension to accept truncation (up to ${limits.matrix_product_state} qubits)`,
  ];
  if (!supports('statevector')) parts.push('the result types asked for');
  return unavailable(`No simulation method takes this circuit: ${parts.join('; ')}.`, {
    method: 'auto',
    num_qubits: n,
    limits,
    ...(nc >= 0 ? { non_clifford_operation: nc } : {}),
    ...(bond === Infinity ? {} : { mps_bond_bound_log2: bond }),
  });
}

function chooseAuto(c: Circuit, limits: MethodLimits, resultTypes: readonly ResultType[], options: MethodOptions, fromRefusal: boolean): MethodChoice | null {
  const n = c.numQubits;
  const supports = (m: Method): boolean => resultTypes.every((t) => METHOD_RESULT_TYPES[m].includes(t));
  if (supports('stabilizer') && n <= limits.stabilizer && firstNonClifford(c) < 0)
    return { method: 'stabilizer', reason: 'every gate is Clifford: the stabilizer method is exact and fastest (tableau and Pauli frames)' };
  if (n <= limits.statevector) return { method: 'statevector', reason: `${n} qubits is within the statevector limit of ${limits.statevector}` };
  const bond = mpsBondBoundLog2(c);
  const maxBond = options.maxBondDimension ?? DEFAULT_MAX_BOND_DIMENSION;
  const dynamic = c.ops.some((op) => op.kind === 'conditioned');
  if (!fromRefusal && supports('matrix_product_state') && !dynamic && n <= limits.matrix_product_state && 2 ** bond <= maxBond)
    return {
      method: 'matrix_product_state',
      reason: `above the statevector limit of ${limits.statevector} qubits; the circuit's structure bounds the bond dimension by ${2 ** bond} ≤ ${maxBond}, so the MPS run is exact`,
    };
  if (fromRefusal && n <= limits.matrix_product_state && supports('matrix_product_state') && !dynamic && bond !== Infinity)
    return { method: 'matrix_product_state', reason: `up to ${limits.matrix_product_state} qubits, bond dimension bound 2^${bond}` };
  return null;
}

export type MethodResult = SimulationResult & { readonly method: Method; readonly truncation?: MpsTruncationReport };

/** Runs one point with the chosen method. */
export function runMethod(c: Circuit, method: Method, options: SimulateOptions, methodOptions: MethodOptions = {}): MethodResult {
  const common = {
    shots: options.shots,
    ...(options.seed === undefined ? {} : { seed: options.seed }),
    ...(options.observables === undefined ? {} : { observables: options.observables }),
    ...(options.maxProbabilityEntries === undefined ? {} : { maxProbabilityEntries: options.maxProbabilityEntries }),
    ...(options.timeBudgetMs === undefined ? {} : { timeBudgetMs: options.timeBudgetMs }),
  };
  switch (method) {
    case 'statevector':
      return { ...simulate(c, options), method };
    case 'stabilizer':
      return {
        ...simulateStabilizer(c, { ...common, ...(options.noise === undefined ? {} : { noise: options.noise }), ...(options.onProgress === undefined ? {} : { onProgress: options.onProgress }) }),
        method,
      };
    case 'density_matrix': {
      if (options.noise !== undefined && methodOptions.noise !== undefined)
        unavailable("this device applies its calibrated noise model; a request's noise model runs on the simulator devices", { method });
      const noise = options.noise ?? (methodOptions.noise === undefined ? undefined : customNoise(methodOptions.noise));
      return {
        ...simulateDensityMatrix(c, {
          ...common,
          ...(noise === undefined ? {} : { noise }),
          ...(options.maxMemoryBytes === undefined ? {} : { maxMemoryBytes: options.maxMemoryBytes }),
        }),
        method,
      };
    }
    case 'matrix_product_state':
      if (options.noise !== undefined) unavailable('the matrix_product_state method runs noise-free circuits; use density_matrix or statevector for noise', { method });
      return {
        ...simulateMps(c, {
          ...common,
          ...(methodOptions.maxBondDimension === undefined ? {} : { maxBondDimension: methodOptions.maxBondDimension }),
          ...(methodOptions.truncationThreshold === undefined ? {} : { truncationThreshold: methodOptions.truncationThreshold }),
          ...(options.onProgress === undefined ? {} : { onProgress: options.onProgress }),
        }),
        method,
      };
  }
}
