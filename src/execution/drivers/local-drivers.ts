/**
 * The two local drivers: the exact simulator (both providers) and emulated hardware, a
 * noisy simulation whose noise model comes from the device's calibration record (T1, T2,
 * gate errors, readout error → src/simulation/noise.ts).
 *
 * The simulation itself goes through a port (`LocalSimulator`): the composition root wires
 * the compute pool into it (src/execution/compose.ts), so a run of up to
 * EXECUTION_SIM_TIME_BUDGET_MS does not hold the event loop the HTTP API shares.
 */
import type { Circuit } from '../../circuits/ir.js';
import { memoryFromCounts, noiseFromCalibration, runWorkload, simulate, type CalibrationRecord, type SimulationResult, type WorkloadResult, type WorkloadSpec } from '../../simulation/index.js';
import { hardwareResultJson, taskSeed } from '../hardware-workload.js';
import { readoutCalibration } from '../mitigation/readout-calibration.js';
import { workloadResultJson } from './workload-result.js';
import type { DeviceDriver, DriverOutcome, RunInput, RunProgress } from './driver.js';

/** One seeded run. Plain data only (it may cross a thread): the calibration, not a noise model. */
export interface LocalSimulationRequest {
  readonly circuit: Circuit;
  readonly shots: number;
  readonly seed: number;
  /** Noisy run: the noise model is built from this record. */
  readonly calibration?: CalibrationRecord;
  readonly maxQubits?: number;
  readonly timeBudgetMs?: number;
}

/** Port: runs a simulation; same request → same counts wherever it runs. An aborted `signal` stops it (it rejects). */
export type LocalSimulator = (req: LocalSimulationRequest, signal?: AbortSignal, onProgress?: (p: RunProgress) => void) => Promise<SimulationResult>;

/** Port: a workload run (sweep, result types) of a request; plain data both ways, like LocalSimulator. */
export type LocalWorkload = (req: LocalSimulationRequest & { readonly workload: WorkloadSpec }, signal?: AbortSignal, onProgress?: (p: RunProgress) => void) => Promise<WorkloadResult>;

export const inProcessWorkload: LocalWorkload = async (r) =>
  runWorkload(
    r.circuit,
    {
      shots: r.shots,
      seed: r.seed,
      ...(r.calibration === undefined ? {} : { noise: noiseFromCalibration(r.calibration) }),
      ...(r.maxQubits === undefined ? {} : { maxQubits: r.maxQubits }),
      ...(r.timeBudgetMs === undefined ? {} : { timeBudgetMs: r.timeBudgetMs }),
    },
    r.workload,
  );

/** The simulation on the calling thread (the default; tools and tests that build drivers alone). */
export const inProcessSimulator: LocalSimulator = async (r) =>
  simulate(r.circuit, {
    shots: r.shots,
    seed: r.seed,
    ...(r.calibration === undefined ? {} : { noise: noiseFromCalibration(r.calibration) }),
    ...(r.maxQubits === undefined ? {} : { maxQubits: r.maxQubits }),
    ...(r.timeBudgetMs === undefined ? {} : { timeBudgetMs: r.timeBudgetMs }),
  });

export interface LocalDriverOptions {
  readonly maxQubits?: number;
  readonly timeBudgetMs?: number;
  /** Where the simulation runs (default in-process). */
  readonly simulate?: LocalSimulator;
  /** Where a workload run (sweep, result types) runs (default in-process). */
  readonly workload?: LocalWorkload;
  /** Emulated devices: sample with the calibrated noise model (default) or without noise (EXECUTION_EMULATED_NOISE=off). */
  readonly noise?: boolean;
}

/**
 * A hardware job's tasks (result types on an emulated device): each circuit sampled as its own
 * run with the task's seed; memory is the first task's shots (the sampled multiset in a seeded
 * random order, as on a simulator: the shots are independent).
 */
async function runTasks(input: RunInput, hw: NonNullable<RunInput['hardware']>, opts: LocalDriverOptions, noisy: boolean): Promise<DriverOutcome> {
  const cal = input.device.calibration;
  const counts: Record<string, number>[] = [];
  let trajectories = 0;
  const n = hw.circuits.length;
  for (const [t, circuit] of hw.circuits.entries()) {
    const onProgress = input.onProgress;
    const r = await (opts.simulate ?? inProcessSimulator)(
      {
        circuit,
        shots: input.shots,
        seed: taskSeed(input.seed, t),
        ...(noisy && cal !== null ? { calibration: cal } : {}),
        ...(opts.maxQubits === undefined ? {} : { maxQubits: opts.maxQubits }),
        ...(opts.timeBudgetMs === undefined ? {} : { timeBudgetMs: opts.timeBudgetMs }),
      },
      input.signal,
      onProgress === undefined ? undefined : (p) => onProgress({ fraction: (t + p.fraction) / n, phase: p.phase }),
    );
    counts.push(r.counts);
    trajectories += r.stats.trajectories;
  }
  const memory = hw.options.hardware.plain && hw.options.result_types.includes('memory') ? memoryFromCounts(counts[0] ?? {}, input.seed) : undefined;
  const out = hardwareResultJson(hw.options, counts, memory, { circuits: hw.circuits, readout: readoutCalibration(input.device) });
  return {
    state: 'completed',
    result: {
      counts: out.counts,
      probabilitiesKind: 'omitted',
      notes: out.notes,
      meta: { seed: input.seed, simulator: noisy ? 'noisy state-vector trajectories (calibrated noise model)' : 'exact state-vector', trajectories },
      extra: out.extra,
    },
  };
}

async function run(input: RunInput, opts: LocalDriverOptions, noisy: boolean): Promise<DriverOutcome> {
  if (input.hardware !== undefined) return runTasks(input, input.hardware, opts, noisy);
  const cal = input.device.calibration;
  if (input.workload !== undefined) {
    const w = await (opts.workload ?? inProcessWorkload)(
      {
        circuit: input.circuit,
        shots: input.shots,
        seed: input.seed,
        workload: input.workload,
        ...(noisy && cal !== null ? { calibration: cal } : {}),
        ...(opts.maxQubits === undefined ? {} : { maxQubits: opts.maxQubits }),
        ...(opts.timeBudgetMs === undefined ? {} : { timeBudgetMs: opts.timeBudgetMs }),
      },
      input.signal,
      input.onProgress,
    );
    return { state: 'completed', result: workloadResultJson(input.circuit, input.seed, input.workload, w, noisy) };
  }
  const r = await (opts.simulate ?? inProcessSimulator)(
    {
      circuit: input.circuit,
      shots: input.shots,
      seed: input.seed,
      ...(noisy && cal !== null ? { calibration: cal } : {}),
      ...(opts.maxQubits === undefined ? {} : { maxQubits: opts.maxQubits }),
      ...(opts.timeBudgetMs === undefined ? {} : { timeBudgetMs: opts.timeBudgetMs }),
    },
    input.signal,
    input.onProgress,
  );
  return {
    state: 'completed',
    result: {
      counts: r.counts,
      ...(r.probabilities === undefined ? {} : { probabilities: r.probabilities }),
      probabilitiesKind: r.probabilitiesKind,
      notes: r.notes,
      meta: { seed: r.seed, simulator: noisy ? 'noisy state-vector trajectories (calibrated noise model)' : 'exact state-vector', trajectories: r.stats.trajectories },
    },
  };
}

export function simulatorDriver(opts: LocalDriverOptions = {}): DeviceDriver {
  return { kind: 'simulator', submit: (input) => run(input, opts, false) };
}

export function emulatedDriver(opts: LocalDriverOptions = {}): DeviceDriver {
  return { kind: 'emulated', submit: (input) => run(input, opts, opts.noise ?? true) };
}
