/**
 * Dynamic circuits (gates conditioned on measured bits) and hardware: a device runs them only when
 * it declares `supportsDynamicCircuits` (docs/decisions/simulation-dynamic-circuits.md). A held
 * continuation is refused in translation, before any task is taken; this check answers the same
 * refusal one step earlier, when a client sends a dynamic circuit to a hardware device's run
 * endpoint, so it learns before it places a hold (money) that the device cannot run it.
 */
import type { Circuit } from '../circuits/ir.js';
import { parseCircuitInput, type CircuitLimits } from '../circuits/wire-format.js';
import type { DeviceSpec } from '../devices/device-catalogue.js';
import { fail } from '../errors/app-error.js';
import { EXECUTION_ERRORS } from './error-codes.js';

/** Index of the first conditioned gate, or −1. */
export const firstConditioned = (c: Circuit): number => c.ops.findIndex((op) => op.kind === 'conditioned');

/**
 * 422 DEVICE_DYNAMIC_CIRCUITS_UNSUPPORTED when `input` is a valid dynamic circuit and the device
 * cannot run one. Anything else passes: an invalid or absent circuit is the continuation's to judge.
 */
export function refuseDynamicBeforeHold(input: unknown, spec: DeviceSpec, limits: CircuitLimits): void {
  if (spec.supportsDynamicCircuits || input === undefined) return;
  const r = parseCircuitInput(input, limits, { allowParameters: true });
  if (!r.ok) return;
  const i = firstConditioned(r.circuit);
  if (i < 0) return;
  throw fail(
    EXECUTION_ERRORS.DEVICE_DYNAMIC_CIRCUITS_UNSUPPORTED,
    `${spec.id} cannot run dynamic circuits (operation ${i} is conditioned on measured bits); run it on a simulator device, or see supports_dynamic_circuits in the device list. No hold is needed.`,
    { device: spec.id, op_index: i },
  );
}
