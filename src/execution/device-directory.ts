/**
 * Which devices this deployment can run right now, and why not: provider switches, driver
 * configuration (IonQ needs IONQ_BASE_URL and IONQ_API_KEY; IBM Quantum needs
 * IBM_QUANTUM_API_KEY, IBM_QUANTUM_INSTANCE and a backend in IBM_QUANTUM_BACKENDS), the device
 * status (deployment setting, operator override in the database, or the provider's own report
 * from the snapshot cache), and queue depth. Account-independent; capabilities add the
 * account's side (session, wallet, spend controls, holds).
 *
 * Remote devices take their status, provider queue length, native gates, coupling map and
 * calibration from the provider's latest snapshot (src/devices/snapshot-refresher.ts), labelled
 * `source: "provider"`; without one they show no calibration (never made-up figures). Emulated
 * devices keep the deployment's own calibration, labelled `source: "deployment"`.
 */
import { deviceProfiles, deviceProfile, type DeviceProfile, type DeviceStatus, type ProviderId } from '../devices/device-catalogue.js';
import type { DeviceSnapshot } from '../devices/device-snapshot.js';
import type { DeviceSnapshotStore } from '../devices/snapshot-refresher.js';
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
  /** Remote devices: the provider's latest report (null when none, or not remote). */
  readonly snapshot: DeviceSnapshot | null;
  /** Remote devices: the provider's name of the system it runs on (IBM_QUANTUM_BACKENDS, IONQ_TARGET); null otherwise or unmapped. */
  readonly remoteBackend: string | null;
  /** Remote devices: every system of the provider in its latest report (IonQ: what GET /backends listed; IBM: the mapped backends), sorted by name. */
  readonly providerSystems: readonly DeviceSnapshot[];
  /** Remote devices: the provider could not be asked lately (an outage, not a device the provider says is down). */
  readonly providerUnreachable: boolean;
}

export interface Drivers {
  readonly simulator: DeviceDriver;
  readonly emulated: DeviceDriver;
  /** Remote drivers by provider, present only when configured (IonQ for provider two, IBM Quantum for provider one). */
  readonly remote: Partial<Record<ProviderId, DeviceDriver>>;
}

/** Two-qubit gates the translator targets (src/optimization/passes/translate.ts `cxNative`). */
const TRANSLATABLE_2Q = new Set(['cx', 'cz', 'rxx']);

/** The IonQ systems in the snapshot cache (what GET /backends listed last), sorted. */
const listedIonq = (snaps: ReadonlyMap<string, DeviceSnapshot>): string[] =>
  [...snaps.keys()]
    .filter((k) => k.startsWith('provider-two/'))
    .map((k) => k.slice('provider-two/'.length))
    .sort();

const PROVIDER_NAME: Readonly<Record<ProviderId, string>> = { 'provider-one': 'Provider One', 'provider-two': 'Provider Two' };

export class DeviceDirectory {
  private remoteStatus: { at: number; value: { status: DeviceStatus; detail: string } | null } | undefined;

  constructor(
    private readonly store: Pick<ExecutionStore, 'deviceStatusOverrides' | 'queueDepths'>,
    private readonly settings: ExecutionSettings,
    readonly drivers: Drivers,
    private readonly now: () => number = Date.now,
    /** The snapshot cache (absent: no provider data, remote devices fall back to the driver's live status). */
    private readonly snapshots?: Pick<DeviceSnapshotStore, 'snapshots'>,
  ) {}

  /** The provider's own name of the backend a remote device runs on (null: none configured). */
  remoteBackend(p: DeviceProfile): string | null {
    if (p.driver !== 'remote') return null;
    return p.spec.provider === 'provider-one' ? (this.settings.ibm.backends[p.spec.id] ?? null) : this.settings.ionq.target;
  }

  private providerEnabled(p: ProviderId): boolean {
    return p === 'provider-one' ? this.settings.providerOneEnabled : this.settings.providerTwoEnabled;
  }

  private async liveRemoteStatus(): Promise<{ status: DeviceStatus; detail: string } | null> {
    const remote = this.drivers.remote['provider-two'];
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
    const name = PROVIDER_NAME[p.spec.provider];
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
      case 'remote':
        reasons.push(...(p.spec.provider === 'provider-one' ? this.ibmReasons(p) : this.ionqReasons()));
        return { reasons, driver: this.drivers.remote[p.spec.provider] ?? null };
      case 'unavailable':
        reasons.push({ code: 'provider_not_configured', message: `${name} hardware (${p.spec.id}) has no integration on this deployment; use the ${name} simulator.` });
        return { reasons, driver: null };
    }
  }

  private ionqReasons(): Reason[] {
    const { baseUrl, apiKey } = this.settings.ionq;
    if (baseUrl === undefined) {
      return [
        {
          code: 'provider_not_configured',
          message: `The remote IonQ driver is not configured: set IONQ_BASE_URL (e.g. https://api.ionq.co/v0.4)${apiKey === undefined ? ' and IONQ_API_KEY' : ''}.`,
        },
      ];
    }
    return apiKey === undefined ? [{ code: 'credentials_missing', message: 'IONQ_BASE_URL is set but IONQ_API_KEY is missing.' }] : [];
  }

  private ibmReasons(p: DeviceProfile): Reason[] {
    const { apiKey, instance, backends } = this.settings.ibm;
    const out: Reason[] = [];
    if (apiKey === undefined && instance === undefined) {
      out.push({ code: 'provider_not_configured', message: 'IBM Quantum is not configured: set IBM_QUANTUM_API_KEY and IBM_QUANTUM_INSTANCE (the instance CRN).' });
    } else if (apiKey === undefined) out.push({ code: 'credentials_missing', message: 'IBM_QUANTUM_INSTANCE is set but IBM_QUANTUM_API_KEY is missing.' });
    else if (instance === undefined) out.push({ code: 'credentials_missing', message: 'IBM_QUANTUM_API_KEY is set but IBM_QUANTUM_INSTANCE (the instance CRN) is missing.' });
    if (backends[p.spec.id] === undefined) {
      out.push({ code: 'provider_not_configured', message: `No IBM backend runs ${p.spec.id}: map one in IBM_QUANTUM_BACKENDS (e.g. ${p.spec.id}=ibm_torino).` });
    }
    return out;
  }

  /**
   * A remote device as its provider last reported it. Its instructions (and so reset and dynamic
   * circuits) are the provider's when it reported them. The snapshot's gates and coupling replace
   * the catalogue's only when qrail can translate to them (a backend whose two-qubit basis is not
   * one of the catalogue's gates, like ECR, keeps the catalogue's and cannot run: see
   * docs/decisions/execution-ibm-runtime.md).
   */
  private fromSnapshot(p: DeviceProfile, snap: DeviceSnapshot): { profile: DeviceProfile; reasons: Reason[] } {
    const reasons: Reason[] = [];
    const known = new Set(deviceProfiles().flatMap((x) => (x.spec.kind === 'simulator' ? x.spec.nativeGates : [])));
    const gates = snap.nativeGates.filter((g) => known.has(g));
    const twoQubit = gates.some((g) => TRANSLATABLE_2Q.has(g));
    if (snap.numQubits > 0 && !twoQubit) {
      reasons.push({
        code: 'provider_not_configured',
        message: `${snap.backend}'s basis gates (${snap.nativeGates.join(', ')}) have no two-qubit gate qrail translates to (cx, cz, rxx).`,
      });
    }
    if (snap.numQubits === 0 || !twoQubit) return { profile: p, reasons };
    const spec = Object.freeze({
      ...p.spec,
      numQubits: snap.numQubits,
      nativeGates: Object.freeze(gates),
      couplingMap: snap.couplingMap,
      ...(snap.faultyQubits === undefined || snap.faultyQubits.length === 0 ? {} : { faultyQubits: snap.faultyQubits }),
      ...(snap.faultyEdges === undefined || snap.faultyEdges.length === 0 ? {} : { faultyEdges: snap.faultyEdges }),
      // The provider's own word on what the backend runs, when it gave one (IBM: its configuration).
      ...(snap.instructions === undefined
        ? {}
        : { instructions: Object.freeze([...snap.instructions]), supportsReset: snap.instructions.includes('reset'), supportsDynamicCircuits: snap.supportsDynamicCircuits === true }),
    });
    const perQubit = snap.calibration?.readoutPerQubit;
    const providerReadout = perQubit === undefined ? {} : { providerReadout: { perQubit, calibratedAt: snap.calibration!.calibratedAt } };
    return { profile: { ...p, spec, ...providerReadout }, reasons };
  }

  /** A snapshot older than this means the provider has not answered lately (three refreshes missed). */
  private staleAfterMs(): number {
    return 3 * this.settings.snapshotRefreshMs + 60_000;
  }

  /** A simulator device advertises at most EXECUTION_SIM_MAX_QUBITS, so listing and the run's 4xx agree. */
  private capped(p: DeviceProfile): DeviceProfile {
    const max = this.settings.simMaxQubits;
    return p.spec.kind === 'simulator' && p.spec.numQubits > max ? { ...p, spec: Object.freeze({ ...p.spec, numQubits: max }) } : p;
  }

  async list(provider?: ProviderId): Promise<ResolvedDevice[]> {
    const [overrides, depths, snaps] = await Promise.all([
      this.store.deviceStatusOverrides(),
      this.store.queueDepths(),
      this.snapshots === undefined ? Promise.resolve(new Map<string, DeviceSnapshot>()) : this.snapshots.snapshots().catch(() => new Map<string, DeviceSnapshot>()),
    ]);
    const out: ResolvedDevice[] = [];
    for (const catalogued of deviceProfiles(provider).map((x) => this.capped(x))) {
      let p = catalogued;
      const { reasons, driver } = this.configuration(p);
      const backend = this.remoteBackend(p);
      const snapshot = backend === null ? null : (snaps.get(`${p.spec.provider}/${backend}`) ?? null);
      let status: DeviceStatus = this.settings.deviceStatus[p.spec.id] ?? p.defaultStatus;
      let statusDetail: string | null = this.settings.deviceStatus[p.spec.id] === undefined ? null : 'set by the deployment (EXECUTION_DEVICE_STATUS)';
      const o = overrides.get(p.spec.id);
      if (o !== undefined) {
        status = o.status;
        statusDetail = o.note ?? 'set by an operator';
      }
      let unreachable = false;
      if (snapshot !== null) {
        const s = this.fromSnapshot(p, snapshot);
        p = s.profile;
        reasons.push(...s.reasons);
      }
      if (p.driver === 'remote' && reasons.length === 0 && status === 'online') {
        if (snapshot !== null && this.now() - Date.parse(snapshot.fetchedAt) <= this.staleAfterMs()) {
          status = snapshot.status;
          statusDetail = snapshot.statusDetail;
        } else if (snapshot === null && backend !== null && p.spec.provider === 'provider-two' && listedIonq(snaps).length > 0) {
          // IonQ's latest list lacks the configured target (a retired system, a typo): say which it does list.
          status = 'offline';
          statusDetail = `IonQ does not list ${backend}; it lists ${listedIonq(snaps).join(', ')} (set IONQ_TARGET to one of them)`;
        } else if (snapshot === null && p.spec.provider === 'provider-two' && this.drivers.remote['provider-two']?.liveStatus !== undefined) {
          // IonQ before its first snapshot has arrived: its driver's own probe.
          const live = await this.liveRemoteStatus();
          status = live?.status ?? 'offline';
          statusDetail = live?.detail ?? 'IonQ could not be reached';
          unreachable = live === null;
        } else {
          status = 'offline';
          unreachable = true;
          statusDetail = snapshot === null ? `no report from ${PROVIDER_NAME[p.spec.provider]}'s API yet` : `${PROVIDER_NAME[p.spec.provider]}'s API has not answered since ${snapshot.fetchedAt}`;
        }
      }
      if (status !== 'online') reasons.push({ code: 'device_offline', message: `${p.spec.id} is ${status}${statusDetail === null ? '' : ` (${statusDetail})`}.` });
      out.push({
        profile: p,
        status,
        statusDetail,
        available: reasons.length === 0,
        reasons,
        driver,
        queue: depths.get(p.spec.id) ?? { queued: 0, running: 0 },
        snapshot,
        remoteBackend: backend,
        providerSystems:
          p.driver === 'remote'
            ? [...snaps.entries()]
                .filter(([k]) => k.startsWith(`${p.spec.provider}/`))
                .map(([, v]) => v)
                .sort((a, b) => a.backend.localeCompare(b.backend))
            : [],
        providerUnreachable: unreachable,
      });
    }
    return out;
  }

  async get(deviceId: string): Promise<ResolvedDevice | undefined> {
    const p = deviceProfile(deviceId);
    if (p === undefined) return undefined;
    return (await this.list(p.spec.provider)).find((d) => d.profile.spec.id === deviceId);
  }
}
