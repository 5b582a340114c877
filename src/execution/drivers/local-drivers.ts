/**
 * The two local drivers: the exact simulator (both providers) and emulated hardware, a
 * noisy simulation whose noise model comes from the device's calibration record (T1, T2,
 * gate errors, readout error → src/simulation/noise.ts).
 */
import { noiseFromCalibration, simulate, type SimulateOptions } from '../../simulation/index.js';
import type { DeviceDriver, DriverOutcome, RunInput } from './driver.js';

export interface LocalDriverOptions {
  readonly maxQubits?: number;
  readonly timeBudgetMs?: number;
}

function run(input: RunInput, opts: LocalDriverOptions, noisy: boolean): DriverOutcome {
  const cal = input.device.calibration;
  const o: SimulateOptions = {
    shots: input.shots,
    seed: input.seed,
    ...(noisy && cal !== null ? { noise: noiseFromCalibration(cal) } : {}),
    ...(opts.maxQubits === undefined ? {} : { maxQubits: opts.maxQubits }),
    ...(opts.timeBudgetMs === undefined ? {} : { timeBudgetMs: opts.timeBudgetMs }),
  };
  const r = simulate(input.circuit, o);
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
  return { kind: 'simulator', submit: async (input) => run(input, opts, false) };
}

export function emulatedDriver(opts: LocalDriverOptions = {}): DeviceDriver {
  return { kind: 'emulated', submit: async (input) => run(input, opts, true) };
}
