import type { CircuitLimits } from '../../circuits/wire-format.js';
import type { CouplingSettings } from '../../coupling/analyze-coupling.js';
import type { Capability } from '../capability.js';
import { circuitAnalyze } from './circuit-analyze.js';
import { circuitOptimize } from './circuit-optimize.js';
import { circuitSimulate } from './circuit-simulate.js';
import { couplingAnalyze } from './coupling-analyze.js';
import { speechSynthesize } from './speech-synthesize.js';
import type { MediaService } from '../../media/media-service.js';

/**
 * The built-in live catalog. A capability is listed here once the domain module it calls
 * has landed (never as a stub). Provider execution joins when src/execution
 * exposes its providers.
 */
export function builtinCapabilities(o: { circuitLimits: CircuitLimits; coupling: CouplingSettings; media?: MediaService | undefined }): Capability[] {
  return [
    circuitSimulate(o.circuitLimits),
    circuitAnalyze(o.circuitLimits),
    circuitOptimize(o.circuitLimits),
    couplingAnalyze(o.circuitLimits, o.coupling),
    ...(o.media === undefined ? [] : [speechSynthesize(o.media)]),
  ] as Capability[];
}
