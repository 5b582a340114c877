/**
 * The execution part of the composition root (`src/composition/services.ts` calls this): settings,
 * drivers (IonQ only when IONQ_BASE_URL and IONQ_API_KEY are set; IBM Quantum only when
 * IBM_QUANTUM_API_KEY and IBM_QUANTUM_INSTANCE are), the providers' device snapshot sources and
 * their refresher, the device directory, the service and its worker (on the one queue), over
 * the stores it is given.
 * Local simulations (simulator and emulated devices, from the API and the worker) run on the
 * app's compute pool.
 */
import { randomInt, randomUUID, createHash } from 'node:crypto';
import type { HardwareDeviceGate } from '../billing/hardware-pricing.js';
import { toWire } from '../circuits/wire-format.js';
import { STABILIZER_MAX_QUBITS } from '../simulation/index.js';
import { hardTimeoutFor, type ComputePool } from '../compute/compute-pool.js';
import type { Config } from '../config/config.js';
import type { Idempotency } from '../idempotency/idempotency.js';
import { IonqDriver } from '../execution/adapters/ionq-driver.js';
import { IbmRuntimeClient } from '../execution/adapters/ibm-runtime-client.js';
import { IbmRuntimeDriver } from '../execution/adapters/ibm-runtime-driver.js';
import { IbmRuntimeSnapshots } from '../execution/adapters/ibm-runtime-snapshots.js';
import { ionqSnapshotSource } from '../execution/adapters/ionq-snapshots.js';
import type { DeviceSnapshotSource } from '../devices/device-snapshot.js';
import { SnapshotRefresher, type DeviceSnapshotStore } from '../devices/snapshot-refresher.js';
import type { DeviceDriver } from '../execution/drivers/driver.js';
import type { ProviderId } from '../devices/device-catalogue.js';
import { DeviceDirectory } from '../execution/device-directory.js';
import { emulatedDriver, simulatorDriver, type LocalSimulator, type LocalWorkload } from '../execution/drivers/local-drivers.js';
import { ExecutionService } from '../execution/execution-service.js';
import { createExecutionWorker, type ExecutionWorker } from '../execution/execution-worker.js';
import type { ExecutionStore } from '../execution/ports.js';
import { executionSettings } from '../execution/settings.js';
import { CancelRequests } from '../queue/cancel-requests.js';
import type { Meter } from '../telemetry/meter.js';
import type { StepLog } from '../queue/queue-worker.js';

export interface ExecutionBillingPort {
  spendControls(accountId: string): Promise<{ hardware_allowed: boolean }>;
  afterDebit(accountId: string): void;
  /** Where billing takes device states from: quotes show them, holds for a device that cannot run are refused. */
  useDeviceGate?(gate: HardwareDeviceGate): void;
}

export interface ExecutionServices {
  readonly execution: ExecutionService;
  readonly executionWorker: ExecutionWorker;
  /** Refreshes the providers' device snapshots (a background worker; tests call `refreshAll`). */
  readonly snapshotRefresher: SnapshotRefresher;
}

/**
 * Circuits reach a driver validated (the API request) or as stored by this service (a translated
 * hardware circuit can outgrow the request limits), as the worker reads them back; the simulator
 * enforces its own qubit cap.
 */
const DRIVER_CIRCUIT_LIMITS = { maxQubits: STABILIZER_MAX_QUBITS, maxGates: 10_000_000, maxDepth: 10_000_000 } as const;

/** The local drivers' simulations as `simulate` tasks of the compute pool (in-process for COMPUTE_THREADS=0). */
export function poolSimulator(compute: ComputePool, timeBudgetMs: number): LocalSimulator {
  const hardTimeoutMs = hardTimeoutFor(timeBudgetMs);
  return (r, signal, onProgress) =>
    compute.run(
      'simulate',
      {
        circuit: toWire(r.circuit),
        limits: DRIVER_CIRCUIT_LIMITS,
        shots: r.shots,
        seed: r.seed,
        ...(r.calibration === undefined ? {} : { calibration: r.calibration }),
        ...(r.maxQubits === undefined ? {} : { maxQubits: r.maxQubits }),
        ...(r.timeBudgetMs === undefined ? {} : { timeBudgetMs: r.timeBudgetMs }),
      },
      { hardTimeoutMs, ...(signal === undefined ? {} : { signal }), ...(onProgress === undefined ? {} : { onProgress }) },
    );
}

/** Workload runs (sweeps, result types) as `simulate.workload` tasks of the compute pool. */
export function poolWorkload(compute: ComputePool, timeBudgetMs: number): LocalWorkload {
  const hardTimeoutMs = hardTimeoutFor(timeBudgetMs);
  return (r, signal, onProgress) =>
    compute.run(
      'simulate.workload',
      {
        circuit: toWire(r.circuit),
        limits: DRIVER_CIRCUIT_LIMITS,
        shots: r.shots,
        seed: r.seed,
        workload: r.workload,
        ...(r.calibration === undefined ? {} : { calibration: r.calibration }),
        ...(r.maxQubits === undefined ? {} : { maxQubits: r.maxQubits }),
        ...(r.timeBudgetMs === undefined ? {} : { timeBudgetMs: r.timeBudgetMs }),
      },
      { hardTimeoutMs, ...(signal === undefined ? {} : { signal }), ...(onProgress === undefined ? {} : { onProgress }) },
    );
}

export function createExecutionServices(
  config: Config,
  store: ExecutionStore,
  deps: {
    billing: ExecutionBillingPort;
    idempotency: Pick<Idempotency, 'lookup'>;
    compute: ComputePool;
    mediaReadiness?: () => Promise<unknown>;
    log?: (e: unknown, jobId?: string) => void;
    logStep?: StepLog;
    meter?: Meter;
    /** The device snapshot cache (migration 1600). */
    snapshots: DeviceSnapshotStore;
  },
): ExecutionServices {
  const settings = executionSettings(config.env);
  // Cancels taken by this process reach its runs at once: the API's simulator runs and the worker's jobs.
  const cancels = new CancelRequests();
  const { baseUrl, apiKey, target, timeoutMs, noiseModel, gateset } = settings.ionq;
  const local = {
    timeBudgetMs: settings.simulatorTimeBudgetMs,
    maxQubits: settings.simMaxQubits,
    simulate: poolSimulator(deps.compute, settings.simulatorTimeBudgetMs),
    workload: poolWorkload(deps.compute, settings.simulatorTimeBudgetMs),
  };
  const remote: Partial<Record<ProviderId, DeviceDriver>> = {};
  // Each provider's read side: wiring another provider's source is one line here.
  const sources: DeviceSnapshotSource[] = [];
  if (baseUrl !== undefined && apiKey !== undefined) remote['provider-two'] = new IonqDriver({ baseUrl, apiKey, target, timeoutMs, noiseModel, gateset });
  const ionqSource = ionqSnapshotSource({ baseUrl, apiKey, timeoutMs });
  if (ionqSource !== null) sources.push(ionqSource);
  const ibm = settings.ibm;
  if (ibm.apiKey !== undefined && ibm.instance !== undefined) {
    const client = new IbmRuntimeClient({ apiKey: ibm.apiKey, instance: ibm.instance, baseUrl: ibm.baseUrl, iamUrl: ibm.iamUrl, timeoutMs: ibm.timeoutMs, apiVersion: ibm.apiVersion });
    remote['provider-one'] = new IbmRuntimeDriver(client, ibm.backends);
    sources.push(new IbmRuntimeSnapshots(client, Object.values(ibm.backends)));
  }
  const directory = new DeviceDirectory(
    store,
    settings,
    { simulator: simulatorDriver(local), emulated: emulatedDriver({ ...local, noise: settings.emulatedNoise }), remote },
    Date.now,
    deps.snapshots,
  );
  const snapshotRefresher = new SnapshotRefresher(sources, deps.snapshots, {
    intervalMs: settings.snapshotRefreshMs,
    maxBackoffMs: settings.snapshotMaxBackoffMs,
    ...(deps.log === undefined ? {} : { onError: (e: unknown) => deps.log?.(e) }),
  });
  const execution = new ExecutionService({
    store,
    idempotency: deps.idempotency,
    settings,
    directory,
    circuitLimits: config.circuitLimits,
    hardwareAllowed: async (accountId) => (await deps.billing.spendControls(accountId)).hardware_allowed,
    afterDebit: (accountId) => deps.billing.afterDebit(accountId),
    ...(deps.mediaReadiness === undefined ? {} : { mediaReadiness: deps.mediaReadiness }),
    hash: (s) => createHash('sha256').update(s).digest('hex'),
    newId: randomUUID,
    // Seeds fit the simulator's range and survive JSON as exact integers.
    randomSeed: () => randomInt(0, 2 ** 47),
    cancels,
  });
  deps.billing.useDeviceGate?.({
    state: (provider, device) => execution.hardwareDeviceState(provider, device),
    assertHoldable: (provider, device) => execution.assertHoldable(provider, device),
  });
  const executionWorker = createExecutionWorker(store, settings, directory, execution, {
    id: `${process.pid}-${randomUUID().slice(0, 8)}`,
    onError: deps.log ?? (() => undefined),
    cancels,
    ...(deps.meter === undefined ? {} : { meter: deps.meter }),
    ...(deps.logStep === undefined ? {} : { logStep: deps.logStep }),
  });
  return { execution, executionWorker, snapshotRefresher };
}
