import type { CircuitLimits } from '../../circuits/wire-format.js';
import type { Capability } from '../capability.js';
import { circuitAnalyze } from './circuit-analyze.js';

/**
 * The built-in live catalog. A capability is listed here once the domain module it calls
 * has landed (never as a stub).
 */
export function builtinCapabilities(o: { circuitLimits: CircuitLimits }): Capability[] {
  return [circuitAnalyze(o.circuitLimits) as Capability];
}
