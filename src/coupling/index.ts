/** Coupling analysis: the public surface of the domain. */
export { analyzeCoupling, measureCircuit, DEFAULT_COUPLING_SETTINGS } from './analyze-coupling.js';
export type { CouplingDeps, CouplingMode, CouplingReport, CouplingRequest, CouplingSettings, Fallback, FinalStateFn, MeasuredReport } from './analyze-coupling.js';
export { compareCoupling, resolveQubitMap, DEFAULT_COMPARE_TOLERANCE } from './compare-coupling.js';
export type { CompareRequest, ComparedPair, CouplingComparison, PairStatus } from './compare-coupling.js';
export { COUPLING_ERRORS } from './error-codes.js';
export { measureCoupling } from './measured.js';
export type { MeasuredCoupling, MeasuredPair } from './measured.js';
export { concurrence, entropyBits } from './measures.js';
export { resolvePairs } from './pairs.js';
export { allPairs, couplingScore, qualitativeCoupling } from './qualitative.js';
export type { QualitativeCoupling, QualitativePair } from './qualitative.js';
export { reducedStates } from './reduced-states.js';
export type { Pair, PureState } from './reduced-states.js';
export { FALLBACK_REASON_CODES, planMeasured } from './scope.js';
export type { FallbackReasonCode } from './scope.js';
