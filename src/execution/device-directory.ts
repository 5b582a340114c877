/**
 * Which devices this deployment can run right now, and why not: provider switches,
 * driver configuration (the remote driver needs IONQ_BASE_URL and IONQ_API_KEY), the
 * device status (deployment setting, operator override in the database, or the remote
 * provider's own report), and queue depth. Account-independent; capabilities add the
 * account's side (session, wallet, spend controls, holds).
 */
import { deviceProfiles, deviceProfile, type DeviceProfile, type DeviceStatus, type ProviderId } from '../devices/device-catalogue.js';
import type { DeviceDriver } from './drivers/driver.js';
import type { ExecutionStore } from './ports.js';
import type { ExecutionSettings } from './settings.js';

export type ReasonCode = 'no_session' | 'provider_not_configured' | 'credentials_missing' | 'device_offline' | 'wallet_not_funded' | 'hardware_disabled_by_spend_controls' | 'quote_hold_required';

export interface Reason {
  readonly code: ReasonCode;
  readonly message: string;
}

export interface ResolvedDevice {
  readonly profile: DeviceProfile;
  readonly status: DeviceStatus;
  readonly statusDetail: string | null;
  /** Runnable on this deployment now (account checks aside). */
  readonly available: boolean;
  readonly reasons: readonly Reason[];
  readonly driver: DeviceDriver | null;
  readonly queue: { readonly queued: number; readonly running: number };
}

export interface Drivers {
  readonly simulator: DeviceDriver;
  readonly emulated: DeviceDriver;
  /** Present only when IONQ_BASE_URL and IONQ_API_KEY are both set. */
  readonly remote: DeviceDriver | undefined;
}

export class DeviceDirectory {
  private remoteStatus: { at: number; value: { status: DeviceStatus; detail: string } | null } | undefined;

  constructor(
    private readonly store: Pick<ExecutionStore, 'deviceStatusOverrides' | 'queueDepths'>,
    private readonly settings: ExecutionSettings,
    readonly drivers: Drivers,
    private readonly now: () => number = Date.now,
  ) {}

  private providerEnabled(p: ProviderId): boolean {
    return p === 'provider-one' ? this.settings.providerOneEnabled : this.settings.providerTwoEnabled;
  }

  private async liveRemoteStatus(): Promise<{ status: DeviceStatus; detail: string } | null> {
    const remote = this.drivers.remote;
    if (remote?.liveStatus === undefined) return null;
    const c = this.remoteStatus;
    if (c !== undefined && this.now() - c.at < this.settings.statusCacheMs) return c.value;
    const value = await remote.liveStatus().catch(() => null);
    this.remoteStatus = { at: this.now(), value };
    return value;
  }

  /** Configuration reasons a device cannot run on this deployment, and its driver. */
  private configuration(p: DeviceProfile): { reasons: Reason[]; driver: DeviceDriver | null } {
    const reasons: Reason[] = [];
    const name = p.spec.provider === 'provider-one' ? 'Provider One' : 'Provider Two';
    if (!this.providerEnabled(p.spec.provider)) {
      const v = p.spec.provider === 'provider-one' ? 'EXECUTION_PROVIDER_ONE' : 'EXECUTION_PROVIDER_TWO';
      reasons.push({ code: 'provider_not_configured', message: `${name} is switched off on this deployment (${v}=off).` });
    }
    switch (p.driver) {
      case 'simulator':
        return { reasons, driver: this.drivers.simulator };
      case 'emulated':
        if (!this.settings.emulatedHardwareEnabled)
          reasons.push({ code: 'provider_not_configured', message: 'Emulated hardware is switched off on this deployment (EXECUTION_EMULATED_HARDWARE=off).' });
        // The emulation simulates every physical qubit of the device.
        else if (p.spec.numQubits > this.settings.simMaxQubits) {
          reasons.push({
            code: 'provider_not_configured',
            message: `Emulating ${p.spec.id} needs ${p.spec.numQubits} simulated qubits; this deployment simulates at most ${this.settings.simMaxQubits} (EXECUTION_SIM_MAX_QUBITS).`,
          });
        }
        return { reasons, driver: this.drivers.emulated };
      case 'remote': {
        const { baseUrl, apiKey } = this.settings.ionq;
        if (baseUrl === undefined) {
          reasons.push({
            code: 'provider_not_configured',
            message: `The remote IonQ driver is not configured: set IONQ_BASE_URL (e.g. https://api.ionq.co/v0.4)${apiKey === undefined ? ' and IONQ_API_KEY' : ''}.`,
          });
        } else if (apiKey === undefined) {
          reasons.push({ code: 'credentials_missing', message: 'IONQ_BASE_URL is set but IONQ_API_KEY is missing.' });
        }
        return { reasons, driver: this.drivers.remote ?? null };
      }
      case 'unavailable':
        reasons.push({ code: 'provider_not_configured', message: `${name} hardware (${p.spec.id}) has no integration on this deployment; use the ${name} simulator.` });
        return { reasons, driver: null };
    }
  }

  /** A simulator device advertises at most EXECUTION_SIM_MAX_QUBITS, so listing and the run's 4xx agree. */
  private capped(p: DeviceProfile): DeviceProfile {
    const max = this.settings.simMaxQubits;
    return p.spec.kind === 'simulator' && p.spec.numQubits > max ? { ...p, spec: Object.freeze({ ...p.spec, numQubits: max }) } : p;
  }

  async list(provider?: ProviderId): Promise<ResolvedDevice[]> {
    const [overrides, depths] = await Promise.all([this.store.deviceStatusOverrides(), this.store.queueDepths()]);
    const out: ResolvedDevice[] = [];
    for (const p of deviceProfiles(provider).map((x) => this.capped(x))) {
      const { reasons, driver } = this.configuration(p);
      let status: DeviceStatus = this.settings.deviceStatus[p.spec.id] ?? p.defaultStatus;
      let statusDetail: string | null = this.settings.deviceStatus[p.spec.id] === undefined ? null : 'set by the deployment (EXECUTION_DEVICE_STATUS)';
      const o = overrides.get(p.spec.id);
      if (o !== undefined) {
        status = o.status;
        statusDetail = o.note ?? 'set by an operator';
      }
      if (p.driver === 'remote' && reasons.length === 0 && status === 'online') {
        const live = await this.liveRemoteStatus();
        status = live?.status ?? 'offline';
        statusDetail = live?.detail ?? 'IonQ could not be reached';
      }
      if (status !== 'online') reasons.push({ code: 'device_offline', message: `${p.spec.id} is ${status}${statusDetail === null ? '' : ` (${statusDetail})`}.` });
      out.push({ profile: p, status, statusDetail, available: reasons.length === 0, reasons, driver, queue: depths.get(p.spec.id) ?? { queued: 0, running: 0 } });
    }
    return out;
  }

  async get(deviceId: string): Promise<ResolvedDevice | undefined> {
    const p = deviceProfile(deviceId);
    if (p === undefined) return undefined;
    return (await this.list(p.spec.provider)).find((d) => d.profile.spec.id === deviceId);
  }
}
