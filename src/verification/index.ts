/** Public surface of the equivalence checker (independent of src/optimization and src/simulation). */
export type { EquivalenceMethod, EquivalenceResult, EquivalenceStats } from './equivalence-result.js';
export { unitaryEquivalent, DEFAULT_EPSILON, DEFAULT_MAX_UNITARY_QUBITS, type UnitaryOptions } from './unitary-equivalence.js';
export { pathSumEquivalent, type PathSumOptions } from './path-sum-equivalence.js';
export { verifyEquivalence, type VerifyOptions } from './verify-equivalence.js';
export { gateMatrix, knownGateNames, type CMatrix } from './gate-matrices.js';
