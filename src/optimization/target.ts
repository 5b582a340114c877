// One device list for analysis, the optimizer's device hint and execution (issue 24): the catalogue's
// EXECUTION_DEVICES, which the device directory serves too.
import { EXECUTION_DEVICES as DEVICES, type DeviceSpec } from '../devices/device-catalogue.js';
import { fail } from '../errors/app-error.js';
import { OPTIMIZATION_ERRORS } from './error-codes.js';
import type { Circuit } from '../circuits/ir.js';
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

/**
 * Conditioned gates are kept exactly as given (a barrier the optimizer never rewrites, see
 * docs/decisions/optimization-conditioned-gate-barrier.md), so they are not translated or routed: on a
 * target with its own gates or coupling, each must already fit it, and a device must run dynamic circuits.
 * Otherwise the answer would claim a translation it did not make: 422 OPTIMIZATION_TARGET_UNSUPPORTED.
 */
export function checkConditionedOnTarget(c: Circuit, target: Target): void {
  const at = c.ops.findIndex((op) => op.kind === 'conditioned');
  if (at < 0 || (target.native === null && target.coupling === null)) return;
  const where = target.device?.id ?? target.hint;
  if (target.device !== undefined && !target.device.supportsDynamicCircuits) {
    throw fail(OPTIMIZATION_ERRORS.OPTIMIZATION_TARGET_UNSUPPORTED, `${where} does not run dynamic circuits (operation ${at} is conditioned on measured bits)`, { device: where, op_index: at });
  }
  c.ops.forEach((op, i) => {
    if (op.kind !== 'conditioned') return;
    const g = op.gate;
    const coupled =
      target.coupling === null ||
      g.qubits.length < 2 ||
      (g.qubits.length === 2 && target.coupling.some(([a, b]) => (a === g.qubits[0] && b === g.qubits[1]) || (a === g.qubits[1] && b === g.qubits[0])));
    if ((target.native !== null && !target.native.has(g.name)) || !coupled) {
      throw fail(
        OPTIMIZATION_ERRORS.OPTIMIZATION_TARGET_UNSUPPORTED,
        `Operation ${i} is a ${g.name} conditioned on measured bits; conditioned gates are kept as given, not translated or routed, and this one does not fit ${where}`,
        { device: where, op_index: i, gate: g.name },
      );
    }
  });
}
