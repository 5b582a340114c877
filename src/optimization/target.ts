// One device list for analysis, the optimizer's device hint and execution (issue 24): the catalogue's
// EXECUTION_DEVICES, which the device directory serves too.
import { EXECUTION_DEVICES as DEVICES, type DeviceSpec } from '../devices/device-catalogue.js';
import { fail } from '../errors/app-error.js';
import { OPTIMIZATION_ERRORS } from './error-codes.js';
import type { Recorder } from './recorder.js';
import { decomposeMultiQubit, translateGates } from './passes/translate.js';
import { routeOnCoupling } from './passes/route.js';

export type BackendHint = 'generic' | 'provider-one' | 'provider-two';

export interface Target {
  readonly hint: BackendHint;
  readonly device?: DeviceSpec;
  /** Gate names the output may use; `null` = any catalogue gate (generic). */
  readonly native: ReadonlySet<string> | null;
  readonly coupling: readonly (readonly [number, number])[] | null;
  readonly passes: readonly string[];
}

const PROVIDER_GATES: Readonly<Record<Exclude<BackendHint, 'generic'>, readonly string[]>> = {
  'provider-one': ['rz', 'sx', 'x', 'cx'],
  'provider-two': ['rx', 'ry', 'rz', 'cz'],
};

export function resolveTarget(hint: BackendHint, deviceId: string | undefined, numQubits: number): Target {
  if (deviceId === undefined) {
    if (hint === 'generic') return { hint, native: null, coupling: null, passes: [] };
    return { hint, native: new Set(PROVIDER_GATES[hint]), coupling: null, passes: [`translate:${hint}`] };
  }
  const device = DEVICES.find((d) => d.id === deviceId);
  if (!device || (hint !== 'generic' && device.provider !== hint)) {
    const valid = DEVICES.filter((d) => hint === 'generic' || d.provider === hint).map((d) => d.id);
    throw fail(OPTIMIZATION_ERRORS.OPTIMIZATION_DEVICE_UNKNOWN, device ? `Device ${deviceId} belongs to ${device.provider}, not ${hint}` : `No device ${deviceId}`, {
      path: '/device',
      valid_devices: valid,
    });
  }
  if (numQubits > device.numQubits) {
    throw fail(OPTIMIZATION_ERRORS.OPTIMIZATION_TARGET_UNSUPPORTED, `The circuit uses ${numQubits} qubits; ${device.id} has ${device.numQubits}`, {
      device: device.id,
      num_qubits: numQubits,
      device_qubits: device.numQubits,
    });
  }
  const passes = [`translate:${device.id}`];
  if (device.couplingMap) passes.unshift(`route:${device.id}`);
  return { hint: device.provider, device, native: new Set(device.nativeGates), coupling: device.couplingMap, passes };
}

/** Routes onto the coupling map (if any) and translates to the native gate set. */
export function translateToTarget(rec: Recorder, target: Target, numQubits: number): void {
  if (target.coupling) {
    decomposeMultiQubit(rec, target.native ?? new Set());
    routeOnCoupling(rec, target.coupling, numQubits, target.device?.numQubits ?? numQubits);
  }
  if (target.native) translateGates(rec, target.native);
}
