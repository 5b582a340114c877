/**
 * Where a device's per-qubit readout figures come from, for readout mitigation: an emulated
 * device's own calibration (the figures its noise model flips bits with), or a remote device's
 * latest provider report (IBM: `prob_meas1_prep0` / `prob_meas0_prep1` per physical qubit of
 * `/properties`, read by ibm-runtime-snapshots.ts). Pure: no I/O.
 */
import type { Circuit } from '../../circuits/ir.js';
import type { DeviceProfile } from '../../devices/device-catalogue.js';
import { noiseFromCalibration } from '../../simulation/noise.js';
import type { BitConfusion } from './readout-mitigation.js';

export interface ReadoutCalibration {
  /** [P(read 1 | 0), P(read 0 | 1)] of a physical qubit; null when the calibration gives no figure for it. */
  readonly of: (qubit: number) => BitConfusion | null;
  /** `deployment`: an emulated device's calibration; `provider`: the provider's latest report. */
  readonly source: 'deployment' | 'provider';
  readonly calibratedAt: string;
}

/** The device's readout figures, or null when it has none (simulators; a remote device without a report). */
export function readoutCalibration(p: DeviceProfile): ReadoutCalibration | null {
  if (p.driver === 'emulated' && p.calibration !== null) {
    const noise = noiseFromCalibration(p.calibration);
    return { of: (q) => noise.readout(q), source: 'deployment', calibratedAt: p.calibration.calibrated_at };
  }
  const r = p.providerReadout;
  if (p.driver === 'remote' && r !== undefined) return { of: (q) => r.perQubit[q] ?? null, source: 'provider', calibratedAt: r.calibratedAt };
  return null;
}

/**
 * Per clbit of a translated circuit (on physical qubits, after layout and routing): the physical
 * qubit last measured into it and that qubit's confusion. A clbit nothing is measured into reads
 * perfectly (qubit null); `missing` lists measured qubits the calibration has no figure for.
 */
export function clbitReadout(translated: Circuit, cal: ReadoutCalibration): { confusion: BitConfusion[]; qubits: (number | null)[]; missing: number[] } {
  const qubits: (number | null)[] = Array.from({ length: translated.numClbits }, () => null);
  for (const op of translated.ops) if (op.kind === 'measure') qubits[op.clbit] = op.qubit;
  const missing = new Set<number>();
  const confusion = qubits.map((q): BitConfusion => {
    if (q === null) return [0, 0];
    const c = cal.of(q);
    if (c === null) missing.add(q);
    return c ?? [0, 0];
  });
  return { confusion, qubits, missing: [...missing].sort((a, b) => a - b) };
}
