/**
 * Hardware prices, as Amazon Braket prices QPU use: a fee per task plus a fee per shot.
 * The execution domain owns the device list; until it publishes prices through
 * `HardwarePricing`, billing uses this table (see docs/decisions/billing-hardware-pricing.md).
 */
import { hardwarePriceList } from '../devices/device-catalogue.js';

export interface DevicePrice {
  readonly provider: string;
  readonly device: string;
  readonly perTaskMicros: bigint;
  readonly perShotMicros: bigint;
}

/** Port: where quotes get their prices. */
export interface HardwarePricing {
  priceOf(provider: string, device: string): DevicePrice | null;
  list(): readonly DevicePrice[];
}

// One price list: the device catalogue's pricing (src/devices/device-catalogue.ts,
// `hardwarePriceList`), priced like the Braket counterparts (2024 list prices): $0.30 per
// task; per shot $0.03 for trapped ions (IonQ Aria), $0.0009 for a superconducting grid.
export const DEFAULT_DEVICE_PRICES: readonly DevicePrice[] = Object.freeze(hardwarePriceList());

export function tablePricing(prices: readonly DevicePrice[] = DEFAULT_DEVICE_PRICES): HardwarePricing {
  return {
    priceOf: (provider, device) => prices.find((p) => p.provider === provider && p.device === device) ?? null,
    list: () => prices,
  };
}

/** A hardware device's state as the execution domain reports it, for quotes and holds. */
export interface HardwareDeviceState {
  /** `online`, `offline` or `maintenance`. */
  readonly status: string;
  /** A hold placed now could be continued now (status online and the device configured). */
  readonly available: boolean;
  readonly reasons: ReadonlyArray<{ readonly code: string; readonly message: string }>;
}

/**
 * Port (the execution domain implements it and attaches it with `useDeviceGate`): what a
 * quote shows about the device, and the check a hold passes before any money moves.
 */
export interface HardwareDeviceGate {
  /** null when the device is unknown to execution (the price list decides quotes alone). */
  state(provider: string, device: string): Promise<HardwareDeviceState | null>;
  /** Throws the 409 a continuation would get when the device cannot run now. */
  assertHoldable(provider: string, device: string): Promise<void>;
}

export interface QuoteFigures {
  readonly perTaskMicros: bigint;
  readonly perShotMicros: bigint;
  readonly totalMicros: bigint;
}

/** total = tasks × (per task + shots × per shot). Integer arithmetic only. */
export function quoteTotal(price: DevicePrice, shots: number, tasks: number): QuoteFigures {
  const t = BigInt(tasks);
  const total = t * price.perTaskMicros + t * BigInt(shots) * price.perShotMicros;
  return { perTaskMicros: price.perTaskMicros, perShotMicros: price.perShotMicros, totalMicros: total };
}
