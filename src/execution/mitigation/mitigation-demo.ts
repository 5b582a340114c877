/**
 * The measured effect of mitigation on an emulated noisy device (issue #35 item 12), shared by the
 * test (tests/execution/mitigation-emulated.test.ts) and the benchmark (bench/mitigation.ts): a
 * 5-qubit GHZ state run through the real planning, translation and emulated driver.
 */
import { circuit, gate, measure, type Circuit } from '../../circuits/ir.js';
import { deviceProfile } from '../../devices/device-catalogue.js';
import { emulatedDriver } from '../drivers/local-drivers.js';
import { hardwareResultSupport, planHardwareRun } from '../hardware-workload.js';
import { translateForDevice } from '../translate/translate-for-device.js';
import type { MitigationRequest } from './mitigation-request.js';
import { totalVariation } from './readout-mitigation.js';
import { mitigationSupport } from './device-mitigation.js';
import { noiseFromCalibration } from '../../simulation/noise.js';
import { simulateDensityMatrix } from '../../simulation/density-matrix/simulate-density-matrix.js';

export function ghz(n: number, measured: boolean): Circuit {
  const ops = [gate('h', [0]), ...Array.from({ length: n - 1 }, (_, i) => gate('cx', [i, i + 1]))];
  return circuit(n, measured ? n : 0, measured ? [...ops, ...Array.from({ length: n }, (_, q) => measure(q, q))] : ops);
}

/** Runs a plan's tasks on an emulated device through its driver; the driver's result. */
export async function runEmulated(
  deviceId: string,
  c: Circuit,
  shots: number,
  seed: number,
  fields: { result_types?: string[]; observables?: { pauli: string; coeff: number }[]; mitigation?: MitigationRequest },
) {
  const profile = deviceProfile(deviceId);
  if (profile === undefined || profile.driver !== 'emulated') throw new Error(`${deviceId} is not an emulated device`);
  const plan = planHardwareRun(c, shots, fields, hardwareResultSupport('emulated', profile.spec.provider), '', mitigationSupport(profile, null));
  const circuits = plan.tasks.map((t) => translateForDevice(t, profile.spec).circuit);
  const out = await emulatedDriver().submit({
    jobId: 'demo',
    device: profile,
    circuit: circuits[0]!,
    shots,
    seed,
    ...(plan.runOptions === null ? {} : { hardware: { circuits, options: plan.runOptions } }),
  });
  if (out.state !== 'completed') throw new Error(`the emulated run ended ${out.state}`);
  return out.result;
}

export interface MitigationFigures {
  readonly device: string;
  readonly tvd_raw: number;
  readonly tvd_mitigated: number;
  readonly tvd_ratio: number;
  /** TVD to the exact distribution of the same noisy circuit read out perfectly: the error readout mitigation addresses. */
  readonly tvd_readout_raw: number;
  readonly tvd_readout_mitigated: number;
  readonly tvd_readout_ratio: number;
  /** TVD of that gate-noise-only distribution to the ideal: what no readout mitigation can go below. */
  readonly tvd_floor: number;
  readonly xxxxx_raw: number;
  readonly xxxxx_zne: number;
  readonly zne_error_ratio: number;
  readonly zne_stderr: number;
}

/** TVD of the GHZ counts to ½(|00000⟩+|11111⟩) raw and readout-mitigated; |1 − ⟨XXXXX⟩| raw and with ZNE (and readout mitigation). */
export async function measureMitigation(
  deviceId: string,
  shots: number,
  seed: number,
  extrapolation: 'linear' | 'richardson' | 'exponential' = 'richardson',
  parts: { readonly zne?: boolean; readonly readout?: boolean } = {},
): Promise<MitigationFigures> {
  // `readout: false` runs ZNE alone (the raw value per scale); `zne: false` skips the ZNE runs.
  const n = 5;
  const ideal = { ['0'.repeat(n)]: 0.5, ['1'.repeat(n)]: 0.5 };
  const r = await runEmulated(deviceId, ghz(n, true), shots, seed, { mitigation: { readout: true } });
  const raw = Object.fromEntries(Object.entries(r.counts).map(([k, v]) => [k, v / shots]));
  const ro = (r.extra?.['mitigation'] as { readout: { probabilities: Record<string, number> } }).readout;
  const tvdRaw = totalVariation(raw, ideal);
  const tvdMit = totalVariation(ro.probabilities, ideal);
  // The gate noise stays: its exact distribution (density matrix, no readout error) is what a perfect readout inversion can reach.
  const profile = deviceProfile(deviceId)!;
  const translated = translateForDevice(ghz(n, true), profile.spec).circuit;
  const floor = simulateDensityMatrix(translated, { shots: 1, noise: noiseFromCalibration({ ...profile.calibration!, readout_error: 0 }) }).probabilities ?? {};
  const tvdFloorRaw = totalVariation(raw, floor);
  const tvdFloorMit = totalVariation(ro.probabilities, floor);
  const readoutFigures = () => ({
    device: deviceId,
    tvd_raw: tvdRaw,
    tvd_mitigated: tvdMit,
    tvd_ratio: tvdRaw / tvdMit,
    tvd_readout_raw: tvdFloorRaw,
    tvd_readout_mitigated: tvdFloorMit,
    tvd_readout_ratio: tvdFloorRaw / tvdFloorMit,
    tvd_floor: totalVariation(floor, ideal),
  });
  if (parts.zne === false) return { ...readoutFigures(), xxxxx_raw: NaN, xxxxx_zne: NaN, zne_error_ratio: NaN, zne_stderr: NaN };
  const z = await runEmulated(deviceId, ghz(n, false), shots, seed + 1, {
    result_types: ['expectation'],
    observables: [{ pauli: 'X'.repeat(n), coeff: 1 }],
    mitigation: { readout: parts.readout !== false, zne: { scale_factors: [1, 3, 5], extrapolation } },
  });
  const zne = (z.extra?.['mitigation'] as { zne: { value: number; stderr: number; values: { value: number }[] } }).zne;
  const xRaw = (z.extra?.['expectation'] as { value: number }).value;
  return {
    ...readoutFigures(),
    xxxxx_raw: xRaw,
    xxxxx_zne: zne.value,
    zne_error_ratio: Math.abs(1 - xRaw) / Math.abs(1 - zne.value),
    zne_stderr: zne.stderr,
  };
}
