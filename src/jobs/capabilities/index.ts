import type { CircuitLimits } from '../../circuits/wire-format.js';
import type { CouplingSettings } from '../../coupling/analyze-coupling.js';
import type { Capability } from '../capability.js';
import { circuitAnalyze } from './circuit-analyze.js';
import { circuitOptimize } from './circuit-optimize.js';
import { circuitSimulate } from './circuit-simulate.js';
import { circuitSimulateBatch } from './circuit-simulate-batch.js';
import { couplingAnalyze } from './coupling-analyze.js';
import { speechSynthesize } from './speech-synthesize.js';
import type { MediaService } from '../../media/media-service.js';
import { providerSimulate, type ProviderSimulateOptions, type SimulatorExecution } from './provider-simulate.js';
import type { ProviderId } from '../../devices/device-catalogue.js';
import type { JobsComputePort } from '../ports.js';

/** The execution service and which providers it serves (both switched on by default). */
export interface ExecutionForJobs {
  readonly service: SimulatorExecution;
  readonly providers: readonly ProviderId[];
  readonly maxShots: ProviderSimulateOptions['maxShots'];
  readonly simMaxQubits: ProviderSimulateOptions['simMaxQubits'];
}

/**
 * The built-in live catalog. A capability is listed here once the domain module it calls
 * has landed (never as a stub). Provider simulator execution is listed for each provider
 * the deployment has switched on.
 */
export function builtinCapabilities(o: {
  circuitLimits: CircuitLimits;
  coupling: CouplingSettings;
  compute: JobsComputePort;
  media?: MediaService | undefined;
  execution?: ExecutionForJobs | undefined;
}): Capability[] {
  const ex = o.execution;
  return [
    circuitSimulate(o.circuitLimits, o.compute),
    circuitSimulateBatch(o.circuitLimits, o.compute),
    circuitAnalyze(o.circuitLimits, o.compute),
    circuitOptimize(o.circuitLimits, o.compute),
    couplingAnalyze(o.circuitLimits, o.coupling, o.compute),
    ...(o.media === undefined ? [] : [speechSynthesize(o.media)]),
    ...(ex === undefined ? [] : ex.providers.map((p) => providerSimulate(p, ex.service, { circuitLimits: o.circuitLimits, maxShots: ex.maxShots, simMaxQubits: ex.simMaxQubits }))),
  ] as Capability[];
}
