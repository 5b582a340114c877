/**
 * Which error mitigation a device offers (docs/execution.md#error-mitigation): what a held
 * continuation checks before it takes a task, and what the device listing shows. Pure: no I/O.
 */
import type { DeviceProfile } from '../../devices/device-catalogue.js';
import type { DeviceSnapshot } from '../../devices/device-snapshot.js';
import type { MitigationSupport } from './mitigation-request.js';
import { readoutCalibration } from './readout-calibration.js';

/**
 * `backend`: the provider's name of the system a remote device runs on (IonQ debiases on its QPUs,
 * `qpu.*`, not on its simulator). Hardware only: simulators are exact and take no mitigation.
 */
export function mitigationSupport(p: DeviceProfile, backend: string | null, snapshot?: Pick<DeviceSnapshot, 'supportedMitigations'> | null): MitigationSupport {
  return { readout: readoutCalibration(p) !== null, debiasing: debiasingProblem(p, backend, snapshot) === null };
}

/** Why IonQ's debiasing cannot be asked on this device (null: it can). A system whose report lists its mitigations must list `debiasing`. */
function debiasingProblem(p: DeviceProfile, backend: string | null, snapshot?: Pick<DeviceSnapshot, 'supportedMitigations'> | null): string | null {
  if (p.driver !== 'remote' || p.spec.provider !== 'provider-two' || backend === null || !backend.startsWith('qpu.')) return 'IonQ’s own mitigation, on IonQ QPUs only';
  const listed = snapshot?.supportedMitigations;
  if (listed !== undefined && !listed.includes('debiasing')) return `IonQ does not list debiasing among ${backend}’s error mitigations`;
  return null;
}

/** The device listing's `mitigation`: each option with whether it can be asked now, and why not. */
export function mitigationView(p: DeviceProfile, backend: string | null, expectation: boolean, snapshot?: Pick<DeviceSnapshot, 'supportedMitigations'> | null) {
  if (p.spec.kind === 'simulator') return null;
  const cal = readoutCalibration(p);
  const debiasing = debiasingProblem(p, backend, snapshot);
  return {
    readout: {
      available: cal !== null,
      ...(cal === null ? { reason: 'no per-qubit readout figures from this device now' } : { calibration: { source: cal.source, calibrated_at: cal.calibratedAt } }),
    },
    zne: { available: expectation, ...(expectation ? {} : { reason: 'zero-noise extrapolation needs expectation values, which this device does not give' }) },
    debiasing: { available: debiasing === null, ...(debiasing === null ? { applied_by: 'ionq' as const } : { reason: debiasing }) },
  };
}
