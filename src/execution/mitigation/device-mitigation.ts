/**
 * Which error mitigation a device offers (docs/execution.md#error-mitigation): what a held
 * continuation checks before it takes a task, and what the device listing shows. Pure: no I/O.
 */
import type { DeviceProfile } from '../../devices/device-catalogue.js';
import type { MitigationSupport } from './mitigation-request.js';
import { readoutCalibration } from './readout-calibration.js';

/**
 * `backend`: the provider's name of the system a remote device runs on (IonQ debiases on its QPUs,
 * `qpu.*`, not on its simulator). Hardware only: simulators are exact and take no mitigation.
 */
export function mitigationSupport(p: DeviceProfile, backend: string | null): MitigationSupport {
  return {
    readout: readoutCalibration(p) !== null,
    debiasing: p.driver === 'remote' && p.spec.provider === 'provider-two' && backend !== null && backend.startsWith('qpu.'),
  };
}

/** The device listing's `mitigation`: each option with whether it can be asked now, and why not. */
export function mitigationView(p: DeviceProfile, backend: string | null, expectation: boolean) {
  if (p.spec.kind === 'simulator') return null;
  const s = mitigationSupport(p, backend);
  const cal = readoutCalibration(p);
  return {
    readout: {
      available: s.readout,
      ...(cal === null ? { reason: 'no per-qubit readout figures from this device now' } : { calibration: { source: cal.source, calibrated_at: cal.calibratedAt } }),
    },
    zne: { available: expectation, ...(expectation ? {} : { reason: 'zero-noise extrapolation needs expectation values, which this device does not give' }) },
    debiasing: { available: s.debiasing, ...(s.debiasing ? { applied_by: 'ionq' as const } : { reason: 'IonQ’s own mitigation, on IonQ QPUs only' }) },
  };
}
