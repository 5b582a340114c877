/** The public API of the circuits domain (other modules may also import the files directly). */
export * from './ir.js';
export * from './gates.js';
export { circuitDepth } from './depth.js';
export { CIRCUITS_ERRORS, CIRCUIT_PROBLEM_CODES, type CircuitProblemCode } from './error-codes.js';
export {
  parseCircuitInput,
  requireCircuit,
  prefixProblems,
  toWire,
  DEFAULT_CIRCUIT_LIMITS,
  DEPRECATION_WARNING_V01,
  type CircuitLimits,
  type CircuitProblem,
  type InputFormat,
  type ParseCircuitResult,
} from './wire-format.js';
export * from './wire-schema.js';
export { parseQasm, type QasmParseOptions } from './qasm/parse-qasm.js';
export { toQasm2, toQasm3, formatAngle } from './qasm/export-qasm.js';
export { analyzeCircuit, tCount, zRotationKind, type AnalyzeOptions, type CircuitAnalysis, type EntangledPairsResult } from './analysis/analyze.js';
export { deviceCompatibility, providerCompatibility, type CompatDevice, type CompatStatus } from './analysis/compatibility.js';
export { interactionComponents, lightConePairs } from './analysis/entanglement.js';
export { EXAMPLE_NAMES, getExample, isExampleName, type ExampleName } from './examples.js';
