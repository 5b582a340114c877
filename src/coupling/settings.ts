import { int, type Env } from '../config/env-parser.js';
import { DEFAULT_COUPLING_SETTINGS, type CouplingSettings } from './analyze-coupling.js';

/** Most qubits an operator may allow: 2^26 amplitudes are 1 GiB of state. */
export const MEASURED_MAX_QUBITS_CEILING = 26;

export interface CouplingRouteSettings extends CouplingSettings {
  readonly ratePerMinute: number;
}

/**
 * COUPLING_MEASURED_MAX_QUBITS (default 20, 1..26), COUPLING_TIME_BUDGET_MS (default 10000,
 * 1..600000), COUPLING_RATE_LIMIT_PER_MINUTE (default 120). Invalid values stop the start-up.
 */
export function couplingSettingsFromEnv(env: Env): CouplingRouteSettings {
  return Object.freeze({
    measuredMaxQubits: int(env, 'COUPLING_MEASURED_MAX_QUBITS', DEFAULT_COUPLING_SETTINGS.measuredMaxQubits, 1, MEASURED_MAX_QUBITS_CEILING),
    timeBudgetMs: int(env, 'COUPLING_TIME_BUDGET_MS', DEFAULT_COUPLING_SETTINGS.timeBudgetMs, 1, 600_000),
    ratePerMinute: int(env, 'COUPLING_RATE_LIMIT_PER_MINUTE', 120, 1, 10_000_000),
  });
}
