/**
 * The simulation methods a simulator device offers and each one's qubit limit on this deployment:
 * the state vector's is the device's (EXECUTION_SIM_MAX_QUBITS caps it), the others are the
 * methods' own (src/simulation/methods.ts). Listed with the device and used to check a run.
 */
import { defaultMethodLimits, METHOD_RESULT_TYPES, type Method, type MethodLimits } from '../simulation/index.js';

export function simulatorMethodLimits(statevectorQubits: number): MethodLimits {
  return defaultMethodLimits(statevectorQubits);
}

const ORDER: readonly Method[] = ['statevector', 'stabilizer', 'matrix_product_state', 'density_matrix'];

/** The device listing's `methods`: each method with its qubit limit and result types. */
export function simulatorMethodsView(statevectorQubits: number) {
  const limits = simulatorMethodLimits(statevectorQubits);
  return ORDER.map((m) => ({ method: m, max_qubits: limits[m], result_types: [...METHOD_RESULT_TYPES[m]] }));
}
