import { defineCode } from '../errors/app-error.js';

/** Error codes owned by the simulation domain. Add each new code here and to docs/errors.md. */
export const SIMULATION_ERRORS = {
  SIMULATION_INVALID_OPTIONS: defineCode('SIMULATION_INVALID_OPTIONS', 400, 'A simulation option is out of range (shots, seed, limits); `details` names the option and the accepted range.'),
  SIMULATION_UNSUPPORTED_OPERATION: defineCode(
    'SIMULATION_UNSUPPORTED_OPERATION',
    400,
    'The circuit uses a gate or operation the simulator does not know, or has the wrong number of qubits/params for it, or a malformed condition (`details[].code` BAD_CONDITION, CLBIT_OUT_OF_RANGE at `/ops/<i>/condition/...`).',
  ),
  SIMULATION_TOO_MANY_QUBITS: defineCode('SIMULATION_TOO_MANY_QUBITS', 422, 'The circuit has more qubits than the simulator limit (default 28); the message gives the limit.'),
  SIMULATION_MEMORY_LIMIT: defineCode('SIMULATION_MEMORY_LIMIT', 422, 'The run needs more memory than allowed (state vector 16 bytes per amplitude plus buffers); the message gives both figures.'),
  SIMULATION_TIME_BUDGET_EXCEEDED: defineCode('SIMULATION_TIME_BUDGET_EXCEEDED', 422, 'The run did not finish within its time budget; the message gives the budget in milliseconds.'),
  SIMULATION_NOT_UNITARY: defineCode(
    'SIMULATION_NOT_UNITARY',
    422,
    'A pure final state was asked for, but the circuit measures or resets a qubit before later operations on it, or has a conditioned gate (a dynamic circuit).',
  ),
  SIMULATION_NOT_CLIFFORD: defineCode(
    'SIMULATION_NOT_CLIFFORD',
    422,
    'The stabilizer method was asked for, but a gate is not Clifford at its parameters (rotations count when their angle is a multiple of π/2); `details[].path` names the gate and `details[].methods` the methods that can run it.',
  ),
  SIMULATION_METHOD_UNAVAILABLE: defineCode(
    'SIMULATION_METHOD_UNAVAILABLE',
    422,
    'No simulation method can take the circuit (method `auto`), or the method asked for cannot: the message names the method, its limit and, where one exists, the method that would take the circuit (`details.method`, `details.max_qubits`).',
  ),
  SIMULATION_RESULT_TYPE_UNSUPPORTED: defineCode(
    'SIMULATION_RESULT_TYPE_UNSUPPORTED',
    422,
    'The method asked for cannot return a requested result type (for example `statevector` from the stabilizer or density-matrix method); `details[].path` names it and the docs table lists what each method returns.',
  ),
} as const;
