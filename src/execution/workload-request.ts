/**
 * The workload fields of a run (`parameter_values`, `result_types`, `observables`): checked
 * against the circuit, every problem with a JSON path and a stable code, and turned into the
 * plain `run_options` stored with the job (a resumed run reads them back from the row) and the
 * simulator's WorkloadSpec.
 */
import { splitsCounts, type Circuit } from '../circuits/ir.js';
import { boundProblems, checkBindings, compileBinder, type BindingProblem } from '../circuits/parameters.js';
import { fail } from '../errors/app-error.js';
import {
  chooseMethod,
  MAX_BOND_DIMENSION_LIMIT,
  MAX_MEMORY_SHOTS,
  MAX_MEMORY_TOTAL,
  MAX_STATEVECTOR_QUBITS,
  METHODS,
  RESULT_TYPES,
  type Method,
  type MethodLimits,
  type MethodOptions,
  type MethodRequest,
  type PauliTerm,
  type ResultType,
  type WorkloadSpec,
} from '../simulation/index.js';
import { EXECUTION_ERRORS } from './error-codes.js';

/** Terms of one observable at most. */
export const MAX_OBSERVABLE_TERMS = 256;

export interface WorkloadFields {
  readonly parameter_values?: readonly Readonly<Record<string, unknown>>[] | undefined;
  readonly result_types?: readonly string[] | undefined;
  readonly observables?: readonly { pauli: string; coeff: number }[] | undefined;
  /** Simulator runs: the simulation method (default auto) and its options. */
  readonly method?: string | undefined;
  readonly method_options?: WireMethodOptions | undefined;
}

/** A request's noise model (`method_options.noise`, density_matrix on the simulator devices): channels after every gate. */
export interface WireNoise {
  readonly depolarizing_1q?: number;
  readonly depolarizing_2q?: number;
  readonly amplitude_damping?: number;
  readonly phase_damping?: number;
  /** [P(read 1 | 0), P(read 0 | 1)] */
  readonly readout_error?: readonly number[];
}

export interface WireMethodOptions {
  readonly max_bond_dimension?: number;
  readonly truncation_threshold?: number;
  readonly noise?: WireNoise;
}

const NOISE_RATES = ['depolarizing_1q', 'depolarizing_2q', 'amplitude_damping', 'phase_damping'] as const;

/** The simulator's options from the wire form. */
export function methodOptionsOf(mo: WireMethodOptions | undefined): MethodOptions {
  const n = mo?.noise;
  return {
    ...(mo?.max_bond_dimension === undefined ? {} : { maxBondDimension: mo.max_bond_dimension }),
    ...(mo?.truncation_threshold === undefined ? {} : { truncationThreshold: mo.truncation_threshold }),
    ...(n === undefined
      ? {}
      : {
          noise: {
            ...(n.depolarizing_1q === undefined ? {} : { depolarizing1q: n.depolarizing_1q }),
            ...(n.depolarizing_2q === undefined ? {} : { depolarizing2q: n.depolarizing_2q }),
            ...(n.amplitude_damping === undefined ? {} : { amplitudeDamping: n.amplitude_damping }),
            ...(n.phase_damping === undefined ? {} : { phaseDamping: n.phase_damping }),
            ...(n.readout_error === undefined ? {} : { readout: [n.readout_error[0] ?? 0, n.readout_error[1] ?? 0] as const }),
          },
        }),
  };
}

/** Problems of a noise model: every rate a probability, readout a pair of them. */
function noiseProblems(n: WireNoise): { path: string; code: string; message: string }[] {
  const out: { path: string; code: string; message: string }[] = [];
  const prob = (v: unknown): boolean => typeof v === 'number' && v >= 0 && v <= 1;
  for (const k of NOISE_RATES) if (n[k] !== undefined && !prob(n[k])) out.push({ path: `/method_options/noise/${k}`, code: 'OUT_OF_RANGE', message: `${k} is a probability in [0, 1]` });
  const ro = n.readout_error;
  if (ro !== undefined && !(Array.isArray(ro) && ro.length === 2 && prob(ro[0]) && prob(ro[1])))
    out.push({ path: '/method_options/noise/readout_error', code: 'OUT_OF_RANGE', message: 'readout_error is [P(read 1 | 0), P(read 0 | 1)], each in [0, 1]' });
  return out;
}

/** Stored with the job (JSON): what the run computes. Null for a plain counts run (the rows of before). */
export interface RunOptions {
  readonly parameters: readonly string[];
  /** Values per point in `parameters` order. */
  readonly points?: readonly (readonly number[])[];
  readonly result_types: readonly ResultType[];
  readonly observables?: readonly PauliTerm[];
  /** The method the run uses (absent on rows from before methods: the state vector), and why `auto` chose it. */
  readonly method?: Method;
  readonly method_reason?: string;
  readonly method_options?: WireMethodOptions;
}

interface Problem {
  readonly path: string;
  readonly code: string;
  readonly message: string;
}

/**
 * The circuit bound at every point (a parameterless circuit without bindings: itself once); 400
 * EXECUTION_PARAMETERS_INVALID listing every problem of every point together — unbound or unknown
 * parameters, values that are not numbers, and every gate angle that is not finite (a `1/theta`
 * at theta = 0 is refused here, not mid-sweep) — bounded by boundProblems.
 */
function bindPoints(c: Circuit, given: WorkloadFields['parameter_values']): { points: Float64Array[]; circuits: Circuit[] } {
  const parameters = c.parameters ?? [];
  const bound = checkBindings(parameters, given);
  if (bound.ok && parameters.length === 0) return { points: bound.points, circuits: [c] };
  const problems: BindingProblem[] = bound.ok ? [] : [...bound.problems];
  const points = bound.points;
  const binder = parameters.length > 0 ? compileBinder(c) : null;
  if (points !== undefined && binder !== null) {
    const bad = bound.ok ? undefined : bound.badPoints;
    points.forEach((vs, k) => {
      // A point with a binding problem has NaN for its missing values: its angles say nothing more.
      if (bad?.has(k) === true) return;
      for (const s of binder.nonFinite(vs)) {
        const name = s.names.length === 1 ? `/${s.names[0]!.replace(/~/g, '~0').replace(/\//g, '~1')}` : '';
        const at = s.names.length === 0 ? '' : ` (${s.names.map((n) => `${n} = ${vs[parameters.indexOf(n)]!}`).join(', ')})`;
        problems.push({ path: `/parameter_values/${k}${name}`, code: 'PARAMETER_VALUE_INVALID', message: `at point ${k}${at} gate ${s.opIndex} parameter ${s.paramIndex} is not a finite number` });
      }
    });
  }
  if (problems.length > 0) {
    throw fail(
      EXECUTION_ERRORS.EXECUTION_PARAMETERS_INVALID,
      `The parameter bindings do not fit the circuit: ${problems[0]!.message}${problems.length > 1 ? ` (and ${problems.length - 1} more)` : ''}`,
      boundProblems(problems),
    );
  }
  return { points: points!, circuits: points!.map((vs) => binder!.bind(vs)) };
}

/** A hardware sweep: one bound circuit per point of `parameter_values`, each run as one task of a held job. */
export function bindSweep(c: Circuit, given: NonNullable<WorkloadFields['parameter_values']>): Circuit[] {
  // A circuit without parameters is refused by checkBindings (PARAMETERS_NOT_DECLARED): given bindings are never ignored.
  return bindPoints(c, given).circuits;
}

/**
 * Checks the workload fields (400 on any problem) and, for a simulator run (`limits` given),
 * resolves the method: the one asked for (checked) or `auto`'s choice. Null for a plain counts
 * run of a one-register circuit without parameters on the state vector, as before methods existed.
 */
export function checkWorkload(c: Circuit, shots: number, f: WorkloadFields, limits?: MethodLimits): RunOptions | null {
  const parameters = c.parameters ?? [];
  const bound = bindPoints(c, f.parameter_values);
  const types = [...new Set((f.result_types ?? ['counts']) as ResultType[])];
  const problems: Problem[] = [];
  types.forEach((t, i) => {
    if (!(RESULT_TYPES as readonly string[]).includes(t))
      problems.push({ path: `/result_types/${i}`, code: 'WRONG_TYPE', message: `unknown result type '${String(t).slice(0, 32)}' (${RESULT_TYPES.join(', ')})` });
  });
  const points = parameters.length > 0 ? bound.points.length : 1;
  if (types.includes('memory') && (shots > MAX_MEMORY_SHOTS || shots * points > MAX_MEMORY_TOTAL)) {
    problems.push({
      path: '/result_types',
      code: 'MEMORY_TOO_LARGE',
      message: `per-shot memory is returned for at most ${MAX_MEMORY_SHOTS} shots per point and ${MAX_MEMORY_TOTAL} bitstrings per run; this run has ${shots} shots × ${points} points`,
    });
  }
  if (types.includes('statevector') && c.numQubits > MAX_STATEVECTOR_QUBITS) {
    problems.push({ path: '/result_types', code: 'STATEVECTOR_TOO_LARGE', message: `the state vector is returned up to ${MAX_STATEVECTOR_QUBITS} qubits; the circuit has ${c.numQubits}` });
  }
  const obs = f.observables;
  if (types.includes('expectation')) {
    if (obs === undefined || obs.length === 0) problems.push({ path: '/observables', code: 'OBSERVABLES_REQUIRED', message: "the 'expectation' result type needs observables: [{pauli, coeff}, …]" });
    obs?.forEach((t, i) => {
      if (typeof t.pauli !== 'string' || t.pauli.length !== c.numQubits || !/^[IXYZ]+$/.test(t.pauli)) {
        problems.push({
          path: `/observables/${i}/pauli`,
          code: 'OBSERVABLE_INVALID',
          message: `a Pauli string has one of I, X, Y, Z per qubit (${c.numQubits} here), the rightmost acting on qubit 0`,
        });
      }
      if (typeof t.coeff !== 'number' || !Number.isFinite(t.coeff)) problems.push({ path: `/observables/${i}/coeff`, code: 'OBSERVABLE_INVALID', message: 'coeff must be a finite number' });
    });
    if (obs !== undefined && obs.length > MAX_OBSERVABLE_TERMS) problems.push({ path: '/observables', code: 'OBSERVABLE_INVALID', message: `at most ${MAX_OBSERVABLE_TERMS} terms` });
  } else if (obs !== undefined) {
    problems.push({ path: '/observables', code: 'OBSERVABLES_WITHOUT_EXPECTATION', message: "observables are used by the 'expectation' result type: add it to result_types" });
  }
  const requested = f.method ?? 'auto';
  if (!(METHODS as readonly string[]).includes(requested))
    problems.push({ path: '/method', code: 'METHOD_UNKNOWN', message: `unknown method '${String(requested).slice(0, 32)}' (${METHODS.join(', ')})` });
  const mo = f.method_options;
  const bond = mo?.max_bond_dimension;
  const threshold = mo?.truncation_threshold;
  if (bond !== undefined && !(Number.isInteger(bond) && bond >= 1 && bond <= MAX_BOND_DIMENSION_LIMIT))
    problems.push({ path: '/method_options/max_bond_dimension', code: 'OUT_OF_RANGE', message: `max_bond_dimension is an integer from 1 to ${MAX_BOND_DIMENSION_LIMIT}` });
  if (threshold !== undefined && !(typeof threshold === 'number' && threshold >= 0 && threshold < 1))
    problems.push({ path: '/method_options/truncation_threshold', code: 'OUT_OF_RANGE', message: 'truncation_threshold is a number in [0, 1)' });
  if ((bond !== undefined || threshold !== undefined) && requested !== 'matrix_product_state' && requested !== 'auto')
    problems.push({ path: '/method_options', code: 'METHOD_OPTIONS_UNUSED', message: "max_bond_dimension and truncation_threshold are options of the 'matrix_product_state' method" });
  if (mo?.noise !== undefined) {
    if (requested !== 'density_matrix')
      problems.push({ path: '/method_options/noise', code: 'METHOD_OPTIONS_UNUSED', message: "a noise model is an option of the 'density_matrix' method (give method: 'density_matrix')" });
    problems.push(...noiseProblems(mo.noise));
  }
  if (problems.length > 0) throw fail(EXECUTION_ERRORS.EXECUTION_RESULT_TYPES_INVALID, `The result types cannot be given for this run: ${problems[0]!.message}`, problems);
  const methodOptions = { ...(bond === undefined ? {} : { maxBondDimension: bond }), ...(threshold === undefined ? {} : { truncationThreshold: threshold }) };
  // The method is chosen on the bound circuits: a sweep is Clifford only when every point is.
  const choices = limits === undefined ? [] : bound.circuits.map((b) => chooseMethod(b, requested as MethodRequest, limits, types, methodOptions));
  const choice = choices.find((x) => x.method !== 'stabilizer') ?? choices[0];
  // Several classical registers need the workload path too: it splits the keys by register.
  const method = choice?.method;
  const plain = parameters.length === 0 && types.length === 1 && types[0] === 'counts' && !splitsCounts(c.registers) && (method === undefined || (method === 'statevector' && f.method === undefined));
  if (plain) return null;
  return {
    parameters,
    ...(parameters.length > 0 ? { points: bound.points.map((p) => Array.from(p)) } : {}),
    result_types: types,
    ...(types.includes('expectation') && obs !== undefined ? { observables: obs.map((t) => ({ pauli: t.pauli, coeff: t.coeff })) } : {}),
    ...(method === undefined ? {} : { method }),
    ...(choice?.reason === undefined ? {} : { method_reason: choice.reason }),
    ...(method === 'matrix_product_state' && mo !== undefined
      ? { method_options: { ...(bond === undefined ? {} : { max_bond_dimension: bond }), ...(threshold === undefined ? {} : { truncation_threshold: threshold }) } }
      : {}),
    ...(method === 'density_matrix' && mo?.noise !== undefined ? { method_options: { noise: mo.noise } } : {}),
  };
}

/** The simulator's spec of stored run options. */
export function workloadSpec(o: RunOptions): WorkloadSpec {
  return {
    resultTypes: o.result_types,
    ...(o.points === undefined ? {} : { points: o.points }),
    ...(o.observables === undefined ? {} : { observables: o.observables }),
    ...(o.method === undefined ? {} : { method: o.method }),
    ...(o.method_reason === undefined ? {} : { methodReason: o.method_reason }),
    ...(o.method_options === undefined ? {} : { methodOptions: methodOptionsOf(o.method_options) }),
  };
}
