import { defineCode } from '../errors/app-error.js';

/** Error codes owned by the optimization domain. Add each new code here and to docs/errors.md. */
export const OPTIMIZATION_ERRORS = {
  OPTIMIZATION_UNVERIFIED: defineCode(
    'OPTIMIZATION_UNVERIFIED',
    422,
    'The optimized circuit could not be proven equivalent to the input, so it is not returned; `details.reason` says which check failed.',
  ),
  OPTIMIZATION_TARGET_UNSUPPORTED: defineCode(
    'OPTIMIZATION_TARGET_UNSUPPORTED',
    422,
    'The circuit cannot be mapped onto the requested device: it has more qubits than the device (routing borrows device wires when the circuit’s own are not connected), or it has symbolic parameters (bind them first), or it is dynamic and the device does not run dynamic circuits or a conditioned gate (kept as given, never translated) is not native or not coupled there; `details` says which.',
  ),
  OPTIMIZATION_DEVICE_UNKNOWN: defineCode(
    'OPTIMIZATION_DEVICE_UNKNOWN',
    400,
    'No device of the catalogue has that id, or it belongs to another provider than `backend_hint`; `details.valid_devices` lists the ids.',
  ),
} as const;
