/**
 * Execution settings from the environment (`app.config.env`). Everything has a default;
 * the remote IonQ driver exists only when both IONQ_BASE_URL and IONQ_API_KEY are set.
 */
import { ConfigError, bool, int, optional as opt, type Env } from '../config/env-parser.js';
import type { DeviceStatus } from '../devices/device-catalogue.js';
import { EXECUTION_DEVICES } from '../devices/device-catalogue.js';

export interface ExecutionSettings {
  readonly providerOneEnabled: boolean;
  readonly providerTwoEnabled: boolean;
  readonly emulatedHardwareEnabled: boolean;
  /** Emulated devices sample with their calibrated noise model (EXECUTION_EMULATED_NOISE, default on); off: noiseless emulation (tests, demos). */
  readonly emulatedNoise: boolean;
  /** Deployment-set device states (EXECUTION_DEVICE_STATUS=p2-grid-9=offline,p2-ion-11=maintenance). */
  readonly deviceStatus: Readonly<Record<string, DeviceStatus>>;
  readonly ionq: {
    readonly baseUrl: string | undefined;
    readonly apiKey: string | undefined;
    readonly target: string;
    readonly timeoutMs: number;
    /** IONQ_NOISE_MODEL: noise for the `simulator` target (e.g. forte-1); unset = IonQ's ideal simulator. */
    readonly noiseModel: string | undefined;
    /** IONQ_GATESET: the gate set jobs are written in (qis: IonQ compiles; native: gpi/gpi2/ms written by qrail). */
    readonly gateset: 'qis' | 'native';
  };
  /** Provider One = IBM Quantum Runtime (src/execution/adapters/ibm-runtime-*.ts). */
  readonly ibm: IbmRuntimeConfig;
  /** How often provider snapshots (status, queue, calibration) are refreshed, and the longest backoff after failures. */
  readonly snapshotRefreshMs: number;
  readonly snapshotMaxBackoffMs: number;
  readonly maxShots: number;
  readonly simulatorTimeBudgetMs: number;
  /**
   * Qubits the local state-vector engine simulates in this process (EXECUTION_SIM_MAX_QUBITS,
   * 1–30, default 28 = the engine's own default; 30 is its hard ceiling). Simulator devices
   * advertise at most this many; emulated hardware larger than it is not available.
   */
  readonly simMaxQubits: number;
  readonly leaseMs: number;
  readonly pollMs: number;
  /** How long a remote job waits between status polls. */
  readonly remotePollMs: number;
  readonly maxAttempts: number;
  /** Transient remote failures tolerated per job before it fails as REMOTE_UNAVAILABLE. */
  readonly remoteMaxFailures: number;
  /** A continued hold's expiry is pushed this far out, so a queued or running job keeps its funds. */
  readonly runWindowSeconds: number;
  /** How long a remote device's reported status is reused. */
  readonly statusCacheMs: number;
}

export interface IbmRuntimeConfig {
  readonly apiKey: string | undefined;
  /** The instance's CRN, sent as the Service-CRN header. */
  readonly instance: string | undefined;
  /** IBM_QUANTUM_BASE_URL, or derived from the CRN's region as qiskit-ibm-runtime does (us-east → quantum.cloud.ibm.com, else {region}.quantum.cloud.ibm.com). */
  readonly baseUrl: string;
  readonly iamUrl: string;
  readonly timeoutMs: number;
  /** IBM_QUANTUM_API_VERSION: the IBM-API-Version header (a date, YYYY-MM-DD). */
  readonly apiVersion: string;
  /** Catalogue device → IBM backend name (IBM_QUANTUM_BACKENDS=p1-falcon-27=ibm_torino,...). */
  readonly backends: Readonly<Record<string, string>>;
}

function httpUrl(env: Env, name: string, def: string): string {
  const raw = opt(env, name) ?? def;
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    throw new ConfigError(name, `must be a URL, got "${raw}"`);
  }
  if (u.protocol !== 'https:' && u.protocol !== 'http:') throw new ConfigError(name, 'must be an http(s) URL');
  return raw;
}

/** The IBM-API-Version qiskit-ibm-runtime sends (0.50, qiskit_ibm_runtime/api/rest/base.py); moved by IBM_QUANTUM_API_VERSION. */
export const IBM_DEFAULT_API_VERSION = '2026-04-15';

/** The CRN's location (its sixth field, `crn:v1:bluemix:public:quantum-computing:<location>:…`), or null. */
export function crnRegion(crn: string | undefined): string | null {
  const parts = crn?.split(':') ?? [];
  return parts.length >= 7 && /^[a-z0-9-]+$/.test(parts[5]!) ? parts[5]! : null;
}

/** IBM Quantum's regional API root for an instance: us-east (and an unreadable CRN) on quantum.cloud.ibm.com, others on {region}.quantum.cloud.ibm.com. */
export function ibmRegionalBaseUrl(crn: string | undefined): string {
  const region = crnRegion(crn);
  return region === null || region === 'us-east' ? 'https://quantum.cloud.ibm.com/api' : `https://${region}.quantum.cloud.ibm.com/api`;
}

function ibmApiVersion(raw: string | undefined): string {
  if (raw === undefined) return IBM_DEFAULT_API_VERSION;
  if (!/^\d{4}-\d{2}-\d{2}$/.test(raw) || Number.isNaN(Date.parse(raw))) throw new ConfigError('IBM_QUANTUM_API_VERSION', `must be a date YYYY-MM-DD (IBM's API version), got "${raw}"`);
  return raw;
}

/** `device=backend` pairs; only provider-one hardware devices of the catalogue can be mapped. */
export function parseIbmBackends(raw: string | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  if (raw === undefined || raw.trim() === '') return out;
  for (const part of raw.split(',')) {
    const [id, backend] = part.split('=').map((x) => x.trim());
    if (id === undefined || backend === undefined || !/^[A-Za-z0-9_.-]{1,64}$/.test(backend)) {
      throw new ConfigError('IBM_QUANTUM_BACKENDS', `entries are device=ibm_backend_name, got "${part}"`);
    }
    const d = EXECUTION_DEVICES.find((x) => x.id === id);
    if (d === undefined || d.provider !== 'provider-one' || d.kind !== 'hardware') throw new ConfigError('IBM_QUANTUM_BACKENDS', `"${id}" is not a Provider One hardware device`);
    out[id] = backend;
  }
  return out;
}

export function parseDeviceStatus(raw: string | undefined): Record<string, DeviceStatus> {
  const out: Record<string, DeviceStatus> = {};
  if (raw === undefined || raw.trim() === '') return out;
  for (const part of raw.split(',')) {
    const [id, st] = part.split('=').map((x) => x.trim());
    if (id === undefined || st === undefined || !['online', 'offline', 'maintenance'].includes(st)) {
      throw new ConfigError('EXECUTION_DEVICE_STATUS', `entries are device=online|offline|maintenance, got "${part}"`);
    }
    if (!EXECUTION_DEVICES.some((d) => d.id === id)) throw new ConfigError('EXECUTION_DEVICE_STATUS', `unknown device "${id}"`);
    out[id] = st as DeviceStatus;
  }
  return out;
}

/** A live system of IonQ's v0.4 document (its JobBackends: simulator, qpu.forte-1, qpu.forte-enterprise-1); Aria is retired there. */
export const IONQ_DEFAULT_TARGET = 'qpu.forte-1';

function ionqGateset(raw: string | undefined): 'qis' | 'native' {
  if (raw === undefined || raw === 'qis' || raw === 'native') return raw ?? 'qis';
  throw new ConfigError('IONQ_GATESET', `must be qis or native, got "${raw}"`);
}

export function executionSettings(env: Env): ExecutionSettings {
  const baseUrl = opt(env, 'IONQ_BASE_URL');
  if (baseUrl !== undefined) {
    let u: URL;
    try {
      u = new URL(baseUrl);
    } catch {
      throw new ConfigError('IONQ_BASE_URL', `must be a URL, got "${baseUrl}"`);
    }
    if (u.protocol !== 'https:' && u.protocol !== 'http:') throw new ConfigError('IONQ_BASE_URL', 'must be an http(s) URL');
    // The driver speaks v0.4 only (v0.3's field names and result URLs differ): a v0.3 URL would fail every job.
    if (/\/v0\.[0-3]\/*$/.test(u.pathname)) throw new ConfigError('IONQ_BASE_URL', `the IonQ driver speaks API v0.4: use https://api.ionq.co/v0.4, got "${baseUrl}"`);
  }
  return {
    providerOneEnabled: bool(env, 'EXECUTION_PROVIDER_ONE', true, 'on/off'),
    providerTwoEnabled: bool(env, 'EXECUTION_PROVIDER_TWO', true, 'on/off'),
    emulatedHardwareEnabled: bool(env, 'EXECUTION_EMULATED_HARDWARE', true, 'on/off'),
    emulatedNoise: bool(env, 'EXECUTION_EMULATED_NOISE', true, 'on/off'),
    deviceStatus: parseDeviceStatus(env['EXECUTION_DEVICE_STATUS']),
    ionq: {
      baseUrl,
      apiKey: opt(env, 'IONQ_API_KEY'),
      target: opt(env, 'IONQ_TARGET') ?? IONQ_DEFAULT_TARGET,
      timeoutMs: int(env, 'IONQ_TIMEOUT_MS', 10_000, 10, 600_000),
      noiseModel: opt(env, 'IONQ_NOISE_MODEL'),
      gateset: ionqGateset(opt(env, 'IONQ_GATESET')),
    },
    ibm: {
      apiKey: opt(env, 'IBM_QUANTUM_API_KEY'),
      instance: opt(env, 'IBM_QUANTUM_INSTANCE'),
      baseUrl: httpUrl(env, 'IBM_QUANTUM_BASE_URL', ibmRegionalBaseUrl(opt(env, 'IBM_QUANTUM_INSTANCE'))),
      iamUrl: httpUrl(env, 'IBM_QUANTUM_IAM_URL', 'https://iam.cloud.ibm.com'),
      timeoutMs: int(env, 'IBM_QUANTUM_TIMEOUT_MS', 15_000, 10, 600_000),
      apiVersion: ibmApiVersion(opt(env, 'IBM_QUANTUM_API_VERSION')),
      backends: parseIbmBackends(env['IBM_QUANTUM_BACKENDS']),
    },
    snapshotRefreshMs: int(env, 'EXECUTION_SNAPSHOT_REFRESH_MS', 300_000, 1_000, 86_400_000),
    snapshotMaxBackoffMs: int(env, 'EXECUTION_SNAPSHOT_MAX_BACKOFF_MS', 3_600_000, 1_000, 86_400_000),
    maxShots: int(env, 'EXECUTION_MAX_SHOTS', 100_000, 1, 1_000_000),
    simulatorTimeBudgetMs: int(env, 'EXECUTION_SIM_TIME_BUDGET_MS', 60_000, 100, 3_600_000),
    // DEFAULT_MAX_QUBITS and HARD_MAX_QUBITS of src/simulation/limits.ts (literals: docs/configuration.md is checked against them).
    simMaxQubits: int(env, 'EXECUTION_SIM_MAX_QUBITS', 28, 1, 30),
    leaseMs: int(env, 'EXECUTION_LEASE_MS', 60_000, 100, 3_600_000),
    pollMs: int(env, 'EXECUTION_POLL_MS', 250, 5, 60_000),
    remotePollMs: int(env, 'EXECUTION_REMOTE_POLL_MS', 5_000, 1, 3_600_000),
    maxAttempts: int(env, 'EXECUTION_MAX_ATTEMPTS', 3, 1, 100),
    remoteMaxFailures: int(env, 'EXECUTION_REMOTE_MAX_FAILURES', 5, 0, 1000),
    runWindowSeconds: int(env, 'EXECUTION_RUN_WINDOW_SECONDS', 7 * 86_400, 60, 90 * 86_400),
    statusCacheMs: int(env, 'EXECUTION_STATUS_CACHE_MS', 30_000, 0, 3_600_000),
  };
}
