/** The state-vector simulator's public surface. See docs/simulator.md. */
export { simulate, finalState } from './simulate.js';
export type { SimulateOptions, SimulationResult, PureState, LimitOptions } from './simulate.js';
export { noiseFromCalibration, customNoise, relaxationParams, depolarizingForError } from './noise.js';
export type { CalibrationRecord, NoiseModel, NoiseChannel, PerQubit } from './noise.js';
export { SIMULATION_ERRORS } from './error-codes.js';
export { DEFAULT_MAX_QUBITS, DEFAULT_MAX_MEMORY_BYTES, DEFAULT_TIME_BUDGET_MS, MAX_SHOTS } from './limits.js';
export { gateMatrix } from './gate-matrices.js';
export type { DenseMatrix } from './gate-matrices.js';
export { runWorkload, registerKey, memoryFromCounts, RESULT_TYPES, MAX_MEMORY_SHOTS, MAX_MEMORY_TOTAL, MAX_STATEVECTOR_QUBITS, MAX_STATEVECTOR_POINTS } from './workload.js';
export type { ResultType, WorkloadSpec, WorkloadResult, PointResult } from './workload.js';
export { exactExpectation, estimatedExpectation, pauliExpectation } from './observables.js';
export type { PauliTerm, Expectation } from './observables.js';
export { METHODS, METHOD_RESULT_TYPES, chooseMethod, runMethod, defaultMethodLimits, firstNonClifford, mpsBondBoundLog2 } from './methods.js';
export type { Method, MethodRequest, MethodOptions, MethodLimits, MethodChoice, MethodResult } from './methods.js';
export { STABILIZER_MAX_QUBITS } from './stabilizer/simulate-stabilizer.js';
export { DENSITY_MATRIX_MAX_QUBITS } from './density-matrix/simulate-density-matrix.js';
export { MPS_MAX_QUBITS, DEFAULT_MAX_BOND_DIMENSION, MAX_BOND_DIMENSION_LIMIT } from './mps/simulate-mps.js';
export type { MpsTruncationReport } from './mps/simulate-mps.js';
