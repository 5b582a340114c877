/**
 * What a provider reports about one of its devices at one moment: status, queue, native
 * gates, coupling and calibration. Each provider adapter maps its own API onto this shape;
 * the device directory caches snapshots in the database and serves them with
 * `source: "provider"`. Emulated devices never get one (their figures are the
 * deployment's own, labelled `source: "deployment"`).
 */
export interface DeviceCalibration {
  /** Mean T1 / T2 over the device's qubits, in microseconds (null when the provider does not say). */
  readonly t1Us: number | null;
  readonly t2Us: number | null;
  /** Mean error rates, as probabilities in [0, 1]. */
  readonly error1q: number | null;
  readonly error2q: number | null;
  readonly readoutError: number | null;
  /**
   * Per physical qubit (index = qubit): [P(read 1 | prepared 0), P(read 0 | prepared 1)], null for
   * a qubit the provider gives no figure for. IBM: `prob_meas1_prep0` and `prob_meas0_prep1` of its
   * properties (`readout_error` for both when those are missing). Readout mitigation uses them
   * (src/execution/mitigation/readout-calibration.ts); optional because IonQ's characterization
   * has no per-qubit figures and snapshots cached before this existed lack it.
   */
  readonly readoutPerQubit?: readonly (readonly [number, number] | null)[];
  /** When the provider measured these figures (ISO 8601). */
  readonly calibratedAt: string;
}

export interface DeviceSnapshot {
  /** The provider's own backend name (e.g. `ibm_fez`, `qpu.forte-1`). */
  readonly backend: string;
  readonly status: 'online' | 'offline' | 'maintenance';
  readonly statusDetail: string | null;
  /** Jobs waiting at the provider (all users), null when not reported. */
  readonly queueLength: number | null;
  readonly numQubits: number;
  readonly nativeGates: readonly string[];
  /** Undirected edges; null = all-to-all. Edges the provider reports faulty are left out. */
  readonly couplingMap: readonly (readonly [number, number])[] | null;
  /**
   * Qubits and pairs the provider reports unusable (IBM: `operational` 0 in the properties, or a
   * basis two-qubit gate with `gate_error` 1), the rule of qiskit-ibm-runtime's `check_faulty`.
   * Routing never uses them; optional because snapshots cached before they existed lack them.
   */
  readonly faultyQubits?: readonly number[];
  readonly faultyEdges?: readonly (readonly [number, number])[];
  /**
   * Every instruction the provider says the backend runs (IBM: `basis_gates` with
   * `supported_instructions`), and whether it runs dynamic circuits (IBM: `if_else` among them).
   * Optional because snapshots cached before they existed, and IonQ's, lack them.
   */
  readonly instructions?: readonly string[];
  readonly supportsDynamicCircuits?: boolean;
  /** The provider's native error mitigation options for this system (IonQ: `supported_error_mitigations` of GET /backends); absent when not reported. */
  readonly supportedMitigations?: readonly string[];
  readonly calibration: DeviceCalibration | null;
  /** When we fetched it (ISO 8601). */
  readonly fetchedAt: string;
}

/** A provider adapter's read side: one call lists every backend it can see. */
export interface DeviceSnapshotSource {
  readonly provider: 'provider-one' | 'provider-two';
  fetchSnapshots(signal?: AbortSignal): Promise<readonly DeviceSnapshot[]>;
}
