/**
 * A simulator run as users ask for it: one circuit, optionally a sweep of parameter bindings,
 * and the result types wanted per point (counts, per-shot memory, exact probabilities, the
 * state vector, expectation values of a Pauli sum). The circuit is parsed, validated and its
 * parameter expressions compiled once (src/circuits/parameters.ts); each point only evaluates
 * them, rebuilds the fused gate plan (its matrices depend on the values) and simulates.
 */
import { splitsCounts, type Circuit, type ClassicalRegister } from '../circuits/ir.js';
import { compileBinder } from '../circuits/parameters.js';
import type { Expectation, PauliTerm } from './observables.js';
import { SeededRng } from './rng.js';
import { runMethod, type Method, type MethodOptions } from './methods.js';
import type { MpsTruncationReport } from './mps/simulate-mps.js';
import type { SimulateOptions, SimulationResult } from './simulate.js';

export const RESULT_TYPES = ['counts', 'memory', 'probabilities', 'statevector', 'expectation'] as const;
export type ResultType = (typeof RESULT_TYPES)[number];

/** Per-shot memory is returned for at most this many shots per point, and this many bitstrings per run. */
export const MAX_MEMORY_SHOTS = 10_000;
export const MAX_MEMORY_TOTAL = 100_000;
/** The state vector is returned up to this many qubits (2^20 amplitudes, ~40 MB of JSON). */
export const MAX_STATEVECTOR_QUBITS = 20;
/** The state vector is returned for at most this many points of a sweep. */
export const MAX_STATEVECTOR_POINTS = 4;

export interface WorkloadSpec {
  readonly resultTypes: readonly ResultType[];
  readonly observables?: readonly PauliTerm[];
  /** Values of the circuit's parameters (declaration order), one array per point; absent: one run. */
  readonly points?: readonly (readonly number[])[];
  /** The simulation method (chosen by the caller, `auto` resolved); absent: the state vector. */
  readonly method?: Method;
  readonly methodOptions?: MethodOptions;
  /** Why `auto` chose the method (reported with the results). */
  readonly methodReason?: string;
}

export interface PointResult {
  readonly seed: number;
  readonly counts: Record<string, number>;
  readonly memory?: string[];
  readonly probabilities?: Record<string, number>;
  readonly probabilitiesKind: SimulationResult['probabilitiesKind'];
  /** Amplitudes as [re, im] pairs, index bit k ↔ qubit k. */
  readonly statevector?: [number, number][];
  readonly expectation?: Expectation;
  readonly notes: readonly string[];
  readonly trajectories: number;
  /** The matrix-product-state method's truncation report. */
  readonly truncation?: MpsTruncationReport;
}

export interface WorkloadResult {
  readonly points: readonly PointResult[];
  readonly timing: { readonly compileMs: number; readonly totalMs: number };
}

/** A clbit string (clbit 0 rightmost) split by register: registers separated by a space, the last declared leftmost (Qiskit). */
export function registerKey(bits: string, registers: readonly ClassicalRegister[] | undefined): string {
  if (!splitsCounts(registers)) return bits;
  const parts: string[] = [];
  let end = bits.length;
  for (const r of registers) {
    parts.push(bits.slice(Math.max(0, end - r.size), end));
    end -= r.size;
  }
  return parts.reverse().join(' ');
}

function rekey<T>(m: Record<string, T>, registers: readonly ClassicalRegister[] | undefined): Record<string, T> {
  if (!splitsCounts(registers)) return m;
  const out: Record<string, T> = {};
  for (const [k, v] of Object.entries(m)) out[registerKey(k, registers)] = v;
  return out;
}

/**
 * Per-shot memory consistent with the counts by construction: the multiset of outcomes in a
 * seeded uniformly random order. Shots of a simulation are independent and identically
 * distributed, so a uniform shuffle of the sampled multiset has the distribution of a sequence
 * of independent shots.
 */
export function memoryFromCounts(counts: Readonly<Record<string, number>>, seed: number): string[] {
  const out: string[] = [];
  for (const k of Object.keys(counts).sort()) for (let i = 0; i < counts[k]!; i++) out.push(k);
  const rng = new SeededRng((seed ^ 0x5bd1e995) >>> 0);
  for (let i = out.length - 1; i > 0; i--) {
    const j = rng.int(i + 1);
    const t = out[i]!;
    out[i] = out[j]!;
    out[j] = t;
  }
  return out;
}

/** Point k's seed: the run's seed plus k, kept within the seed range. */
export const pointSeed = (seed: number, k: number): number => (seed + k) % 2 ** 52;

export function runWorkload(c: Circuit, options: SimulateOptions & { readonly seed: number }, spec: WorkloadSpec): WorkloadResult {
  const t0 = performance.now();
  const types = new Set(spec.resultTypes);
  const binder = c.parameters === undefined ? null : compileBinder(c);
  const points = spec.points ?? [[]];
  const compileMs = performance.now() - t0;
  const out: PointResult[] = [];
  points.forEach((values, k) => {
    const bound = binder === null ? c : binder.bind(Float64Array.from(values));
    const seed = pointSeed(options.seed, k);
    const wantSv = types.has('statevector') && k < MAX_STATEVECTOR_POINTS;
    const onProgress = options.onProgress;
    const r = runMethod(
      bound,
      spec.method ?? 'statevector',
      {
        ...options,
        seed,
        // A sweep's fraction counts its points: point k at fraction f is (k + f) / points.
        ...(onProgress === undefined ? {} : { onProgress: (f: number) => onProgress((k + f) / points.length) }),
        ...(wantSv ? { returnStatevector: true, maxStatevectorQubits: MAX_STATEVECTOR_QUBITS } : {}),
        ...(types.has('expectation') && spec.observables !== undefined ? { observables: spec.observables } : {}),
      },
      spec.methodOptions,
    );
    const notes = [...r.notes];
    if (types.has('statevector') && !wantSv) notes.push(`statevector omitted: it is returned for the first ${MAX_STATEVECTOR_POINTS} points of a sweep only`);
    let statevector: [number, number][] | undefined;
    if (r.statevector !== undefined) statevector = r.statevector.re.map((re, i) => [re, r.statevector!.im[i]!]);
    out.push({
      seed,
      counts: rekey(r.counts, c.registers),
      ...(types.has('memory') ? { memory: memoryFromCounts(r.counts, seed).map((b) => registerKey(b, c.registers)) } : {}),
      ...(r.probabilities === undefined ? {} : { probabilities: rekey(r.probabilities, c.registers) }),
      probabilitiesKind: r.probabilitiesKind,
      ...(statevector === undefined ? {} : { statevector }),
      ...(r.expectation === undefined ? {} : { expectation: r.expectation }),
      notes,
      trajectories: r.stats.trajectories,
      ...(r.truncation === undefined ? {} : { truncation: r.truncation }),
    });
  });
  return { points: out, timing: { compileMs, totalMs: performance.now() - t0 } };
}
