import { defineCode } from '../errors/app-error.js';
import { codeNames } from '../errors/code-names.js';

/** Error codes owned by the execution domain. Add each new code here and to docs/errors.md. */
export const EXECUTION_ERRORS = {
  EXECUTION_DEVICE_UNKNOWN: defineCode('EXECUTION_DEVICE_UNKNOWN', 404, 'No such device on this provider; `details.devices` lists the known ids (GET /v1/execute/provider-two/devices).'),
  EXECUTION_PROVIDER_NOT_CONFIGURED: defineCode(
    'EXECUTION_PROVIDER_NOT_CONFIGURED',
    409,
    'The provider, or this device of it, is not configured or is switched off on this deployment (or is an emulated device larger than `EXECUTION_SIM_MAX_QUBITS`); `details.reasons` says what is missing. Answers runs, continuations and hardware holds. See GET /v1/execute/capabilities.',
  ),
  EXECUTION_DEVICE_UNAVAILABLE: defineCode(
    'EXECUTION_DEVICE_UNAVAILABLE',
    409,
    'The device is offline or in maintenance; `details.status` gives its state. Answers a continuation and a hardware hold (no hold is placed for such a device; nothing is reserved); a held job placed before keeps its funds until released or expired.',
  ),
  EXECUTION_HOLD_REQUIRED: defineCode(
    'EXECUTION_HOLD_REQUIRED',
    409,
    'Hardware runs need a quote and a hold first: POST /v1/billing/hardware/quote, POST /v1/billing/hardware/hold, then POST /v1/execute/{provider}/held/{job_id}; `details` gives the estimate and the steps.',
  ),
  EXECUTION_PARAMETERS_INVALID: defineCode(
    'EXECUTION_PARAMETERS_INVALID',
    400,
    'The parameter bindings do not fit the circuit; `details` lists every problem as `{path, code, message}`: PARAMETER_UNBOUND (a declared parameter a point leaves without a value, or no parameter_values at all), PARAMETER_UNKNOWN (a name the circuit does not declare), PARAMETER_VALUE_INVALID (not a finite number, or a gate angle that is not finite at that point), PARAMETERS_NOT_DECLARED, TOO_MANY_POINTS, SWEEP_FORM_INVALID (a held batch takes `circuits`, or `circuit` with `parameter_values`).',
  ),
  EXECUTION_RESULT_TYPES_INVALID: defineCode(
    'EXECUTION_RESULT_TYPES_INVALID',
    400,
    'The requested result types cannot be given for this run; `details` lists every problem as `{path, code, message}`: OBSERVABLES_REQUIRED, OBSERVABLE_INVALID (a Pauli string needs one of I, X, Y, Z per qubit, rightmost = qubit 0), STATEVECTOR_TOO_LARGE (more than 20 qubits), MEMORY_TOO_LARGE (more than 10000 shots per point or 100000 bitstrings per run), OBSERVABLES_WITHOUT_EXPECTATION.',
  ),
  EXECUTION_RESULT_TYPE_UNSUPPORTED: defineCode(
    'EXECUTION_RESULT_TYPE_UNSUPPORTED',
    422,
    'A result type this hardware device cannot give; `details` lists each as `{path, code: RESULT_TYPE_UNSUPPORTED, message}` (path `/result_types/{i}`): probabilities and statevector (simulator only), memory and expectation on IonQ devices (its API returns histograms; the driver sends one circuit per job), expectation of a circuit with mid-circuit measurement, reset or conditioned gates. Refused before anything is held or taken (docs/decisions/execution-hardware-results.md).',
  ),
  EXECUTION_MITIGATION_INVALID: defineCode(
    'EXECUTION_MITIGATION_INVALID',
    400,
    'The `mitigation` of a hardware continuation or quote cannot be done as asked; `details` lists every problem as `{path, code, message}`: ZNE_NEEDS_EXPECTATION (zero-noise extrapolation without result_types ["expectation"] and observables), SCALE_FACTORS_INVALID (not 2 to 5 distinct odd integers from 1 to 9 in increasing order starting at 1), EXTRAPOLATION_UNDERDETERMINED (fewer than 2 scale factors), NATIVE_NOT_COMBINABLE (IonQ’s `debiasing` asked with `readout` or `zne`: it is asked alone). Refused before anything is held or taken (docs/execution.md#error-mitigation).',
  ),
  EXECUTION_MITIGATION_UNSUPPORTED: defineCode(
    'EXECUTION_MITIGATION_UNSUPPORTED',
    422,
    'The mitigation asked for cannot be done on this device or circuit; `details` lists each as `{path, code, message}`: NO_CALIBRATION (readout mitigation needs per-qubit readout errors, which this device does not report now), GATE_NOT_FOLDABLE (unitary folding needs each gate inverse as one gate: csx, rccx, rc3x and c3sqrtx have none), DEBIASING_UNSUPPORTED (`debiasing` is IonQ’s own, on IonQ QPUs only), DEBIASING_TOO_FEW_SHOTS (IonQ debiases runs of 500 shots or more). Refused before any task is taken (docs/execution.md#error-mitigation).',
  ),
  EXECUTION_SWEEP_NOT_SUPPORTED: defineCode(
    'EXECUTION_SWEEP_NOT_SUPPORTED',
    409,
    'A hardware run takes no parameter_values, observables or result types other than counts: a hardware sweep is one task per point of a held job — continue a hold for N tasks with `circuit` and `parameter_values` at POST /v1/execute/provider-two/held/{job_id}/batch; memory and expectation on hardware are asked for when continuing the held job (docs/decisions/execution-hardware-results.md).',
  ),
  EXECUTION_HELD_JOB_NOT_FOUND: defineCode('EXECUTION_HELD_JOB_NOT_FOUND', 404, 'No held job or execution job with this id for this account.'),
  EXECUTION_HELD_JOB_NOT_CONTINUABLE: defineCode(
    'EXECUTION_HELD_JOB_NOT_CONTINUABLE',
    409,
    'The held job cannot be continued: it was already continued, released or expired; `details.status` says which.',
  ),
  EXECUTION_HELD_TASKS_EXCEEDED: defineCode(
    'EXECUTION_HELD_TASKS_EXCEEDED',
    409,
    'The continuation asks for more tasks than the held job has left (a hold for `tasks: N` runs at most N circuits in all); `details` gives `tasks`, `tasks_used`, `tasks_remaining` and `requested`. Nothing was taken.',
  ),
  EXECUTION_CLIENT_TOKEN_REUSED: defineCode(
    'EXECUTION_CLIENT_TOKEN_REUSED',
    409,
    'This client_token was already used for a different request (another circuit, device, shots or held job); `details.job_id` names the original job.',
  ),
  EXECUTION_CLIENT_TOKEN_IN_PROGRESS: defineCode(
    'EXECUTION_CLIENT_TOKEN_IN_PROGRESS',
    409,
    'A request with this client_token is still being processed; retry the same request shortly to get its result.',
  ),
  EXECUTION_TOO_MANY_OPEN: defineCode(
    'EXECUTION_TOO_MANY_OPEN',
    429,
    'An async simulator run was refused: the account already has the most simulator jobs queued or running at once (`details.max_open`, 16); wait for one to end or cancel one.',
  ),
  EXECUTION_TRANSLATION_FAILED: defineCode(
    'EXECUTION_TRANSLATION_FAILED',
    422,
    'The circuit cannot be translated to the device: too many qubits (for a simulator the message names the limit, `EXECUTION_SIM_MAX_QUBITS` included; `details.max_qubits`), a gate with no decomposition, mid-circuit measurement or reset not supported, or a disconnected coupling map.',
  ),
  DEVICE_DYNAMIC_CIRCUITS_UNSUPPORTED: defineCode(
    'DEVICE_DYNAMIC_CIRCUITS_UNSUPPORTED',
    422,
    'The circuit is dynamic (a gate conditioned on measured bits: a wire-format `condition`, QASM `if`) and the device cannot run dynamic circuits (only the simulators can); `details` has `device` and `op_index`, the first conditioned gate. Nothing was run or charged.',
  ),
  EXECUTION_FAULTY_QUBITS: defineCode(
    'EXECUTION_FAULTY_QUBITS',
    422,
    'The circuit needs qubits or coupled pairs the provider reports faulty (IBM: `operational` 0, or a basis two-qubit gate with `gate_error` 1): more qubits than the healthy ones, or entangled qubits connected only through faulty pairs; `details` gives `device`, `faulty_qubits`, `faulty_edges`, `healthy_qubits` and `qubits_used`. Faulty parts are never routed over; nothing was run or charged.',
  ),
  EXECUTION_TRANSLATION_UNVERIFIED: defineCode(
    'EXECUTION_TRANSLATION_UNVERIFIED',
    500,
    'The equivalence checker found the translated circuit not equivalent to the submitted one; nothing was run or charged (fail closed).',
  ),
} as const;

/**
 * Values of a failed execution job's `failure.code` that the execution machinery sets
 * (nothing is charged for a failed job: its hold is released). Not HTTP answers, so not
 * in the error catalogue; docs/execution.md lists them.
 */
export const EXECUTION_FAILURE_CODES = {
  DEVICE_OFFLINE: 'The device went offline or into maintenance before the job ran.',
  REMOTE_REJECTED: 'The remote provider refused the job (HTTP 4xx other than 401/403).',
  REMOTE_AUTH_FAILED: 'The remote provider refused the configured API key (401/403).',
  REMOTE_UNAVAILABLE: 'The remote provider kept failing (5xx, timeouts or no connection) beyond the retry limit.',
  REMOTE_SUBMISSION_UNCERTAIN: 'A submission to the remote provider timed out or was interrupted, so it may or may not have been accepted; it is never sent twice.',
  REMOTE_JOB_FAILED: 'The remote provider reports the job failed or was canceled; its own code is in the message.',
  REMOTE_MALFORMED_RESPONSE: 'The remote provider answered with a body its published API does not describe (a job, status or result we cannot read); the message quotes it.',
  REMOTE_CIRCUIT_NOT_ISA:
    "Not sent: the OpenQASM 3 text for IBM breaks a rule of the backend's instruction set (a gate outside its basis, a qubit it lacks or reports faulty, a pair outside its coupling map, an `if` on a backend without `if_else`), the checks qiskit-ibm-runtime makes before it submits; the message names the rule and line.",
  WORKER_LOST: 'The worker running the job stopped too many times.',
  HOLD_LAPSED: 'The hold was no longer pending when the job finished (it expired or was settled elsewhere).',
  EXECUTION_FAILED: 'The run failed with an unexpected error.',
  CANCELED:
    'Canceled by POST /v1/execute/{provider}/{job_id}/cancel: before it ran, or stopped while it ran (a remote run is canceled at the provider). `cost.actual` is what it consumed: 0 unless the provider ran it anyway, then its price (and its results are kept).',
} as const;

export type ExecutionFailureCode = keyof typeof EXECUTION_FAILURE_CODES;

/** The failure codes as constants (`EXECUTION_FAILURE.WORKER_LOST`). */
export const EXECUTION_FAILURE = codeNames(EXECUTION_FAILURE_CODES);
