/**
 * The CPU-heavy tasks the compute pool runs, as pure functions of plain data: circuits travel
 * as wire format 0.2 (`toWire` / `parseCircuitInput`), results as plain objects, so the same
 * function runs in a worker thread (structured clone both ways) or in-process (COMPUTE_THREADS=0).
 * No node: imports here; the pool (compute-pool.ts) is the adapter.
 */
import type { Circuit } from '../circuits/ir.js';
import { keptGateCalls, qasmOutput, type CircuitOutputFormat } from '../circuits/qasm/export-qasm.js';
import { parseCircuitInput, toWire, type CircuitLimits, type WireCircuitV02 } from '../circuits/wire-format.js';
import { analyzeCoupling, type CouplingDeps, type CouplingMode, type CouplingReport, type CouplingSettings } from '../coupling/analyze-coupling.js';
import { compareCoupling, type CouplingComparison } from '../coupling/compare-coupling.js';
import { entangledPairs } from '../coupling/entangled-pairs.js';
import type { EntangledPairsResult } from '../circuits/analysis/analyze.js';
import type { CircuitMetrics } from '../optimization/metrics.js';
import { optimizeCircuit, type BackendHint, type ProofMethod, type Profile, type UnsoundRule } from '../optimization/optimize.js';
import {
  finalState,
  noiseFromCalibration,
  runMethod,
  runWorkload,
  type CalibrationRecord,
  type Method,
  type MethodOptions,
  type MethodResult,
  type WorkloadResult,
  type WorkloadSpec,
} from '../simulation/index.js';
import type { CertificateStep } from '../verification/certificate-types.js';

/** What a running task may ask its runner: whether the caller gave up (checked between steps of long work). */
export interface TaskContext {
  readonly cancelled: () => boolean;
  /** Reports how far the task has got (cheap to call often: the thread throttles what it sends). */
  readonly progress?: (fraction: number, phase: string) => void;
  /** Test-only, in-process runs: deliberately unsound rewrites planted in the optimizer to show it fails closed. */
  readonly unsoundRules?: readonly UnsoundRule[];
}

const NEVER: TaskContext = { cancelled: () => false };

/** A circuit already validated by the caller, with the limits it was validated against. */
export interface WireInput {
  readonly circuit: WireCircuitV02;
  readonly limits: CircuitLimits;
}

export interface OptimizeTaskInput extends WireInput {
  readonly profile: Profile;
  readonly backendHint: BackendHint;
  readonly includeSteps: boolean;
  readonly device?: string;
  readonly outputFormat?: CircuitOutputFormat;
  /** False: keep user gate definitions and the calls the optimization left unchanged (output.inline_gates). */
  readonly inlineGates?: boolean;
  /** A shorter budget than the profile's (anonymous callers, see src/http/anonymous-compute.ts). */
  readonly timeBudgetMs?: number;
}

export interface OptimizeTaskOutput {
  readonly circuit: WireCircuitV02;
  readonly qasm?: string;
  /** What the export with inline_gates false could not keep. */
  readonly exportWarnings?: readonly string[];
  readonly metricsBefore: CircuitMetrics;
  readonly metricsAfter: CircuitMetrics;
  readonly passes: readonly string[];
  readonly methods: readonly ProofMethod[];
  readonly certificate: { readonly digest: string; readonly stepCount: number; readonly globalSteps: number; readonly steps?: readonly CertificateStep[] };
  readonly timedOut: boolean;
  readonly notes: readonly string[];
  readonly elapsedMs: number;
}

export interface CouplingTaskInput extends WireInput {
  readonly mode: CouplingMode;
  readonly pairs?: readonly (readonly number[])[] | undefined;
  /** Where `pairs` sits in the caller's request, for COUPLING_PAIR_INVALID paths (default `/pairs`). */
  readonly pairsPath?: string;
  readonly settings: CouplingSettings;
}

/**
 * A seeded simulation (the execution drivers, the `circuit.simulate` job). The noise model is
 * built here from the calibration record: a model holds functions, which cannot cross a thread.
 */
export interface SimulateTaskInput extends WireInput {
  readonly shots: number;
  readonly seed?: number;
  /** A noisy run (emulated hardware): noise from this calibration (src/simulation/noise.ts). */
  readonly calibration?: CalibrationRecord;
  readonly maxQubits?: number;
  readonly timeBudgetMs?: number;
  readonly maxProbabilityEntries?: number;
  /** The simulation method (absent: the state vector) and its options. */
  readonly method?: Method;
  readonly methodOptions?: MethodOptions;
}

/** A workload run (sweep, result types): the circuit may keep symbolic parameters, the points bind them. */
export interface WorkloadTaskInput extends SimulateTaskInput {
  readonly seed: number;
  readonly workload: WorkloadSpec;
}

export interface CompareTaskInput {
  readonly before: WireCircuitV02;
  readonly after: WireCircuitV02;
  readonly limits: CircuitLimits;
  readonly mode: CouplingMode;
  readonly pairs?: readonly (readonly number[])[] | undefined;
  readonly qubitMap?: readonly number[] | undefined;
  readonly tolerance: number;
  readonly settings: CouplingSettings;
}

/** Back to the IR. The caller validated this very circuit, so a failure here is a bug (500), not a 400. */
function fromWire(w: WireCircuitV02, limits: CircuitLimits, allowParameters = false): Circuit {
  const r = parseCircuitInput(w, limits, { allowParameters });
  if (!r.ok) throw new Error(`compute task: a validated circuit did not parse back from wire format (${r.errors[0]?.code ?? 'unknown'} at ${r.errors[0]?.path ?? '?'})`);
  return r.circuit;
}

const couplingDeps: CouplingDeps = { finalState: (c, opts) => finalState(c, { timeBudgetMs: opts.timeBudgetMs }) };

function optimize(input: OptimizeTaskInput, ctx: TaskContext = NEVER): OptimizeTaskOutput {
  // The whole task's progress: parsing, the optimizer's own phases in 2–95 %, exporting the rest.
  const report = ctx.progress;
  report?.(0.01, 'parsing');
  const parsed = fromWire(input.circuit, input.limits);
  const r = optimizeCircuit(parsed, {
    profile: input.profile,
    cancelled: ctx.cancelled,
    ...(report === undefined ? {} : { onProgress: (f: number, phase: string) => report(0.02 + 0.93 * f, phase) }),
    ...(ctx.unsoundRules === undefined ? {} : { unsoundRules: ctx.unsoundRules }),
    ...(input.timeBudgetMs === undefined ? {} : { timeBudgetMs: input.timeBudgetMs }),
    backendHint: input.backendHint,
    includeSteps: input.includeSteps,
    ...(input.device === undefined ? {} : { device: input.device }),
  });
  report?.(0.95, 'exporting');
  const exportWarnings: string[] = [];
  const inlineGates = input.inlineGates !== false;
  const out = keptGateCalls(r.circuit, inlineGates, exportWarnings);
  return {
    circuit: toWire(out),
    ...qasmOutput(out, input.outputFormat, { inlineGates, warnings: exportWarnings }),
    ...(exportWarnings.length === 0 ? {} : { exportWarnings }),
    metricsBefore: r.metricsBefore,
    metricsAfter: r.metricsAfter,
    passes: r.passes,
    methods: r.proof.methods,
    certificate: r.proof.certificate,
    timedOut: r.timedOut,
    notes: r.notes,
    elapsedMs: r.elapsedMs,
  };
}

function analyze(input: CouplingTaskInput): Promise<CouplingReport> {
  return analyzeCoupling(
    fromWire(input.circuit, input.limits),
    { mode: input.mode, pairs: input.pairs, ...(input.pairsPath === undefined ? {} : { pairsPath: input.pairsPath }) },
    input.settings,
    couplingDeps,
  );
}

/** The simulation's progress as the task's, phase `simulating`. */
const simulating = (ctx: TaskContext) => (ctx.progress === undefined ? {} : { onProgress: (f: number) => ctx.progress?.(f, 'simulating') });

function simulateTask(input: SimulateTaskInput, ctx: TaskContext = NEVER): MethodResult {
  return runMethod(
    fromWire(input.circuit, input.limits),
    input.method ?? 'statevector',
    {
      shots: input.shots,
      ...simulating(ctx),
      ...(input.seed === undefined ? {} : { seed: input.seed }),
      ...(input.calibration === undefined ? {} : { noise: noiseFromCalibration(input.calibration) }),
      ...(input.maxQubits === undefined ? {} : { maxQubits: input.maxQubits }),
      ...(input.timeBudgetMs === undefined ? {} : { timeBudgetMs: input.timeBudgetMs }),
      ...(input.maxProbabilityEntries === undefined ? {} : { maxProbabilityEntries: input.maxProbabilityEntries }),
    },
    input.methodOptions,
  );
}

function workloadTask(input: WorkloadTaskInput, ctx: TaskContext = NEVER): WorkloadResult {
  return runWorkload(
    fromWire(input.circuit, input.limits, true),
    {
      shots: input.shots,
      ...simulating(ctx),
      seed: input.seed,
      ...(input.calibration === undefined ? {} : { noise: noiseFromCalibration(input.calibration) }),
      ...(input.maxQubits === undefined ? {} : { maxQubits: input.maxQubits }),
      ...(input.timeBudgetMs === undefined ? {} : { timeBudgetMs: input.timeBudgetMs }),
    },
    input.workload,
  );
}

function compare(input: CompareTaskInput): Promise<CouplingComparison> {
  return compareCoupling(
    fromWire(input.before, input.limits),
    fromWire(input.after, input.limits),
    { mode: input.mode, pairs: input.pairs, qubitMap: input.qubitMap, tolerance: input.tolerance },
    input.settings,
    couplingDeps,
  );
}

export interface EntangledPairsTaskInput extends WireInput {
  readonly timeBudgetMs?: number;
}

/** The entanglement probe of circuit analysis: a simulation, so off the event loop like the others. */
function entangledPairsTask(input: EntangledPairsTaskInput): Promise<EntangledPairsResult> {
  return entangledPairs(fromWire(input.circuit, input.limits), couplingDeps, input.timeBudgetMs);
}

/** Every task by name: what a worker (or the in-process runner) can be asked to run. */
export const COMPUTE_TASKS = {
  optimize,
  'circuit.entangled-pairs': entangledPairsTask,
  'coupling.analyze': analyze,
  'coupling.compare': compare,
  simulate: simulateTask,
  'simulate.workload': workloadTask,
} as const;

export type ComputeTasks = typeof COMPUTE_TASKS;
export type ComputeTaskName = keyof ComputeTasks;
export type TaskInput<K extends ComputeTaskName> = Parameters<ComputeTasks[K]>[0];
export type TaskOutput<K extends ComputeTaskName> = Awaited<ReturnType<ComputeTasks[K]>>;
