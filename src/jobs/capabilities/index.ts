import type { CircuitLimits } from '../../circuits/wire-format.js';
import type { CouplingSettings } from '../../coupling/analyze-coupling.js';
import type { Capability } from '../capability.js';
import { circuitAnalyze } from './circuit-analyze.js';
import { circuitOptimize } from './circuit-optimize.js';
import { circuitSimulate } from './circuit-simulate.js';
import { couplingAnalyze } from './coupling-analyze.js';

/**
 * The built-in live catalog. A capability is listed here once the domain module it calls
 * has landed (never as a stub). Provider execution and speech synthesis join when
 * src/execution and src/media expose their services.
 */
export function builtinCapabilities(o: { circuitLimits: CircuitLimits; coupling: CouplingSettings }): Capability[] {
  return [
    circuitSimulate(o.circuitLimits),
    circuitAnalyze(o.circuitLimits),
    circuitOptimize(o.circuitLimits),
    couplingAnalyze(o.circuitLimits, o.coupling),
  ] as Capability[];
}
