/**
 * The adapter interface every way of running a circuit implements: the built-in simulator,
 * an emulated device (noisy simulation from its calibration) and a remote provider's API.
 * The worker calls `submit` once per job (never again once a remote id is stored) and
 * `poll` for remote jobs until they finish.
 */
import type { Circuit } from '../../circuits/ir.js';
import type { DeviceProfile, DeviceStatus } from '../../devices/device-catalogue.js';
import type { ExecutionFailureCode } from '../error-codes.js';
import type { WorkloadSpec } from '../../simulation/workload.js';
import type { HardwareRunOptions } from '../hardware-workload.js';

export interface RunInput {
  readonly jobId: string;
  readonly device: DeviceProfile;
  /** For hardware: the translated circuit on physical qubits (native gates only). */
  readonly circuit: Circuit;
  readonly shots: number;
  readonly seed: number;
  /** Local drivers: a sweep and/or result types beyond counts (src/simulation/workload.ts); absent for a plain counts run. */
  readonly workload?: WorkloadSpec;
  /**
   * A hardware job with result types (hardware-workload.ts): its tasks' translated circuits, one
   * run each (`circuit` is the first), and what to return. Absent for a plain counts run.
   */
  readonly hardware?: { readonly circuits: readonly Circuit[]; readonly options: HardwareRunOptions };
  /** Aborted when the job's cancel was requested: a local run stops (a remote submission is never cut off mid-request). */
  readonly signal?: AbortSignal;
  /** Local drivers: told how far the run has got while it runs. */
  readonly onProgress?: (p: RunProgress) => void;
}

/** How far a running job has got: a fraction (0–1) and the name of its phase (`simulating`). */
export interface RunProgress {
  readonly fraction: number;
  readonly phase: string;
}

export interface RunResult {
  /** Clbit string (clbit 0 rightmost) → shots. Sums to the shots run. */
  readonly counts: Record<string, number>;
  readonly probabilities?: Record<string, number>;
  readonly probabilitiesKind?: 'exact' | 'estimated' | 'omitted';
  readonly notes?: readonly string[];
  readonly meta?: Record<string, unknown>;
  /** Result fields of a workload run (points of a sweep, memory, statevector, expectation, registers). */
  readonly extra?: Record<string, unknown>;
}

export type DriverOutcome =
  | { readonly state: 'completed'; readonly result: RunResult }
  /** Accepted by a remote provider; poll later with this id. */
  | { readonly state: 'pending'; readonly remoteJobId: string; readonly remoteStatus: string }
  /** A transient problem (5xx, connection refused, 429): nothing was accepted; try again later. */
  | { readonly state: 'retry'; readonly message: string; /** The provider's Retry-After (429/503), as a delay: wait at least this long. */ readonly retryAfterMs?: number }
  | { readonly state: 'failed'; readonly code: ExecutionFailureCode; readonly message: string };

export interface DeviceDriver {
  readonly kind: 'simulator' | 'emulated' | 'remote';
  submit(input: RunInput): Promise<DriverOutcome>;
  /** Remote drivers only: the state of an accepted job. */
  poll?(remoteJobId: string, input: RunInput): Promise<DriverOutcome>;
  /**
   * Remote drivers whose provider can stop an accepted job: asks it to (idempotent; the next poll
   * tells whether it stopped or had finished). False when the provider refused or could not be reached.
   */
  cancel?(remoteJobId: string): Promise<boolean>;
  /**
   * Remote drivers only, for an uncertain submission (a timeout after the request was sent, or a
   * worker that died between marking the submit and storing the id): looks the job up at the
   * provider by the client tag we sent with it (our job id). `unknown` when the provider cannot be
   * asked now (try again later); `absent` means it was never accepted, so resending is safe.
   */
  findSubmitted?(jobId: string, input: RunInput): Promise<{ readonly found: 'present'; readonly remoteJobId: string } | { readonly found: 'absent' } | { readonly found: 'unknown' }>;
  /** Remote drivers only: the provider's own report of the device (null when it cannot be reached). */
  liveStatus?(): Promise<{ status: DeviceStatus; detail: string } | null>;
}
